import CWaylandClientShim
import TouchRouterCore
import TouchRouterWayland
#if canImport(Glibc)
import Glibc
#endif

/// The host's wl_seat as the session's input devices: its touch, pointer and keyboard are
/// three devices that come and go with the seat's capabilities. Positions are the windows'
/// surface-local points taken into the session's layout (HostWindow.layoutPoint); keys are
/// evdev codes already; times are the session's clock at translation, since the host's
/// 32-bit milliseconds are on a clock of its own.
final class HostSeat {
    static let touchDevice = DeviceID(2000)
    static let pointerDevice = DeviceID(2001)
    static let keyboardDevice = DeviceID(2002)

    static func deviceName(_ device: DeviceID, host: String) -> String? {
        switch device {
        case touchDevice: "host touch (\(host))"
        case pointerDevice: "host pointer (\(host))"
        case keyboardDevice: "host keyboard (\(host))"
        default: nil
        }
    }

    unowned let backend: NestedBackend
    let seat: OpaquePointer
    let version: UInt32
    private var touch: OpaquePointer?
    private var pointer: OpaquePointer?
    private var keyboard: OpaquePointer?
    /// Each touch down on a window, by the host's id, for motions (which name no surface).
    private var touches: [Int32: HostWindow] = [:]
    private var pointerWindow: HostWindow?
    private var pressedKeys: [UInt32] = []
    private var pressedButtons: [UInt32] = []
    /// wl_pointer v5 sends an axis event's parts one by one, then frame.
    private var axisSource: AxisSource = .wheel
    private var axisValues: [PointerAxis: Double] = [:]
    private var axisDiscrete: [PointerAxis: Int32] = [:]

    init(backend: NestedBackend, seat: OpaquePointer, version: UInt32) {
        self.backend = backend
        self.seat = seat
        self.version = version
        wl_seat_add_listener(seat, Listeners.seat, Unmanaged.passUnretained(self).toOpaque())
    }

    var unretained: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    private func emit(_ event: InputEvent) { backend.pending.append(event) }
    private var now: RouterTime { backend.now }

    // MARK: Capabilities

    func capabilities(_ capabilities: UInt32) {
        let hasTouch = capabilities & WL_SEAT_CAPABILITY_TOUCH.rawValue != 0
        let hasPointer = capabilities & WL_SEAT_CAPABILITY_POINTER.rawValue != 0
        let hasKeyboard = capabilities & WL_SEAT_CAPABILITY_KEYBOARD.rawValue != 0
        if hasTouch, touch == nil, let proxy = wl_seat_get_touch(seat) {
            touch = proxy
            wl_touch_add_listener(proxy, Listeners.touch, unretained)
            emit(.deviceAdded(device: Self.touchDevice, time: now, capabilities: [.touch]))
        } else if !hasTouch, touch != nil {
            releaseTouch()
        }
        if hasPointer, pointer == nil, let proxy = wl_seat_get_pointer(seat) {
            pointer = proxy
            wl_pointer_add_listener(proxy, Listeners.pointer, unretained)
            emit(.deviceAdded(device: Self.pointerDevice, time: now, capabilities: [.pointer]))
        } else if !hasPointer, pointer != nil {
            releasePointer()
        }
        if hasKeyboard, keyboard == nil, let proxy = wl_seat_get_keyboard(seat) {
            keyboard = proxy
            wl_keyboard_add_listener(proxy, Listeners.keyboard, unretained)
            emit(.deviceAdded(device: Self.keyboardDevice, time: now, capabilities: [.keyboard]))
        } else if !hasKeyboard, keyboard != nil {
            releaseKeyboard()
        }
    }

    /// Every device goes: the router cancels its touches; buttons and keys held are released.
    func releaseAll() {
        releaseTouch()
        releasePointer()
        releaseKeyboard()
    }

    private func releaseTouch() {
        guard let touch else { return }
        if version >= 3 { wl_touch_release(touch) } else { wl_touch_destroy(touch) }
        self.touch = nil
        touches.removeAll()
        // The router cancels the device's live touches for their clients.
        emit(.deviceRemoved(device: Self.touchDevice, time: now))
    }

    private func releasePointer() {
        guard let pointer else { return }
        if version >= 3 { wl_pointer_release(pointer) } else { wl_pointer_destroy(pointer) }
        self.pointer = nil
        pointerWindow = nil
        releaseButtons()
        emit(.deviceRemoved(device: Self.pointerDevice, time: now))
    }

    private func releaseKeyboard() {
        guard let keyboard else { return }
        if version >= 3 { wl_keyboard_release(keyboard) } else { wl_keyboard_destroy(keyboard) }
        self.keyboard = nil
        releaseKeys()
        emit(.deviceRemoved(device: Self.keyboardDevice, time: now))
    }

    private func releaseButtons() {
        for button in pressedButtons { emit(.pointerButton(device: Self.pointerDevice, time: now, button: button, state: .released)) }
        pressedButtons.removeAll()
    }

    private func releaseKeys() {
        for key in pressedKeys { emit(.key(device: Self.keyboardDevice, time: now, key: key, state: .released)) }
        pressedKeys.removeAll()
    }

    /// The proxies go, without a word to the router: the backend is going too (this runs in
    /// its deinit, where nothing may reach it), or the seat went and `releaseAll` spoke.
    func destroy() {
        for proxy in [touch, pointer, keyboard].compactMap({ $0 }) { wl_proxy_destroy(proxy) }
        touch = nil
        pointer = nil
        keyboard = nil
        if version >= 5 { wl_seat_release(seat) } else { wl_seat_destroy(seat) }
    }

    // MARK: Touch

    func touchDown(surface: OpaquePointer?, id: Int32, x: wl_fixed_t, y: wl_fixed_t) {
        guard let window = backend.window(of: surface), let position = window.layoutPoint(x, y) else { return }
        touches[id] = window
        emit(.touchDown(device: Self.touchDevice, time: now, id: TouchID(id), position: position))
    }

    func touchMotion(id: Int32, x: wl_fixed_t, y: wl_fixed_t) {
        guard let window = touches[id], let position = window.layoutPoint(x, y) else { return }
        emit(.touchMotion(device: Self.touchDevice, time: now, id: TouchID(id), position: position))
    }

    func touchUp(id: Int32) {
        guard touches.removeValue(forKey: id) != nil else { return }
        emit(.touchUp(device: Self.touchDevice, time: now, id: TouchID(id)))
    }

    func touchFrame() { emit(.touchFrame(device: Self.touchDevice, time: now)) }

    /// The host took every touch (its own gesture): each is cancelled, as libinput would.
    func touchCancel() {
        let ids = touches.keys.sorted()
        touches.removeAll()
        guard !ids.isEmpty else { return }
        for id in ids { emit(.touchCancel(device: Self.touchDevice, time: now, id: TouchID(id))) }
        emit(.touchFrame(device: Self.touchDevice, time: now))
    }

    // MARK: Pointer

    func pointerEnter(surface: OpaquePointer?, x: wl_fixed_t, y: wl_fixed_t) {
        pointerWindow = backend.window(of: surface)
        pointerMotion(x: x, y: y)
    }

    func pointerLeave() {
        pointerWindow = nil
        // A button held as the pointer leaves is not heard of again.
        releaseButtons()
    }

    func pointerMotion(x: wl_fixed_t, y: wl_fixed_t) {
        guard let position = pointerWindow?.layoutPoint(x, y) else { return }
        emit(.pointerMotionAbsolute(device: Self.pointerDevice, time: now, position: position))
    }

    func pointerButton(button: UInt32, state: UInt32) {
        guard pointerWindow != nil else { return }
        let pressed = state == WL_POINTER_BUTTON_STATE_PRESSED.rawValue
        if pressed {
            guard !pressedButtons.contains(button) else { return }
            pressedButtons.append(button)
        } else {
            guard let index = pressedButtons.firstIndex(of: button) else { return }
            pressedButtons.remove(at: index)
        }
        emit(.pointerButton(device: Self.pointerDevice, time: now, button: button, state: pressed ? .pressed : .released))
    }

    func pointerAxis(axis: UInt32, value: wl_fixed_t) {
        guard pointerWindow != nil, let axis = Self.axis(axis) else { return }
        axisValues[axis, default: 0] += wl_fixed_to_double(value)
        // Before version 5 there is no frame: each axis event stands alone.
        if version < 5 { pointerFrame() }
    }

    func pointerAxisSource(_ source: UInt32) {
        switch source {
        case WL_POINTER_AXIS_SOURCE_FINGER.rawValue: axisSource = .finger
        case WL_POINTER_AXIS_SOURCE_CONTINUOUS.rawValue: axisSource = .continuous
        case WL_POINTER_AXIS_SOURCE_WHEEL_TILT.rawValue: axisSource = .wheelTilt
        default: axisSource = .wheel
        }
    }

    func pointerAxisDiscrete(axis: UInt32, discrete: Int32) {
        guard let axis = Self.axis(axis) else { return }
        axisDiscrete[axis, default: 0] &+= discrete
    }

    func pointerFrame() {
        defer {
            axisValues.removeAll()
            axisDiscrete.removeAll()
            axisSource = .wheel
        }
        guard pointerWindow != nil else { return }
        for axis in PointerAxis.allCases {
            guard let value = axisValues[axis], value.isFinite else { continue }
            emit(.pointerAxis(device: Self.pointerDevice, time: now, axis: axis, value: value, discrete: axisDiscrete[axis] ?? 0, source: axisSource))
        }
    }

    private static func axis(_ raw: UInt32) -> PointerAxis? {
        switch raw {
        case WL_POINTER_AXIS_VERTICAL_SCROLL.rawValue: .vertical
        case WL_POINTER_AXIS_HORIZONTAL_SCROLL.rawValue: .horizontal
        default: nil
        }
    }

    // MARK: Keyboard

    func keyboardLeave() { releaseKeys() }

    func key(_ key: UInt32, state: UInt32) {
        let pressed = state == WL_KEYBOARD_KEY_STATE_PRESSED.rawValue
        if pressed {
            guard !pressedKeys.contains(key) else { return }
            pressedKeys.append(key)
        } else {
            guard let index = pressedKeys.firstIndex(of: key) else { return }
            pressedKeys.remove(at: index)
        }
        emit(.key(device: Self.keyboardDevice, time: now, key: key, state: pressed ? .pressed : .released))
    }
}
