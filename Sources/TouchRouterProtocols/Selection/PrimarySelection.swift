import CWaylandShim

// primary-selection-unstable-v1 (zwp_primary_selection_device_manager_v1) and its
// predecessor gtk-primary-selection (gtk_primary_selection_device_manager): the same model
// as the clipboard, for the seat's one primary selection (Clipboard.swift). A source of
// either protocol is offered to the devices of both.

package enum PrimarySelectionGlobal {
    package static let version: Int32 = 1

    package static let bind: wl_global_bind_func_t = { client, data, version, id in
        GlobalHost.bind(client, data, version, id, tr_zwp_primary_selection_device_manager_v1_interface(), PrimarySelectionGlobal.table) { $0 as any SelectionHandler }
    }

    package nonisolated(unsafe) static let table = implementation(zwp_primary_selection_device_manager_v1_interface(
        create_source: { client, resource, id in SelectionProtocol.primary.createSource(client, resource, id) },
        get_device: { client, resource, id, _ in SelectionProtocol.primary.getDevice(client, resource, id) },
        destroy: destroyRequest))

    package nonisolated(unsafe) static let sourceTable = implementation(zwp_primary_selection_source_v1_interface(
        offer: { _, resource, mimeType in
            WaylandObject.of(resource, as: SelectionSource.self).offer(mimeType)
        },
        destroy: destroyRequest))

    package nonisolated(unsafe) static let deviceTable = implementation(zwp_primary_selection_device_v1_interface(
        set_selection: { _, resource, sourceResource, serial in
            let device = WaylandObject.of(resource, as: SelectionDevice.self)
            device.handler.setSelection(sourceResource.map { WaylandObject.of($0, as: SelectionSource.self) }, kind: .primary, serial: serial)
        },
        destroy: destroyRequest))

    package nonisolated(unsafe) static let offerTable = implementation(zwp_primary_selection_offer_v1_interface(
        receive: { _, resource, mimeType, fd in
            WaylandObject.of(resource, as: SelectionOffer.self).receive(mimeType, fd: fd)
        },
        destroy: destroyRequest))
}

package enum GtkPrimarySelectionGlobal {
    package static let version: Int32 = 1

    package static let bind: wl_global_bind_func_t = { client, data, version, id in
        GlobalHost.bind(client, data, version, id, tr_gtk_primary_selection_device_manager_interface(), GtkPrimarySelectionGlobal.table) { $0 as any SelectionHandler }
    }

    package nonisolated(unsafe) static let table = implementation(gtk_primary_selection_device_manager_interface(
        create_source: { client, resource, id in SelectionProtocol.gtkPrimary.createSource(client, resource, id) },
        get_device: { client, resource, id, _ in SelectionProtocol.gtkPrimary.getDevice(client, resource, id) },
        destroy: destroyRequest))

    package nonisolated(unsafe) static let sourceTable = implementation(gtk_primary_selection_source_interface(
        offer: { _, resource, mimeType in
            WaylandObject.of(resource, as: SelectionSource.self).offer(mimeType)
        },
        destroy: destroyRequest))

    package nonisolated(unsafe) static let deviceTable = implementation(gtk_primary_selection_device_interface(
        set_selection: { _, resource, sourceResource, serial in
            let device = WaylandObject.of(resource, as: SelectionDevice.self)
            device.handler.setSelection(sourceResource.map { WaylandObject.of($0, as: SelectionSource.self) }, kind: .primary, serial: serial)
        },
        destroy: destroyRequest))

    package nonisolated(unsafe) static let offerTable = implementation(gtk_primary_selection_offer_interface(
        receive: { _, resource, mimeType, fd in
            WaylandObject.of(resource, as: SelectionOffer.self).receive(mimeType, fd: fd)
        },
        destroy: destroyRequest))
}
