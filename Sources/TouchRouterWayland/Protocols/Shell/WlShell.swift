import CWaylandShim
import TouchRouterCore

// The core protocol's wl_shell and wl_shell_surface (version 1), the shell before
// xdg-shell. There is no configure handshake: a shell surface maps on its first commit
// with a buffer once it has been given a kind (set_toplevel, set_transient, set_popup,
// set_fullscreen, set_maximized), and a new kind takes effect at once.

package enum WlShellGlobal {
    package static let version: Int32 = 1

    package nonisolated(unsafe) static let table = implementation(wl_shell_interface(
        get_shell_surface: { client, resource, id, surfaceResource in
            let shell = WaylandObject.of(resource, as: RoomGlobal<any ShellHandler>.self)
            let surface = WaylandObject.of(surfaceResource, as: SurfaceObject.self)
            // The role stays with the wl_surface once given: a shell surface may be made
            // again for it only after the last one went.
            guard surface.role == .none || surface.role == .shellSurface && surface.wlShellSurface == nil else {
                shell.postError(WL_SHELL_ERROR_ROLE.rawValue, "wl_shell@\(wl_resource_get_id(resource)).get_shell_surface: wl_surface@\(wl_resource_get_id(surfaceResource)) already has the role \(surface.role.rawValue)")
                return
            }
            guard let created = createResource(client, tr_wl_shell_surface_interface(), version: shell.version, id: id) else { return }
            let shellSurface = WlShellSurfaceObject(resource: created, madeBy: shell, handler: shell.handler, surface: surface)
            WaylandObject.install(shellSurface, implementation: WlShellSurfaceObject.table)
            surface.wlShellSurface = shellSurface
            surface.role = .shellSurface
        }))
}

package final class WlShellSurfaceObject: WaylandObject {
    package enum Kind: Equatable {
        case unset, toplevel, transient, popup, fullscreen, maximized
    }

    private unowned let handler: any ShellHandler
    package weak var surface: SurfaceObject?
    package private(set) var kind = Kind.unset
    /// The surface a transient or popup hangs from, and where, in its surface-local coordinates.
    package private(set) weak var parent: SurfaceObject?
    package private(set) var offset = Offset(dx: 0, dy: 0)
    /// A transient with the inactive flag does not take the keyboard focus when it maps.
    package private(set) var inactive = false
    package var title = ""
    package var className = ""
    /// Whether the window is placed filling its output now, and where it was before.
    package var filling = false
    package var restorePosition: Offset?
    /// It holds the seat's client grab, as a popup does.
    package var grabbing = false

    package var fills: Bool { kind == .fullscreen || kind == .maximized }
    /// The parent a popup's surface is nested below in the core's tree.
    package var popupParent: SurfaceObject? { kind == .popup ? parent : nil }

    package var label: String {
        className.isEmpty ? title : title.isEmpty ? className : "\(className): \(title)"
    }

    package init(resource: OpaquePointer, madeBy shell: WaylandObject, handler: any ShellHandler, surface: SurfaceObject) {
        self.handler = handler
        self.surface = surface
        super.init(resource: resource, madeBy: shell)
    }

    package override func resourceDestroyed() {
        endGrab()
        if surface?.wlShellSurface === self { surface?.wlShellSurface = nil }
        handler.roleDestroyed(surface: surface)
    }

    package func endGrab() {
        guard grabbing else { return }
        grabbing = false
        handler.popupGrabEnded(by: client)
    }

    /// Gives the surface a kind. One that needs another place in the core's tree (a popup
    /// where it was a window, another parent) takes the surface out of the tree: it maps
    /// again, as the new kind, on its next commit.
    private func become(_ kind: Kind, parent: SurfaceObject? = nil, offset: Offset = Offset(dx: 0, dy: 0), inactive: Bool = false) {
        let before = (kind: self.kind, parent: self.parent, offset: self.offset)
        self.kind = kind
        self.parent = parent
        self.offset = offset
        self.inactive = inactive
        guard let surface, surface.inTree else { return }
        let popupChanged = (before.kind == .popup) != (kind == .popup)
        let placeChanged = (kind == .popup || kind == .transient) && (before.parent !== parent || before.offset != offset || before.kind != kind)
        if popupChanged || placeChanged {
            endGrab()
            handler.roleDestroyed(surface: surface)
        }
        handler.windowChanged(surface)
    }

    /// A parent for set_transient or set_popup: not the surface itself, nor one hanging
    /// below it, and within the nesting limit. Nil when that ended the client.
    private func checkedParent(_ parentResource: OpaquePointer?, _ request: String) -> SurfaceObject? {
        guard let parentResource, let surface else { return nil }
        let parent = WaylandObject.of(parentResource, as: SurfaceObject.self)
        var ancestor: SurfaceObject? = parent
        var steps = 0
        while let next = ancestor, steps <= ClientLimits.nestingDepth + 1 {
            if next === surface {
                // wl_shell has no error for this: a cycle would hang the tree, so it is the role error.
                postError(WL_SHELL_ERROR_ROLE.rawValue, "wl_shell_surface@\(wl_resource_get_id(resource)).\(request): wl_surface@\(wl_resource_get_id(parentResource)) is this surface or hangs below it")
                return nil
            }
            ancestor = next.wlShellSurface?.parent ?? next.subsurface?.parent ?? next.xdgSurface?.popup?.parent
            steps += 1
        }
        guard surface.fitsBelow(parent) else {
            endClient("wl_shell_surface@\(wl_resource_get_id(resource)).\(request)", pastLimit: "nests the surface past \(ClientLimits.nestingDepth) levels, the most surfaces may nest")
            return nil
        }
        return parent
    }

    /// set_fullscreen and set_maximized: the client is asked for its output's size (the
    /// usable area's when maximized); the surface goes to the corner on its next commit.
    private func fill(_ kind: Kind) {
        become(kind)
        guard let size = handler.fillSize(of: self) else { return }
        wl_shell_surface_send_configure(resource, 0, Int32(clamping: size.width), Int32(clamping: size.height))
    }

    package nonisolated(unsafe) static let table = implementation(wl_shell_surface_interface(
        pong: { _, _, _ in },
        move: { _, resource, _, serial in
            let shellSurface = WaylandObject.of(resource, as: WlShellSurfaceObject.self)
            guard let surface = shellSurface.surface, !shellSurface.filling, shellSurface.kind != .popup else { return }
            shellSurface.handler.beginMove(surface, serial: serial)
        },
        resize: { _, resource, _, serial, edges in
            let shellSurface = WaylandObject.of(resource, as: WlShellSurfaceObject.self)
            // wl_shell has no error for an edge it does not have: such a resize is ignored.
            guard [1, 2, 4, 5, 6, 8, 9, 10].contains(edges), !shellSurface.filling, shellSurface.kind != .popup else { return }
            shellSurface.handler.beginShellResize(shellSurface, serial: serial, edges: edges)
        },
        set_toplevel: { _, resource in
            WaylandObject.of(resource, as: WlShellSurfaceObject.self).become(.toplevel)
        },
        set_transient: { _, resource, parentResource, x, y, flags in
            let shellSurface = WaylandObject.of(resource, as: WlShellSurfaceObject.self)
            guard let parent = shellSurface.checkedParent(parentResource, "set_transient") else { return }
            shellSurface.become(.transient, parent: parent, offset: Offset(dx: Int(x), dy: Int(y)),
                                inactive: flags & WL_SHELL_SURFACE_TRANSIENT_INACTIVE.rawValue != 0)
        },
        // The method, framerate and output asked for are not used: the window fills the output it is on.
        set_fullscreen: { _, resource, _, _, _ in
            WaylandObject.of(resource, as: WlShellSurfaceObject.self).fill(.fullscreen)
        },
        set_popup: { _, resource, _, _, parentResource, x, y, _ in
            let shellSurface = WaylandObject.of(resource, as: WlShellSurfaceObject.self)
            guard let parent = shellSurface.checkedParent(parentResource, "set_popup") else { return }
            shellSurface.become(.popup, parent: parent, offset: Offset(dx: Int(x), dy: Int(y)))
        },
        set_maximized: { _, resource, _ in
            WaylandObject.of(resource, as: WlShellSurfaceObject.self).fill(.maximized)
        },
        set_title: { _, resource, title in
            let shellSurface = WaylandObject.of(resource, as: WlShellSurfaceObject.self)
            shellSurface.title = title.map { String(cString: $0) } ?? ""
            shellSurface.handler.shellSurfaceLabelChanged(shellSurface)
        },
        set_class: { _, resource, className in
            let shellSurface = WaylandObject.of(resource, as: WlShellSurfaceObject.self)
            shellSurface.className = className.map { String(cString: $0) } ?? ""
            shellSurface.handler.shellSurfaceLabelChanged(shellSurface)
        }))
}

extension WaylandServer {
    package func outputForShellSurface(_ shellSurface: WlShellSurfaceObject) -> VirtualOutput? {
        if let surface = shellSurface.surface, surface.inTree, let id = tree.outputOf(surface.id),
           let output = outputs.first(where: { $0.id == id }) { return output }
        return outputs.first
    }

    package func shellSurfaceLabelChanged(_ shellSurface: WlShellSurfaceObject) {
        guard let surface = shellSurface.surface, surface.inTree, tree.role(of: surface.id) == .toplevel else { return }
        try? tree.setLabel(surface.id, shellSurface.label)
        protocols.foreignToplevel.windowChanged(surface)
    }

    /// On a commit with a buffer of a shell surface out of the tree: maps it as its kind.
    package func mapShellSurface(_ surface: SurfaceObject, _ shellSurface: WlShellSurfaceObject) {
        switch shellSurface.kind {
        case .unset:
            return
        case .toplevel, .fullscreen, .maximized:
            mapToplevel(surface, label: shellSurface.label)
        case .transient:
            // At (x, y) in its parent's surface, on the parent's output; where the parent is
            // not on one, as a toplevel of its own.
            guard let parent = shellSurface.parent, parent.inTree, let origin = tree.surface(parent.id)?.originInOutput,
                  let outputID = tree.outputOf(parent.id), let output = outputs.first(where: { $0.id == outputID }) else {
                mapToplevel(surface, label: shellSurface.label, focus: !shellSurface.inactive)
                return
            }
            let offset = shellSurface.offset
            mapToplevel(surface, label: shellSurface.label, output: output,
                        position: Offset(dx: origin.dx + offset.dx, dy: origin.dy + offset.dy), focus: !shellSurface.inactive)
        case .popup:
            guard let parent = shellSurface.parent, parent.inTree else { return }
            let entered = enterTree(surface, as: "popup") { client, properties throws(SurfaceTreeError) in
                try tree.addPopup(surface.id, client: client, parent: parent.id, position: shellSurface.offset,
                                  size: surface.size, properties: properties, label: "popup")
            }
            guard entered else { return }
            // A wl_shell popup always grabs: a press outside the client's surfaces ends it.
            shellSurface.grabbing = true
            router.beginClientGrab(record(for: surface.client).id) { [weak shellSurface] in
                guard let shellSurface, shellSurface.grabbing else { return }
                shellSurface.grabbing = false
                wl_shell_surface_send_popup_done(shellSurface.resource)
            }
            router.setKeyboardFocus(surface.id)
            router.dispatchAll()
        }
    }

    /// On each commit of a shell surface in the tree: a fullscreen or maximized one goes
    /// to its output's corner (the usable area's when maximized), and back once no longer.
    package func placeShellSurface(_ surface: SurfaceObject, _ shellSurface: WlShellSurfaceObject) throws(SurfaceTreeError) {
        guard tree.role(of: surface.id) == .toplevel, let position = tree.surface(surface.id)?.position else { return }
        if shellSurface.fills {
            let usable = shellSurface.kind == .fullscreen ? nil : outputForShellSurface(shellSurface).map { usableArea(of: $0) }
            let corner = Offset(dx: usable?.x ?? 0, dy: usable?.y ?? 0)
            if !shellSurface.filling {
                shellSurface.filling = true
                shellSurface.restorePosition = position
            }
            if position != corner { try tree.move(surface.id, to: corner) }
        } else if shellSurface.filling {
            shellSurface.filling = false
            if let restore = shellSurface.restorePosition, !options.kiosk, restore != position { try tree.move(surface.id, to: restore) }
            shellSurface.restorePosition = nil
        }
    }

    /// wl_shell_surface.resize, as xdg_toplevel.resize (`beginResize`): each motion sends
    /// configure with the edges and the surface grown or shrunk by the pointer's travel.
    package func beginShellResize(_ shellSurface: WlShellSurfaceObject, serial: UInt32, edges: UInt32) {
        guard !options.kiosk, let surface = shellSurface.surface, surface.inTree,
              let record = existingRecord(for: surface.client), record.buttonPressSerial == serial,
              let focus = router.pointerFocus, tree.toplevel(of: focus) == surface.id,
              let position = tree.surface(surface.id)?.position else { return }
        let size = surface.size
        let start = router.pointerPosition
        let (top, bottom, left, right) = (edges & 1 != 0, edges & 2 != 0, edges & 4 != 0, edges & 8 != 0)
        router.takePointer(from: record.id, onMotion: { [unowned self, weak shellSurface] point in
            guard let shellSurface, let surface = shellSurface.surface, surface.inTree,
                  point.x.isFinite, point.y.isFinite, abs(point.x - start.x) < 1e9, abs(point.y - start.y) < 1e9 else { return }
            let dx = Int((point.x - start.x).rounded()), dy = Int((point.y - start.y).rounded())
            let width = max(1, size.width + (right ? dx : left ? -dx : 0))
            let height = max(1, size.height + (bottom ? dy : top ? -dy : 0))
            wl_shell_surface_send_configure(shellSurface.resource, edges, Int32(clamping: width), Int32(clamping: height))
            let target = Offset(dx: left ? position.dx + size.width - width : position.dx,
                                dy: top ? position.dy + size.height - height : position.dy)
            if self.tree.surface(surface.id)?.position != target {
                do { try self.tree.move(surface.id, to: target) } catch { self.report("resizing \(surface.id): \(error)") }
            }
        }, ended: {})
    }
}
