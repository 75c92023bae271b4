import CWaylandClientShim
import TouchRouterCore
#if canImport(Glibc)
import Glibc
#endif

/// The listener tables libwayland-client calls, each allocated once and never freed: a
/// proxy keeps the table's address for its whole life. Every entry is filled, since
/// libwayland aborts on an empty one; `data` is the Swift object the proxy belongs to,
/// unretained (its owner outlives the proxy).
enum Listeners {
    private static func table<T>(_ value: T) -> UnsafeMutablePointer<T> {
        let pointer = UnsafeMutablePointer<T>.allocate(capacity: 1)
        pointer.initialize(to: value)
        return pointer
    }

    private static func object<T: AnyObject>(_ data: UnsafeMutableRawPointer?, as _: T.Type) -> T? {
        data.map { Unmanaged<T>.fromOpaque($0).takeUnretainedValue() }
    }

    nonisolated(unsafe) static let registry = table(wl_registry_listener(
        global: { data, _, name, interface, version in
            guard let backend = object(data, as: NestedBackend.self), let interface else { return }
            backend.global(name: name, interface: String(cString: interface), version: version)
        },
        global_remove: { data, _, name in
            object(data, as: NestedBackend.self)?.globalRemoved(name: name)
        }))

    nonisolated(unsafe) static let wmBase = table(xdg_wm_base_listener(
        ping: { _, base, serial in
            // Answered at once; the read that dispatched it flushes.
            if let base { xdg_wm_base_pong(base, serial) }
        }))

    nonisolated(unsafe) static let xdgSurface = table(xdg_surface_listener(
        configure: { data, _, serial in
            object(data, as: HostWindow.self)?.configure(serial: serial)
        }))

    nonisolated(unsafe) static let toplevel = table(xdg_toplevel_listener(
        configure: { data, _, width, height, _ in
            object(data, as: HostWindow.self)?.configureToplevel(width: width, height: height)
        },
        close: { data, _ in
            object(data, as: HostWindow.self)?.close()
        },
        configure_bounds: { _, _, _, _ in },
        wm_capabilities: { _, _, _ in }))

    nonisolated(unsafe) static let frame = table(wl_callback_listener(
        done: { data, callback, _ in
            object(data, as: HostWindow.self)?.frameDone(callback)
        }))

    nonisolated(unsafe) static let buffer = table(wl_buffer_listener(
        release: { data, _ in
            object(data, as: HostBuffer.self)?.busy = false
        }))

    nonisolated(unsafe) static let seat = table(wl_seat_listener(
        capabilities: { data, _, capabilities in
            object(data, as: HostSeat.self)?.capabilities(capabilities)
        },
        name: { _, _, _ in }))

    nonisolated(unsafe) static let touch = table(wl_touch_listener(
        down: { data, _, _, _, surface, id, x, y in
            object(data, as: HostSeat.self)?.touchDown(surface: surface, id: id, x: x, y: y)
        },
        up: { data, _, _, _, id in
            object(data, as: HostSeat.self)?.touchUp(id: id)
        },
        motion: { data, _, _, id, x, y in
            object(data, as: HostSeat.self)?.touchMotion(id: id, x: x, y: y)
        },
        frame: { data, _ in
            object(data, as: HostSeat.self)?.touchFrame()
        },
        cancel: { data, _ in
            object(data, as: HostSeat.self)?.touchCancel()
        },
        shape: { _, _, _, _, _ in },
        orientation: { _, _, _, _ in }))

    nonisolated(unsafe) static let pointer = table(wl_pointer_listener(
        enter: { data, _, _, surface, x, y in
            object(data, as: HostSeat.self)?.pointerEnter(surface: surface, x: x, y: y)
        },
        leave: { data, _, _, _ in
            object(data, as: HostSeat.self)?.pointerLeave()
        },
        motion: { data, _, _, x, y in
            object(data, as: HostSeat.self)?.pointerMotion(x: x, y: y)
        },
        button: { data, _, _, _, button, state in
            object(data, as: HostSeat.self)?.pointerButton(button: button, state: state)
        },
        axis: { data, _, _, axis, value in
            object(data, as: HostSeat.self)?.pointerAxis(axis: axis, value: value)
        },
        frame: { data, _ in
            object(data, as: HostSeat.self)?.pointerFrame()
        },
        axis_source: { data, _, source in
            object(data, as: HostSeat.self)?.pointerAxisSource(source)
        },
        axis_stop: { _, _, _, _ in },
        axis_discrete: { data, _, axis, discrete in
            object(data, as: HostSeat.self)?.pointerAxisDiscrete(axis: axis, discrete: discrete)
        },
        axis_value120: { _, _, _, _ in }))

    nonisolated(unsafe) static let keyboard = table(wl_keyboard_listener(
        keymap: { _, _, _, fd, _ in
            // The session keeps its own keymap (--keyboard-layout); the host's is not needed.
            close(fd)
        },
        enter: { _, _, _, _, _ in
            // Keys already down are not pressed again here: their releases are dropped.
        },
        leave: { data, _, _, _ in
            object(data, as: HostSeat.self)?.keyboardLeave()
        },
        key: { data, _, _, _, key, state in
            object(data, as: HostSeat.self)?.key(key, state: state)
        },
        modifiers: { _, _, _, _, _, _, _ in
            // The session derives its modifiers from the keys, with its own keymap.
        },
        repeat_info: { _, _, _, _ in }))
}
