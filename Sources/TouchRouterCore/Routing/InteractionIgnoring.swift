/// UIApplication's beginIgnoringInteractionEvents, and what it counts.
struct IgnoringState {
    var depth = 0
    var ignoredEvents = 0
}

extension Router {
    public internal(set) var ignoreInteractionDepth: Int {
        get { state.pointee.ignoring.depth }
        set { state.pointee.ignoring.depth = newValue }
    }
    public internal(set) var ignoredInteractionEvents: Int {
        get { state.pointee.ignoring.ignoredEvents }
        set { state.pointee.ignoring.ignoredEvents = newValue }
    }

    /// UIApplication's beginIgnoringInteractionEvents: nestable. On the first begin every
    /// live touch is cancelled and the pointer leaves, so nothing is left half-delivered.
    public func beginIgnoringInteraction() {
        ignoreInteractionDepth += 1
        guard ignoreInteractionDepth == 1 else {
            traceSink?.interactionIgnoringChanged(depth: ignoreInteractionDepth, cancelled: [])
            return
        }
        let saved = recordDeliveries
        recordDeliveries.removeAll(keepingCapacity: true)
        abandonArena(time: clock.now())
        _ = cancelLiveTouches(time: clock.now()) { _ in true }
        for i in touches.indices { touches[i].target = .swallowed(.interactionIgnored) }
        pointerGrab = nil
        // A window move's hold on the pointer ends too: its release would be ignored.
        if let take = pointerTake {
            pointerTake = nil
            take.ended()
        }
        if pointerFocus != nil {
            setPointerFocus(nil)
            flushPointerFrames()
        }
        traceSink?.interactionIgnoringChanged(depth: ignoreInteractionDepth, cancelled: recordDeliveries)
        recordDeliveries = saved
    }

    /// false when there was no matching begin.
    @discardableResult
    public func endIgnoringInteraction() -> Bool {
        guard ignoreInteractionDepth > 0 else { return false }
        ignoreInteractionDepth -= 1
        // The pointer left its focus at the begin; it returns at the next refresh.
        if ignoreInteractionDepth == 0 { pointerPickRevision = nil }
        traceSink?.interactionIgnoringChanged(depth: ignoreInteractionDepth, cancelled: [])
        return true
    }
}

extension InputEvent {
    /// Up, cancel and frame of touches already down still pass while interaction is
    /// ignored; their touches were cancelled at the begin and are swallowed one by one.
    var isTouchSequenceContinuation: Bool {
        switch self {
        case .touchUp, .touchCancel, .touchFrame, .touchMotion: true
        default: false
        }
    }
}
