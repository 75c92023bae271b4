import CWaylandShim
import TouchRouterCore

/// What the session lock may ask of the server (TouchRouterProtocols/SessionLock/).
extension WaylandServer: SessionLockHandler {
    package var sessionLockState: SessionLockState { protocols.sessionLock }

    package func sessionLockChanged(_ locked: Bool) {
        if locked { protocols.sessionLock.focusBeforeLock = router.keyboardFocus }
        router.setSessionLocked(locked)
        if !locked, let previous = protocols.sessionLock.focusBeforeLock {
            // The keyboard goes back where it was before the lock, if that can still take it.
            _ = router.setKeyboardFocus(previous)
        }
        if !locked { protocols.sessionLock.focusBeforeLock = nil }
        showOnScreenKeyboard()
        updateActivatedToplevel()
        router.dispatchAll()
        shell.sessionLockChanged(locked)
    }

    package func lockOutputSize(_ output: OutputID) -> Size? { liveOutputSize(output) }

    package var nextSerial: UInt32 { display.nextSerial }

    package func mapLockSurface(_ surface: SurfaceObject, output: OutputID) {
        var properties = surface.propertiesOnEntry
        properties.mapped = true
        do {
            try tree.addToplevel(surface.id, client: record(for: surface.client).id, output: output, position: Offset(dx: 0, dy: 0),
                                 size: surface.size, properties: properties, label: "lock surface", layer: .lock)
            try tree.setInputRegion(surface.id, surface.inputRegionForTree)
        } catch {
            report("adding lock surface \(surface.id) to the tree: \(error)")
            return
        }
        surface.inTree = true
        shell.surfaceEntered(surface)
        if let virtualOutput = outputs.first(where: { $0.id == output }) {
            for resource in virtualOutput.bindings(of: surface.client) { wl_surface_send_enter(surface.resource, resource) }
        }
        // The first lock surface takes the keyboard; the on-screen keyboard stays above them all.
        if router.keyboardFocus.flatMap({ tree.layer(of: $0) }) != .lock || router.keyboardFocus.flatMap({ protocols.surface.surfaces[$0]?.lockSurface }) == nil {
            _ = router.setKeyboardFocus(surface.id)
        }
        raiseOnScreenKeyboardOverLock()
        router.dispatchAll()
    }

    package func unmapLockSurface(_ surface: SurfaceObject) {
        roleDestroyed(surface: surface)
    }
}
