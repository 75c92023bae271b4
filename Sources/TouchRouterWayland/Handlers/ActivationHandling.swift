import TouchRouterCore

/// What xdg-activation may ask of the session (TouchRouterProtocols/Activation/).
extension WaylandServer: ActivationHandler {
    package var activationState: ActivationState { protocols.activation }

    package func holdsKeyboardFocus(_ client: OpaquePointer) -> Bool {
        guard let focus = router.keyboardFocus, let owner = tree.client(of: focus) else { return false }
        return existingRecord(for: client)?.id == owner
    }

    package var now: RouterTime { clock.now() }
}
