import TouchRouterCore

/// An input script: one timed line each, `TIME WORDS…`, TIME in milliseconds from the
/// start (`16.5`) or after the previous line (`+16`). `#` starts a comment.
///
/// Besides the events of `EventSyntax`, a line can act as the compositor would:
///
///     focus NAME | focus none
///     ignore-interaction begin | ignore-interaction end
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

    public static func parse(_ text: String, file: String) throws(InputFileError) -> Script {
        var lines: [Line] = []
        var previous = RouterTime.zero
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let content = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let words = content.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            guard let first = words.first else { continue }
            func location(_ word: Int) -> SourceLocation {
                let column = word < words.count ? raw.distance(from: raw.startIndex, to: words[word].startIndex) + 1 : raw.count + 1
                return SourceLocation(file: file, line: number + 1, column: column)
            }
            let relative = first.hasPrefix("+")
            let digits = relative ? first.dropFirst() : first[...]
            guard let milliseconds = Double(digits.hasSuffix("ms") ? digits.dropLast(2) : digits), milliseconds.isFinite, milliseconds >= 0 else {
                throw InputFileError(location(0), "expected a time in milliseconds (\"12.5\" or \"+16\") at the start of the line, found \"\(first)\"")
            }
            let time = relative ? RouterTime(nanoseconds: previous.nanoseconds + RouterTime.milliseconds(milliseconds).nanoseconds) : .milliseconds(milliseconds)
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
