import CLibinput
import TouchRouterCore
import TouchRouterLibseat
#if canImport(Glibc)
import Glibc
#endif

public struct LibinputError: Error, CustomStringConvertible {
    public var description: String
}

/// Kernel input devices (`/dev/input/event*`) read through libinput, by path or from udev on a
/// seat (with hotplug, devices opened through the seat manager), and translated into the core's `InputEvent`s: touch with its seat slot as the touch id,
/// keys, pointer motion, buttons and scrolling, touchpad gestures, switches, and devices
/// coming and going. Each event keeps the device's own timestamp. Absolute positions
/// (touchscreens) are mapped onto `absoluteArea`, the output a touchscreen drives.
///
/// The host watches `fd` in its loop and calls `dispatch` when it is readable; nothing
/// here reads a clock or blocks.
public final class LibinputBackend {
    private let context: OpaquePointer
    /// The udev backend's: its udev context, and the seat that opens its devices.
    private var udev: OpaquePointer?
    private var seat: LibseatSession?
    /// Called with each device's settings when it is added (per-device libinput settings);
    /// what it returns (settings a device does not take) goes to standard error.
    public var configureDevice: ((InputDeviceHandle) -> [String])?
    /// Each device the context has, in the order they were added.
    public private(set) var devices: [InputDeviceInfo] = []
    /// The LEDs keyboards show (setKeyboardLEDs), given to each keyboard as it is added.
    var keyboardLEDs: UInt8 = 0
    var keyboardHandles: [OpaquePointer] {
        deviceIDs.keys.filter { libinput_device_has_capability($0, LIBINPUT_DEVICE_CAP_KEYBOARD) != 0 }
    }
    private var deviceIDs: [OpaquePointer: DeviceID] = [:]
    private var nextDevice: UInt32
    public var absoluteArea: Rect<GlobalSpace>
    /// Chooses each touchscreen's mapping when it is added; without it, a touchscreen
    /// drives `absoluteArea` with its own calibration.
    public var mapTouchscreen: ((TouchscreenDevice) -> TouchMapping)?
    /// Each touchscreen's mapping, chosen when it was added.
    public private(set) var touchMappings: [DeviceID: TouchMapping] = [:]
    /// Each touchscreen as it was added, its calibration read then (libinput's is set to
    /// identity after), for choosing its mapping again.
    private var touchscreens: [DeviceID: TouchscreenDevice] = [:]

    /// Opens each path; a path libinput cannot take is an error naming it. Devices are
    /// numbered from `firstDevice`, apart from those the host numbers itself.
    public init(paths: [String], absoluteArea: Rect<GlobalSpace>, firstDevice: UInt32 = 1000) throws(LibinputError) {
        guard let context = libinput_path_create_context(Self.interface, nil) else {
            throw LibinputError(description: "libinput_path_create_context failed")
        }
        self.context = context
        self.absoluteArea = absoluteArea
        nextDevice = firstDevice
        // A throw from here on still runs deinit, which lets the context go.
        for path in paths where libinput_path_add_device(context, path) == nil {
            throw LibinputError(description: "libinput cannot open \(path): it must be a readable evdev node (/dev/input/eventN) that udev has seen")
        }
    }

    /// libinput's udev backend on the seat: every input device of `seat.name`, added and
    /// removed as udev sees them, each opened through the seat manager.
    public init(seat: LibseatSession, absoluteArea: Rect<GlobalSpace>, firstDevice: UInt32 = 1000) throws(LibinputError) {
        guard let udev = udev_new() else { throw LibinputError(description: "udev_new failed: is /sys mounted?") }
        guard let context = libinput_udev_create_context(Self.interface, Unmanaged.passUnretained(seat).toOpaque(), udev) else {
            udev_unref(udev)
            throw LibinputError(description: "libinput_udev_create_context failed")
        }
        self.context = context
        self.udev = udev
        self.seat = seat
        self.absoluteArea = absoluteArea
        nextDevice = firstDevice
        // A throw from here on still runs deinit, which lets the context go.
        if libinput_udev_assign_seat(context, seat.name) != 0 {
            throw LibinputError(description: "libinput cannot take the input devices of the seat \(seat.name) from udev (libinput_udev_assign_seat failed): is udevd running?")
        }
    }

    deinit {
        libinput_unref(context)
        if let udev { udev_unref(udev) }
    }

    /// Releases every device (a seat disable, a VT switch): libinput queues their removal,
    /// and releases what was pressed, which the next `dispatch` hands over.
    public func suspend() { libinput_suspend(context) }

    /// Takes the devices back after `suspend`; they are added again.
    public func resume() throws(LibinputError) {
        if libinput_resume(context) != 0 { throw LibinputError(description: "libinput_resume failed: the devices could not be taken back") }
    }

    /// Readable when libinput has something to dispatch.
    public var fd: Int32 { libinput_get_fd(context) }

    /// Reads what the kernel has and hands over each event, translated, in order.
    public func dispatch(_ deliver: (InputEvent) -> Void) {
        libinput_dispatch(context)
        while let event = libinput_get_event(context) {
            if let translated = translate(event) { deliver(translated) }
            libinput_event_destroy(event)
        }
    }

    /// One case per kind of libinput event; kinds the core has no event for give nil.
    private func translate(_ event: OpaquePointer) -> InputEvent? {
        let type = libinput_event_get_type(event)
        let device = id(of: libinput_event_get_device(event)!)
        switch type {
        case LIBINPUT_EVENT_DEVICE_ADDED:
            let handle = libinput_event_get_device(event)!
            devices.append(InputDeviceInfo(handle, id: device))
            if let configureDevice {
                for problem in configureDevice(InputDeviceHandle(handle)) {
                    warn("touch-router: input device \(devices.last!.name): \(problem)")
                }
            }
            if libinput_device_has_capability(handle, LIBINPUT_DEVICE_CAP_TOUCH) != 0 {
                touchMappings[device] = chooseMapping(handle, id: device)
            }
            if libinput_device_has_capability(handle, LIBINPUT_DEVICE_CAP_KEYBOARD) != 0, keyboardLEDs != 0 {
                libinput_device_led_update(handle, Self.libinputLEDs(keyboardLEDs))
            }
            return .deviceAdded(device: device, time: .zero, capabilities: capabilities(of: handle))
        case LIBINPUT_EVENT_DEVICE_REMOVED:
            let handle = libinput_event_get_device(event)!
            deviceIDs[handle] = nil
            devices.removeAll { $0.id == device }
            touchMappings[device] = nil
            touchscreens[device] = nil
            return .deviceRemoved(device: device, time: .zero)
        case LIBINPUT_EVENT_TOUCH_DOWN, LIBINPUT_EVENT_TOUCH_MOTION:
            let touch = libinput_event_get_touch_event(event)!
            let time = deviceTime(libinput_event_touch_get_time_usec(touch))
            let id = TouchID(libinput_event_touch_get_seat_slot(touch))
            // Normalized (libinput's calibration is identity: the mapping applies it), then
            // through the mapping's calibration and the output's transform.
            let mapping = touchMappings[device] ?? TouchMapping(area: absoluteArea)
            let position = mapping.map(libinput_event_touch_get_x_transformed(touch, 1), libinput_event_touch_get_y_transformed(touch, 1))
            return type == LIBINPUT_EVENT_TOUCH_DOWN
                ? .touchDown(device: device, time: time, id: id, position: position)
                : .touchMotion(device: device, time: time, id: id, position: position)
        case LIBINPUT_EVENT_TOUCH_UP, LIBINPUT_EVENT_TOUCH_CANCEL:
            let touch = libinput_event_get_touch_event(event)!
            let time = deviceTime(libinput_event_touch_get_time_usec(touch))
            let id = TouchID(libinput_event_touch_get_seat_slot(touch))
            return type == LIBINPUT_EVENT_TOUCH_UP ? .touchUp(device: device, time: time, id: id) : .touchCancel(device: device, time: time, id: id)
        case LIBINPUT_EVENT_TOUCH_FRAME:
            let touch = libinput_event_get_touch_event(event)!
            return .touchFrame(device: device, time: deviceTime(libinput_event_touch_get_time_usec(touch)))
        case LIBINPUT_EVENT_KEYBOARD_KEY:
            let key = libinput_event_get_keyboard_event(event)!
            return .key(device: device, time: deviceTime(libinput_event_keyboard_get_time_usec(key)),
                        key: libinput_event_keyboard_get_key(key),
                        state: libinput_event_keyboard_get_key_state(key) == LIBINPUT_KEY_STATE_PRESSED ? .pressed : .released)
        case LIBINPUT_EVENT_POINTER_MOTION:
            let pointer = libinput_event_get_pointer_event(event)!
            return .pointerMotion(device: device, time: deviceTime(libinput_event_pointer_get_time_usec(pointer)),
                                  dx: libinput_event_pointer_get_dx(pointer), dy: libinput_event_pointer_get_dy(pointer))
        case LIBINPUT_EVENT_POINTER_MOTION_ABSOLUTE:
            let pointer = libinput_event_get_pointer_event(event)!
            let position = Point<GlobalSpace>(
                Double(absoluteArea.x) + libinput_event_pointer_get_absolute_x_transformed(pointer, UInt32(absoluteArea.width)),
                Double(absoluteArea.y) + libinput_event_pointer_get_absolute_y_transformed(pointer, UInt32(absoluteArea.height)))
            return .pointerMotionAbsolute(device: device, time: deviceTime(libinput_event_pointer_get_time_usec(pointer)), position: position)
        case LIBINPUT_EVENT_POINTER_BUTTON:
            let pointer = libinput_event_get_pointer_event(event)!
            return .pointerButton(device: device, time: deviceTime(libinput_event_pointer_get_time_usec(pointer)),
                                  button: libinput_event_pointer_get_button(pointer),
                                  state: libinput_event_pointer_get_button_state(pointer) == LIBINPUT_BUTTON_STATE_PRESSED ? .pressed : .released)
        case LIBINPUT_EVENT_POINTER_SCROLL_WHEEL, LIBINPUT_EVENT_POINTER_SCROLL_FINGER, LIBINPUT_EVENT_POINTER_SCROLL_CONTINUOUS:
            return scroll(libinput_event_get_pointer_event(event)!, type: type, device: device)
        case LIBINPUT_EVENT_GESTURE_SWIPE_BEGIN, LIBINPUT_EVENT_GESTURE_SWIPE_UPDATE, LIBINPUT_EVENT_GESTURE_SWIPE_END,
             LIBINPUT_EVENT_GESTURE_PINCH_BEGIN, LIBINPUT_EVENT_GESTURE_PINCH_UPDATE, LIBINPUT_EVENT_GESTURE_PINCH_END,
             LIBINPUT_EVENT_GESTURE_HOLD_BEGIN, LIBINPUT_EVENT_GESTURE_HOLD_END:
            return gesture(libinput_event_get_gesture_event(event)!, type: type, device: device)
        case LIBINPUT_EVENT_SWITCH_TOGGLE:
            let toggle = libinput_event_get_switch_event(event)!
            let kind: SwitchKind
            switch libinput_event_switch_get_switch(toggle) {
            case LIBINPUT_SWITCH_LID: kind = .lid
            case LIBINPUT_SWITCH_TABLET_MODE: kind = .tabletMode
            default: return nil
            }
            return .switchToggle(device: device, time: deviceTime(libinput_event_switch_get_time_usec(toggle)), kind: kind,
                                 state: libinput_event_switch_get_switch_state(toggle) == LIBINPUT_SWITCH_STATE_ON ? .on : .off)
        default:
            // Tablet tools and pads, and the old axis event that the scroll events replace.
            return nil
        }
    }

    /// One pointer-axis event per axis that moved; a wheel carries its clicks in 120ths.
    private func scroll(_ pointer: OpaquePointer, type: libinput_event_type, device: DeviceID) -> InputEvent? {
        let time = deviceTime(libinput_event_pointer_get_time_usec(pointer))
        let source: AxisSource = type == LIBINPUT_EVENT_POINTER_SCROLL_WHEEL ? .wheel : type == LIBINPUT_EVENT_POINTER_SCROLL_FINGER ? .finger : .continuous
        for (axis, libinputAxis) in [(PointerAxis.vertical, LIBINPUT_POINTER_AXIS_SCROLL_VERTICAL), (.horizontal, LIBINPUT_POINTER_AXIS_SCROLL_HORIZONTAL)]
        where libinput_event_pointer_has_axis(pointer, libinputAxis) != 0 {
            let value = libinput_event_pointer_get_scroll_value(pointer, libinputAxis)
            let discrete = source == .wheel ? clicks(libinput_event_pointer_get_scroll_value_v120(pointer, libinputAxis)) : 0
            return .pointerAxis(device: device, time: time, axis: axis, value: value, discrete: discrete, source: source)
        }
        return nil
    }

    private func gesture(_ gesture: OpaquePointer, type: libinput_event_type, device: DeviceID) -> InputEvent {
        let time = deviceTime(libinput_event_gesture_get_time_usec(gesture))
        let fingers = libinput_event_gesture_get_finger_count(gesture)
        let phase: GesturePhase
        switch type {
        case LIBINPUT_EVENT_GESTURE_SWIPE_BEGIN, LIBINPUT_EVENT_GESTURE_PINCH_BEGIN, LIBINPUT_EVENT_GESTURE_HOLD_BEGIN: phase = .begin
        case LIBINPUT_EVENT_GESTURE_SWIPE_UPDATE, LIBINPUT_EVENT_GESTURE_PINCH_UPDATE: phase = .update
        default: phase = .end
        }
        let cancelled = phase == .end && libinput_event_gesture_get_cancelled(gesture) != 0
        let dx = phase == .update ? libinput_event_gesture_get_dx(gesture) : 0, dy = phase == .update ? libinput_event_gesture_get_dy(gesture) : 0
        switch type {
        case LIBINPUT_EVENT_GESTURE_SWIPE_BEGIN, LIBINPUT_EVENT_GESTURE_SWIPE_UPDATE, LIBINPUT_EVENT_GESTURE_SWIPE_END:
            return .swipe(device: device, time: time, phase: phase, fingers: fingers, dx: dx, dy: dy, cancelled: cancelled)
        case LIBINPUT_EVENT_GESTURE_PINCH_BEGIN, LIBINPUT_EVENT_GESTURE_PINCH_UPDATE, LIBINPUT_EVENT_GESTURE_PINCH_END:
            return .pinch(device: device, time: time, phase: phase, fingers: fingers, dx: dx, dy: dy,
                          scale: libinput_event_gesture_get_scale(gesture), rotation: phase == .update ? libinput_event_gesture_get_angle_delta(gesture) : 0,
                          cancelled: cancelled)
        default:
            return .hold(device: device, time: time, phase: phase, fingers: fingers, cancelled: cancelled)
        }
    }

    /// Takes the device's calibration (udev's LIBINPUT_CALIBRATION_MATRIX, libinput's default
    /// matrix) into the mapping, and sets libinput's to identity so that it is applied once,
    /// by the mapping, after which the output's transform follows.
    private func chooseMapping(_ device: OpaquePointer, id: DeviceID) -> TouchMapping {
        var calibration = CalibrationMatrix.identity
        if libinput_device_config_calibration_has_matrix(device) != 0 {
            var matrix = [Float](repeating: 0, count: 6)
            if libinput_device_config_calibration_get_default_matrix(device, &matrix) != 0, let read = CalibrationMatrix(matrix.map(Double.init)) {
                calibration = read
            }
            let identity: [Float] = [1, 0, 0, 0, 1, 0]
            _ = libinput_device_config_calibration_set_matrix(device, identity)
        }
        let description = TouchscreenDevice(id: id, name: String(cString: libinput_device_get_name(device)),
                                            vendor: UInt16(truncatingIfNeeded: libinput_device_get_id_vendor(device)),
                                            product: UInt16(truncatingIfNeeded: libinput_device_get_id_product(device)),
                                            calibration: calibration, udevOutput: udevProperty(device, "WL_OUTPUT"))
        touchscreens[id] = description
        return mapTouchscreen?(description) ?? TouchMapping(area: absoluteArea, calibration: calibration)
    }

    /// Chooses every touchscreen's mapping again: an output came or went, or the rules changed
    /// (cage PR #531, Ubuntu Frame #173). A finger down meanwhile goes on in the new mapping.
    public func remapTouchscreens() {
        for (id, description) in touchscreens {
            touchMappings[id] = mapTouchscreen?(description) ?? TouchMapping(area: absoluteArea, calibration: description.calibration)
        }
    }

    private func id(of device: OpaquePointer) -> DeviceID {
        if let id = deviceIDs[device] { return id }
        let id = DeviceID(nextDevice)
        nextDevice += 1
        deviceIDs[device] = id
        return id
    }

    /// The device's name, as libinput reports it, for traces.
    public func name(of id: DeviceID) -> String? {
        deviceIDs.first { $0.value == id }.map { String(cString: libinput_device_get_name($0.key)) }
    }

    private func capabilities(of device: OpaquePointer) -> DeviceCapabilities {
        var capabilities: DeviceCapabilities = []
        for (capability, libinputCapability) in [(DeviceCapabilities.keyboard, LIBINPUT_DEVICE_CAP_KEYBOARD), (.pointer, LIBINPUT_DEVICE_CAP_POINTER),
                                                 (.touch, LIBINPUT_DEVICE_CAP_TOUCH), (.gesture, LIBINPUT_DEVICE_CAP_GESTURE), (.switch, LIBINPUT_DEVICE_CAP_SWITCH)]
        where libinput_device_has_capability(device, libinputCapability) != 0 {
            capabilities.insert(capability)
        }
        return capabilities
    }

    /// libinput asks its host to open and close device nodes: the udev backend's userdata is
    /// its LibseatSession, which asks the seat manager; the path backend's is nil, and opens them
    /// directly. Allocated once, since libinput keeps the address for the context's life.
    nonisolated(unsafe) private static let interface: UnsafePointer<libinput_interface> = {
        let table = UnsafeMutablePointer<libinput_interface>.allocate(capacity: 1)
        table.initialize(to: libinput_interface(
            open_restricted: { path, flags, userdata in
                guard let userdata else {
                    let fd = open(path!, flags | O_CLOEXEC)
                    return fd < 0 ? -errno : fd
                }
                let seat = Unmanaged<LibseatSession>.fromOpaque(userdata).takeUnretainedValue()
                do {
                    return try seat.openDevice(String(cString: path!))
                } catch {
                    warn("touch-router: \(error)")
                    return errno > 0 ? -errno : -EACCES
                }
            },
            close_restricted: { fd, userdata in
                guard let userdata else { _ = close(fd); return }
                Unmanaged<LibseatSession>.fromOpaque(userdata).takeUnretainedValue().closeDevice(fd: fd)
            }))
        return UnsafePointer(table)
    }()
}

/// A device's microseconds, as the router's time: kernel clocks are far from Int64's end, but
/// a number from hardware is checked like any other before arithmetic that would trap on it.
func deviceTime(_ microseconds: UInt64) -> RouterTime {
    .microseconds(Int64(min(microseconds, UInt64(Int64.max / 1000))))
}

/// Whole wheel clicks from libinput's 120ths, within int32 whatever the device said.
func clicks(_ v120: Double) -> Int32 {
    guard v120.isFinite else { return 0 }
    return Int32((v120 / 120).rounded(.towardZero).clamped(to: Double(Int32.min)...Double(Int32.max)))
}

extension Double {
    func clamped(to range: ClosedRange<Double>) -> Double { Swift.min(Swift.max(self, range.lowerBound), range.upperBound) }
}

/// What a touchscreen is, when its mapping is chosen.
public struct TouchscreenDevice: Sendable {
    public var id: DeviceID
    public var name: String
    public var vendor: UInt16
    public var product: UInt16
    /// The device's own calibration: udev's LIBINPUT_CALIBRATION_MATRIX, else identity.
    public var calibration: CalibrationMatrix
    /// udev's WL_OUTPUT property: the output a udev rule or hwdb entry ties it to.
    public var udevOutput: String?

    public init(id: DeviceID, name: String, vendor: UInt16, product: UInt16, calibration: CalibrationMatrix, udevOutput: String? = nil) {
        self.id = id
        self.name = name
        self.vendor = vendor
        self.product = product
        self.calibration = calibration
        self.udevOutput = udevOutput
    }
}

/// One device of a libinput context, for `msg devices` and traces.
public struct InputDeviceInfo: Sendable {
    public var id: DeviceID
    public var name: String
    public var vendor: UInt16
    public var product: UInt16
    /// The kernel's name of its node, such as event3.
    public var sysname: String
    public var capabilities: DeviceCapabilities
    /// Its kinds, as `msg devices` names them: keyboard, pointer, touch, gesture, switch,
    /// tablet-tool, tablet-pad.
    public var types: [String]

    init(_ device: OpaquePointer, id: DeviceID) {
        self.id = id
        name = String(cString: libinput_device_get_name(device))
        vendor = UInt16(truncatingIfNeeded: libinput_device_get_id_vendor(device))
        product = UInt16(truncatingIfNeeded: libinput_device_get_id_product(device))
        sysname = String(cString: libinput_device_get_sysname(device))
        var capabilities: DeviceCapabilities = []
        var types: [String] = []
        for (name, capability, libinputCapability) in [("keyboard", DeviceCapabilities.keyboard, LIBINPUT_DEVICE_CAP_KEYBOARD), ("pointer", .pointer, LIBINPUT_DEVICE_CAP_POINTER),
                                                       ("touch", .touch, LIBINPUT_DEVICE_CAP_TOUCH), ("gesture", .gesture, LIBINPUT_DEVICE_CAP_GESTURE),
                                                       ("switch", .switch, LIBINPUT_DEVICE_CAP_SWITCH), ("tablet-tool", [], LIBINPUT_DEVICE_CAP_TABLET_TOOL),
                                                       ("tablet-pad", [], LIBINPUT_DEVICE_CAP_TABLET_PAD)]
        where libinput_device_has_capability(device, libinputCapability) != 0 {
            capabilities.insert(capability)
            types.append(name)
        }
        self.capabilities = capabilities
        self.types = types
    }
}

/// A udev property of a libinput device (nil where it has none, or no udev device).
func udevProperty(_ device: OpaquePointer, _ name: String) -> String? {
    guard let udevDevice = libinput_device_get_udev_device(device) else { return nil }
    defer { udev_device_unref(udevDevice) }
    return udev_device_get_property_value(udevDevice, name).map { String(cString: $0) }
}
