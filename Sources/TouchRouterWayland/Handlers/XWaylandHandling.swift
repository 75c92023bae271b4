import CWaylandShim
import TouchRouterCore
import TouchRouterProtocols
#if canImport(Glibc)
import Glibc
#endif

/// What Xwayland's window manager may ask of the session (TouchRouterXWayland): X11 windows
/// enter the same tree as every other surface, at the X root's coordinates, which are the
/// session's global ones. A managed window is a toplevel; an override-redirect window or
/// a menu or tooltip is a popup of the window it belongs to.
extension WaylandServer: XWaylandHandler {
    package func xwaylandConnected(socket: Int32) throws(WaylandError) -> OpaquePointer {
        guard let client = wl_client_create(display.display, socket) else {
            let error = WaylandError.errno("xwayland: wl_client_create cannot serve Xwayland")
            close(socket)
            throw error
        }
        record(for: client)
        return client
    }

    package func xwaylandSurface(id: UInt32) -> SurfaceObject? {
        guard let client = protocols.xwayland.client, let resource = wl_client_get_object(client, id),
              wl_resource_instance_of(resource, tr_wl_surface_interface(), SurfaceObject.table) != 0 else { return nil }
        return WaylandObject.of(resource, as: SurfaceObject.self)
    }

    package func x11SurfacePaired(_ window: X11Surface) {
        guard let surface = window.surface else { return }
        guard surface.role == .none || surface.role == .x11 else {
            report("xwayland: window 0x\(String(window.window, radix: 16)) named wl_surface \(surface.id), which already is a \(surface.role.rawValue)")
            window.surface = nil
            surface.x11 = nil
            return
        }
        surface.role = .x11
        mapX11WindowIfReady(surface, window)
    }

    /// Maps once the X server has the window mapped and its surface has a buffer, whichever comes last.
    package func mapX11WindowIfReady(_ surface: SurfaceObject, _ window: X11Surface) {
        guard window.mapped, surface.hasBuffer, !surface.inTree else { return }
        if window.isPopup, let parent = x11PopupParent(of: window), let origin = globalOrigin(of: parent) {
            let position = Offset(dx: window.geometry.x - origin.dx, dy: window.geometry.y - origin.dy)
            enterTree(surface, as: "X11 popup") { client, properties throws(SurfaceTreeError) in
                try tree.addPopup(surface.id, client: client, parent: parent.id, position: position, size: surface.size,
                                  properties: properties, label: window.label)
            }
            router.dispatchAll()
            return
        }
        let output = x11Output(containing: window.geometry) ?? outputs.first
        guard let output else { return }
        let position = Offset(dx: window.geometry.x - output.rect.x, dy: window.geometry.y - output.rect.y)
        mapToplevel(surface, label: window.label, output: output, position: position, focus: !window.isPopup && (window.acceptsInput || window.takesFocus))
    }

    /// Where a menu or tooltip hangs: the window it is transient for, else the X11 window
    /// holding the keyboard, else the topmost X11 window.
    private func x11PopupParent(of window: X11Surface) -> SurfaceObject? {
        if let parent = window.transientFor?.surface, parent.inTree { return parent }
        if let focused = protocols.xwayland.focused?.surface, focused.inTree, focused !== window.surface { return focused }
        for output in tree.outputs {
            for id in output.toplevels.reversed() {
                if let surface = protocols.surface.surfaces[id], surface.x11 != nil, surface !== window.surface { return surface }
            }
        }
        return nil
    }

    private func globalOrigin(of surface: SurfaceObject) -> Offset? {
        guard let inOutput = tree.surface(surface.id)?.originInOutput, let output = tree.outputOf(surface.id),
              let rect = outputs.first(where: { $0.id == output })?.rect else { return nil }
        return Offset(dx: rect.x + inOutput.dx, dy: rect.y + inOutput.dy)
    }

    /// The output holding the rectangle's corner, as the tree finds it.
    private func x11Output(containing rect: Rect<GlobalSpace>) -> VirtualOutput? {
        tree.output(at: Point(x: Double(rect.x), y: Double(rect.y))).flatMap { id in outputs.first { $0.id == id } }
    }

    package func x11WindowChanged(_ window: X11Surface) {
        guard let surface = window.surface else { return }
        guard surface.inTree else {
            mapX11WindowIfReady(surface, window)
            return
        }
        do {
            try tree.setLabel(surface.id, window.label)
            if tree.role(of: surface.id) == .toplevel {
                if let output = x11Output(containing: window.geometry) ?? outputs.first {
                    let position = Offset(dx: window.geometry.x - output.rect.x, dy: window.geometry.y - output.rect.y)
                    if tree.outputOf(surface.id) != output.id { try tree.moveToplevel(surface.id, to: output.id, position: position) }
                    else if tree.surface(surface.id)?.position != position { try tree.move(surface.id, to: position) }
                }
                shell.appIDChanged(surface)
                protocols.foreignToplevel.windowChanged(surface)
            } else if let parent = tree.parent(of: surface.id).flatMap({ protocols.surface.surfaces[$0] }), let origin = globalOrigin(of: parent) {
                let position = Offset(dx: window.geometry.x - origin.dx, dy: window.geometry.y - origin.dy)
                if tree.surface(surface.id)?.position != position { try tree.move(surface.id, to: position) }
            }
        } catch {
            report("xwayland: updating window 0x\(String(window.window, radix: 16)): \(error)")
        }
        router.dispatchAll()
    }

    package func x11WindowUnmapped(_ window: X11Surface) {
        guard let surface = window.surface, surface.x11 === window else { return }
        takeOutOfTree(surface)
        surface.x11 = nil
        if surface.role == .x11 { surface.role = .none }
    }

    package func x11Placement(of window: X11Surface, requested: Rect<GlobalSpace>) -> Rect<GlobalSpace> {
        let containing = x11Output(containing: requested)
        guard !window.isPopup, let output = containing ?? outputs.first else { return requested }
        if window.fullscreen { return output.rect }
        let usable = usableArea(of: output)
        let usableRect = Rect<GlobalSpace>(x: output.rect.x + usable.x, y: output.rect.y + usable.y, width: usable.width, height: usable.height)
        // In kiosk mode the app's main windows fill the output, as xdg toplevels do; its
        // dialogs keep their size, centred.
        if options.kiosk, window.transientFor == nil, window.type == .normal {
            return shell.kioskWindow(appID: window.appID) == .fullscreen ? output.rect : usableRect
        }
        if window.maximized { return usableRect }
        if options.kiosk {
            return Rect(x: usableRect.x + max(0, (usableRect.width - requested.width) / 2), y: usableRect.y + max(0, (usableRect.height - requested.height) / 2),
                        width: requested.width, height: requested.height)
        }
        // A window asked for off every output comes to this one's corner.
        if containing == nil { return Rect(x: usableRect.x, y: usableRect.y, width: requested.width, height: requested.height) }
        return requested
    }

    package func x11ActivationRequested(_ window: X11Surface) {
        guard let surface = window.surface, surface.inTree, tree.role(of: surface.id) == .toplevel else { return }
        raiseWindow(surface.id)
        _ = router.setKeyboardFocus(surface.id)
        router.dispatchAll()
    }

    package func x11SelectionChanged(_ kind: SelectionKind, to origin: (any SelectionOrigin)?) {
        replaceSelection(kind, with: origin, serial: protocols.selection.selections.serial(kind))
    }

    package func selection(_ kind: SelectionKind) -> (any SelectionOrigin)? { protocols.selection.selections.source(kind) }

    package func watch(fd: Int32, writable: Bool, _ callback: @escaping () -> Void) throws(WaylandError) -> OpaquePointer {
        try display.watch(fd: fd, writable: writable) { _ in callback() }
    }


    /// After each round: the X11 window behind the keyboard focus (if any) is told, so that
    /// Xwayland's own focus follows the session's.
    package func updateX11Focus() {
        let state = protocols.xwayland
        // Every round passes here: a plain pointer's test first, the weak reference only with Xwayland.
        guard state.client != nil, let windowManager = state.windowManager else { return }
        let focused = router.keyboardFocus.flatMap { tree.toplevel(of: $0) }.flatMap { protocols.surface.surfaces[$0]?.x11 }
        guard focused !== state.focused else { return }
        state.focused = focused
        windowManager.focus(focused)
    }
}
