import CWaylandShim

/// org_kde_kwin_server_decoration_manager: says server-side at bind; each surface's
/// decoration object is told the same, whatever it requests.
enum KdeServerDecorationManager {
    static let version: Int32 = 1

    static let bind: wl_global_bind_func_t = { client, data, version, id in
        guard let resource = WaylandSession.bindGlobal(client, data, version, id, tr_org_kde_kwin_server_decoration_manager_interface(), table) else { return }
        org_kde_kwin_server_decoration_manager_send_default_mode(resource, mode)
    }

    static let mode = ORG_KDE_KWIN_SERVER_DECORATION_MANAGER_MODE_SERVER.rawValue

    nonisolated(unsafe) static let table = implementation(org_kde_kwin_server_decoration_manager_interface(
        create: { client, resource, id, _ in
            let manager = WaylandObject.of(resource, as: BoundGlobal.self)
            guard let created = createResource(client, tr_org_kde_kwin_server_decoration_interface(), version: wl_resource_get_version(resource), id: id) else { return }
            WaylandObject.install(KdeServerDecorationObject(resource: created, session: manager.session), implementation: KdeServerDecorationObject.table)
            org_kde_kwin_server_decoration_send_mode(created, mode)
        }))
}

/// org_kde_kwin_server_decoration: a mode request is answered with server-side.
final class KdeServerDecorationObject: WaylandObject {
    nonisolated(unsafe) static let table = implementation(org_kde_kwin_server_decoration_interface(
        release: destroyRequest,
        request_mode: { _, resource, _ in org_kde_kwin_server_decoration_send_mode(resource, KdeServerDecorationManager.mode) }))
}
