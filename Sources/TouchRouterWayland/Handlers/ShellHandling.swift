import TouchRouterCore

/// What the shell family's objects may ask of the server (TouchRouterProtocols/Shell/). Configures,
/// mapping and placement are SurfaceMapping.swift's, moves and resizes InteractiveMove.swift's,
/// stacking WindowStacking.swift's.
extension WaylandServer: ShellHandler {
    package func fillSize(of shellSurface: WlShellSurfaceObject) -> Size? {
        guard let output = outputForShellSurface(shellSurface) else { return nil }
        if shellSurface.kind == .fullscreen { return output.mode.layoutSize }
        let usable = usableArea(of: output)
        return Size(width: usable.width, height: usable.height)
    }

    package func popupGrabEnded(by client: OpaquePointer) {
        // Only a grab still this client's: a later one (another client's popup) replaced it.
        guard protocols.shell.grabbingPopups.isEmpty, let record = existingRecord(for: client),
              router.grabbingClient == record.id else { return }
        router.endClientGrab()
    }

    package func windowChanged(_ surface: SurfaceObject) { protocols.foreignToplevel.windowChanged(surface) }

    package func windowMinimized(_ surface: SurfaceObject) { protocols.foreignToplevel.setMinimized(surface, true) }

    package func appIDChanged(_ toplevel: XdgToplevelObject, from before: String) {
        // In kiosk mode the app id chooses the window's state.
        if options.kiosk, shell.kioskWindow(appID: before) != shell.kioskWindow(appID: toplevel.appID) { toplevel.xdgSurface?.sendConfigure() }
        labelChanged(toplevel)
        if let surface = toplevel.xdgSurface?.surface { shell.appIDChanged(surface) }
    }
}
