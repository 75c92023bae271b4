import TouchRouterCore

// The YAML subset that `libinput record` writes, read into raw devices and kernel events
// for RecordingDecoder (LibinputRecording.swift says what the subset is).

/// A line of the file with something on it: its indentation and its content, comments and
/// trailing spaces gone.
struct YAMLLine {
    var number: Int
    var indent: Int
    var start: Int
    var end: Int
}

struct RecordingReader {
    let bytes: [UInt8]
    let file: String
    private var next = 0
    private var number = 0
    private var current: YAMLLine?
    private var rawEvents = 0

    init(bytes: [UInt8], file: String) {
        self.bytes = bytes
        self.file = file
    }

    // Lines

    func location(_ line: YAMLLine, at offset: Int? = nil) -> SourceLocation {
        SourceLocation(file: file, line: line.number, column: column(line, offset ?? line.start))
    }

    /// Columns count Unicode scalars from 1.
    func column(_ line: YAMLLine, _ offset: Int) -> Int {
        var start = offset
        while start > 0, bytes[start - 1] != UInt8(ascii: "\n") { start -= 1 }
        var column = 1
        for i in start..<offset where bytes[i] & 0xC0 != 0x80 { column += 1 }
        return column
    }

    func text(_ line: YAMLLine) -> String { String(decoding: bytes[line.start..<line.end], as: UTF8.self) }

    /// The next line with content, without taking it.
    mutating func peek() throws(InputFileError) -> YAMLLine? {
        if let current { return current }
        while next < bytes.count {
            var end = next
            while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
            let start = next
            next = end + 1
            number += 1
            var i = start
            while i < end, bytes[i] == UInt8(ascii: " ") { i += 1 }
            if i < end, bytes[i] == UInt8(ascii: "\t") {
                throw InputFileError(SourceLocation(file: file, line: number, column: i - start + 1),
                                     "expected spaces for indentation, found a tab (YAML does not indent with tabs)")
            }
            // A comment starts at a "#" at the line's start or after a space, outside quotes.
            var contentEnd = i
            var quote: UInt8?
            var k = i
            while k < end {
                let byte = bytes[k]
                if let q = quote {
                    if byte == q { quote = nil }
                } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                    quote = byte
                } else if byte == UInt8(ascii: "#"), k == i || bytes[k - 1] == UInt8(ascii: " ") || bytes[k - 1] == UInt8(ascii: "\t") {
                    break
                }
                k += 1
            }
            contentEnd = k
            while contentEnd > i, [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r")].contains(bytes[contentEnd - 1]) { contentEnd -= 1 }
            if contentEnd == i { continue }
            if i == start, bytes[i] == UInt8(ascii: "-"), contentEnd - i >= 3, bytes[i + 1] == UInt8(ascii: "-"), bytes[i + 2] == UInt8(ascii: "-") {
                continue // a document marker
            }
            current = YAMLLine(number: number, indent: i - start, start: i, end: contentEnd)
            return current
        }
        return nil
    }

    mutating func take() { current = nil }

    /// The end of the file, as a location for "expected … but the file ends".
    var endLocation: SourceLocation { SourceLocation(file: file, line: max(number, 1), column: 1) }

    func isListItem(_ line: YAMLLine) -> Bool {
        bytes[line.start] == UInt8(ascii: "-") && (line.end == line.start + 1 || bytes[line.start + 1] == UInt8(ascii: " "))
    }

    /// `key: value` or `key:`; nil when the line is not a mapping entry.
    func keyValue(_ line: YAMLLine) -> (key: String, value: YAMLLine?)? {
        var i = line.start
        var quote: UInt8?
        while i < line.end {
            let byte = bytes[i]
            if let q = quote {
                if byte == q { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") {
                return nil
            } else if byte == UInt8(ascii: ":"), i + 1 == line.end || bytes[i + 1] == UInt8(ascii: " ") {
                var key = String(decoding: bytes[line.start..<i], as: UTF8.self)
                if key.count >= 2, let first = key.first, first == "\"" || first == "'", key.last == first { key = String(key.dropFirst().dropLast()) }
                var v = i + 1
                while v < line.end, bytes[v] == UInt8(ascii: " ") { v += 1 }
                return (key, v < line.end ? YAMLLine(number: line.number, indent: line.indent, start: v, end: line.end) : nil)
            }
            i += 1
        }
        return nil
    }

    // Structure

    /// The lines of a mapping at `indent`, each given to `entry` with its key and inline value.
    mutating func mapping(indent: Int, _ entry: (inout RecordingReader, String, YAMLLine, YAMLLine?) throws(InputFileError) -> Void) throws(InputFileError) {
        while let line = try peek(), line.indent >= indent {
            guard line.indent == indent else {
                throw InputFileError(location(line), "expected a key at column \(indent + 1) (the mapping's indentation), found \"\(text(line))\" indented to column \(line.indent + 1)")
            }
            if isListItem(line) {
                throw InputFileError(location(line), "expected KEY: VALUE in this mapping, found a list item \"\(text(line))\"")
            }
            guard let (key, value) = keyValue(line) else {
                throw InputFileError(location(line), "expected KEY: VALUE, found \"\(text(line))\"")
            }
            take()
            try entry(&self, key, line, value)
        }
    }

    /// The indentation of the block below a key at `indent`: its lines are indented further,
    /// or, for a list, may start at the key's own column.
    mutating func blockIndent(below indent: Int) throws(InputFileError) -> Int? {
        guard let line = try peek() else { return nil }
        if line.indent > indent || (line.indent == indent && isListItem(line)) { return line.indent }
        return nil
    }

    /// Skips whatever lies below a key at `indent`.
    mutating func skipBlock(below indent: Int) throws(InputFileError) {
        while let line = try peek(), line.indent > indent || (line.indent == indent && isListItem(line)) { take() }
    }

    /// A mapping below a key at `keyLine`; nothing there is an error naming `what`.
    mutating func childMapping(of keyLine: YAMLLine, what: String, _ entry: (inout RecordingReader, String, YAMLLine, YAMLLine?) throws(InputFileError) -> Void) throws(InputFileError) {
        guard let indent = try blockIndent(below: keyLine.indent), let first = try peek() else {
            throw InputFileError(try peek().map { location($0) } ?? endLocation, "expected \(what) below \"\(text(keyLine))\" (line \(keyLine.number)), indented further")
        }
        if isListItem(first) { throw InputFileError(location(first), "expected \(what) (KEY: VALUE lines), found a list item \"\(text(first))\"") }
        try mapping(indent: indent, entry)
    }

    /// The items of a list below a key at `keyLine`. An item `- KEY: VALUE` is given as a
    /// mapping line at the indentation of its key, so `item` can read it with `mapping`.
    mutating func childList(of keyLine: YAMLLine, what: String, _ item: (inout RecordingReader, YAMLLine) throws(InputFileError) -> Void) throws(InputFileError) {
        guard let indent = try blockIndent(below: keyLine.indent) else { return }
        while let line = try peek(), line.indent >= indent {
            guard line.indent == indent, isListItem(line) else {
                throw InputFileError(location(line), "expected a list item (\"- …\") of \(what) at column \(indent + 1), found \"\(text(line))\"")
            }
            var start = line.start + 1
            while start < line.end, bytes[start] == UInt8(ascii: " ") { start += 1 }
            guard start < line.end else {
                throw InputFileError(location(line), "expected an entry of \(what) after \"-\" on the same line")
            }
            // The item's content as its own line, at its column.
            let inner = YAMLLine(number: line.number, indent: line.indent + (start - line.start), start: start, end: line.end)
            if keyValue(inner) != nil {
                current = inner
                try item(&self, inner)
                if let left = current, left.start == inner.start, left.number == inner.number { take() }
            } else {
                take()
                try item(&self, inner)
            }
        }
    }

    // Values

    func scalar(_ value: YAMLLine?) -> String {
        guard let value else { return "" }
        var s = text(value)
        if s.count >= 2, let first = s.first, first == "\"" || first == "'", s.last == first { s = String(s.dropFirst().dropLast()) }
        return s
    }

    /// A flow list of whole numbers on one line, each within `range`.
    func numbers(_ value: YAMLLine?, of keyLine: YAMLLine, what: String, range: ClosedRange<Int64>) throws(InputFileError) -> [Int64] {
        guard let value else {
            throw InputFileError(location(keyLine, at: keyLine.end), "expected \(what) as a list [a, b, …] on the same line")
        }
        guard bytes[value.start] == UInt8(ascii: "[") else {
            throw InputFileError(location(value), "expected \(what) as a list [a, b, …], found \"\(text(value))\"")
        }
        guard bytes[value.end - 1] == UInt8(ascii: "]") else {
            throw InputFileError(location(value, at: value.end), "expected \"]\" to close the list of \(what) on the same line")
        }
        var result: [Int64] = []
        var i = value.start + 1
        let end = value.end - 1
        while i < end {
            while i < end, bytes[i] == UInt8(ascii: " ") { i += 1 }
            if i == end, result.isEmpty { break }
            let start = i
            while i < end, bytes[i] != UInt8(ascii: ","), bytes[i] != UInt8(ascii: " ") { i += 1 }
            let word = String(decoding: bytes[start..<i], as: UTF8.self)
            // Int64(_:) refuses what does not fit instead of trapping.
            guard let n = Int64(word) else {
                throw InputFileError(location(value, at: start), "expected a whole number in \(what), found \"\(word.isEmpty ? "," : word)\"")
            }
            guard range.contains(n) else {
                throw InputFileError(location(value, at: start), "\(what): \(n) is out of range: expected \(range.lowerBound) to \(range.upperBound)")
            }
            result.append(n)
            while i < end, bytes[i] == UInt8(ascii: " ") { i += 1 }
            if i < end {
                guard bytes[i] == UInt8(ascii: ",") else {
                    throw InputFileError(location(value, at: i), "expected \",\" or \"]\" in the list of \(what)")
                }
                i += 1
            }
        }
        return result
    }

    // The recording

    mutating func readRecording() throws(InputFileError) -> [RawDevice] {
        var devices: [RawDevice] = []
        var sawDevices = false
        guard try peek() != nil else { throw InputFileError(endLocation, "expected a libinput recording (version: 1, devices: …), found an empty file") }
        try mapping(indent: 0) { (reader: inout RecordingReader, key: String, line: YAMLLine, value: YAMLLine?) throws(InputFileError) in
            switch key {
            case "version":
                let version = reader.scalar(value)
                guard version == "1" else {
                    throw InputFileError(reader.location(value ?? line, at: value?.start ?? line.end), "expected version 1 (the only format libinput record writes), found \"\(version)\"")
                }
            case "devices":
                sawDevices = true
                if let value { throw InputFileError(reader.location(value), "expected the list of devices on the lines below \"devices:\", found \"\(reader.text(value))\"") }
                try reader.childList(of: line, what: "devices") { (reader: inout RecordingReader, item: YAMLLine) throws(InputFileError) in
                    guard devices.count < InputLimits.recordingDevices else {
                        throw InputFileError(reader.location(item), "a recording holds at most \(InputLimits.recordingDevices) devices (InputLimits.recordingDevices)")
                    }
                    devices.append(try reader.readDevice(item))
                }
            default:
                try reader.skipBlock(below: line.indent)
            }
        }
        if let line = try peek() {
            throw InputFileError(location(line), "expected a top-level key at column 1, found \"\(text(line))\"")
        }
        guard sawDevices else { throw InputFileError(endLocation, "expected a \"devices:\" list, but the file ends without one") }
        guard !devices.isEmpty else { throw InputFileError(endLocation, "expected at least one device in \"devices:\"") }
        return devices
    }

    mutating func readDevice(_ item: YAMLLine) throws(InputFileError) -> RawDevice {
        guard keyValue(item) != nil else {
            throw InputFileError(location(item), "expected a device (\"- node: /dev/input/eventN\" and its evdev:, events: …), found \"\(text(item))\"")
        }
        var device = RawDevice(location: location(item))
        try mapping(indent: item.indent) { (reader: inout RecordingReader, key: String, line: YAMLLine, value: YAMLLine?) throws(InputFileError) in
            switch key {
            case "node": device.node = reader.scalar(value)
            case "evdev":
                try reader.childMapping(of: line, what: "the device's evdev description") { (reader: inout RecordingReader, key: String, line: YAMLLine, value: YAMLLine?) throws(InputFileError) in
                    try reader.readEvdev(key, line, value, into: &device)
                }
                device.hasDescription = true
            case "udev":
                try reader.childMapping(of: line, what: "the device's udev description") { (reader: inout RecordingReader, key: String, line: YAMLLine, value: YAMLLine?) throws(InputFileError) in
                    guard key == "properties" else { return try reader.skipBlock(below: line.indent) }
                    try reader.childList(of: line, what: "udev properties") { (reader: inout RecordingReader, item: YAMLLine) throws(InputFileError) in
                        let property = reader.scalar(item)
                        guard let equals = property.firstIndex(of: "=") else {
                            throw InputFileError(reader.location(item), "expected a udev property NAME=VALUE, found \"\(property)\"")
                        }
                        device.udev[String(property[..<equals])] = String(property[property.index(after: equals)...])
                    }
                }
            case "events":
                guard device.hasDescription else {
                    throw InputFileError(reader.location(line), "expected the device's \"evdev:\" description before its \"events:\"")
                }
                try reader.childList(of: line, what: "events") { (reader: inout RecordingReader, item: YAMLLine) throws(InputFileError) in
                    guard reader.keyValue(item) != nil else {
                        throw InputFileError(reader.location(item), "expected an event entry (\"- evdev:\" and its frames), found \"\(reader.text(item))\"")
                    }
                    try reader.mapping(indent: item.indent) { (reader: inout RecordingReader, key: String, line: YAMLLine, value: YAMLLine?) throws(InputFileError) in
                        guard key == "evdev" else { return try reader.skipBlock(below: line.indent) }
                        try reader.childList(of: line, what: "evdev frames") { (reader: inout RecordingReader, frame: YAMLLine) throws(InputFileError) in
                            device.events.append(try reader.readFrame(frame))
                        }
                    }
                }
            default:
                try reader.skipBlock(below: line.indent)
            }
        }
        guard device.hasDescription else {
            throw InputFileError(device.location, "expected an \"evdev:\" description in this device (name, codes, absinfo)")
        }
        return device
    }

    mutating func readEvdev(_ key: String, _ line: YAMLLine, _ value: YAMLLine?, into device: inout RawDevice) throws(InputFileError) {
        switch key {
        case "name": device.name = scalar(value)
        case "codes":
            try childMapping(of: line, what: "the device's codes (TYPE: [CODE, …])") { (reader: inout RecordingReader, key: String, line: YAMLLine, value: YAMLLine?) throws(InputFileError) in
                guard let type = Int(key), (0...Evdev.typeMax).contains(type) else {
                    throw InputFileError(reader.location(line), "expected an event type from 0 to \(Evdev.typeMax) as the key, found \"\(key)\"")
                }
                device.codes[type] = Set(try reader.numbers(value, of: line, what: "the codes of event type \(type)", range: 0...Int64(Evdev.codeMax)).map { Int($0) })
            }
        case "absinfo":
            try childMapping(of: line, what: "the device's absinfo (CODE: [min, max, fuzz, flat, resolution])") { (reader: inout RecordingReader, key: String, line: YAMLLine, value: YAMLLine?) throws(InputFileError) in
                guard let code = Int(key), (0...Evdev.absMax).contains(code) else {
                    throw InputFileError(reader.location(line), "expected an ABS code from 0 to \(Evdev.absMax) as the key, found \"\(key)\"")
                }
                let info = try reader.numbers(value, of: line, what: "absinfo \(code)", range: Int64(Int32.min)...Int64(Int32.max))
                guard info.count == 5 else {
                    throw InputFileError(reader.location(value ?? line), "expected 5 numbers [min, max, fuzz, flat, resolution] for absinfo \(code), found \(info.count)")
                }
                guard info[0] <= info[1] else {
                    throw InputFileError(reader.location(value ?? line), "absinfo \(code): expected a minimum no greater than the maximum, found [\(info[0]), \(info[1])]")
                }
                device.absinfo[code] = info.map { Int32($0) }
            }
        case "properties":
            device.properties = Set(try numbers(value, of: line, what: "the input properties", range: 0...31).map { Int($0) })
        default:
            try skipBlock(below: line.indent)
        }
    }

    /// `[sec, usec, type, code, value]`.
    mutating func readFrame(_ frame: YAMLLine) throws(InputFileError) -> RawEvent {
        rawEvents += 1
        guard rawEvents <= InputLimits.recordingEvents else {
            throw InputFileError(location(frame), "a recording holds at most \(InputLimits.recordingEvents) kernel events (InputLimits.recordingEvents)")
        }
        let n = try numbers(frame, of: frame, what: "an evdev frame [sec, usec, type, code, value]", range: Int64(Int32.min)...Int64(UInt32.max))
        guard n.count == 5 else {
            throw InputFileError(location(frame), "expected 5 numbers in an evdev frame [sec, usec, type, code, value], found \(n.count)")
        }
        func check(_ i: Int, _ name: String, _ range: ClosedRange<Int64>) throws(InputFileError) {
            guard range.contains(n[i]) else {
                throw InputFileError(location(frame), "the frame's \(name) \(n[i]) is out of range: expected \(range.lowerBound) to \(range.upperBound)")
            }
        }
        try check(0, "seconds", 0...InputLimits.recordingSeconds)
        try check(1, "microseconds", 0...999_999)
        try check(2, "event type", 0...Int64(Evdev.typeMax))
        try check(3, "event code", 0...Int64(Evdev.codeMax))
        try check(4, "value", Int64(Int32.min)...Int64(Int32.max))
        guard [Evdev.syn, Evdev.key, Evdev.rel, Evdev.abs, Evdev.msc, Evdev.sw, Evdev.led, Evdev.snd, Evdev.rep, Evdev.ff, Evdev.pwr, Evdev.ffStatus].contains(Int(n[2])) else {
            throw InputFileError(location(frame), "unknown event type \(n[2]): expected one of linux/input-event-codes.h's EV_ types (EV_SYN 0, EV_KEY 1, EV_REL 2, EV_ABS 3, EV_MSC 4, EV_SW 5, …)")
        }
        return RawEvent(microseconds: n[0] * 1_000_000 + n[1], type: UInt16(n[2]), code: UInt16(n[3]), value: Int32(n[4]), line: Int32(clamping: frame.number))
    }
}
