import CWaylandShim
import TouchRouterCore
#if canImport(Glibc)
import Glibc
#endif

// The seat's selections, as wlroots keeps them: the clipboard (wl_data_device_manager,
// DataDevice.swift) and the primary selection (zwp_primary_selection_device_manager_v1 and
// gtk_primary_selection_device_manager, PrimarySelection.swift; both protocols share the one
// primary selection). A selection is a source some client made; the client with the
// keyboard focus is offered it on each of its devices of that selection as the focus enters
// it, and at once when the selection changes. An offer's receive reaches the source as its
// send, with the client's file descriptor; the session keeps no copy of the data.

/// Which of the seat's two selections.
package enum SelectionKind { case clipboard, primary }

/// The protocol a source, device or offer belongs to: the events it is sent.
package enum SelectionProtocol {
    case data, primary, gtkPrimary

    package var kind: SelectionKind { self == .data ? .clipboard : .primary }

    package var offerInterface: UnsafePointer<wl_interface> {
        switch self {
        case .data: tr_wl_data_offer_interface()
        case .primary: tr_zwp_primary_selection_offer_v1_interface()
        case .gtkPrimary: tr_gtk_primary_selection_offer_interface()
        }
    }

    private var sourceInterface: UnsafePointer<wl_interface> {
        switch self {
        case .data: tr_wl_data_source_interface()
        case .primary: tr_zwp_primary_selection_source_v1_interface()
        case .gtkPrimary: tr_gtk_primary_selection_source_interface()
        }
    }

    private var deviceInterface: UnsafePointer<wl_interface> {
        switch self {
        case .data: tr_wl_data_device_interface()
        case .primary: tr_zwp_primary_selection_device_v1_interface()
        case .gtkPrimary: tr_gtk_primary_selection_device_interface()
        }
    }

    private var sourceTable: UnsafeRawPointer {
        switch self {
        case .data: DataDeviceManagerGlobal.sourceTable
        case .primary: PrimarySelectionGlobal.sourceTable
        case .gtkPrimary: GtkPrimarySelectionGlobal.sourceTable
        }
    }

    private var deviceTable: UnsafeRawPointer {
        switch self {
        case .data: DataDeviceManagerGlobal.deviceTable
        case .primary: PrimarySelectionGlobal.deviceTable
        case .gtkPrimary: GtkPrimarySelectionGlobal.deviceTable
        }
    }

    /// A manager's create_source (wl_data_device_manager's create_data_source) in this protocol.
    package func createSource(_ client: OpaquePointer?, _ managerResource: OpaquePointer?, _ id: UInt32) {
        let manager = WaylandObject.of(managerResource, as: RoomGlobal<any SelectionHandler>.self)
        guard let created = createResource(client, sourceInterface, version: wl_resource_get_version(managerResource), id: id) else { return }
        WaylandObject.install(SelectionSource(resource: created, madeBy: manager, handler: manager.handler, kind: self), implementation: sourceTable)
    }

    /// A manager's get_device (get_data_device) in this protocol; the device hears the seat's selection.
    package func getDevice(_ client: OpaquePointer?, _ managerResource: OpaquePointer?, _ id: UInt32) {
        let manager = WaylandObject.of(managerResource, as: RoomGlobal<any SelectionHandler>.self)
        guard let created = createResource(client, deviceInterface, version: wl_resource_get_version(managerResource), id: id) else { return }
        let handler = manager.handler
        let device = SelectionDevice(resource: created, madeBy: manager, handler: handler, state: handler.selectionState, kind: self)
        WaylandObject.install(device, implementation: deviceTable)
        handler.selectionDeviceCreated(device)
    }
}

/// What holds a selection: a client's source, or X11's selection owner through Xwayland's
/// window manager (TouchRouterXWayland/XSelectionBridge.swift), as wlroots' wlr_data_source is either.
package protocol SelectionOrigin: AnyObject {
    var mimeTypes: [String] { get }
    /// Writes the data as `mimeType` to `fd`; the caller closes its own `fd` after.
    func send(_ mimeType: String, fd: Int32)
    /// It no longer holds the selection.
    func cancel()
}

/// The seat's selections and the devices that hear them.
package final class SeatSelections {
    package private(set) weak var clipboard: (any SelectionOrigin)?
    package private(set) weak var primary: (any SelectionOrigin)?
    /// The serial each selection was set with: a set_selection with an older one is stale.
    package private(set) var clipboardSerial: UInt32 = 0
    package private(set) var primarySerial: UInt32 = 0
    /// Every data and primary selection device, by client, with the order each was made
    /// in: one leaves as its resource goes, in constant time (a scan of one list for every
    /// destroyed device stopped the session 68 s when a client with 60,000 of them ended).
    private var devicesByClient: [OpaquePointer: [ObjectIdentifier: (order: UInt64, device: SelectionDevice)]] = [:]
    private var made: UInt64 = 0

    package func add(_ device: SelectionDevice) {
        made += 1
        devicesByClient[device.client, default: [:]][ObjectIdentifier(device)] = (made, device)
    }

    package func remove(_ device: SelectionDevice) {
        let client = device.client
        devicesByClient[client]?[ObjectIdentifier(device)] = nil
        if devicesByClient[client]?.isEmpty == true { devicesByClient[client] = nil }
    }

    /// The client's devices, in the order they were made.
    package func devices(of client: OpaquePointer) -> [SelectionDevice] {
        (devicesByClient[client]?.values.sorted { $0.order < $1.order } ?? []).map(\.device)
    }

    package func source(_ kind: SelectionKind) -> (any SelectionOrigin)? {
        kind == .clipboard ? clipboard : primary
    }

    package func serial(_ kind: SelectionKind) -> UInt32 {
        kind == .clipboard ? clipboardSerial : primarySerial
    }

    package func set(_ kind: SelectionKind, _ source: (any SelectionOrigin)?, serial: UInt32) {
        switch kind {
        case .clipboard: clipboard = source; clipboardSerial = serial
        case .primary: primary = source; primarySerial = serial
        }
    }
}

/// A wl_data_source, zwp_primary_selection_source_v1 or gtk_primary_selection_source: the
/// MIME types its client offers, and the way to ask it for the data.
package final class SelectionSource: WaylandObject, SelectionOrigin {
    private unowned let handler: any SelectionHandler
    package let kind: SelectionProtocol
    package private(set) var mimeTypes: [String] = []
    /// wl_data_source.set_actions was called: the source is for drag and drop only.
    package var forDragAndDrop = false
    /// Its part in a drag (DragAndDrop.swift).
    package var drag = SourceDragState()

    package init(resource: OpaquePointer, madeBy manager: WaylandObject, handler: any SelectionHandler, kind: SelectionProtocol) {
        self.handler = handler
        self.kind = kind
        super.init(resource: resource, madeBy: manager)
    }

    /// The offer request. A type offered twice is kept once.
    package func offer(_ mimeType: UnsafePointer<CChar>?) {
        guard let mimeType else { return }
        let mime = String(cString: mimeType)
        guard !mimeTypes.contains(mime) else { return }
        guard mimeTypes.count < ClientLimits.selectionMimeTypes else {
            endClient("\(name).offer", pastLimit: "past \(ClientLimits.selectionMimeTypes) MIME types, the most one source may offer")
            return
        }
        mimeTypes.append(mime)
    }

    package func send(_ mimeType: String, fd: Int32) {
        mimeType.withCString { send($0, fd: fd) }
    }

    /// Asks the source's client to write the data as `mimeType` to `fd` (libwayland sends a
    /// duplicate; the caller closes its own).
    package func send(_ mimeType: UnsafePointer<CChar>, fd: Int32) {
        guard handler.clientIsLive(client) else { return }
        switch kind {
        case .data: wl_data_source_send_send(resource, mimeType, fd)
        case .primary: zwp_primary_selection_source_v1_send_send(resource, mimeType, fd)
        case .gtkPrimary: gtk_primary_selection_source_send_send(resource, mimeType, fd)
        }
    }

    /// The source no longer holds a selection, or its drag ended without a drop or finish.
    package func cancel() {
        drag.settled = true
        guard handler.clientIsLive(client) else { return }
        switch kind {
        case .data: wl_data_source_send_cancelled(resource)
        case .primary: zwp_primary_selection_source_v1_send_cancelled(resource)
        case .gtkPrimary: gtk_primary_selection_source_send_cancelled(resource)
        }
    }

    package override func resourceDestroyed() {
        handler.selectionSourceDestroyed(self)
    }
}

/// A wl_data_device, zwp_primary_selection_device_v1 or gtk_primary_selection_device.
package final class SelectionDevice: WaylandObject {
    package unowned let handler: any SelectionHandler
    private unowned let state: SelectionState
    package let kind: SelectionProtocol

    package init(resource: OpaquePointer, madeBy manager: WaylandObject, handler: any SelectionHandler, state: SelectionState, kind: SelectionProtocol) {
        self.handler = handler
        self.state = state
        self.kind = kind
        super.init(resource: resource, madeBy: manager)
    }

    package override func resourceDestroyed() {
        state.selections.remove(self)
    }

    /// Offers `source` as the device's selection: a new offer with the source's MIME types,
    /// then the selection event; no source: the selection event with no offer.
    package func sendSelection(_ source: (any SelectionOrigin)?) {
        guard let source else {
            switch kind {
            case .data: wl_data_device_send_selection(resource, nil)
            case .primary: zwp_primary_selection_device_v1_send_selection(resource, nil)
            case .gtkPrimary: gtk_primary_selection_device_send_selection(resource, nil)
            }
            return
        }
        guard let offer = makeOffer(source) else { return }
        switch kind {
        case .data: wl_data_device_send_selection(resource, offer.resource)
        case .primary: zwp_primary_selection_device_v1_send_selection(resource, offer.resource)
        case .gtkPrimary: gtk_primary_selection_device_send_selection(resource, offer.resource)
        }
    }

    /// A new offer of `source` to this device's client: the data_offer event, then its MIME types.
    package func makeOffer(_ source: any SelectionOrigin, drag: OfferDragState? = nil) -> SelectionOffer? {
        guard let created = createResource(client, kind.offerInterface, version: version, id: 0) else { return nil }
        let offer = SelectionOffer(resource: created, madeBy: self, handler: handler, kind: kind, origin: source)
        offer.drag = drag
        WaylandObject.install(offer, implementation: SelectionOffer.table(kind))
        switch kind {
        case .data:
            wl_data_device_send_data_offer(resource, created)
            for mime in source.mimeTypes { wl_data_offer_send_offer(created, mime) }
        case .primary:
            zwp_primary_selection_device_v1_send_data_offer(resource, created)
            for mime in source.mimeTypes { zwp_primary_selection_offer_v1_send_offer(created, mime) }
        case .gtkPrimary:
            gtk_primary_selection_device_send_data_offer(resource, created)
            for mime in source.mimeTypes { gtk_primary_selection_offer_send_offer(created, mime) }
        }
        return offer
    }
}

/// A wl_data_offer, zwp_primary_selection_offer_v1 or gtk_primary_selection_offer: its
/// source, while that lives. A source gone leaves its offers inert.
package final class SelectionOffer: WaylandObject {
    package unowned let handler: any SelectionHandler
    package let kind: SelectionProtocol
    /// What the offer reads from, while it lives; `source` when that is a client's (drags are).
    package weak var origin: (any SelectionOrigin)?
    package var source: SelectionSource? {
        get { origin as? SelectionSource }
        set { origin = newValue }
    }
    /// A drag's offer (DragAndDrop.swift); nil for a selection's.
    package var drag: OfferDragState?

    package init(resource: OpaquePointer, madeBy device: WaylandObject, handler: any SelectionHandler, kind: SelectionProtocol, origin: any SelectionOrigin) {
        self.handler = handler
        self.kind = kind
        self.origin = origin
        super.init(resource: resource, madeBy: device)
    }

    /// The receive request: the source writes to `fd`; the session's duplicate is closed.
    package func receive(_ mimeType: UnsafePointer<CChar>?, fd: Int32) {
        defer { close(fd) }
        if drag?.finished == true {
            postError(WL_DATA_OFFER_ERROR_INVALID_OFFER.rawValue, "\(name).receive after finish")
            return
        }
        if let mimeType, let origin { origin.send(String(cString: mimeType), fd: fd) }
    }

    package override func resourceDestroyed() {
        if drag != nil { handler.dragOfferDestroyed(self) }
    }

    package static func table(_ kind: SelectionProtocol) -> UnsafeRawPointer {
        switch kind {
        case .data: DataDeviceManagerGlobal.offerTable
        case .primary: PrimarySelectionGlobal.offerTable
        case .gtkPrimary: GtkPrimarySelectionGlobal.offerTable
        }
    }
}
