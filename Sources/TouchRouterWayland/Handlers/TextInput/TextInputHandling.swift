import CWaylandShim
import TouchRouterCore
import TouchRouterProtocols

extension WaylandServer: TextInputHandler {
    package var textInputState: TextInputState { protocols.textInput }

    /// A text input of the client with the keyboard focus is entered at once.
    package func textInputCreated(_ textInput: TextInputObject, of record: ClientRecord) {
        guard let focus = router.keyboardFocus, let surface = protocols.surface.surfaces[focus], tree.client(of: focus) == record.id else { return }
        textInput.sendEnter(surface)
    }

    /// Called where wl_keyboard.enter goes out: the client's text inputs enter the surface.
    package func textInputsEnter(_ surface: SurfaceObject, client: ClientID) {
        guard let record = clientsByID[client] else { return }
        for textInput in record.textInputs { textInput.sendEnter(surface) }
    }

    /// Called where wl_keyboard.leave goes out: the client's text inputs on that surface
    /// leave it, and the input method serving one of them is deactivated.
    package func textInputsLeave(_ surface: SurfaceID, resource: OpaquePointer?, client: ClientID) {
        guard let record = clientsByID[client] else { return }
        for textInput in record.textInputs where textInput.entered == surface {
            let served = protocols.textInput.inputMethod?.served === textInput
            textInput.sendLeave(resource)
            if served { protocols.textInput.inputMethod?.deactivate() }
        }
    }

    package func textInputCommitted(_ textInput: TextInputObject, wasActive: Bool) {
        guard let inputMethod = protocols.textInput.inputMethod else { return }
        if textInput.isActive {
            inputMethod.serve(textInput)
        } else if wasActive || inputMethod.served === textInput {
            inputMethod.deactivate()
        }
    }

    package func textInputDestroyed(_ textInput: TextInputObject) {
        existingRecord(for: textInput.client)?.textInputs.removeAll { $0 === textInput }
        if let inputMethod = protocols.textInput.inputMethod, inputMethod.served === textInput { inputMethod.deactivate() }
    }

    package var focusedSurface: SurfaceID? { router.keyboardFocus }

    /// The enabled text input on the focused surface, if any: what a new input method serves.
    package var activeTextInput: TextInputObject? {
        guard let focus = router.keyboardFocus, let client = tree.client(of: focus), let record = clientsByID[client] else { return nil }
        return record.textInputs.first { $0.isActive }
    }
}
