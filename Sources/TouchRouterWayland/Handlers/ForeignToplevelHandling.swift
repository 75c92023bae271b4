import TouchRouterCore

/// What foreign toplevel management may ask of the server (TouchRouterProtocols/ForeignToplevel/).
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
