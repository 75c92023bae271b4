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
        return try RecordingDecoder(parsed: parsed, file: file, area: area, firstDevice: firstDevice, mapping: mapping).decode()
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
