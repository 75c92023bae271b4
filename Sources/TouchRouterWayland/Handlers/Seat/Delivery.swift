import CWaylandShim
import TouchRouterCore

/// The core's deliveries, sent as wl_touch, wl_keyboard and wl_pointer events to every
/// matching device the client bound. A surface or client that is already gone gets nothing.
extension WaylandServer: InputDelivery {
    private func target(_ surface: SurfaceID) -> OpaquePointer? { protocols.surface.surfaces[surface]?.resource }
    private func fixed(_ value: Double) -> wl_fixed_t { wl_fixed_from_double(value) }

    // The timestamps sends, here rather than the protocol layer's, since they run for every
    // routed event and a call across the module boundary is not inlined (10 instructions a
    // routed event more, by callgrind). tv_sec goes in two 32-bit halves, then the
    // nanoseconds within it; a time before the clock's zero (only a script's could be) is zero.
    @inline(__always)
    private func sendTimestamp(_ time: RouterTime, to resource: OpaquePointer) {
        let nanoseconds = max(time.nanoseconds, 0)
        let seconds = UInt64(nanoseconds / 1_000_000_000)
        zwp_input_timestamps_v1_send_timestamp(resource, UInt32(truncatingIfNeeded: seconds >> 32), UInt32(truncatingIfNeeded: seconds),
                                               UInt32(nanoseconds % 1_000_000_000))
    }

    /// Before an event with a time: each timestamps object of the device hears it first.
    @inline(__always)
    private func sendTimestamps(_ time: RouterTime, before device: SeatDevice) {
        let objects = device.timestampObjects.pointee
        guard !objects.isEmpty else { return }
        for object in objects { sendTimestamp(time, to: object.resource) }
    }

    public func touchDown(surface: SurfaceID, client: ClientID, time: RouterTime, id: TouchID, local: Point<SurfaceSpace>) {
        guard let resource = target(surface) else { return }
        let serial = display.nextSerial
        protocols.surface.surfaces[surface]?.touchInput?.touchWentDown(id, serial: serial)
        clientsByID[client]?.noteTouchDown(serial: serial, touch: id)
        let milliseconds = time.waylandMilliseconds, x = fixed(local.x), y = fixed(local.y)
        for entry in touchSends(of: client) {
            if entry.isTimestamps { sendTimestamp(time, to: entry.resource) } else { wl_touch_send_down(entry.resource, serial, milliseconds, resource, id.raw, x, y) }
        }
    }

    public func touchMotion(surface: SurfaceID, client: ClientID, time: RouterTime, id: TouchID, local: Point<SurfaceSpace>) {
        let milliseconds = time.waylandMilliseconds, x = fixed(local.x), y = fixed(local.y)
        for entry in touchSends(of: client) {
            if entry.isTimestamps { sendTimestamp(time, to: entry.resource) } else { wl_touch_send_motion(entry.resource, milliseconds, id.raw, x, y) }
        }
    }

    public func touchUp(surface: SurfaceID, client: ClientID, time: RouterTime, id: TouchID) {
        let serial = display.nextSerial
        let milliseconds = time.waylandMilliseconds
        for entry in touchSends(of: client) {
            if entry.isTimestamps { sendTimestamp(time, to: entry.resource) } else { wl_touch_send_up(entry.resource, serial, milliseconds, id.raw) }
        }
    }

    public func touchFrame(client: ClientID) {
        for entry in touchSends(of: client) where !entry.isTimestamps { wl_touch_send_frame(entry.resource) }
    }

    /// Writes what every client was sent, now: at a touch frame, and after each read of a
    /// device (`addInputSource`, `msg play`), ahead of the settling that begins the next round
    /// (the index, pointer focus, the activated toplevel), which sends nothing that could go
    /// before it: a client's events are written in the order they were sent, whenever the flush.
    public func writeToClients() { display.write(clients.keys) }

    public func touchCancel(client: ClientID) {
        for entry in touchSends(of: client) where !entry.isTimestamps { wl_touch_send_cancel(entry.resource) }
    }

    public func keyboardEnter(surface: SurfaceID, client: ClientID, pressedKeys: [UInt32]) {
        guard let object = protocols.surface.surfaces[surface] else { return }
        sendKeyboardEnter(object, to: Array(devices(.keyboard, of: client)), pressedKeys: pressedKeys)
        textInputsEnter(object, client: client)
        selectionsFocusEntered(client)
    }

    public func keyboardLeave(surface: SurfaceID, client: ClientID) {
        // Text inputs leave first, so that the input method is deactivated even for a surface already gone.
        textInputsLeave(surface, resource: target(surface), client: client)
        guard let resource = target(surface) else { return }
        let serial = display.nextSerial
        for keyboard in devices(.keyboard, of: client) { wl_keyboard_send_leave(keyboard.resource, serial, resource) }
    }

    public func key(surface: SurfaceID, client: ClientID, time: RouterTime, key: UInt32, state: KeyState) {
        let serial = display.nextSerial
        let pressed = state == .pressed ? WL_KEYBOARD_KEY_STATE_PRESSED.rawValue : WL_KEYBOARD_KEY_STATE_RELEASED.rawValue
        for keyboard in devices(.keyboard, of: client) {
            sendTimestamps(time, before: keyboard)
            wl_keyboard_send_key(keyboard.resource, serial, time.waylandMilliseconds, key, pressed)
        }
    }

    /// xkbcommon's state is the session's modifier truth (see `SeatTracker`); the core's model is not sent.
    public func modifiers(surface: SurfaceID, client: ClientID, modifiers: KeyboardModifiers) {}

    public func pointerEnter(surface: SurfaceID, client: ClientID, local: Point<SurfaceSpace>) {
        guard let resource = target(surface) else { return }
        let serial = display.nextSerial
        for pointer in devices(.pointer, of: client) { wl_pointer_send_enter(pointer.resource, serial, resource, fixed(local.x), fixed(local.y)) }
    }

    public func pointerLeave(surface: SurfaceID, client: ClientID) {
        // A surface its client is destroying still has its resource, until the destroy ends.
        let dying = protocols.surface.surfaceBeingDestroyed.flatMap { $0.id == surface ? $0.resource : nil }
        guard let resource = target(surface) ?? dying else { return }
        let serial = display.nextSerial
        for pointer in devices(.pointer, of: client) { wl_pointer_send_leave(pointer.resource, serial, resource) }
    }

    public func pointerMotion(surface: SurfaceID, client: ClientID, time: RouterTime, local: Point<SurfaceSpace>) {
        for pointer in devices(.pointer, of: client) {
            sendTimestamps(time, before: pointer)
            wl_pointer_send_motion(pointer.resource, time.waylandMilliseconds, fixed(local.x), fixed(local.y))
        }
    }

    public func pointerButton(surface: SurfaceID, client: ClientID, time: RouterTime, button: UInt32, state: ButtonState) {
        let serial = display.nextSerial
        let pressed = state == .pressed ? WL_POINTER_BUTTON_STATE_PRESSED.rawValue : WL_POINTER_BUTTON_STATE_RELEASED.rawValue
        if state == .pressed { clientsByID[client]?.buttonPressSerial = serial }
        for pointer in devices(.pointer, of: client) {
            sendTimestamps(time, before: pointer)
            wl_pointer_send_button(pointer.resource, serial, time.waylandMilliseconds, button, pressed)
        }
    }

    public func pointerAxis(surface: SurfaceID, client: ClientID, time: RouterTime, axis: PointerAxis, value: Double, discrete: Int32, source: AxisSource) {
        let wlAxis = axis == .vertical ? WL_POINTER_AXIS_VERTICAL_SCROLL.rawValue : WL_POINTER_AXIS_HORIZONTAL_SCROLL.rawValue
        let wlSource: UInt32
        switch source {
        case .wheel: wlSource = WL_POINTER_AXIS_SOURCE_WHEEL.rawValue
        case .finger: wlSource = WL_POINTER_AXIS_SOURCE_FINGER.rawValue
        case .continuous: wlSource = WL_POINTER_AXIS_SOURCE_CONTINUOUS.rawValue
        case .wheelTilt: wlSource = WL_POINTER_AXIS_SOURCE_WHEEL_TILT.rawValue
        }
        for pointer in devices(.pointer, of: client) {
            let version = pointer.version
            if version >= 5 { wl_pointer_send_axis_source(pointer.resource, wlSource) }
            if discrete != 0 {
                // A virtual pointer's steps can be any int32: clamped, never trapping.
                if version >= 8 { wl_pointer_send_axis_value120(pointer.resource, wlAxis, Int32(clamping: Int(discrete) * 120)) }
                else if version >= 5 { wl_pointer_send_axis_discrete(pointer.resource, wlAxis, discrete) }
            }
            sendTimestamps(time, before: pointer)
            if value == 0, version >= 5 { wl_pointer_send_axis_stop(pointer.resource, time.waylandMilliseconds, wlAxis) }
            else { wl_pointer_send_axis(pointer.resource, time.waylandMilliseconds, wlAxis, fixed(value)) }
        }
    }

    public func pointerFrame(client: ClientID) {
        for pointer in devices(.pointer, of: client) where pointer.version >= 5 { wl_pointer_send_frame(pointer.resource) }
    }
}
