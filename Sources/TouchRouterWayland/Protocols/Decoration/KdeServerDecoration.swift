import CWaylandShim

/// org_kde_kwin_server_decoration_manager: says the session's mode at bind; each surface's
/// decoration object is told the same mode, whatever it requests.
enum KdeServerDecorationManager {
    static let version: Int32 = 1

    static let bind: wl_global_bind_func_t = { client, data, version, id in
        guard let resource = WaylandSession.bindGlobal(client, data, version, id, tr_org_kde_kwin_server_decoration_manager_interface(), table) else { return }
        let manager = WaylandObject.of(resource, as: BoundGlobal.self)
        org_kde_kwin_server_decoration_manager_send_default_mode(resource, mode(manager.session))
    }

    static func mode(_ handler: any DecorationHandler) -> UInt32 {
        (handler.decoratesServerSide ? ORG_KDE_KWIN_SERVER_DECORATION_MANAGER_MODE_SERVER : ORG_KDE_KWIN_SERVER_DECORATION_MANAGER_MODE_CLIENT).rawValue
    }

    nonisolated(unsafe) static let table = implementation(org_kde_kwin_server_decoration_manager_interface(
        create: { client, resource, id, _ in
            let manager = WaylandObject.of(resource, as: BoundGlobal.self)
            guard let created = createResource(client, tr_org_kde_kwin_server_decoration_interface(), version: wl_resource_get_version(resource), id: id) else { return }
            WaylandObject.install(KdeServerDecorationObject(resource: created, session: manager.session), implementation: KdeServerDecorationObject.table)
            org_kde_kwin_server_decoration_send_mode(created, mode(manager.session))
        }))
}

/// org_kde_kwin_server_decoration: a mode request is answered with the session's mode.
final class KdeServerDecorationObject: WaylandObject {
    nonisolated(unsafe) static let table = implementation(org_kde_kwin_server_decoration_interface(
        release: destroyRequest,
        request_mode: { _, resource, _ in
            let decoration = WaylandObject.of(resource, as: KdeServerDecorationObject.self)
            org_kde_kwin_server_decoration_send_mode(resource, KdeServerDecorationManager.mode(decoration.session))
        }))
}
