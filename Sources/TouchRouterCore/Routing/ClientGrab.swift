struct ClientGrab {
    var client: ClientID
    var dismissed: () -> Void
}

extension Router {
    var clientGrab: ClientGrab? {
        _read { yield state.pointee.pointer.clientGrab }
        _modify { yield &state.pointee.pointer.clientGrab }
    }

    // MARK: Client grabs

    /// Gives the seat to `client`, as xdg_popup.grab does: the pointer enters only that
    /// client's surfaces, and the first touch down or button press anywhere else is
    /// dropped and dismisses the grab (`dismissed` runs, and the host sends popup_done).
    /// A later grab replaces an earlier one.
    public func beginClientGrab(_ client: ClientID, dismissed: @escaping () -> Void) {
        clientGrab = ClientGrab(client: client, dismissed: dismissed)
        pointerPickRevision = nil
    }

    public var grabbingClient: ClientID? { clientGrab?.client }

    /// Ends the grab as its client did (its last grabbing popup went): nothing is dismissed.
    public func endClientGrab() {
        guard clientGrab != nil else { return }
        clientGrab = nil
        pointerPickRevision = nil
        keyboardFocusAfterGrab()
    }

    /// Ends the grab as the shell would dismiss it (a new window came up): `dismissed` runs.
    public func dismissClientGrab() {
        guard let grab = clientGrab else { return }
        endClientGrab()
        grab.dismissed()
    }
}
