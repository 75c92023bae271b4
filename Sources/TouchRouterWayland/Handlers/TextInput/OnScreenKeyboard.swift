import TouchRouterCore

// Showing and hiding the on-screen keyboard with the focused text input (issue 14), as
// phoc does for squeekboard: an OSK such as Debian's wvkbd 0.12 speaks only the layer shell
// and the virtual keyboard, and cannot tell when a text field wants it. Its layer surfaces
// are those whose namespace is `[keyboard] osk-namespace`, or, when none is configured,
// those of the client holding the input method (InputMethod.swift). While no enabled text
// input (TextInput.swift) is on the surface with the keyboard focus, they are hidden in the
// core's tree, as a minimized window is (ForeignToplevel.swift): not drawn, no input, and
// their exclusive zone left out of the usable area. They are outside the exclusive-touch
// rule too, so that a held exclusive surface never locks the keyboard out. Worked out before
// each flush, so that every way the answer changes (text-input commits, focus moves, clients
// going) is caught.

extension WaylandServer {
    /// Whether the layer surface is an on-screen keyboard's.
    package func isOnScreenKeyboard(_ layer: LayerSurfaceObject) -> Bool {
        if let namespace = shell?.configuration.oskNamespace { return layer.namespace == namespace }
        guard let inputMethod = protocols.textInput.inputMethod, !inputMethod.unavailable else { return false }
        return layer.client == inputMethod.client
    }

    /// Before each flush: the OSK's layer surfaces are shown exactly while the focused
    /// surface has an enabled text input.
    package func showOnScreenKeyboard() {
        guard !protocols.layerShell.isEmpty else { return }
        if router.sessionLocked || protocols.sessionLock.keyboardOverLock { raiseOnScreenKeyboardOverLock() }
        // Locked, it is shown throughout: a lock screen asks for a password whether or not it
        // has a text input to say so (swaylock has none).
        let wanted = activeTextInput != nil || router.sessionLocked
        var changedOutputs: [OutputID] = []
        var changedTree = false
        for layer in protocols.layerShell.all {
            let osk = isOnScreenKeyboard(layer)
            // An exclusive-touch surface held down must not lock the keyboard out (issue 14).
            if let surface = layer.surface, surface.inTree, let properties = tree.properties(of: surface.id), properties.ignoresExclusiveTouch != osk {
                do { try tree.updateProperties(surface.id) { $0.ignoresExclusiveTouch = osk } } catch { report("the on-screen keyboard \(surface.id): \(error)") }
            }
            let hide = !wanted && osk
            guard layer.oskHidden != hide else { continue }
            layer.oskHidden = hide
            if let output = layer.output, !changedOutputs.contains(output) { changedOutputs.append(output) }
            if let surface = layer.surface, surface.inTree {
                do { try tree.updateProperties(surface.id) { $0.hidden = hide } } catch { report("hiding the on-screen keyboard \(surface.id): \(error)") }
                changedTree = true
            }
        }
        for output in changedOutputs { layersChanged(on: output) }
        guard changedTree else { return }
        router.dispatchAll()
        updateActivatedToplevel()
    }

    /// While the session is locked, the on-screen keyboard of a client granted the input
    /// method is in the lock layer, above the lock surfaces; unlocked, it goes back to its
    /// own layer. Without the privilege it is locked out with every other surface.
    package func raiseOnScreenKeyboardOverLock() {
        let locked = router.sessionLocked
        protocols.sessionLock.keyboardOverLock = locked
        for layer in protocols.layerShell.all where isOnScreenKeyboard(layer) {
            guard let surface = layer.surface, surface.inTree else { continue }
            let overLock = locked && mayUse(.inputMethod, layer.client)
            do {
                try tree.setLayer(surface.id, overLock ? .lock : layer.layer)
                if overLock, let output = tree.outputOf(surface.id), tree.output(output)?.toplevels.last != surface.id { try tree.raise(surface.id) }
            } catch {
                report("the on-screen keyboard \(surface.id) and the lock: \(error)")
            }
        }
    }
}
