import CWaylandShim

/// org_kde_kwin_server_decoration_manager: says server-side at bind, and to each new
/// surface's decoration object; a mode the client then requests is granted, as cage and
/// KWin grant it: GTK 3 asks client-side for the windows it draws a header bar on, and asks
/// again at each answer that differs (Firefox's did 18,000 times a second). A kiosk's
/// fullscreen state hides those header bars.
package enum KdeServerDecorationManager {
    package static let version: Int32 = 1

    package static let bind: wl_global_bind_func_t = { client, data, version, id in
        guard let resource = GlobalHost.bindPlain(client, data, version, id, tr_org_kde_kwin_server_decoration_manager_interface(), table) else { return }
        org_kde_kwin_server_decoration_manager_send_default_mode(resource, mode)
    }

    package static let mode = ORG_KDE_KWIN_SERVER_DECORATION_MANAGER_MODE_SERVER.rawValue

    package nonisolated(unsafe) static let table = implementation(org_kde_kwin_server_decoration_manager_interface(
        create: { client, resource, id, _ in
            let manager = WaylandObject.of(resource, as: PlainGlobal.self)
            guard let created = createResource(client, tr_org_kde_kwin_server_decoration_interface(), version: wl_resource_get_version(resource), id: id) else { return }
            WaylandObject.install(KdeServerDecorationObject(resource: created, madeBy: manager), implementation: KdeServerDecorationObject.table)
            org_kde_kwin_server_decoration_send_mode(created, mode)
        }))
}

/// org_kde_kwin_server_decoration: a mode request is answered with that mode; one that is
/// not a mode of the protocol's is answered with server-side.
package final class KdeServerDecorationObject: WaylandObject {
    package nonisolated(unsafe) static let table = implementation(org_kde_kwin_server_decoration_interface(
        release: destroyRequest,
        request_mode: { _, resource, mode in
            let known = [ORG_KDE_KWIN_SERVER_DECORATION_MODE_NONE, ORG_KDE_KWIN_SERVER_DECORATION_MODE_CLIENT, ORG_KDE_KWIN_SERVER_DECORATION_MODE_SERVER].map(\.rawValue)
            org_kde_kwin_server_decoration_send_mode(resource, known.contains(mode) ? mode : KdeServerDecorationManager.mode)
        }))
}
