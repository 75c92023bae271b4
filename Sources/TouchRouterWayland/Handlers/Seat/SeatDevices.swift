import CWaylandShim
import TouchRouterCore
#if canImport(Glibc)
import Glibc
#endif

/// The seat's side of the session: wl_touch, wl_pointer and wl_keyboard objects as
/// clients ask for them, the keymap they are sent, and the keyboard's modifiers and LEDs.
extension WaylandServer: SeatHandler {
    package var seatState: SeatState { protocols.seat }

    package func seatDeviceRequested(_ kind: SeatDevice.Kind, client: OpaquePointer?, seat: OpaquePointer?, id: UInt32) {
        guard let client else { return }
        let interface: UnsafePointer<wl_interface>, table: UnsafeRawPointer
        switch kind {
        case .touch: (interface, table) = (tr_wl_touch_interface(), SeatDevice.touchTable)
        case .pointer: (interface, table) = (tr_wl_pointer_interface(), SeatDevice.pointerTable)
        case .keyboard: (interface, table) = (tr_wl_keyboard_interface(), SeatDevice.keyboardTable)
        }
        let record = record(for: client)
        guard record.devices.count < ClientLimits.seatDevices else {
            WaylandObject.of(seat, as: RoomGlobal<any SeatHandler>.self).endClient("wl_seat@\(wl_resource_get_id(seat)).get_\(kind)", pastLimit: "past \(ClientLimits.seatDevices) pointers, keyboards and touches, the most one client may have")
            return
        }
        guard let resource = createResource(client, interface, version: wl_resource_get_version(seat), id: id) else { return }
        let device = SeatDevice(resource: resource, madeBy: WaylandObject.of(seat, as: RoomGlobal<any SeatHandler>.self), handler: self, kind: kind, clientID: record.id)
        WaylandObject.install(device, implementation: table)
        record.devices.append(device)
        seatDevicesChanged()
        router.setCapabilities(record.capabilities, for: record.id)
        if kind == .keyboard { sendKeymap(to: device) }
    }

    /// A reloaded configuration's keyboard: every keyboard gets the new keymap, and the
    /// focused client the modifiers of its fresh state.
    package func replaceKeymap(_ new: Keymap) {
        protocols.seat.keymap = new
        // Every keyboard has the seat's keymap again, a virtual keyboard's included.
        protocols.seat.activeKeymap = new
        for record in clients.values {
            for keyboard in record.devices(.keyboard) {
                send(protocols.seat.keymap, to: keyboard)
                sendRepeatInfo(to: keyboard)
            }
        }
        keyboardModifiersChanged(protocols.seat.keymap.modifiers)
    }

    private func send(_ keymap: Keymap, to keyboard: SeatDevice) {
        do {
            let file = try keymap.makeFile()
            wl_keyboard_send_keymap(keyboard.resource, WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1.rawValue, file.fd, file.size)
            close(file.fd)
            keyboard.sentKeymap = keymap
        } catch {
            report("keymap for a client: \(error)")
        }
    }

    /// The keymap a device's keys are read with: a virtual keyboard's own, else the seat's.
    package func keymap(of device: DeviceID) -> Keymap {
        protocols.virtualInput.virtualKeyboards[device]?.keymap ?? protocols.seat.keymap
    }

    /// The keyboard that types changed, as wlroots' seat sees it: the focused client's
    /// keyboards are sent its keymap (before its key), and its modifiers. Other clients
    /// are sent it when they get the focus.
    package func activate(_ typing: Keymap) {
        guard typing !== protocols.seat.activeKeymap else { return }
        protocols.seat.activeKeymap = typing
        guard let focus = router.keyboardFocus, let client = tree.client(of: focus), let record = clientsByID[client] else { return }
        let keyboards = record.devices(.keyboard)
        for keyboard in keyboards where keyboard.sentKeymap !== typing { send(typing, to: keyboard) }
        sendModifiers(typing.modifiers, to: keyboards)
    }

    /// A virtual keyboard's keymap request: if it was the one typing, the focused client
    /// has the new keymap at once, as with wlroots.
    package func virtualKeymapReplaced(_ old: Keymap?, with new: Keymap) {
        guard let old, old === protocols.seat.activeKeymap else { return }
        protocols.seat.activeKeymap = protocols.seat.keymap
        activate(new)
    }

    /// A virtual keyboard's modifiers request: that keyboard types now, and its modifiers
    /// reach the focused client. The core has no event for a modifier state: this goes
    /// straight to the client, between the keys the router has dispatched.
    package func virtualModifiers(_ typing: Keymap, changed: KeyboardModifiers?) {
        router.dispatchAll()
        if typing !== protocols.seat.activeKeymap {
            activate(typing)
        } else if let changed {
            keyboardModifiersChanged(changed)
        }
    }

    /// [keyboard]'s repeat-rate (keys a second, 0: no repeat) and repeat-delay (ms).
    private func sendRepeatInfo(to device: SeatDevice) {
        guard device.version >= 4 else { return }
        // Before the shell exists, sway's defaults, as KeyboardSettings has them.
        let rate = shell?.keyboard.repeatRate ?? 25, delay = shell?.keyboard.repeatDelay ?? 600
        wl_keyboard_send_repeat_info(device.resource, Int32(clamping: rate), Int32(clamping: delay))
    }

    private func sendKeymap(to device: SeatDevice) {
        send(protocols.seat.activeKeymap, to: device)
        sendRepeatInfo(to: device)
        // A keyboard bound after focus arrived gets its enter now.
        if let focus = router.keyboardFocus, let surface = protocols.surface.surfaces[focus], tree.client(of: focus) == device.clientID {
            sendKeyboardEnter(surface, to: [device], pressedKeys: [])
        }
    }

    package func seatDeviceDestroyed(_ device: SeatDevice) {
        guard let record = clientsByID[device.clientID] else { return }
        record.devices.removeAll { $0 === device }
        seatDevicesChanged()
        router.setCapabilities(record.capabilities, for: record.id)
    }

    /// The typing keyboard's modifiers changed: the focused client hears them, and the real
    /// keyboards' LEDs follow the seat's keymap.
    package func keyboardModifiersChanged(_ modifiers: KeyboardModifiers) {
        let lit = protocols.seat.keymap.leds
        if lit != keyboardLEDs {
            keyboardLEDs = lit
            hooks.onKeyboardLEDs?(lit)
        }
        guard let focus = router.keyboardFocus, let client = tree.client(of: focus), let record = clientsByID[client] else { return }
        sendModifiers(modifiers, to: record.devices(.keyboard))
    }

    private func sendModifiers(_ modifiers: KeyboardModifiers, to keyboards: [SeatDevice]) {
        let serial = display.nextSerial
        for keyboard in keyboards {
            wl_keyboard_send_modifiers(keyboard.resource, serial, modifiers.depressed, modifiers.latched, modifiers.locked, modifiers.group)
        }
    }

    package func sendKeyboardEnter(_ surface: SurfaceObject, to keyboards: [SeatDevice], pressedKeys: [UInt32]) {
        let serial = display.nextSerial
        var keys = wl_array()
        wl_array_init(&keys)
        for key in pressedKeys {
            if let slot = wl_array_add(&keys, MemoryLayout<UInt32>.size) { slot.storeBytes(of: key, as: UInt32.self) }
        }
        // The client that gets the focus has the typing keyboard's keymap first, as with wlroots.
        let modifiers = protocols.seat.activeKeymap.modifiers
        for keyboard in keyboards where wl_resource_get_client(keyboard.resource) == wl_resource_get_client(surface.resource) {
            if keyboard.sentKeymap !== protocols.seat.activeKeymap { send(protocols.seat.activeKeymap, to: keyboard) }
            wl_keyboard_send_enter(keyboard.resource, serial, surface.resource, &keys)
            wl_keyboard_send_modifiers(keyboard.resource, serial, modifiers.depressed, modifiers.latched, modifiers.locked, modifiers.group)
        }
        wl_array_release(&keys)
    }

    /// A pointer or touch press raises the window it went to (not in kiosk mode), as a
    /// desktop shell does: the router's hit test chose the surface.
    package func pressed(_ surface: SurfaceID) {
        guard !options.kiosk, let top = tree.toplevelBehind(of: surface) else { return }
        raiseWindow(top)
    }
}


/// Watches every event before routing and keeps xkbcommon's modifier state; hears where
/// each press landed after routing, and raises the window there.
package final class SeatTracker: EventMonitor, PressObserver {
    /// Unowned and unchecked: the session owns the router that holds this monitor, so it
    /// outlives every call; a weak reference would give the session a side table, which
    /// makes every retain and release of it, on every routed event, take the slow path.
    package unowned(unsafe) var server: WaylandServer?

    /// What changes the cursor, the keymap's state or the idle time; a touch's motion, up
    /// and frame, the most frequent events, pass it by.
    package let observedKinds = EventKinds(.touchDown, .key, .pointerMotion, .pointerButton, .pointerAxis)

    package func observe(_ event: InputEvent, sequence: UInt64, arrival: RouterTime) {
        guard let server else { return }
        server.cursor.observe(event, at: arrival)
        server.protocols.kdeIdle.timeouts.activity(at: arrival)
        server.protocols.idleNotify.timeouts.activity(at: arrival)
        server.protocols.seat.idle.input(at: arrival)
        // A round of input alone may not settle: the cursor shown and the idle timeouts
        // resumed each give the tick a deadline now, and the cursor moved or hidden changes
        // what a quiet screen shows.
        if case .key = event {} else { server.pictureMayHaveChanged() }
        server.scheduleSessionTick()
        // The hit test must see the layer surfaces where this round's commits put them.
        if case .key = event {} else { server.arrangeWaitingLayers() }
        switch event {
        case .key(let device, _, let key, let state):
            // A key of another keyboard than the last (a virtual keyboard's, or a real one's
            // after it) first hands the focused client that keyboard's keymap.
            let typing = server.keymap(of: device)
            server.activate(typing)
            if let modifiers = typing.update(key: key, pressed: state == .pressed) { server.keyboardModifiersChanged(modifiers) }
        default:
            break
        }
    }

    package func pressLanded(on surface: SurfaceID) { server?.pressed(surface) }
}
