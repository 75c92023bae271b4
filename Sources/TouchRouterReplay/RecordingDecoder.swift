import TouchRouterCore

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

struct RecordingDecoder {
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
