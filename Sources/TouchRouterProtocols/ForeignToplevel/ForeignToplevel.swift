import CWaylandShim
import TouchRouterCore

// wlr-foreign-toplevel-management-unstable-v1 (protocols/wlr-foreign-toplevel-management-
// unstable-v1.xml) at version 3: task bars and docks list the windows of every client and
// maximize, fullscreen, minimize, activate and close them. Every bound manager gets a handle
// per mapped toplevel (xdg_toplevel, zxdg_toplevel_v6, and a wl_shell_surface mapped as a
// window) with its title, app_id, output, states and parent, each batch ended by done; the
// handle is told closed when the window unmaps or goes. Privileged: it lets a client close
// and activate others' windows, so only the programs `[privileges] foreign-toplevel` names
// see it (Privileges.swift). Minimizing hides the window in the core's tree (no input, no
// keyboard focus) until it is unminimized or activated.
//
// Handles refer to their window weakly, and windows to their handles weakly: libwayland
// destroys a dying client's resources in id order, the server-made handles last. What the
// protocol may ask of the server is `ForeignToplevelHandler` (Handlers/ForeignToplevelHandling.swift).

package enum ForeignToplevelManagerGlobal {
    package static let version: Int32 = 3

    /// Each bind is a manager of the room's own kind, which hears every window.
    package static let bind: wl_global_bind_func_t = { client, data, version, id in
        GlobalHost.bind(client, data, version, id, tr_zwlr_foreign_toplevel_manager_v1_interface()) { resource, host in
            let state = host.foreignToplevelState
            let manager = ForeignToplevelManagerObject(resource: resource, server: host, state: state)
            WaylandObject.install(manager, implementation: ForeignToplevelManagerObject.table)
            state.managerBound(manager)
        }
    }
}

/// One mapped window as foreign toplevel management sees it: its handles in every manager,
/// and whether it is minimized. Made when the window maps, dropped when it unmaps.
package final class ForeignToplevel {
    /// Map order, in which a new manager is told of the windows.
    package let order: UInt64
    package weak var surface: SurfaceObject?
    package var handles: [WeakForeignHandle] = []
    package var minimized = false

    package init(order: UInt64, surface: SurfaceObject) {
        self.order = order
        self.surface = surface
    }

    package var liveHandles: [ForeignToplevelHandleObject] {
        handles.removeAll { $0.handle == nil }
        return handles.compactMap(\.handle)
    }
}

package struct WeakForeignHandle {
    package weak var handle: ForeignToplevelHandleObject?
}

package final class ForeignToplevelManagerObject: WaylandObject {
    /// Tells a manager's handles from another's, for the parent event.
    package let serial: UInt64
    package var stopped = false
    private unowned let state: ForeignToplevelState

    package init(resource: OpaquePointer, server: any ClientAccounting, state: ForeignToplevelState) {
        self.state = state
        serial = state.nextSerial()
        super.init(resource: resource, server: server)
    }

    package override func resourceDestroyed() {
        state.managerGone(self)
    }

    package nonisolated(unsafe) static let table = implementation(zwlr_foreign_toplevel_manager_v1_interface(
        stop: { _, resource in
            let manager = WaylandObject.of(resource, as: ForeignToplevelManagerObject.self)
            guard !manager.stopped else { return }
            manager.stopped = true
            manager.state.managerGone(manager)
            // The protocol has the server destroy the object right after finished.
            zwlr_foreign_toplevel_manager_v1_send_finished(resource)
            wl_resource_destroy(resource)
        }))
}

package final class ForeignToplevelHandleObject: WaylandObject {
    /// Nil once closed was sent: the handle then only waits for its destroy.
    package weak var surface: SurfaceObject?
    package let managerSerial: UInt64
    // What the client was last told, to send only what changed.
    package var sentTitle: String?
    package var sentAppID: String?
    package var sentStates: [UInt32]?
    package weak var sentOutput: VirtualOutput?
    package weak var sentParent: ForeignToplevelHandleObject?
    /// set_rectangle's last box, in the given surface's coordinates (kept, not used: the
    /// session has no minimize animation).
    package var rectangle: Rect<SurfaceSpace>?

    package unowned let state: ForeignToplevelState

    package init(resource: OpaquePointer, madeBy manager: ForeignToplevelManagerObject, state: ForeignToplevelState, surface: SurfaceObject, managerSerial: UInt64) {
        self.state = state
        self.surface = surface
        self.managerSerial = managerSerial
        super.init(resource: resource, madeBy: manager)
    }

    private static func act(_ resource: OpaquePointer?, _ action: (ForeignToplevelState, SurfaceObject) -> Void) {
        let handle = WaylandObject.of(resource, as: ForeignToplevelHandleObject.self)
        guard let surface = handle.surface else { return }
        action(handle.state, surface)
    }

    package nonisolated(unsafe) static let table = implementation(zwlr_foreign_toplevel_handle_v1_interface(
        set_maximized: { _, resource in act(resource) { $0.set(\.maximized, true, on: $1) } },
        unset_maximized: { _, resource in act(resource) { $0.set(\.maximized, false, on: $1) } },
        set_minimized: { _, resource in act(resource) { $0.setMinimized($1, true) } },
        unset_minimized: { _, resource in act(resource) { $0.setMinimized($1, false) } },
        activate: { _, resource, _ in act(resource) { $0.handler.activateWindow($1) } },
        close: { _, resource in
            act(resource) { _, surface in
                // zxdg_toplevel_v6.close has xdg_toplevel.close's opcode (XdgFlavor); wl_shell has no close.
                if let toplevel = surface.xdgSurface?.toplevel { xdg_toplevel_send_close(toplevel.resource) }
            }
        },
        set_rectangle: { _, resource, _, x, y, width, height in
            let handle = WaylandObject.of(resource, as: ForeignToplevelHandleObject.self)
            guard width >= 0, height >= 0 else {
                handle.postError(ZWLR_FOREIGN_TOPLEVEL_HANDLE_V1_ERROR_INVALID_RECTANGLE.rawValue,
                                 "\(handle.name).set_rectangle: \(width)x\(height) is negative")
                return
            }
            handle.rectangle = width == 0 && height == 0 ? nil : Rect(x: Int(x), y: Int(y), width: Int(width), height: Int(height))
        },
        destroy: destroyRequest,
        // The output asked for is not used: the window fills the output it is on.
        set_fullscreen: { _, resource, _ in act(resource) { $0.set(\.fullscreen, true, on: $1) } },
        unset_fullscreen: { _, resource in act(resource) { $0.set(\.fullscreen, false, on: $1) } }))
}
