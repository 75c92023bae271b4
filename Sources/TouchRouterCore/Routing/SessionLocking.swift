/// ext-session-lock in the router: while the session is locked only the lock layer's
/// surfaces take input (the tree locks the rest out), no recognizer runs, and of the
/// compositor's responders only the shell's links are asked (switch bindings marked
/// while-locked); surfaces' and outputs' responders, background bindings among them, are not.
extension Router {
    public var sessionLocked: Bool { state.pointee.sessionLocked }

    /// Locking cancels every live touch and the pointer's grab and focus, as beginning to
    /// ignore interaction does, so that nothing pressed before the lock goes on reaching a
    /// client behind it; the keyboard focus leaves the surfaces locked out.
    public func setSessionLocked(_ locked: Bool) {
        guard locked != state.pointee.sessionLocked else { return }
        state.pointee.sessionLocked = locked
        tree.setLocked(locked)
        guard locked else {
            pointerPickRevision = nil
            // The key that unlocked (swaylock's Enter) is often still down: taken out of
            // the keys the returning focus hears of, and its release swallowed.
            state.pointee.keyboard.heldAtUnlock.formUnion(pressedKeys)
            pressedKeys.removeAll(keepingCapacity: true)
            _ = updateModifiers(key: 0, state: .released)
            return
        }
        let now = clock.now()
        abandonArena(time: now)
        _ = cancelLiveTouches(time: now) { _ in true }
        // A waking sequence stays one: its fingers are swallowed for waking, to their last up.
        for i in touches.indices {
            if case .swallowed(.wokeOutput) = touches[i].target { continue }
            touches[i].target = .swallowed(.sessionLocked)
        }
        pointerGrab = nil
        if let take = pointerTake {
            pointerTake = nil
            take.ended()
        }
        if pointerFocus != nil {
            setPointerFocus(nil)
            flushPointerFrames()
        }
        if let focus = keyboardFocus, !tree.canTakeKeyboardFocus(focus) { setKeyboardFocus(nil, cause: .sessionLocked) }
    }
}
