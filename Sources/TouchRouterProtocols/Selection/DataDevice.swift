import CWaylandShim
#if canImport(Glibc)
import Glibc
#endif

// wl_data_device_manager (wayland.xml), version 3: the clipboard (Clipboard.swift holds the
// seat's selection) and drag and drop (DragAndDrop.swift).

package enum DataDeviceManagerGlobal {
    package static let version: Int32 = 3

    package nonisolated(unsafe) static let table = implementation(wl_data_device_manager_interface(
        create_data_source: { client, resource, id in SelectionProtocol.data.createSource(client, resource, id) },
        get_data_device: { client, resource, id, _ in SelectionProtocol.data.getDevice(client, resource, id) }))

    package nonisolated(unsafe) static let sourceTable = implementation(wl_data_source_interface(
        offer: { _, resource, mimeType in
            WaylandObject.of(resource, as: SelectionSource.self).offer(mimeType)
        },
        destroy: destroyRequest,
        set_actions: { _, resource, actions in
            let source = WaylandObject.of(resource, as: SelectionSource.self)
            guard !source.forDragAndDrop else {
                source.postError(WL_DATA_SOURCE_ERROR_INVALID_ACTION_MASK.rawValue, "\(source.name).set_actions: actions are set once only")
                return
            }
            guard actions & ~7 == 0 else {
                source.postError(WL_DATA_SOURCE_ERROR_INVALID_ACTION_MASK.rawValue, "\(source.name).set_actions: 0x\(String(actions, radix: 16)) has bits that are not wl_data_device_manager.dnd_action")
                return
            }
            guard !source.drag.used else {
                source.postError(WL_DATA_SOURCE_ERROR_INVALID_ACTION_MASK.rawValue, "\(source.name).set_actions after start_drag")
                return
            }
            source.forDragAndDrop = true
            source.drag.actions = actions
        }))

    package nonisolated(unsafe) static let deviceTable = implementation(wl_data_device_interface(
        start_drag: { _, resource, sourceResource, originResource, iconResource, serial in
            let device = WaylandObject.of(resource, as: SelectionDevice.self)
            device.handler.startDrag(device, source: sourceResource.map { WaylandObject.of($0, as: SelectionSource.self) },
                                     origin: WaylandObject.of(originResource, as: SurfaceObject.self),
                                     icon: iconResource.map { WaylandObject.of($0, as: SurfaceObject.self) }, serial: serial)
        },
        set_selection: { _, resource, sourceResource, serial in
            let device = WaylandObject.of(resource, as: SelectionDevice.self)
            let source = sourceResource.map { WaylandObject.of($0, as: SelectionSource.self) }
            if let source, source.forDragAndDrop || source.drag.used {
                source.postError(WL_DATA_SOURCE_ERROR_INVALID_SOURCE.rawValue, "\(source.name): set_selection with a source that has drag-and-drop actions or was dragged")
                return
            }
            device.handler.setSelection(source, kind: .clipboard, serial: serial)
        },
        release: destroyRequest))

    package nonisolated(unsafe) static let offerTable = implementation(wl_data_offer_interface(
        accept: { _, resource, _, mimeType in
            let offer = WaylandObject.of(resource, as: SelectionOffer.self)
            // A selection's offer: accept means nothing there.
            guard offer.drag != nil else { return }
            offer.handler.dragOfferAccept(offer, mimeType)
        },
        receive: { _, resource, mimeType, fd in
            WaylandObject.of(resource, as: SelectionOffer.self).receive(mimeType, fd: fd)
        },
        destroy: destroyRequest,
        finish: { _, resource in
            let offer = WaylandObject.of(resource, as: SelectionOffer.self)
            offer.handler.dragOfferFinish(offer)
        },
        set_actions: { _, resource, actions, preferred in
            let offer = WaylandObject.of(resource, as: SelectionOffer.self)
            guard actions & ~7 == 0 else {
                offer.postError(WL_DATA_OFFER_ERROR_INVALID_ACTION_MASK.rawValue, "\(offer.name).set_actions: 0x\(String(actions, radix: 16)) has bits that are not dnd_action")
                return
            }
            guard preferred == 0 || (preferred.nonzeroBitCount == 1 && preferred & actions != 0) else {
                offer.postError(WL_DATA_OFFER_ERROR_INVALID_ACTION.rawValue, "\(offer.name).set_actions: preferred action 0x\(String(preferred, radix: 16)) is not one of the actions")
                return
            }
            guard offer.drag != nil else {
                offer.postError(WL_DATA_OFFER_ERROR_INVALID_OFFER.rawValue, "\(offer.name).set_actions: the offer is a selection's, not a drag's")
                return
            }
            offer.handler.dragOfferSetActions(offer, actions: actions, preferred: preferred)
        }))
}
