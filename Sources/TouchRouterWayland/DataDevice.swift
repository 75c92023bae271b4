import CWaylandShim

enum DataDeviceManagerGlobal {
    static let version: Int32 = 3

    /// Enough for GTK and Qt clients to start: data devices and sources exist, nothing is ever offered.
    nonisolated(unsafe) static let table = implementation(wl_data_device_manager_interface(
        create_data_source: { client, resource, id in
            let manager = WaylandObject.of(resource, as: BoundGlobal.self)
            guard let created = createResource(client, tr_wl_data_source_interface(), version: wl_resource_get_version(resource), id: id) else { return }
            WaylandObject.install(BoundGlobal(resource: created, session: manager.session), implementation: DataDeviceManagerGlobal.sourceTable)
        },
        get_data_device: { client, resource, id, _ in
            let manager = WaylandObject.of(resource, as: BoundGlobal.self)
            guard let created = createResource(client, tr_wl_data_device_interface(), version: wl_resource_get_version(resource), id: id) else { return }
            WaylandObject.install(BoundGlobal(resource: created, session: manager.session), implementation: DataDeviceManagerGlobal.deviceTable)
        }))

    nonisolated(unsafe) static let sourceTable = implementation(wl_data_source_interface(
        offer: { _, _, _ in }, destroy: destroyRequest,
        set_actions: { _, resource, actions in
            guard actions & ~7 == 0 else {
                let source = WaylandObject.of(resource, as: BoundGlobal.self)
                source.postError(WL_DATA_SOURCE_ERROR_INVALID_ACTION_MASK.rawValue, "\(source.name).set_actions: 0x\(String(actions, radix: 16)) has bits that are not wl_data_device_manager.dnd_action")
                return
            }
        }))
    nonisolated(unsafe) static let deviceTable = implementation(wl_data_device_interface(
        start_drag: { _, _, _, _, _, _ in }, set_selection: { _, _, _, _ in }, release: destroyRequest))
}
