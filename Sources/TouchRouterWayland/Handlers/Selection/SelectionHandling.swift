import CWaylandShim
import TouchRouterCore
#if canImport(Glibc)
import Glibc
#endif
import TouchRouterProtocols

extension WaylandServer: SelectionHandler {
    package var selectionState: SelectionState { protocols.selection }

    package func clientIsLive(_ client: OpaquePointer) -> Bool { existingRecord(for: client) != nil }

    /// The client with the keyboard focus, if it is still connected.
    private var keyboardFocusClient: OpaquePointer? {
        router.keyboardFocus.flatMap { tree.client(of: $0) }.flatMap { clientsByID[$0]?.client }
    }

    /// A device's set_selection. Serials are checked as wlroots does: one older than the
    /// current selection's is stale and ignored; any other is taken.
    package func setSelection(_ source: SelectionSource?, kind: SelectionKind, serial: UInt32) {
        let current = protocols.selection.selections.source(kind)
        if current != nil, serial &- protocols.selection.selections.serial(kind) > UInt32.max / 2 { return }
        if current === source {
            protocols.selection.selections.set(kind, source, serial: serial)
            return
        }
        replaceSelection(kind, with: source, serial: serial)
    }

    /// The selection changes hands: the old holder is cancelled, the focused client hears the
    /// new one, and X11 does too, through Xwayland's window manager, unless X11 holds it.
    package func replaceSelection(_ kind: SelectionKind, with origin: (any SelectionOrigin)?, serial: UInt32) {
        let current = protocols.selection.selections.source(kind)
        guard current !== origin else { return }
        protocols.selection.selections.set(kind, origin, serial: serial)
        current?.cancel()
        if let focus = keyboardFocusClient { sendSelection(kind, to: focus) }
        protocols.xwayland.windowManager?.selectionChanged(kind)
    }

    /// Each of the client's devices of that selection hears what the selection is.
    package func sendSelection(_ kind: SelectionKind, to client: OpaquePointer) {
        guard existingRecord(for: client) != nil else { return }
        let source = protocols.selection.selections.source(kind)
        for device in protocols.selection.selections.devices(of: client) where device.kind.kind == kind {
            device.sendSelection(source)
        }
    }

    /// The keyboard focus entered one of the client's surfaces: it is offered both selections.
    package func selectionsFocusEntered(_ client: ClientID) {
        guard let record = clientsByID[client] else { return }
        sendSelection(.clipboard, to: record.client)
        sendSelection(.primary, to: record.client)
    }

    /// A new device of the focused client hears the selection at once, as with wlroots.
    package func selectionDeviceCreated(_ device: SelectionDevice) {
        protocols.selection.selections.add(device)
        guard device.client == keyboardFocusClient else { return }
        device.sendSelection(protocols.selection.selections.source(device.kind.kind))
    }

    /// A source destroyed, by its client or with it: a selection it held is empty now, and
    /// the focused client hears so.
    package func selectionSourceDestroyed(_ source: SelectionSource) {
        dragSourceDestroyed(source)
        for kind in [SelectionKind.clipboard, .primary] where protocols.selection.selections.source(kind) === source {
            protocols.selection.selections.set(kind, nil, serial: protocols.selection.selections.serial(kind))
            if let focus = keyboardFocusClient { sendSelection(kind, to: focus) }
            protocols.xwayland.windowManager?.selectionChanged(kind)
        }
    }
}
