import CWaylandShim
import TouchRouterCore

/// Surfaces entering and leaving the core's tree: created, committed, mapped as toplevels,
/// popups and subsurfaces, restacked and destroyed, and the popups that hold a grab.
extension WaylandServer {
    package func surfaceCreated(_ surface: SurfaceObject) {
        surface.assignID(SurfaceID(protocols.surface.nextSurface))
        protocols.surface.nextSurface += 1
        WaylandObject.install(surface, implementation: SurfaceObject.table)
        protocols.surface.surfaces[surface.id] = surface
        // Xwayland's WL_SURFACE_ID may name a surface before the session has read its creation.
        if surface.client == protocols.xwayland.client { protocols.xwayland.windowManager?.surfaceCreated(id: wl_resource_get_id(surface.resource)) }
    }

    package func surfaceDestroyed(_ surface: SurfaceObject) {
        // Out of the lookup first: the leaves the core sends as it leaves the tree are
        // not for an object the client has destroyed.
        protocols.surface.surfaces[surface.id] = nil
        surface.replaceContents(with: nil)
        surface.countRegionRectangles(nil)
        existingRecord(for: surface.client)?.usage.surfaces -= 1
        surface.subsurface?.detach()
        // Save for wl_pointer.leave: the client sees the pointer leave the surface it destroys
        // (as a leave for an object it no longer has), so that its next enter follows a leave.
        protocols.surface.surfaceBeingDestroyed = surface
        takeOutOfTree(surface)
        protocols.surface.surfaceBeingDestroyed = nil
        // A layer surface whose wl_surface went no longer holds its place or its zone.
        if let layer = surface.layerSurface {
            layer.surface = nil
            if let output = layer.output { layersChanged(on: output) }
        }
    }

    /// The role object (xdg_toplevel or xdg_popup) went: the surface leaves the tree, and
    /// may take a role again.
    package func roleDestroyed(surface: SurfaceObject?) {
        guard let surface else { return }
        takeOutOfTree(surface)
        if surface.role == .toplevel || surface.role == .popup { surface.role = .none }
    }

    package func takeOutOfTree(_ surface: SurfaceObject) {
        guard surface.inTree else { return }
        protocols.foreignToplevel.windowUnmapped(surface)
        surface.inTree = false
        do { markOutOfTree(try tree.remove(surface.id)) } catch { report("removing \(surface.id): \(error)") }
        router.dispatchAll()
    }

    /// Everything stacked on a removed surface (subsurfaces and popups) left the tree with it.
    private func markOutOfTree(_ removed: [SurfaceID]) {
        for id in removed {
            protocols.surface.surfaces[id]?.inTree = false
            shell.surfaceLeft(id)
        }
    }

    package func subsurfaceCreated(_ subsurface: SubsurfaceObject) {
        guard let parent = subsurface.parent, parent.inTree, let surface = subsurface.surface else { return }
        addToTree(surface, parent: parent, below: false)
    }

    package func subsurfaceDestroyed(_ subsurface: SubsurfaceObject) {
        subsurface.detach()
        if let surface = subsurface.surface {
            takeOutOfTree(surface)
            surface.cached = nil
        }
    }

    package func labelChanged(_ toplevel: XdgToplevelObject) {
        guard let surface = toplevel.xdgSurface?.surface, surface.inTree else { return }
        try? tree.setLabel(surface.id, label(of: toplevel))
        protocols.foreignToplevel.windowChanged(surface)
    }

    private func label(of toplevel: XdgToplevelObject) -> String {
        toplevel.appID.isEmpty ? toplevel.title : toplevel.title.isEmpty ? toplevel.appID : "\(toplevel.appID): \(toplevel.title)"
    }

    /// The size a toplevel is asked to take: its output's when fullscreen, the output's
    /// usable area (what layer surfaces' exclusive zones leave) in kiosk mode and when
    /// maximized, its own choice otherwise.
    package func configureSize(for toplevel: XdgToplevelObject) -> Size {
        if let size = toplevel.resizeSize { return size }
        guard options.kiosk || toplevel.fills, let output = output(of: toplevel) else { return Size(width: 0, height: 0) }
        if toplevel.fullscreen { return output.mode.layoutSize }
        let usable = usableArea(of: output)
        return Size(width: usable.width, height: usable.height)
    }

    /// The states a toplevel's configure carries: what it asked for, activated while it
    /// holds the keyboard focus, and in kiosk mode fullscreen (or maximized, as its app's
    /// `kiosk-window` says) and tiled on every edge (from version 2).
    package func configureStates(for toplevel: XdgToplevelObject) -> [xdg_toplevel_state] {
        var states: [xdg_toplevel_state] = []
        let kioskWindow = options.kiosk ? shell.kioskWindow(appID: toplevel.appID) : nil
        if toplevel.maximized || kioskWindow == .maximized { states.append(XDG_TOPLEVEL_STATE_MAXIMIZED) }
        if toplevel.fullscreen || kioskWindow == .fullscreen { states.append(XDG_TOPLEVEL_STATE_FULLSCREEN) }
        if toplevel.resizeSize != nil { states.append(XDG_TOPLEVEL_STATE_RESIZING) }
        if protocols.shell.activeToplevel === toplevel { states.append(XDG_TOPLEVEL_STATE_ACTIVATED) }
        if options.kiosk, toplevel.version >= 2 {
            states += [XDG_TOPLEVEL_STATE_TILED_LEFT, XDG_TOPLEVEL_STATE_TILED_RIGHT, XDG_TOPLEVEL_STATE_TILED_TOP, XDG_TOPLEVEL_STATE_TILED_BOTTOM]
        }
        return states
    }

    /// The output a toplevel is on, or the one it will map on.
    package func output(of toplevel: XdgToplevelObject) -> VirtualOutput? {
        if let surface = toplevel.xdgSurface?.surface, surface.inTree, let id = tree.outputOf(surface.id),
           let output = outputs.first(where: { $0.id == id }) { return output }
        return outputs.first
    }

    /// After each round: the toplevel holding the keyboard focus is the activated one; the
    /// one that lost it and the one that gained it are configured again.
    package func updateActivatedToplevel() {
        protocols.foreignToplevel.activationChanged()
        updateX11Focus()
        let focused = router.keyboardFocus.flatMap { tree.toplevel(of: $0) }.flatMap { protocols.surface.surfaces[$0]?.xdgSurface?.toplevel }
        guard focused !== protocols.shell.activeToplevel else { return }
        let previous = protocols.shell.activeToplevel
        protocols.shell.activeToplevel = focused
        previous?.activationChanged()
        focused?.activationChanged()
    }

    /// On a toplevel's commit: when its acked configure asks it to fill the output, its
    /// window geometry goes to the output's corner; when no longer, back where it was.
    private func placeFilling(_ surface: SurfaceObject, _ toplevel: XdgToplevelObject) throws(SurfaceTreeError) {
        guard let position = tree.surface(surface.id)?.position else { return }
        if toplevel.ackedFill {
            let geometry = surface.xdgSurface?.geometry
            // A maximized window's corner is the usable area's, a fullscreen one's the output's.
            let usable = toplevel.fullscreen ? nil : output(of: toplevel).map { usableArea(of: $0) }
            let corner = Offset(dx: (usable?.x ?? 0) - (geometry?.x ?? 0), dy: (usable?.y ?? 0) - (geometry?.y ?? 0))
            if !toplevel.filling {
                toplevel.filling = true
                toplevel.restorePosition = position
            }
            if position != corner { try tree.move(surface.id, to: corner) }
        } else if toplevel.filling {
            toplevel.filling = false
            if let restore = toplevel.restorePosition, !options.kiosk, restore != position { try tree.move(surface.id, to: restore) }
            toplevel.restorePosition = nil
        }
    }

    /// After a commit made state current: configure a new xdg surface, map it once it has
    /// acked and has a buffer, and bring the core's tree up to date.
    package func surfaceCommitted(_ surface: SurfaceObject, frameCallbacks: [FrameCallback]) {
        protocols.surface.pendingFrames += frameCallbacks.map { ($0, surface.id) }
        if surface.role == .dndIcon { dragIconCommitted(surface) }
        if let toplevel = surface.xdgSurface?.toplevel, !toplevel.commitSizes() { return }
        if surface.role == .layer, let layer = surface.layerSurface, !layerSurfaceCommitted(surface, layer) { return }
        if surface.role == .lockSurface, let lockSurface = surface.lockSurface, !lockSurface.committed(surface, handler: self) { return }
        if let xdg = surface.xdgSurface, xdg.toplevel != nil || xdg.popup != nil {
            if !xdg.sentFirstConfigure { xdg.sendConfigure() }
            // Mapping waits for a buffer, not for ack_configure: WLCS's clients attach
            // their first buffer before they have read the configure, some even in the
            // very first commit. Mir maps them; wlroots and Weston end them with a
            // protocol error.
            if !surface.inTree, surface.hasBuffer {
                if let toplevel = xdg.toplevel { mapToplevel(surface, label: label(of: toplevel)) }
                else if let popup = xdg.popup, let parent = popup.parent, parent.inTree { mapPopup(surface, popup, parent: parent) }
            }
        }
        if let shellSurface = surface.wlShellSurface, !surface.inTree, surface.hasBuffer { mapShellSurface(surface, shellSurface) }
        if let window = surface.x11, !surface.inTree { mapX11WindowIfReady(surface, window) }
        guard surface.inTree else { return }
        do {
            try tree.resize(surface.id, to: surface.size)
            try tree.setInputRegion(surface.id, surface.inputRegionForTree)
            let mapped = surface.hasBuffer
            if tree.properties(of: surface.id)?.mapped != mapped {
                try tree.updateProperties(surface.id) { $0.mapped = mapped }
                // A window that attached no buffer unmapped; one that attaches one again maps again.
                if mapped { protocols.foreignToplevel.windowMapped(surface) } else { protocols.foreignToplevel.windowUnmapped(surface) }
            }
            for child in surface.below + surface.above {
                guard let childSurface = child.surface, childSurface.inTree else { continue }
                if tree.surface(childSurface.id)?.position != child.position { try tree.move(childSurface.id, to: child.position) }
            }
            // A repositioned popup, or one whose window geometry changed, lines up again.
            if let popup = surface.xdgSurface?.popup, let parent = popup.parent {
                let origin = popupOrigin(popup, parent: parent)
                if tree.surface(surface.id)?.position != origin { try tree.move(surface.id, to: origin) }
            }
            if let toplevel = surface.xdgSurface?.toplevel, tree.role(of: surface.id) == .toplevel { try placeFilling(surface, toplevel) }
            if let shellSurface = surface.wlShellSurface { try placeShellSurface(surface, shellSurface) }
            if surface.pendingRestack {
                surface.pendingRestack = false
                try restackChildren(of: surface)
            }
        } catch {
            report("updating \(surface.id): \(error)")
        }
        router.dispatchAll()
    }

    /// Makes the core's order of a surface's subsurfaces match the protocol's.
    private func restackChildren(of surface: SurfaceObject) throws(SurfaceTreeError) {
        let inTree = { (list: [SubsurfaceObject]) in list.compactMap { $0.surface }.filter(\.inTree).map(\.id) }
        let wanted = (below: inTree(surface.below), above: inTree(surface.above))
        let actual = tree.subsurfaces(of: surface.id)
        guard actual.below != wanted.below || actual.above != wanted.above else { return }
        // Built outwards from the parent, each child next to the one placed before it.
        var next = surface.id
        for child in wanted.below.reversed() {
            try tree.place(child, below: next)
            next = child
        }
        var previous = surface.id
        for child in wanted.above {
            try tree.place(child, above: previous)
            previous = child
        }
    }

    /// Maps a toplevel (an xdg_toplevel, or a wl_shell_surface as a window) on `output` (the
    /// first when not given) at `position` in it, else where the cascade puts it.
    package func mapToplevel(_ surface: SurfaceObject, label: String, output given: VirtualOutput? = nil, position wanted: Offset? = nil, focus: Bool = true) {
        guard let output = given ?? outputs.first else { return }
        // Placement is of the window geometry: client-side decorations (foot's title bar)
        // and shadows may lie outside the buffer's origin, and must land on the output too.
        let geometry = surface.xdgSurface?.geometry ?? Rect(x: 0, y: 0, width: surface.size.width, height: surface.size.height)
        let corner: Offset
        let usable = usableArea(of: output)
        if options.kiosk {
            corner = Offset(dx: usable.x, dy: usable.y)
        } else {
            // Cascade from the top left of the usable area, as Weston's desktop shell does, wrapping within it.
            let step = 32 * protocols.shell.placedToplevels
            let room = (width: max(1, usable.width - geometry.width), height: max(1, usable.height - geometry.height))
            corner = Offset(dx: usable.x + step % room.width, dy: usable.y + step % room.height)
        }
        let position = wanted ?? Offset(dx: corner.dx - geometry.x, dy: corner.dy - geometry.y)
        let requested = surface.requestedPosition.map { Offset(dx: $0.dx - output.rect.x, dy: $0.dy - output.rect.y) }
        if wanted == nil { protocols.shell.placedToplevels += 1 }
        let entered = enterTree(surface, as: "toplevel") { client, properties throws(SurfaceTreeError) in
            try tree.addToplevel(surface.id, client: client, output: output.id, position: requested ?? position,
                                 size: surface.size, properties: properties, label: label)
        }
        guard entered else { return }
        // A new window ends any popup grab, as in Mir and GNOME Shell.
        router.dismissClientGrab()
        for resource in output.bindings(of: surface.client) { wl_surface_send_enter(surface.resource, resource) }
        if focus, !exclusiveLayerHoldsKeyboard { _ = router.setKeyboardFocus(surface.id) }
        router.dispatchAll()
        // Activated in the same batch as the commit's answers, not after the round.
        updateActivatedToplevel()
        protocols.foreignToplevel.windowMapped(surface)
        if let onToplevelMapped = hooks.onToplevelMapped {
            var pid: pid_t = 0
            wl_client_get_credentials(surface.client, &pid, nil, nil)
            // Xwayland's connection is the session's own socket pair: an X11 window names its process itself.
            if let window = surface.x11, window.pid > 0 { pid = window.pid }
            onToplevelMapped(pid)
        }
    }

    private func mapPopup(_ surface: SurfaceObject, _ popup: XdgPopupObject, parent: SurfaceObject) {
        let entered = enterTree(surface, as: "popup") { client, properties throws(SurfaceTreeError) in
            try tree.addPopup(surface.id, client: client, parent: parent.id, position: popupOrigin(popup, parent: parent),
                              size: surface.size, properties: properties, label: "popup")
        }
        guard entered else { return }
        if popup.grabbed {
            protocols.shell.grabbingPopups.append(popup)
            router.beginClientGrab(record(for: surface.client).id) { [unowned self] in self.dismissGrabbingPopups() }
            router.setKeyboardFocus(surface.id)
        }
        router.dispatchAll()
    }

    /// Where the popup's window geometry goes relative to its parent's: the positioner's
    /// box, moved inside the parent's output as its constraint adjustment allows (as is,
    /// while the parent is not on an output).
    package func popupBox(_ popup: XdgPopupObject) -> Rect<SurfaceSpace> {
        guard let parent = popup.parent, parent.inTree, let origin = tree.surface(parent.id)?.originInOutput,
              let output = tree.outputOf(parent.id).flatMap({ tree.output($0) }) else { return popup.placement.box }
        let geometry = parent.xdgSurface?.geometry
        let bounds = Rect<SurfaceSpace>(x: -origin.dx - (geometry?.x ?? 0), y: -origin.dy - (geometry?.y ?? 0),
                                        width: output.rect.width, height: output.rect.height)
        return popup.placement.unconstrained(in: bounds)
    }

    /// The popup surface's origin in its parent surface: window geometries lined up as configured.
    private func popupOrigin(_ popup: XdgPopupObject, parent: SurfaceObject) -> Offset {
        let parentGeometry = parent.xdgSurface?.geometry, ownGeometry = popup.xdgSurface?.geometry
        return Offset(dx: (parentGeometry?.x ?? 0) + popup.box.x - (ownGeometry?.x ?? 0),
                      dy: (parentGeometry?.y ?? 0) + popup.box.y - (ownGeometry?.y ?? 0))
    }

    /// popup_done to every grabbing popup, innermost first, as xdg-shell asks; their
    /// clients then destroy them.
    private func dismissGrabbingPopups() {
        let dismissed = protocols.shell.grabbingPopups
        protocols.shell.grabbingPopups.removeAll()
        for popup in dismissed.reversed() { xdg_popup_send_popup_done(popup.resource) }
    }

    /// A popup's role object went: it no longer holds the grab; the last one ends it.
    package func popupGone(_ popup: XdgPopupObject) {
        guard let at = protocols.shell.grabbingPopups.firstIndex(where: { $0 === popup }) else { return }
        protocols.shell.grabbingPopups.remove(at: at)
        if protocols.shell.grabbingPopups.isEmpty { router.endClientGrab() }
    }

    private func addToTree(_ surface: SurfaceObject, parent: SurfaceObject, below: Bool) {
        guard !surface.inTree, let subsurface = surface.subsurface else { return }
        enterTree(surface, as: "subsurface") { client, properties throws(SurfaceTreeError) in
            try tree.addSubsurface(surface.id, client: client, parent: parent.id, position: subsurface.position,
                                   size: surface.size, below: below, properties: properties, label: "subsurface")
        }
    }

    /// Adds a surface to the core's tree with `add` (given its client and properties, mapped
    /// once it has a buffer), sets its input region, and brings in the subsurfaces waiting on it.
    @discardableResult
    package func enterTree(_ surface: SurfaceObject, as role: String,
                           _ add: (ClientID, SurfaceProperties) throws(SurfaceTreeError) -> Void) -> Bool {
        var properties = surface.propertiesOnEntry
        properties.mapped = surface.hasBuffer
        do {
            try add(record(for: surface.client).id, properties)
            try tree.setInputRegion(surface.id, surface.inputRegionForTree)
        } catch .tooDeep(_, let limit) {
            surface.endClient("\(surface.name).commit", pastLimit: "maps a \(role) past \(limit) levels, the most surfaces may nest")
            return false
        } catch {
            report("adding \(role) \(surface.id) to the tree: \(error)")
            return false
        }
        surface.inTree = true
        shell.surfaceEntered(surface)
        attachChildren(of: surface)
        return true
    }

    /// Subsurfaces made before their parent entered the tree follow it in, in order.
    private func attachChildren(of surface: SurfaceObject) {
        for child in surface.below.reversed() { if let s = child.surface { addToTree(s, parent: surface, below: true) } }
        for child in surface.above { if let s = child.surface { addToTree(s, parent: surface, below: false) } }
    }
}
