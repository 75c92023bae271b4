import TouchRouterCore

/// An input script: one timed line each, `TIME WORDS…`, TIME in milliseconds from the
/// start (`16.5`) or after the previous line (`+16`). `#` starts a comment.
///
/// Besides the events of `EventSyntax`, a line can act as the compositor would:
///
///     focus NAME | focus none
///     ignore-interaction begin | ignore-interaction end
///     wait                     (time passes: recognizers' deadlines and the hold limit run out)
///     scene remove NAME | scene move NAME X Y | scene resize NAME W H
///     scene raise NAME | scene lower NAME | scene place NAME above|below SIBLING
///     scene set NAME hidden|mapped|interaction|accepts-focus|exclusive-touch|multiple-touch true|false
///     scene set NAME opacity VALUE
///     scene region NAME none | scene region NAME X Y W H [X Y W H …]
public struct Script: Sendable {
    public var lines: [Line]

    public struct Line: Sendable {
        public var time: RouterTime
        public var action: Action
        public var location: SourceLocation
        public var text: String
    }

    public enum Action: Sendable {
        case event(InputEvent)
        case focus(String?)
        case ignoreInteraction(begin: Bool)
        /// Nothing but time passing.
        case wait
        case scene(SceneEdit)
    }

    public enum SceneEdit: Sendable {
        case remove(String)
        case move(String, Offset)
        case resize(String, Size)
        case raise(String)
        case lower(String)
        case place(String, above: Bool, sibling: String)
        case set(String, SurfaceFlag, Double)
        case region(String, Region<SurfaceSpace>?)
    }

    public enum SurfaceFlag: String, Sendable, CaseIterable {
        case hidden, mapped, interaction, opacity
        case acceptsFocus = "accepts-focus", exclusiveTouch = "exclusive-touch", multipleTouch = "multiple-touch"
    }

    /// Parses a script's text. The limits of `InputLimits` apply: file size, times,
    /// touches down at once, rectangles in a `scene region` line.
    public static func parse(_ text: String, file: String) throws(InputFileError) -> Script {
        let bytes = Array(text.utf8)
        if bytes.count > InputLimits.fileBytes { return try parse(bytes: bytes, file: file) }
        var lines: [Line] = []
        var previous = RouterTime.zero
        var liveTouches = Set<TouchID>()
        var number = 0
        var lineStart = 0
        while lineStart <= bytes.count {
            // One line, read as bytes: "\n" ends it, and a "\r" before it is space.
            var lineEnd = lineStart
            while lineEnd < bytes.count, bytes[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
            defer { lineStart = lineEnd + 1 }
            number += 1
            var contentEnd = lineStart
            while contentEnd < lineEnd, bytes[contentEnd] != UInt8(ascii: "#") { contentEnd += 1 }
            // Each word with its column, counted in Unicode scalars from 1.
            var words: [Substring] = []
            var columns: [Int] = []
            var column = 1
            var i = lineStart
            while i < contentEnd {
                let byte = bytes[i]
                if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") {
                    i += 1
                    column += 1
                    continue
                }
                let start = i, startColumn = column
                while i < contentEnd, bytes[i] != UInt8(ascii: " "), bytes[i] != UInt8(ascii: "\t"), bytes[i] != UInt8(ascii: "\r") {
                    if bytes[i] & 0xC0 != 0x80 { column += 1 }
                    i += 1
                }
                words.append(Substring(String(decoding: bytes[start..<i], as: UTF8.self)))
                columns.append(startColumn)
            }
            guard let first = words.first else { continue }
            let lineNumber = number
            func location(_ word: Int) -> SourceLocation {
                SourceLocation(file: file, line: lineNumber, column: word < words.count ? columns[word] : column)
            }
            let relative = first.hasPrefix("+")
            let digits = relative ? first.dropFirst() : first[...]
            guard let milliseconds = Double(digits.hasSuffix("ms") ? digits.dropLast(2) : digits), milliseconds.isFinite, milliseconds >= 0 else {
                throw InputFileError(location(0), "expected a time in milliseconds (\"12.5\" or \"+16\") at the start of the line, found \"\(first)\"")
            }
            // Checked before any conversion: 10^12 ms is 10^18 ns, and the sum of two stays within Int64.
            let limit = InputLimits.scriptMilliseconds
            guard milliseconds <= limit else {
                throw InputFileError(location(0), "time \(first) ms is past the limit of \(limit.formatted) ms for script times (InputLimits.scriptMilliseconds)")
            }
            let time = relative ? RouterTime(nanoseconds: previous.nanoseconds + RouterTime.milliseconds(milliseconds).nanoseconds) : .milliseconds(milliseconds)
            guard time.nanoseconds <= RouterTime.milliseconds(limit).nanoseconds else {
                throw InputFileError(location(0), "time \(first) ms after the previous line's \(previous.nanoseconds / 1_000_000) ms goes past the limit of \(limit.formatted) ms for script times (InputLimits.scriptMilliseconds)")
            }
            guard time >= previous else {
                throw InputFileError(location(0), "time \(first) ms goes back before the previous line's \(previous.nanoseconds / 1_000_000) ms; lines must be in time order")
            }
            previous = time
            let rest = Array(words.dropFirst())
            guard !rest.isEmpty else { throw InputFileError(location(1), "expected an event or an action after the time") }
            let action: Action
            do {
                action = try parseAction(rest, time: time)
            } catch {
                throw InputFileError(location(error.wordIndex + 1), error.message)
            }
            // Touches down at once, as the router will hold them: a second down for a live
            // id is dropped, up and cancel end one, removing the device ends all.
            if case .event(let event) = action {
                switch event {
                case .touchDown(_, _, let id, _):
                    liveTouches.insert(id)
                    guard liveTouches.count <= InputLimits.liveTouches else {
                        throw InputFileError(location(3), "touch \(id.raw) would be the \(liveTouches.count)th touch down at once, past the limit of \(InputLimits.liveTouches) (InputLimits.liveTouches); lift one first")
                    }
                case .touchUp(_, _, let id), .touchCancel(_, _, let id): liveTouches.remove(id)
                case .deviceRemoved(let device, _) where device == DeviceID(0): liveTouches.removeAll()
                default: break
                }
            }
            lines.append(Line(time: time, action: action, location: location(0), text: rest.joined(separator: " ")))
        }
        return Script(lines: lines)
    }

    static func parseAction(_ words: [Substring], time: RouterTime) throws(EventSyntaxError) -> Action {
        func name(_ i: Int) throws(EventSyntaxError) -> String {
            guard i < words.count else { throw EventSyntaxError(wordIndex: i, message: "expected a surface name after \"\(words.joined(separator: " "))\"") }
            return String(words[i])
        }
        func int(_ i: Int, _ what: String) throws(EventSyntaxError) -> Int {
            guard i < words.count else { throw EventSyntaxError(wordIndex: i, message: "expected \(what) after \"\(words.joined(separator: " "))\"") }
            guard let value = Int(words[i]), abs(value) <= Int(Int32.max) else { throw EventSyntaxError(wordIndex: i, message: "expected a whole number for \(what), found \"\(words[i])\"") }
            return value
        }
        func end(_ count: Int) throws(EventSyntaxError) {
            guard words.count <= count else { throw EventSyntaxError(wordIndex: count, message: "expected the end of the line, found \"\(words[count...].joined(separator: " "))\"") }
        }
        switch words[0] {
        case "wait":
            try end(1)
            return .wait
        case "focus":
            let target = try name(1)
            try end(2)
            return .focus(target == "none" ? nil : target)
        case "ignore-interaction":
            guard words.count > 1, words[1] == "begin" || words[1] == "end" else {
                throw EventSyntaxError(wordIndex: 1, message: "expected begin or end after ignore-interaction")
            }
            try end(2)
            return .ignoreInteraction(begin: words[1] == "begin")
        case "scene":
            guard words.count > 1 else { throw EventSyntaxError(wordIndex: 1, message: "expected remove, move, resize, raise, lower, place, set or region after scene") }
            let surface = try name(2)
            switch words[1] {
            case "remove": try end(3); return .scene(.remove(surface))
            case "raise": try end(3); return .scene(.raise(surface))
            case "lower": try end(3); return .scene(.lower(surface))
            case "move":
                let x = try int(3, "x"), y = try int(4, "y")
                try end(5)
                return .scene(.move(surface, Offset(dx: x, dy: y)))
            case "resize":
                let w = try int(3, "the width"), h = try int(4, "the height")
                guard w >= 0, h >= 0 else { throw EventSyntaxError(wordIndex: 3, message: "expected a width and height of 0 or more") }
                try end(5)
                return .scene(.resize(surface, Size(width: w, height: h)))
            case "place":
                guard words.count > 3, words[3] == "above" || words[3] == "below" else {
                    throw EventSyntaxError(wordIndex: 3, message: "expected above or below after scene place \(surface)")
                }
                let sibling = try name(4)
                try end(5)
                return .scene(.place(surface, above: words[3] == "above", sibling: sibling))
            case "set":
                guard words.count > 3, let flag = SurfaceFlag(rawValue: String(words[3])) else {
                    throw EventSyntaxError(wordIndex: 3, message: "expected one of \(SurfaceFlag.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                guard words.count > 4 else { throw EventSyntaxError(wordIndex: 4, message: "expected a value for \(flag.rawValue)") }
                let value: Double
                if flag == .opacity {
                    guard let number = Double(words[4]), (0...1).contains(number) else {
                        throw EventSyntaxError(wordIndex: 4, message: "expected an opacity from 0 to 1, found \"\(words[4])\"")
                    }
                    value = number
                } else {
                    guard words[4] == "true" || words[4] == "false" else {
                        throw EventSyntaxError(wordIndex: 4, message: "expected true or false, found \"\(words[4])\"")
                    }
                    value = words[4] == "true" ? 1 : 0
                }
                try end(5)
                return .scene(.set(surface, flag, value))
            case "region":
                if words.count == 4, words[3] == "none" { return .scene(.region(surface, nil)) }
                guard words.count > 3, (words.count - 3) % 4 == 0 else {
                    throw EventSyntaxError(wordIndex: words.count, message: "expected none or groups of four numbers X Y W H")
                }
                guard (words.count - 3) / 4 <= InputLimits.regionRectangles else {
                    throw EventSyntaxError(wordIndex: 3 + 4 * InputLimits.regionRectangles, message: "a region may list at most \(InputLimits.regionRectangles) rectangles (InputLimits.regionRectangles)")
                }
                var region = Region<SurfaceSpace>()
                var i = 3
                while i < words.count {
                    let x = try int(i, "x"), y = try int(i + 1, "y"), w = try int(i + 2, "the width"), h = try int(i + 3, "the height")
                    guard w >= 0, h >= 0 else { throw EventSyntaxError(wordIndex: i + 2, message: "expected a width and height of 0 or more") }
                    region.add(Rect(x: x, y: y, width: w, height: h))
                    i += 4
                }
                return .scene(.region(surface, region))
            default:
                throw EventSyntaxError(wordIndex: 1, message: "expected remove, move, resize, raise, lower, place, set or region, found \"\(words[1])\"")
            }
        default:
            return .event(try EventSyntax.parse(words, time: time))
        }
    }
}
