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
