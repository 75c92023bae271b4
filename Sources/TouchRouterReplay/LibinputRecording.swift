import TouchRouterCore

/// A recording made by `libinput record` (libinput-tools; its man page describes the YAML),
/// decoded into the core's events as the live libinput backend would produce them from the
/// same kernel frames: the emulation follows libinput 1.22's fallback dispatch
/// (evdev-fallback.c), which serves touchscreens, keyboards and mice.
///
/// - Multitouch protocol B: `ABS_MT_SLOT` picks a slot, `ABS_MT_TRACKING_ID` ≥ 0 begins a
///   touch and -1 ends it, `ABS_MT_POSITION_X/Y` move it; `SYN_REPORT` flushes the dirty slots
///   in slot order as down, motion and up, then a touch frame if the last dirty slot sent
///   something (as libinput does). A touch's id is its seat slot, the lowest one free across
///   the recording's devices, as libinput gives it; libinput's hysteresis (fuzz / 2, from
///   the kernel or udev's LIBINPUT_FUZZ_35/36) and palm cancelling (`ABS_MT_TOOL_TYPE` 2)
///   are followed. Positions are normalized by the device's absinfo as libinput does
///   ((v - min) / (max - min + 1)) and mapped with `TouchMapping` onto the caller's rectangle,
///   through udev's LIBINPUT_CALIBRATION_MATRIX when the recording has it.
/// - Keys: `EV_KEY` 1 and 0 for keys (libinput's key ranges), repeats (2), presses of keys
///   already down and releases of keys not down ignored; `BTN_TOUCH` and `BTN_TOOL_*` ignored.
///   They are sent as they are read, before the frame's touches, as libinput does.
/// - Pointer: `REL_X`/`REL_Y` summed over a frame as one relative motion, *unaccelerated*
///   (libinput applies its acceleration profile, which this does not); buttons (`BTN_LEFT`…)
///   at the frame's end, without libinput's debouncing; `REL_WHEEL`/`REL_HWHEEL` as wheel
///   axis events of 15° per click with their clicks as `discrete` (the vertical axis
///   inverted, as libinput does), `REL_WHEEL_HI_RES` per frame where the device has it
///   (without libinput's accumulation of small hi-res movements).
///
/// Not decoded, and said in `notes`: touchpads, tablets and their pads, single-touch and
/// protocol-A touchscreens, switches, absolute pointers; the recording's `hid:` and
/// `libinput:` entries are skipped.
///
/// Each device gets its own `DeviceID` (from `firstDevice`, as the live backend numbers them)
/// and a `deviceAdded` event at time zero; then every device's events in time order. Times
/// are the frames' own, in µs, relative to the recording's start.
///
/// The reader takes the subset of YAML that `libinput record` writes (block mappings and
/// lists, one-line flow lists, plain and quoted scalars, comments). A malformed file gets an
/// `InputFileError` naming the file, line and column and what was expected there; the limits
/// of `InputLimits` hold (file size, UTF-8, devices, raw events, slots), and every number is
/// range-checked where it is read.
public struct LibinputRecording: Sendable {
    public struct Device: Sendable {
        public var id: DeviceID
        public var name: String
        public var node: String?
        public var capabilities: DeviceCapabilities
        /// Where its entry in `devices:` starts.
        public var location: SourceLocation
    }

    public var devices: [Device]
    /// Every device's `deviceAdded`, then the decoded events in time order.
    public var events: [InputEvent]
    /// What was in the recording but not decoded, one sentence each, naming the line.
    public var notes: [String]
    /// Each event's source line: the raw frame whose `SYN_REPORT` (or key) produced it.
    public var locations: [SourceLocation]

    /// The events as an input script, for `Replay`.
    public var script: Script {
        Script(lines: zip(events, locations).map { event, location in
            Script.Line(time: event.time, action: .event(event), location: location, text: EventSyntax.format(event))
        })
    }

    /// Reads a recording's bytes: size and UTF-8 checked first (`InputText`), then parsed.
    public static func parse(bytes: [UInt8], file: String, area: Rect<GlobalSpace>, firstDevice: UInt32 = 1000,
                             mapping: ((Device) -> TouchMapping)? = nil) throws(InputFileError) -> LibinputRecording {
        try parse(try InputText.decode(bytes, file: file, what: "recording"), file: file, area: area, firstDevice: firstDevice, mapping: mapping)
    }

    /// Parses and decodes a recording's text. `area` is the rectangle touchscreens drive
    /// (the live backend's `absoluteArea`); `mapping`, when given, chooses a touchscreen's
    /// mapping instead, as the session's `[[touchscreen]]` tables do.
    public static func parse(_ text: String, file: String, area: Rect<GlobalSpace>, firstDevice: UInt32 = 1000,
                             mapping: ((Device) -> TouchMapping)? = nil) throws(InputFileError) -> LibinputRecording {
        let bytes = Array(text.utf8)
        if bytes.count > InputLimits.fileBytes { _ = try InputText.decode(bytes, file: file, what: "recording") }
        var reader = RecordingReader(bytes: bytes, file: file)
        let parsed = try reader.readRecording()
        return try Decoder(parsed: parsed, file: file, area: area, firstDevice: firstDevice, mapping: mapping).decode()
    }
}

// MARK: - The raw recording

/// One kernel event, as a recording lists it.
struct RawEvent {
    var microseconds: Int64
    var type: UInt16
    var code: UInt16
    var value: Int32
    var line: Int32
}

struct RawDevice {
    var location: SourceLocation
    var node: String?
    var name: String?
    /// Event type → its codes.
    var codes: [Int: Set<Int>] = [:]
    /// ABS code → [min, max, fuzz, flat, resolution].
    var absinfo: [Int: [Int32]] = [:]
    var properties: Set<Int> = []
    var udev: [String: String] = [:]
    var hasDescription = false
    var events: [RawEvent] = []
}

// MARK: - Reading the YAML subset

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

/// linux/input-event-codes.h, what the decoder needs.
enum Evdev {
    static let syn = 0, key = 1, rel = 2, abs = 3, msc = 4, sw = 5, led = 0x11, snd = 0x12, rep = 0x14, ff = 0x15, pwr = 0x16, ffStatus = 0x17
    static let typeMax = 0x1f, codeMax = 0x2ff, absMax = 0x3f
    static let synReport = 0
    static let relX = 0, relY = 1, relHWheel = 6, relWheel = 8, relWheelHiRes = 11, relHWheelHiRes = 12
    static let absX = 0, absY = 1, absMTSlot = 0x2f, absMTPositionX = 0x35, absMTPositionY = 0x36, absMTToolType = 0x37, absMTTrackingID = 0x39
    static let btnLeft = 0x110, btnTouch = 0x14a
    static let propDirect = 1
    static let mtToolPalm: Int32 = 2

    enum KeyType { case none, key, button }

    /// libinput's get_key_type.
    static func keyType(_ code: Int) -> KeyType {
        switch code {
        case 0x140...0x148, 0x14a, 0x14d...0x14f: return .none // BTN_TOOL_*, BTN_TOUCH
        case 1...248: return .key // KEY_ESC…KEY_MICMUTE
        case 0x100...0x151: return .button // BTN_MISC…BTN_GEAR_UP
        case 0x160...0x21e: return .key // KEY_OK…KEY_LIGHTS_TOGGLE
        case 0x220...0x223: return .button // BTN_DPAD_*
        case 0x230...0x278: return .key // KEY_ALS_TOGGLE…KEY_ONSCREEN_KEYBOARD
        case 0x2c0...0x2e7: return .button // BTN_TRIGGER_HAPPY…40
        default: return .none
        }
    }
}

// MARK: - Decoding, as libinput's fallback dispatch

private struct Decoder {
    let parsed: [RawDevice]
    let file: String
    let area: Rect<GlobalSpace>
    let firstDevice: UInt32
    let mapping: ((LibinputRecording.Device) -> TouchMapping)?

    func decode() throws(InputFileError) -> LibinputRecording {
        var devices: [LibinputRecording.Device] = []
        var states: [DeviceState] = []
        var notes: [String] = []
        var events: [InputEvent] = []
        var locations: [SourceLocation] = []
        for (index, raw) in parsed.enumerated() {
            let id = DeviceID(firstDevice &+ UInt32(index))
            var state = try DeviceState(raw, id: id, file: file)
            let device = LibinputRecording.Device(id: id, name: raw.name ?? "", node: raw.node, capabilities: state.capabilities, location: raw.location)
            if state.touch != nil {
                state.mapping = mapping?(device) ?? TouchMapping(area: area, calibration: state.calibration ?? .identity)
            }
            if let note = state.note { notes.append("\(raw.location): device \"\(device.name)\" \(note)") }
            devices.append(device)
            states.append(state)
            events.append(.deviceAdded(device: id, time: .zero, capabilities: state.capabilities))
            locations.append(raw.location)
        }
        // Every device's frames in time order (a stable sort keeps each device's own order,
        // and devices in the file's order at equal times); libinput sees them as they arrive.
        struct Frame { var time: Int64; var device: Int; var start: Int; var end: Int }
        var frames: [Frame] = []
        for (index, raw) in parsed.enumerated() {
            var start = 0
            var previous: Int64 = 0
            for (i, event) in raw.events.enumerated() {
                guard event.microseconds >= previous else {
                    throw InputFileError(SourceLocation(file: file, line: Int(event.line), column: 1),
                                         "the frame's time \(event.microseconds) µs goes back before the device's previous one, \(previous) µs; a device's frames must be in time order")
                }
                previous = event.microseconds
                if event.type == Evdev.syn && event.code == Evdev.synReport || i == raw.events.count - 1 {
                    frames.append(Frame(time: event.microseconds, device: index, start: start, end: i + 1))
                    start = i + 1
                }
            }
        }
        let order = frames.indices.sorted { frames[$0].time != frames[$1].time ? frames[$0].time < frames[$1].time : $0 < $1 }
        var seat = SeatSlots()
        for f in order {
            let frame = frames[f]
            let events_ = parsed[frame.device].events
            for i in frame.start..<frame.end {
                let event = events_[i]
                let location = SourceLocation(file: file, line: Int(event.line), column: 1)
                states[frame.device].process(event, seat: &seat) { events.append($0); locations.append(location) }
            }
        }
        return LibinputRecording(devices: devices, events: events, notes: notes, locations: locations)
    }
}

/// libinput's seat slots: the lowest free one of 32 (`ffs(~slot_map) - 1`).
private struct SeatSlots {
    var map: UInt32 = 0
    mutating func take() -> Int32? {
        guard map != .max else { return nil }
        let slot = (~map).trailingZeroBitCount
        map |= 1 << UInt32(slot)
        return Int32(slot)
    }
    mutating func free(_ slot: Int32) { map &= ~(1 << UInt32(slot)) }
}

private struct DeviceState {
    enum SlotState { case none, begin, update, end }
    enum Palm { case none, new, isPalm, wasPalm }
    struct Slot {
        var state = SlotState.none
        var dirty = false
        var x: Int32 = 0, y: Int32 = 0
        var centerX: Int32 = 0, centerY: Int32 = 0
        var seatSlot: Int32 = -1
        var palm = Palm.none
        var toolType: Int32 = 0
    }
    struct Touch {
        var slots: [Slot]
        var slot = 0
        var minX: Double, rangeX: Double, minY: Double, rangeY: Double
        var marginX: Int32, marginY: Int32
        var hasPalm: Bool
    }

    let id: DeviceID
    var capabilities: DeviceCapabilities = []
    var note: String?
    var touch: Touch?
    var calibration: CalibrationMatrix?
    var mapping = TouchMapping(area: Rect(x: 0, y: 0, width: 1, height: 1))
    var keyboard = false, pointer = false
    var hiResWheel = false
    var keysDown = Set<Int>()
    var buttonsChanged: [(code: Int, pressed: Bool)] = []
    var dx = 0, dy = 0, relative = false
    var wheelY = 0, wheelX = 0
    /// Set when a multitouch axis changed since the last SYN_REPORT (EVDEV_ABSOLUTE_MT).
    var touchPending = false
    /// A touchpad's or a tablet's: nothing of it is decoded.
    var ignored = false

    init(_ raw: RawDevice, id: DeviceID, file: String) throws(InputFileError) {
        self.id = id
        let udev = raw.udev
        func tagged(_ name: String) -> Bool { udev[name] == "1" }
        let abs = raw.codes[Evdev.abs] ?? [], rel = raw.codes[Evdev.rel] ?? [], keys = raw.codes[Evdev.key] ?? []
        let hasUdev = !udev.isEmpty
        // udev's ID_INPUT_* tags choose the dispatch, as for libinput; without them, the codes.
        let touchscreen = hasUdev ? tagged("ID_INPUT_TOUCHSCREEN") : raw.properties.contains(Evdev.propDirect) && abs.contains(Evdev.absMTPositionX)
        let touchpad = hasUdev ? tagged("ID_INPUT_TOUCHPAD") : !raw.properties.contains(Evdev.propDirect) && abs.contains(Evdev.absMTPositionX) && keys.contains(0x145)
        let tablet = tagged("ID_INPUT_TABLET") || tagged("ID_INPUT_TABLET_PAD")
        keyboard = hasUdev ? tagged("ID_INPUT_KEYBOARD") || tagged("ID_INPUT_KEY") : keys.contains { Evdev.keyType($0) == .key }
        pointer = hasUdev ? tagged("ID_INPUT_MOUSE") || tagged("ID_INPUT_POINTINGSTICK") : rel.contains(Evdev.relX) && rel.contains(Evdev.relY) && keys.contains(Evdev.btnLeft)
        if tablet || touchpad {
            note = "is a \(tablet ? "tablet" : "touchpad"): libinput's \(tablet ? "tablet" : "touchpad") handling is not emulated, and its events are not decoded"
            keyboard = false
            pointer = false
            capabilities = tablet ? [] : [.pointer, .gesture]
            ignored = true
            return
        }
        if touchscreen {
            if abs.contains(Evdev.absMTPositionX), abs.contains(Evdev.absMTPositionY), abs.contains(Evdev.absMTSlot) {
                func info(_ code: Int, _ name: String) throws(InputFileError) -> [Int32] {
                    guard let info = raw.absinfo[code] else {
                        throw InputFileError(raw.location, "expected an absinfo entry for code \(code) (\(name)), which the touchscreen's codes list")
                    }
                    return info
                }
                let x = try info(Evdev.absMTPositionX, "ABS_MT_POSITION_X"), y = try info(Evdev.absMTPositionY, "ABS_MT_POSITION_Y")
                let slotInfo = try info(Evdev.absMTSlot, "ABS_MT_SLOT")
                guard slotInfo[0] == 0, slotInfo[1] >= 0, Int(slotInfo[1]) < InputLimits.liveTouches else {
                    throw InputFileError(raw.location, "absinfo \(Evdev.absMTSlot) (ABS_MT_SLOT): expected slots 0 to at most \(InputLimits.liveTouches - 1) (InputLimits.liveTouches), found \(slotInfo[0]) to \(slotInfo[1])")
                }
                // The fuzz libinput uses: the kernel's, else udev's LIBINPUT_FUZZ_35/36.
                func fuzz(_ info: [Int32], _ code: Int) -> Int32 {
                    if info[2] != 0 { return info[2] }
                    guard let text = udev["LIBINPUT_FUZZ_" + String(code, radix: 16)], let value = Int32(text), value > 0 else { return 0 }
                    return value
                }
                let fuzzX = fuzz(x, Evdev.absMTPositionX), fuzzY = fuzz(y, Evdev.absMTPositionY)
                touch = Touch(slots: Array(repeating: Slot(), count: Int(slotInfo[1]) + 1),
                              minX: Double(x[0]), rangeX: Double(x[1]) - Double(x[0]) + 1, minY: Double(y[0]), rangeY: Double(y[1]) - Double(y[0]) + 1,
                              marginX: fuzzX / 2, marginY: fuzzY / 2, hasPalm: abs.contains(Evdev.absMTToolType))
                capabilities.insert(.touch)
                if let text = udev["LIBINPUT_CALIBRATION_MATRIX"] {
                    let values = text.split(separator: " ").compactMap { Double($0) }
                    if values.count == 6, values.allSatisfy(\.isFinite), let matrix = CalibrationMatrix(values) { calibration = matrix }
                }
            } else {
                note = "is a single-touch or protocol-A touchscreen (no ABS_MT_SLOT): only protocol B is decoded, and its touches are not"
            }
        }
        if keyboard { capabilities.insert(.keyboard) }
        if pointer { capabilities.insert(.pointer) }
        hiResWheel = rel.contains(Evdev.relWheelHiRes) || rel.contains(Evdev.relHWheelHiRes)
        if raw.codes[Evdev.sw] != nil, note == nil { note = "has switches: switch events are not decoded" }
    }

    mutating func process(_ event: RawEvent, seat: inout SeatSlots, emit: (InputEvent) -> Void) {
        if ignored { return }
        let time = RouterTime.microseconds(event.microseconds)
        let code = Int(event.code)
        switch Int(event.type) {
        case Evdev.key:
            if event.value == 2 || code == Evdev.btnTouch { return }
            let type = Evdev.keyType(code)
            guard type != .none else { return }
            let pressed = event.value != 0
            if pressed == keysDown.contains(code) { return }
            if pressed { keysDown.insert(code) } else { keysDown.remove(code) }
            if type == .key {
                emit(.key(device: id, time: time, key: UInt32(code), state: pressed ? .pressed : .released))
            } else {
                buttonsChanged.append((code, pressed))
            }
        case Evdev.rel:
            guard pointer else { return }
            switch code {
            case Evdev.relX: dx += Int(event.value); relative = true
            case Evdev.relY: dy += Int(event.value); relative = true
            case Evdev.relWheel where !hiResWheel: wheelY += Int(event.value) * 120
            case Evdev.relHWheel where !hiResWheel: wheelX += Int(event.value) * 120
            case Evdev.relWheelHiRes: wheelY += Int(event.value)
            case Evdev.relHWheelHiRes: wheelX += Int(event.value)
            default: break
            }
        case Evdev.abs:
            guard touch != nil else { return }
            processTouch(code, event.value)
        case Evdev.syn where code == Evdev.synReport:
            flush(time: time, seat: &seat, emit: emit)
        default:
            break
        }
    }

    private mutating func processTouch(_ code: Int, _ value: Int32) {
        guard var t = touch else { return }
        defer { touch = t }
        if code == Evdev.absMTSlot {
            // libinput clamps a slot past its count (a negative one too, read as size_t).
            t.slot = value >= 0 && Int(value) < t.slots.count ? Int(value) : t.slots.count - 1
            return
        }
        let s = t.slot
        switch code {
        case Evdev.absMTTrackingID:
            if value >= 0 {
                t.slots[s].state = .begin
                t.slots[s].palm = t.hasPalm && t.slots[s].toolType == Evdev.mtToolPalm ? .wasPalm : .none
            } else {
                t.slots[s].state = .end
            }
            t.slots[s].dirty = true
            touchPending = true
        case Evdev.absMTPositionX:
            t.slots[s].x = value; t.slots[s].dirty = true; touchPending = true
        case Evdev.absMTPositionY:
            t.slots[s].y = value; t.slots[s].dirty = true; touchPending = true
        case Evdev.absMTToolType:
            t.slots[s].toolType = value
            if value == Evdev.mtToolPalm {
                if t.slots[s].palm == .none { t.slots[s].palm = .new }
            } else if t.slots[s].palm == .isPalm {
                t.slots[s].palm = .wasPalm
            }
            t.slots[s].dirty = true
            touchPending = true
        default:
            break
        }
    }


    private func position(_ x: Int32, _ y: Int32, _ t: Touch) -> Point<GlobalSpace> {
        mapping.map((Double(x) - t.minX) / t.rangeX, (Double(y) - t.minY) / t.rangeY)
    }

    /// fallback_handle_state: relative motion, touches and their frame, the wheel, buttons.
    private mutating func flush(time: RouterTime, seat: inout SeatSlots, emit: (InputEvent) -> Void) {
        if relative {
            if dx != 0 || dy != 0 { emit(.pointerMotion(device: id, time: time, dx: Double(dx), dy: Double(dy))) }
            dx = 0; dy = 0; relative = false
        }
        if touchPending, var t = touch {
            touchPending = false
            var sent = false
            for i in t.slots.indices where t.slots[i].dirty {
                t.slots[i].dirty = false
                if t.slots[i].palm == .new {
                    if t.slots[i].state != .begin {
                        sent = false
                        if t.slots[i].seatSlot >= 0 {
                            seat.free(t.slots[i].seatSlot)
                            emit(.touchCancel(device: id, time: time, id: TouchID(t.slots[i].seatSlot)))
                            sent = true
                        }
                        t.slots[i].seatSlot = -1
                    }
                    t.slots[i].palm = .isPalm
                } else if t.slots[i].palm == .none {
                    switch t.slots[i].state {
                    case .begin:
                        sent = false
                        // A second begin for a live slot is the kernel's bug; libinput keeps the touch.
                        if t.slots[i].seatSlot == -1, let seatSlot = seat.take() {
                            t.slots[i].seatSlot = seatSlot
                            t.slots[i].centerX = t.slots[i].x
                            t.slots[i].centerY = t.slots[i].y
                            emit(.touchDown(device: id, time: time, id: TouchID(seatSlot), position: position(t.slots[i].x, t.slots[i].y, t)))
                            sent = true
                        }
                    case .update:
                        sent = false
                        if t.slots[i].seatSlot >= 0 {
                            let (rawX, rawY) = (t.slots[i].x, t.slots[i].y)
                            if !defuzz(&t.slots[i], t) {
                                emit(.touchMotion(device: id, time: time, id: TouchID(t.slots[i].seatSlot), position: position(rawX, rawY, t)))
                                sent = true
                            }
                        }
                    case .end:
                        sent = false
                        let seatSlot = t.slots[i].seatSlot
                        t.slots[i].seatSlot = -1
                        if seatSlot >= 0 {
                            seat.free(seatSlot)
                            emit(.touchUp(device: id, time: time, id: TouchID(seatSlot)))
                            sent = true
                        }
                    case .none:
                        break
                    }
                }
                switch t.slots[i].state {
                case .begin: t.slots[i].state = .update
                case .end: t.slots[i].state = .none
                case .update, .none: break
                }
            }
            touch = t
            if sent { emit(.touchFrame(device: id, time: time)) }
        }
        if wheelY != 0 {
            let v120 = Double(-wheelY)
            emit(.pointerAxis(device: id, time: time, axis: .vertical, value: v120 / 120 * 15, discrete: wholeInt32(v120 / 120), source: .wheel))
            wheelY = 0
        }
        if wheelX != 0 {
            let v120 = Double(wheelX)
            emit(.pointerAxis(device: id, time: time, axis: .horizontal, value: v120 / 120 * 15, discrete: wholeInt32(v120 / 120), source: .wheel))
            wheelX = 0
        }
        if !buttonsChanged.isEmpty {
            if pointer {
                for (code, pressed) in buttonsChanged.sorted(by: { $0.code < $1.code }) {
                    emit(.pointerButton(device: id, time: time, button: UInt32(code), state: pressed ? .pressed : .released))
                }
            }
            buttonsChanged.removeAll()
        }
    }

    /// libinput's hysteresis (fallback_filter_defuzz_touch, evdev_hysteresis): true when the
    /// motion stays within the margin and is swallowed.
    private func defuzz(_ slot: inout Slot, _ t: Touch) -> Bool {
        guard t.marginX != 0 || t.marginY != 0 else { return false }
        var px = slot.x, py = slot.y
        let a = Double(t.marginX), b = Double(t.marginY)
        if a != 0, b != 0 {
            let dx = Double(slot.x) - Double(slot.centerX), dy = Double(slot.y) - Double(slot.centerY)
            let normalized = (dx * dx / (a * a) + dy * dy / (b * b)).squareRoot()
            if normalized < 1 {
                px = slot.centerX; py = slot.centerY
            } else {
                let margin = (dx * dx + dy * dy).squareRoot() / normalized
                let lagX: Double, lagY: Double
                if dx != 0 {
                    let gradient = dy / dx
                    lagX = margin / (gradient * gradient + 1).squareRoot()
                    lagY = max(0, (margin + lagX) * (margin - lagX)).squareRoot()
                } else {
                    lagX = 0; lagY = margin
                }
                // C converts to int toward zero; the values lie between two int32 coordinates.
                px = wholeInt32(dx >= 0 ? Double(slot.x) - lagX : Double(slot.x) + lagX)
                py = wholeInt32(dy >= 0 ? Double(slot.y) - lagY : Double(slot.y) + lagY)
            }
        }
        slot.x = px; slot.y = py
        if px == slot.centerX && py == slot.centerY { return true }
        slot.centerX = px; slot.centerY = py
        return false
    }
}

/// A double as C converts it to int (toward zero), clamped to int32 and NaN as 0, so that no
/// value from a file can trap the conversion.
private func wholeInt32(_ value: Double) -> Int32 {
    guard value.isFinite else { return 0 }
    return Int32(min(max(value.rounded(.towardZero), Double(Int32.min)), Double(Int32.max)))
}
