import CWaylandShim

// xdg-shell-unstable-v6 (zxdg_shell_v6 version 1), for clients that predate the stable
// xdg-shell. Its requests and events have the shapes and opcodes of stable xdg-shell
// version 1, so these tables install the same objects as XdgShell.swift and forward to
// the same request bodies, with `XdgFlavor.v6` for what differs: the bitfield anchor and
// gravity of the positioner, a popup's required parent, and the error codes.

package enum XdgShellV6Global {
    package static let version: Int32 = 1

    package static let bind: wl_global_bind_func_t = { client, data, version, id in
        GlobalHost.bind(client, data, version, id, tr_zxdg_shell_v6_interface(), XdgShellV6Global.table) { $0 as any ShellHandler }
    }

    package nonisolated(unsafe) static let table = implementation(zxdg_shell_v6_interface(
        destroy: destroyRequest,
        create_positioner: { client, resource, id in XdgWmBaseGlobal.createPositioner(client, resource, id, .v6) },
        get_xdg_surface: { client, resource, id, surfaceResource in XdgWmBaseGlobal.getXdgSurface(client, resource, id, surfaceResource, .v6) },
        pong: { _, _, _ in }))
}

extension PositionerObject {
    package nonisolated(unsafe) static let v6Table = implementation(zxdg_positioner_v6_interface(
        destroy: destroyRequest,
        set_size: { _, resource, width, height in WaylandObject.of(resource, as: PositionerObject.self).setSize(width, height) },
        set_anchor_rect: { _, resource, x, y, width, height in WaylandObject.of(resource, as: PositionerObject.self).setAnchorRect(x, y, width, height) },
        set_anchor: { _, resource, anchor in WaylandObject.of(resource, as: PositionerObject.self).setAnchor(anchor) },
        set_gravity: { _, resource, gravity in WaylandObject.of(resource, as: PositionerObject.self).setGravity(gravity) },
        set_constraint_adjustment: { _, resource, adjustment in WaylandObject.of(resource, as: PositionerObject.self).setConstraintAdjustment(adjustment) },
        set_offset: { _, resource, x, y in WaylandObject.of(resource, as: PositionerObject.self).setOffset(x, y) }))
}

extension XdgSurfaceObject {
    package nonisolated(unsafe) static let v6Table = implementation(zxdg_surface_v6_interface(
        destroy: destroyRequest,
        get_toplevel: { client, resource, id in WaylandObject.of(resource, as: XdgSurfaceObject.self).getToplevel(client, id) },
        get_popup: { client, resource, id, parent, positioner in WaylandObject.of(resource, as: XdgSurfaceObject.self).getPopup(client, id, parent, positioner) },
        set_window_geometry: { _, resource, x, y, width, height in WaylandObject.of(resource, as: XdgSurfaceObject.self).setWindowGeometry(x, y, width, height) },
        ack_configure: { _, resource, serial in WaylandObject.of(resource, as: XdgSurfaceObject.self).ackConfigure(serial) }))
}

extension XdgToplevelObject {
    package nonisolated(unsafe) static let v6Table = implementation(zxdg_toplevel_v6_interface(
        destroy: destroyRequest,
        set_parent: { _, resource, parent in WaylandObject.of(resource, as: XdgToplevelObject.self).setParent(parent) },
        set_title: { _, resource, title in WaylandObject.of(resource, as: XdgToplevelObject.self).setTitle(title) },
        set_app_id: { _, resource, appID in WaylandObject.of(resource, as: XdgToplevelObject.self).setAppID(appID) },
        show_window_menu: { _, _, _, _, _, _ in },
        move: { _, resource, _, serial in WaylandObject.of(resource, as: XdgToplevelObject.self).move(serial: serial) },
        resize: { _, resource, _, serial, edges in WaylandObject.of(resource, as: XdgToplevelObject.self).resize(serial: serial, edges: edges) },
        set_max_size: { _, resource, width, height in WaylandObject.of(resource, as: XdgToplevelObject.self).setMaxSize(width, height) },
        set_min_size: { _, resource, width, height in WaylandObject.of(resource, as: XdgToplevelObject.self).setMinSize(width, height) },
        set_maximized: { _, resource in WaylandObject.of(resource, as: XdgToplevelObject.self).change { $0.maximized = true } },
        unset_maximized: { _, resource in WaylandObject.of(resource, as: XdgToplevelObject.self).change { $0.maximized = false } },
        // The output asked for is not used: the window fills the output it is on.
        set_fullscreen: { _, resource, _ in WaylandObject.of(resource, as: XdgToplevelObject.self).change { $0.fullscreen = true } },
        unset_fullscreen: { _, resource in WaylandObject.of(resource, as: XdgToplevelObject.self).change { $0.fullscreen = false } },
        set_minimized: { _, resource in WaylandObject.of(resource, as: XdgToplevelObject.self).minimize() }))
}

extension XdgPopupObject {
    package nonisolated(unsafe) static let v6Table = implementation(zxdg_popup_v6_interface(
        destroy: destroyRequest,
        grab: { _, resource, _, _ in WaylandObject.of(resource, as: XdgPopupObject.self).grab() }))
}
