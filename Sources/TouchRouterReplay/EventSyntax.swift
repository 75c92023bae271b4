import TouchRouterCore

/// A mistake in one event's words: which word, and what was expected there.
public struct EventSyntaxError: Error, Equatable, CustomStringConvertible {
    /// Index of the offending word, or the word count when one was missing.
    public var wordIndex: Int
    public var message: String
    public var description: String { message }
}

/// The event syntax shared by input scripts and the session's `msg inject`:
///
///     touch down ID X Y | touch motion ID X Y | touch up ID | touch cancel ID | touch frame
///     key press|release KEY_NAME|CODE
///     pointer motion X Y | pointer relative DX DY | pointer button press|release BTN_NAME|CODE
///     pointer axis vertical|horizontal VALUE [discrete N] [source wheel|finger|continuous|wheel-tilt]
///     swipe|pinch|hold begin FINGERS | swipe update DX DY | pinch update DX DY SCALE ROTATION
///     swipe|pinch|hold end [cancelled]
///     switch lid|tablet-mode on|off
///     device add ID keyboard,pointer,touch,gesture,switch | device remove ID
///
/// Positions are global layout coordinates. Every event comes from device 0 unless it
/// names a device (`device add`/`device remove`).
public enum EventSyntax {
    public static func parse(_ words: [Substring], time: RouterTime, device: DeviceID = DeviceID(0)) throws(EventSyntaxError) -> InputEvent {
        var reader = WordReader(words: words)
        let category = try reader.word("touch, key, pointer, swipe, pinch, hold, switch or device")
        let event: InputEvent
        switch category {
        case "touch":
            switch try reader.word("down, motion, up, cancel or frame") {
            case "down":
                let id = try reader.touchID()
                event = .touchDown(device: device, time: time, id: id, position: Point(try reader.number("x"), try reader.number("y")))
            case "motion":
                let id = try reader.touchID()
                event = .touchMotion(device: device, time: time, id: id, position: Point(try reader.number("x"), try reader.number("y")))
            case "up": event = .touchUp(device: device, time: time, id: try reader.touchID())
            case "cancel": event = .touchCancel(device: device, time: time, id: try reader.touchID())
            case "frame": event = .touchFrame(device: device, time: time)
            default: throw reader.unexpected("down, motion, up, cancel or frame")
            }
        case "key":
            let state: KeyState = switch try reader.word("press or release") {
            case "press": .pressed
            case "release": .released
            default: throw reader.unexpected("press or release")
            }
            event = .key(device: device, time: time, key: try reader.code(prefix: "KEY_"), state: state)
        case "pointer":
            switch try reader.word("motion, relative, button or axis") {
            case "motion":
                event = .pointerMotionAbsolute(device: device, time: time, position: Point(try reader.number("x"), try reader.number("y")))
            case "relative":
                event = .pointerMotion(device: device, time: time, dx: try reader.number("dx"), dy: try reader.number("dy"))
            case "button":
                let state: ButtonState = switch try reader.word("press or release") {
                case "press": .pressed
                case "release": .released
                default: throw reader.unexpected("press or release")
                }
                event = .pointerButton(device: device, time: time, button: try reader.code(prefix: "BTN_"), state: state)
            case "axis":
                guard let axis = PointerAxis(rawValue: String(try reader.word("vertical or horizontal"))) else { throw reader.unexpected("vertical or horizontal") }
                let value = try reader.number("the scroll amount")
                var discrete: Int32 = 0
                var source = AxisSource.wheel
                while !reader.atEnd {
                    switch try reader.word("discrete or source") {
                    case "discrete": discrete = Int32(try reader.integer("the discrete step count", range: -1000...1000))
                    case "source":
                        guard let parsed = AxisSource(rawValue: String(try reader.word("an axis source"))) else {
                            throw reader.unexpected("wheel, finger, continuous or wheel-tilt")
                        }
                        source = parsed
                    default: throw reader.unexpected("discrete or source")
                    }
                }
                event = .pointerAxis(device: device, time: time, axis: axis, value: value, discrete: discrete, source: source)
            default: throw reader.unexpected("motion, relative, button or axis")
            }
        case "swipe", "pinch", "hold":
            let phaseWord = try reader.word(category == "hold" ? "begin or end" : "begin, update or end")
            guard let phase = GesturePhase(rawValue: String(phaseWord)), !(category == "hold" && phase == .update) else {
                throw reader.unexpected(category == "hold" ? "begin or end" : "begin, update or end")
            }
            var fingers: Int32 = 0, dx = 0.0, dy = 0.0, scale = 1.0, rotation = 0.0, cancelled = false
            switch phase {
            case .begin: fingers = Int32(try reader.integer("the finger count", range: 1...10))
            case .update:
                dx = try reader.number("dx")
                dy = try reader.number("dy")
                if category == "pinch" {
                    scale = try reader.number("the scale")
                    rotation = try reader.number("the rotation in degrees")
                }
            case .end:
                if !reader.atEnd {
                    guard try reader.word("cancelled") == "cancelled" else { throw reader.unexpected("cancelled or nothing") }
                    cancelled = true
                }
            }
            event = switch category {
            case "swipe": .swipe(device: device, time: time, phase: phase, fingers: fingers, dx: dx, dy: dy, cancelled: cancelled)
            case "pinch": .pinch(device: device, time: time, phase: phase, fingers: fingers, dx: dx, dy: dy, scale: scale, rotation: rotation, cancelled: cancelled)
            default: .hold(device: device, time: time, phase: phase, fingers: fingers, cancelled: cancelled)
            }
        case "switch":
            guard let kind = SwitchKind(rawValue: String(try reader.word("lid or tablet-mode"))) else { throw reader.unexpected("lid or tablet-mode") }
            guard let state = SwitchState(rawValue: String(try reader.word("on or off"))) else { throw reader.unexpected("on or off") }
            event = .switchToggle(device: device, time: time, kind: kind, state: state)
        case "device":
            switch try reader.word("add or remove") {
            case "add":
                let id = DeviceID(UInt32(try reader.integer("the device id", range: 0...Int(UInt32.max))))
                var capabilities: DeviceCapabilities = []
                // "none" for a device with none of them (a tablet), so that every device prints and reads back.
                let listed = try reader.word("capabilities such as touch,pointer, or none")
                for part in listed == "none" ? [] : listed.split(separator: ",", omittingEmptySubsequences: false) {
                    let known: [Substring: DeviceCapabilities] = ["keyboard": .keyboard, "pointer": .pointer, "touch": .touch, "gesture": .gesture, "switch": .switch]
                    guard let capability = known[part] else { throw reader.unexpected("keyboard, pointer, touch, gesture or switch, separated by commas, or none") }
                    capabilities.insert(capability)
                }
                event = .deviceAdded(device: id, time: time, capabilities: capabilities)
            case "remove":
                event = .deviceRemoved(device: DeviceID(UInt32(try reader.integer("the device id", range: 0...Int(UInt32.max)))), time: time)
            default: throw reader.unexpected("add or remove")
            }
        default:
            throw reader.unexpected("touch, key, pointer, swipe, pinch, hold, switch or device", at: 0)
        }
        try reader.expectEnd()
        return event
    }

    /// The event written back in this syntax, as traces print it.
    public static func format(_ event: InputEvent) -> String {
        func n(_ value: Double) -> String { value.formatted }
        switch event {
        case .touchDown(_, _, let id, let p): return "touch down \(id.raw) \(n(p.x)) \(n(p.y))"
        case .touchMotion(_, _, let id, let p): return "touch motion \(id.raw) \(n(p.x)) \(n(p.y))"
        case .touchUp(_, _, let id): return "touch up \(id.raw)"
        case .touchCancel(_, _, let id): return "touch cancel \(id.raw)"
        case .touchFrame: return "touch frame"
        case .key(_, _, let key, let state): return "key \(state == .pressed ? "press" : "release") \(keyName(key))"
        case .pointerMotion(_, _, let dx, let dy): return "pointer relative \(n(dx)) \(n(dy))"
        case .pointerMotionAbsolute(_, _, let p): return "pointer motion \(n(p.x)) \(n(p.y))"
        case .pointerButton(_, _, let button, let state): return "pointer button \(state == .pressed ? "press" : "release") \(keyName(button))"
        case .pointerAxis(_, _, let axis, let value, let discrete, let source):
            return "pointer axis \(axis.rawValue) \(n(value))" + (discrete != 0 ? " discrete \(discrete)" : "") + " source \(source.rawValue)"
        case .swipe(_, _, let phase, let fingers, let dx, let dy, let cancelled):
            return gesture("swipe", phase, fingers, cancelled, update: "\(n(dx)) \(n(dy))")
        case .pinch(_, _, let phase, let fingers, let dx, let dy, let scale, let rotation, let cancelled):
            return gesture("pinch", phase, fingers, cancelled, update: "\(n(dx)) \(n(dy)) \(n(scale)) \(n(rotation))")
        case .hold(_, _, let phase, let fingers, let cancelled):
            return gesture("hold", phase, fingers, cancelled, update: "")
        case .switchToggle(_, _, let kind, let state): return "switch \(kind.rawValue) \(state.rawValue)"
        case .deviceAdded(let device, _, let capabilities):
            let words = [(DeviceCapabilities.keyboard, "keyboard"), (.pointer, "pointer"), (.touch, "touch"), (.gesture, "gesture"), (.switch, "switch")]
                .filter { capabilities.contains($0.0) }.map(\.1)
            return "device add \(device.raw) \(words.isEmpty ? "none" : words.joined(separator: ","))"
        case .deviceRemoved(let device, _): return "device remove \(device.raw)"
        }
    }

    private static func gesture(_ name: String, _ phase: GesturePhase, _ fingers: Int32, _ cancelled: Bool, update: String) -> String {
        switch phase {
        case .begin: "\(name) begin \(fingers)"
        case .update: "\(name) update \(update)"
        case .end: "\(name) end" + (cancelled ? " cancelled" : "")
        }
    }

    /// KEY_A for 30, BTN_LEFT for 272; the number when the code has no name.
    public static func keyName(_ code: UInt32) -> String { EvdevNames.nameByCode[code] ?? String(code) }

    public static func keyCode(_ name: String) -> UInt32? { EvdevNames.codeByName[name] }
}

private struct WordReader {
    let words: [Substring]
    var index = 0

    var atEnd: Bool { index >= words.count }

    mutating func word(_ expected: String) throws(EventSyntaxError) -> Substring {
        guard index < words.count else { throw EventSyntaxError(wordIndex: index, message: "expected \(expected) after \"\(words.joined(separator: " "))\"") }
        defer { index += 1 }
        return words[index]
    }

    func unexpected(_ expected: String, at: Int? = nil) -> EventSyntaxError {
        let i = at ?? index - 1
        return EventSyntaxError(wordIndex: i, message: "expected \(expected), found \"\(words[i])\"")
    }

    mutating func number(_ what: String) throws(EventSyntaxError) -> Double {
        let text = try word(what)
        guard let value = Double(text), value.isFinite else { throw unexpected("a number for \(what)") }
        guard abs(value) <= InputLimits.eventNumber else {
            throw unexpected("a number from -\(InputLimits.eventNumber.formatted) to \(InputLimits.eventNumber.formatted) for \(what) (InputLimits.eventNumber)")
        }
        return value
    }

    mutating func integer(_ what: String, range: ClosedRange<Int>) throws(EventSyntaxError) -> Int {
        let text = try word(what)
        guard let value = Int(text), range.contains(value) else { throw unexpected("a whole number from \(range.lowerBound) to \(range.upperBound) for \(what)") }
        return value
    }

    mutating func touchID() throws(EventSyntaxError) -> TouchID {
        TouchID(Int32(try integer("the touch id", range: 0...Int(Int32.max))))
    }

    /// An evdev name (KEY_A, BTN_LEFT) or a number.
    mutating func code(prefix: String) throws(EventSyntaxError) -> UInt32 {
        let text = try word("an evdev name such as \(prefix)A or a code")
        if let named = EvdevNames.codeByName[String(text)] { return named }
        if let number = UInt32(text), number <= 0x2ff { return number }
        throw unexpected("an evdev name such as \(prefix == "KEY_" ? "KEY_A" : "BTN_LEFT") or a code from 0 to 767")
    }

    func expectEnd() throws(EventSyntaxError) {
        guard index >= words.count else {
            throw EventSyntaxError(wordIndex: index, message: "expected the end of the event, found \"\(words[index...].joined(separator: " "))\"")
        }
    }
}
