import CWaylandShim
import TouchRouterCore
#if canImport(Glibc)
import Glibc
#endif

// virtual-keyboard-unstable-v1 (protocols/virtual-keyboard-unstable-v1.xml), as sway serves
// it: each zwp_virtual_keyboard_v1 is a keyboard device of the router with a keymap of its
// own, which must come before any key or modifiers (else the protocol's no_keymap error).
// Its keys are routed as libinput's are, stamped with the session's clock (the client's
// millisecond `time` is ignored, as wlroots does); the focused client is sent this keymap
// before the first of its keys, and the seat's again when a real keyboard types
// (SeatDevices.swift). A privileged global (Privileges.swift).

package enum VirtualKeyboardManagerGlobal {
    package static let version: Int32 = 1

    package static let bind: wl_global_bind_func_t = { client, data, version, id in
        GlobalHost.bind(client, data, version, id, tr_zwp_virtual_keyboard_manager_v1_interface(), VirtualKeyboardManagerGlobal.table) { $0 as any VirtualInputHandler }
    }

    /// The seat argument is ignored: the session has one seat.
    package nonisolated(unsafe) static let table = implementation(zwp_virtual_keyboard_manager_v1_interface(
        create_virtual_keyboard: { client, resource, _, id in
            let manager = WaylandObject.of(resource, as: RoomGlobal<any VirtualInputHandler>.self)
            let handler = manager.handler
            guard let device = handler.makeVirtualDevice(for: manager, request: "\(manager.name).create_virtual_keyboard") else { return }
            guard let created = createResource(client, tr_zwp_virtual_keyboard_v1_interface(), version: wl_resource_get_version(resource), id: id) else { return }
            let state = handler.virtualInputState
            let keyboard = VirtualKeyboardObject(resource: created, madeBy: manager, handler: handler, state: state, device: device)
            WaylandObject.install(keyboard, implementation: VirtualKeyboardObject.table)
            state.virtualKeyboards[device] = keyboard
            handler.virtualDeviceAdded(device, capabilities: [.keyboard], of: keyboard)
        }))
}

/// One virtual keyboard: its keymap, with the xkbcommon state its keys and modifiers
/// requests move, and the keys it holds, released when it goes.
package final class VirtualKeyboardObject: WaylandObject {
    private unowned let handler: any VirtualInputHandler
    private unowned let state: VirtualInputState
    package let device: DeviceID
    package private(set) var keymap: Keymap?
    private var heldKeys: [UInt32] = []

    /// Evdev codes go to xkbcommon plus 8; keymaps name codes up to 255 in practice, and
    /// libinput's stop at KEY_MAX (767).
    package static let highestKey: UInt32 = 0xFFFF

    package init(resource: OpaquePointer, madeBy manager: WaylandObject, handler: any VirtualInputHandler, state: VirtualInputState, device: DeviceID) {
        self.handler = handler
        self.state = state
        self.device = device
        super.init(resource: resource, madeBy: manager)
    }

    package override func resourceDestroyed() {
        let now = handler.now
        var events: [InputEvent] = heldKeys.map { .key(device: device, time: now, key: $0, state: .released) }
        events.append(.deviceRemoved(device: device, time: now))
        // Its releases are read with its own keymap, so it is forgotten only after them.
        handler.virtualDeviceRemoved(self, events: events)
        state.virtualKeyboards[device] = nil
    }

    /// The client's keymap file, read and compiled; anything else is the end of the client,
    /// named (the protocol defines no error for a bad keymap, so wl_display's implementation
    /// error says what was wrong).
    private func setKeymap(format: UInt32, fd: Int32, size: UInt32) {
        defer { close(fd) }
        let request = "\(name).keymap"
        guard format == WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1.rawValue else {
            return handler.endClient(client, "\(request): format \(format) is not xkb_v1 (1)")
        }
        guard size > 0, size <= ClientLimits.keymapBytes else {
            return handler.endClient(client, "\(request): \(size) bytes, not from 1 to \(ClientLimits.keymapBytes), the most a keymap may take")
        }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            return handler.endClient(client, "\(request): the descriptor is not a readable file")
        }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        var done = 0
        while done < bytes.count {
            let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, $0.count - done, off_t(done)) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else {
                return handler.endClient(client, got == 0 ? "\(request): the file holds \(done) bytes, fewer than the \(size) said"
                                                            : "\(request): cannot read the file: \(String(cString: strerror(errno)))")
            }
            done += got
        }
        // The text may end in NULs (the seat's own keymap file does).
        let length = bytes.lastIndex { $0 != 0 }.map { $0 + 1 } ?? 0
        guard let compiled = bytes.withUnsafeBytes({ Keymap(clientText: UnsafeRawBufferPointer(rebasing: $0[0..<length])) }) else {
            return handler.endClient(client, "\(request): xkbcommon cannot read it as an xkb_v1 keymap")
        }
        let old = keymap
        keymap = compiled
        handler.virtualKeymapReplaced(old, with: compiled)
    }

    private func key(_ key: UInt32, state: UInt32) {
        guard keymap != nil else {
            return postError(ZWP_VIRTUAL_KEYBOARD_V1_ERROR_NO_KEYMAP.rawValue, "\(name).key: no keymap was set; keymap must come first")
        }
        let keyState: KeyState
        switch state {
        case WL_KEYBOARD_KEY_STATE_PRESSED.rawValue: keyState = .pressed
        case WL_KEYBOARD_KEY_STATE_RELEASED.rawValue: keyState = .released
        default: return handler.endClient(client, "\(name).key: state \(state) is neither released (0) nor pressed (1)")
        }
        guard key <= Self.highestKey else {
            return handler.endClient(client, "\(name).key: key \(key) is past \(Self.highestKey), beyond any keymap's codes")
        }
        if keyState == .pressed, !heldKeys.contains(key) { heldKeys.append(key) }
        if keyState == .released { heldKeys.removeAll { $0 == key } }
        handler.routeVirtual([.key(device: device, time: handler.now, key: key, state: keyState)])
    }

    private func modifiers(depressed: UInt32, latched: UInt32, locked: UInt32, group: UInt32) {
        guard let keymap else {
            return postError(ZWP_VIRTUAL_KEYBOARD_V1_ERROR_NO_KEYMAP.rawValue, "\(name).modifiers: no keymap was set; keymap must come first")
        }
        handler.virtualModifiers(keymap, changed: keymap.setModifiers(depressed: depressed, latched: latched, locked: locked, group: group))
    }

    package nonisolated(unsafe) static let table = implementation(zwp_virtual_keyboard_v1_interface(
        keymap: { _, resource, format, fd, size in
            WaylandObject.of(resource, as: VirtualKeyboardObject.self).setKeymap(format: format, fd: fd, size: size)
        },
        key: { _, resource, _, key, state in
            WaylandObject.of(resource, as: VirtualKeyboardObject.self).key(key, state: state)
        },
        modifiers: { _, resource, depressed, latched, locked, group in
            WaylandObject.of(resource, as: VirtualKeyboardObject.self).modifiers(depressed: depressed, latched: latched, locked: locked, group: group)
        },
        destroy: destroyRequest))
}
