import CWaylandShim
import TouchRouterCore

// xdg_wm_base, xdg_positioner, xdg_surface, xdg_toplevel, xdg_popup.

enum XdgWmBaseGlobal {
    static let version: Int32 = 5

    nonisolated(unsafe) static let table = implementation(xdg_wm_base_interface(
        destroy: destroyRequest,
        create_positioner: { client, resource, id in
            let base = WaylandObject.of(resource, as: BoundGlobal.self)
            guard let created = createResource(client, tr_xdg_positioner_interface(), version: base.version, id: id) else { return }
            WaylandObject.install(PositionerObject(resource: created, session: base.session), implementation: PositionerObject.table)
        },
        get_xdg_surface: { client, resource, id, surfaceResource in
            let base = WaylandObject.of(resource, as: BoundGlobal.self)
            let surface = WaylandObject.of(surfaceResource, as: SurfaceObject.self)
            guard surface.role == .none || surface.xdgSurface == nil && surface.role != .subsurface else {
                base.postError(XDG_WM_BASE_ERROR_ROLE.rawValue, "xdg_wm_base@\(wl_resource_get_id(resource)).get_xdg_surface: wl_surface@\(wl_resource_get_id(surfaceResource)) already has the role \(surface.role.rawValue)")
                return
            }
            guard !surface.hasBuffer, !surface.pending.bufferAttached || surface.pending.bufferSize == nil else {
                base.postError(XDG_SURFACE_ERROR_UNCONFIGURED_BUFFER.rawValue, "xdg_wm_base@\(wl_resource_get_id(resource)).get_xdg_surface: wl_surface@\(wl_resource_get_id(surfaceResource)) already has a buffer")
                return
            }
            guard let created = createResource(client, tr_xdg_surface_interface(), version: base.version, id: id) else { return }
            let xdg = XdgSurfaceObject(resource: created, session: base.session, surface: surface)
            WaylandObject.install(xdg, implementation: XdgSurfaceObject.table)
            surface.xdgSurface = xdg
        },
        pong: { _, _, _ in }))
}

final class PositionerObject: WaylandObject {
    var size = Size(width: 0, height: 0)
    var anchorRect = Rect<SurfaceSpace>(x: 0, y: 0, width: 0, height: 0)
    var anchor = XDG_POSITIONER_ANCHOR_NONE.rawValue
    var gravity = XDG_POSITIONER_GRAVITY_NONE.rawValue
    var offset = Offset.zero

    /// The popup's position relative to its parent's window geometry, before any
    /// constraint adjustment (outputs here are large and the popups small).
    var position: Offset {
        let ax: Int, ay: Int
        switch anchor {
        case XDG_POSITIONER_ANCHOR_LEFT.rawValue, XDG_POSITIONER_ANCHOR_TOP_LEFT.rawValue, XDG_POSITIONER_ANCHOR_BOTTOM_LEFT.rawValue: ax = anchorRect.minX
        case XDG_POSITIONER_ANCHOR_RIGHT.rawValue, XDG_POSITIONER_ANCHOR_TOP_RIGHT.rawValue, XDG_POSITIONER_ANCHOR_BOTTOM_RIGHT.rawValue: ax = anchorRect.maxX
        default: ax = anchorRect.minX + anchorRect.width / 2
        }
        switch anchor {
        case XDG_POSITIONER_ANCHOR_TOP.rawValue, XDG_POSITIONER_ANCHOR_TOP_LEFT.rawValue, XDG_POSITIONER_ANCHOR_TOP_RIGHT.rawValue: ay = anchorRect.minY
        case XDG_POSITIONER_ANCHOR_BOTTOM.rawValue, XDG_POSITIONER_ANCHOR_BOTTOM_LEFT.rawValue, XDG_POSITIONER_ANCHOR_BOTTOM_RIGHT.rawValue: ay = anchorRect.maxY
        default: ay = anchorRect.minY + anchorRect.height / 2
        }
        let gx: Int, gy: Int
        switch gravity {
        case XDG_POSITIONER_GRAVITY_LEFT.rawValue, XDG_POSITIONER_GRAVITY_TOP_LEFT.rawValue, XDG_POSITIONER_GRAVITY_BOTTOM_LEFT.rawValue: gx = ax - size.width
        case XDG_POSITIONER_GRAVITY_RIGHT.rawValue, XDG_POSITIONER_GRAVITY_TOP_RIGHT.rawValue, XDG_POSITIONER_GRAVITY_BOTTOM_RIGHT.rawValue: gx = ax
        default: gx = ax - size.width / 2
        }
        switch gravity {
        case XDG_POSITIONER_GRAVITY_TOP.rawValue, XDG_POSITIONER_GRAVITY_TOP_LEFT.rawValue, XDG_POSITIONER_GRAVITY_TOP_RIGHT.rawValue: gy = ay - size.height
        case XDG_POSITIONER_GRAVITY_BOTTOM.rawValue, XDG_POSITIONER_GRAVITY_BOTTOM_LEFT.rawValue, XDG_POSITIONER_GRAVITY_BOTTOM_RIGHT.rawValue: gy = ay
        default: gy = ay - size.height / 2
        }
        return Offset(dx: gx + offset.dx, dy: gy + offset.dy)
    }

    nonisolated(unsafe) static let table = implementation(xdg_positioner_interface(
        destroy: destroyRequest,
        set_size: { _, resource, width, height in
            let positioner = WaylandObject.of(resource, as: PositionerObject.self)
            guard width > 0, height > 0 else {
                positioner.postError(XDG_POSITIONER_ERROR_INVALID_INPUT.rawValue, "xdg_positioner@\(wl_resource_get_id(resource)).set_size: \(width)x\(height) is not positive")
                return
            }
            positioner.size = Size(width: Int(width), height: Int(height))
        },
        set_anchor_rect: { _, resource, x, y, width, height in
            let positioner = WaylandObject.of(resource, as: PositionerObject.self)
            guard width >= 0, height >= 0 else {
                positioner.postError(XDG_POSITIONER_ERROR_INVALID_INPUT.rawValue, "xdg_positioner@\(wl_resource_get_id(resource)).set_anchor_rect: \(width)x\(height) is negative")
                return
            }
            positioner.anchorRect = Rect(x: Int(x), y: Int(y), width: Int(width), height: Int(height))
        },
        set_anchor: { _, resource, anchor in WaylandObject.of(resource, as: PositionerObject.self).anchor = anchor },
        set_gravity: { _, resource, gravity in WaylandObject.of(resource, as: PositionerObject.self).gravity = gravity },
        set_constraint_adjustment: { _, _, _ in },
        set_offset: { _, resource, x, y in WaylandObject.of(resource, as: PositionerObject.self).offset = Offset(dx: Int(x), dy: Int(y)) },
        set_reactive: { _, _ in },
        set_parent_size: { _, _, _, _ in },
        set_parent_configure: { _, _, _ in }))
}

final class XdgSurfaceObject: WaylandObject {
    weak var surface: SurfaceObject?
    weak var toplevel: XdgToplevelObject?
    weak var popup: XdgPopupObject?
    var configured = false
    var lastConfigureSerial: UInt32 = 0
    var sentFirstConfigure = false
    var geometry: Rect<SurfaceSpace>? = nil

    init(resource: OpaquePointer, session: WaylandSession, surface: SurfaceObject) {
        self.surface = surface
        super.init(resource: resource, session: session)
    }

    override func resourceDestroyed() {
        if surface?.xdgSurface === self { surface?.xdgSurface = nil }
    }

    /// Sends the role's configure, then xdg_surface.configure with a fresh serial.
    func sendConfigure() {
        let serial = session.display.nextSerial
        if let toplevel {
            var states = wl_array()
            wl_array_init(&states)
            let size = session.configureSize(for: toplevel)
            xdg_toplevel_send_configure(toplevel.resource, Int32(size.width), Int32(size.height), &states)
            wl_array_release(&states)
        } else if let popup {
            let position = popup.position
            xdg_popup_send_configure(popup.resource, Int32(position.dx), Int32(position.dy), Int32(popup.size.width), Int32(popup.size.height))
        }
        xdg_surface_send_configure(resource, serial)
        lastConfigureSerial = serial
        sentFirstConfigure = true
    }

    nonisolated(unsafe) static let table = implementation(xdg_surface_interface(
        destroy: destroyRequest,
        get_toplevel: { client, resource, id in
            let xdg = WaylandObject.of(resource, as: XdgSurfaceObject.self)
            guard let surface = xdg.surface, surface.role == .none else {
                xdg.postError(XDG_WM_BASE_ERROR_ROLE.rawValue, "xdg_surface@\(wl_resource_get_id(resource)).get_toplevel: the surface already has a role")
                return
            }
            guard let created = createResource(client, tr_xdg_toplevel_interface(), version: xdg.version, id: id) else { return }
            let toplevel = XdgToplevelObject(resource: created, session: xdg.session, xdgSurface: xdg)
            WaylandObject.install(toplevel, implementation: XdgToplevelObject.table)
            xdg.toplevel = toplevel
            surface.role = .toplevel
        },
        get_popup: { client, resource, id, parentResource, positionerResource in
            let xdg = WaylandObject.of(resource, as: XdgSurfaceObject.self)
            guard let surface = xdg.surface, surface.role == .none else {
                xdg.postError(XDG_WM_BASE_ERROR_ROLE.rawValue, "xdg_surface@\(wl_resource_get_id(resource)).get_popup: the surface already has a role")
                return
            }
            let positioner = WaylandObject.of(positionerResource, as: PositionerObject.self)
            guard positioner.size.width > 0 else {
                xdg.postError(XDG_WM_BASE_ERROR_INVALID_POSITIONER.rawValue, "xdg_surface@\(wl_resource_get_id(resource)).get_popup: the positioner has no size")
                return
            }
            guard let created = createResource(client, tr_xdg_popup_interface(), version: xdg.version, id: id) else { return }
            let parent = parentResource.map { WaylandObject.of($0, as: XdgSurfaceObject.self) }
            let popup = XdgPopupObject(resource: created, session: xdg.session, xdgSurface: xdg, parent: parent?.surface)
            popup.size = positioner.size
            popup.position = positioner.position
            if let geometry = parent?.geometry { popup.position = popup.position + Offset(dx: geometry.minX, dy: geometry.minY) }
            WaylandObject.install(popup, implementation: XdgPopupObject.table)
            xdg.popup = popup
            surface.role = .popup
        },
        set_window_geometry: { _, resource, x, y, width, height in
            let xdg = WaylandObject.of(resource, as: XdgSurfaceObject.self)
            guard width > 0, height > 0 else {
                xdg.postError(XDG_SURFACE_ERROR_INVALID_SIZE.rawValue, "xdg_surface@\(wl_resource_get_id(resource)).set_window_geometry: \(width)x\(height) is not positive")
                return
            }
            xdg.geometry = Rect(x: Int(x), y: Int(y), width: Int(width), height: Int(height))
        },
        ack_configure: { _, resource, serial in
            let xdg = WaylandObject.of(resource, as: XdgSurfaceObject.self)
            guard xdg.sentFirstConfigure, serial <= xdg.lastConfigureSerial else {
                xdg.postError(XDG_SURFACE_ERROR_INVALID_SERIAL.rawValue, "xdg_surface@\(wl_resource_get_id(resource)).ack_configure: serial \(serial) was never sent")
                return
            }
            xdg.configured = true
        }))
}

final class XdgToplevelObject: WaylandObject {
    weak var xdgSurface: XdgSurfaceObject?
    var title = ""
    var appID = ""

    init(resource: OpaquePointer, session: WaylandSession, xdgSurface: XdgSurfaceObject) {
        self.xdgSurface = xdgSurface
        super.init(resource: resource, session: session)
    }

    override func resourceDestroyed() { session.roleDestroyed(surface: xdgSurface?.surface) }

    nonisolated(unsafe) static let table = implementation(xdg_toplevel_interface(
        destroy: destroyRequest,
        set_parent: { _, _, _ in },
        set_title: { _, resource, title in
            let toplevel = WaylandObject.of(resource, as: XdgToplevelObject.self)
            toplevel.title = title.map { String(cString: $0) } ?? ""
            toplevel.session.labelChanged(toplevel)
        },
        set_app_id: { _, resource, appID in
            let toplevel = WaylandObject.of(resource, as: XdgToplevelObject.self)
            toplevel.appID = appID.map { String(cString: $0) } ?? ""
            toplevel.session.labelChanged(toplevel)
        },
        show_window_menu: { _, _, _, _, _, _ in },
        move: { _, _, _, _ in },
        resize: { _, _, _, _, _ in },
        set_max_size: { _, _, _, _ in },
        set_min_size: { _, _, _, _ in },
        set_maximized: { _, _ in },
        unset_maximized: { _, _ in },
        set_fullscreen: { _, _, _ in },
        unset_fullscreen: { _, _ in },
        set_minimized: { _, _ in }))
}

final class XdgPopupObject: WaylandObject {
    weak var xdgSurface: XdgSurfaceObject?
    weak var parent: SurfaceObject?
    var size = Size(width: 0, height: 0)
    var position = Offset.zero
    var grabbed = false

    init(resource: OpaquePointer, session: WaylandSession, xdgSurface: XdgSurfaceObject, parent: SurfaceObject?) {
        self.xdgSurface = xdgSurface
        self.parent = parent
        super.init(resource: resource, session: session)
    }

    override func resourceDestroyed() {
        session.popupGone(self)
        session.roleDestroyed(surface: xdgSurface?.surface)
    }

    nonisolated(unsafe) static let table = implementation(xdg_popup_interface(
        destroy: destroyRequest,
        grab: { _, resource, _, _ in
            let popup = WaylandObject.of(resource, as: XdgPopupObject.self)
            guard popup.xdgSurface?.surface?.inTree != true else {
                popup.postError(XDG_POPUP_ERROR_INVALID_GRAB.rawValue, "xdg_popup@\(wl_resource_get_id(resource)).grab: the popup is mapped already; grab before its first commit with a buffer")
                return
            }
            popup.grabbed = true
        },
        reposition: { _, resource, positionerResource, token in
            let popup = WaylandObject.of(resource, as: XdgPopupObject.self)
            let positioner = WaylandObject.of(positionerResource, as: PositionerObject.self)
            popup.size = positioner.size
            popup.position = positioner.position
            xdg_popup_send_repositioned(resource, token)
            popup.xdgSurface?.sendConfigure()
        }))
}
