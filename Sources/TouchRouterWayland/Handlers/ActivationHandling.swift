import TouchRouterCore

/// What xdg-activation may ask of the session (Protocols/Activation/).
extension WaylandServer: ActivationHandler {
    var activationState: ActivationState { protocols.activation }

    func holdsKeyboardFocus(_ client: OpaquePointer) -> Bool {
        guard let focus = router.keyboardFocus, let owner = tree.client(of: focus) else { return false }
        return existingRecord(for: client)?.id == owner
    }

    var now: RouterTime { clock.now() }
}
