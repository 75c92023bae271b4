import CWaylandShim
import TouchRouterCore

extension ForeignToplevelManagerGlobal {
    /// Each bind is a manager that hears every window: it is made here, with the room's state,
    /// since the manager is the room's own object, not a `RoomGlobal`.
    package static let bind: wl_global_bind_func_t = { client, data, version, id in
        let server = Unmanaged<WaylandServer>.fromOpaque(data!).takeUnretainedValue()
        guard let client, server.mayBind(client, "zwlr_foreign_toplevel_manager_v1"),
              // At most the global's version: libwayland refuses a bind above it.
              let resource = createResource(client, tr_zwlr_foreign_toplevel_manager_v1_interface(), version: Int32(clamping: version), id: id) else { return }
        server.record(for: client)
        let state = server.protocols.foreignToplevel
        let manager = ForeignToplevelManagerObject(resource: resource, server: server, state: state)
        WaylandObject.install(manager, implementation: ForeignToplevelManagerObject.table)
        state.managerBound(manager)
    }
}

/// What foreign toplevel management may ask of the server (Protocols/ForeignToplevel/).
extension WaylandServer: ForeignToplevelHandler {
    package func isListedWindow(_ surface: SurfaceObject) -> Bool {
        guard surface.inTree, tree.role(of: surface.id) == .toplevel, surface.hasBuffer else { return false }
        return surface.xdgSurface?.toplevel != nil || surface.wlShellSurface != nil
    }

    package func output(showing surface: SurfaceObject) -> VirtualOutput? {
        tree.outputOf(surface.id).flatMap { id in outputs.first { $0.id == id } }
    }

    package var focusedWindow: SurfaceID? { router.keyboardFocus.flatMap { tree.toplevel(of: $0) } }

    package func setWindowHidden(_ surface: SurfaceObject, _ hidden: Bool) {
        do { try tree.updateProperties(surface.id) { $0.hidden = hidden } } catch { report("\(hidden ? "hiding" : "showing") window \(surface.id): \(error)") }
    }

    package func windowHidden(_ surface: SurfaceObject) {
        router.dispatchAll()
        updateActivatedToplevel()
    }

    /// Also xdg-activation's (ActivationHandler): the window is shown if minimized, raised,
    /// and given the keyboard focus.
    package func activateWindow(_ surface: SurfaceObject) {
        guard surface.inTree else { return }
        if protocols.foreignToplevel.unminimize(surface) { setWindowHidden(surface, false) }
        raiseWindow(surface.id)
        if !exclusiveLayerHoldsKeyboard { router.setKeyboardFocus(surface.id) }
        router.dispatchAll()
        updateActivatedToplevel()
        surface.xdgSurface?.toplevel?.sendPendingActivation()
        protocols.foreignToplevel.windowChanged(surface)
    }
}
