/// The shell taking the pointer from a client mid-press, as a window move does.
struct PointerTake {
    var onMotion: (Point<GlobalSpace>) -> Void
    var ended: () -> Void
}

extension Router {
    var pointerTake: PointerTake? {
        _read { yield state.pointee.pointer.take }
        _modify { yield &state.pointee.pointer.take }
    }

    /// True while the shell holds the pointer (`takePointer`).
    public var pointerTaken: Bool { pointerTake != nil }

    /// The shell takes the pointer from `client`, whose surface holds it by a press (the
    /// implicit grab): the client gets wl_pointer.leave and nothing more until the last
    /// button is up. Until then each motion goes to `onMotion` with the pointer's new
    /// position, buttons and axis events are the shell's (handled at the shell link), and
    /// the scene's changes pick no focus. With the last button up, `ended` runs and the
    /// pointer enters what is under it. False (and nothing changes) when no button of
    /// `client`'s is held.
    @discardableResult
    public func takePointer(from client: ClientID, onMotion: @escaping (Point<GlobalSpace>) -> Void, ended: @escaping () -> Void) -> Bool {
        guard pointerTake == nil, !pressedButtons.isEmpty, let grab = pointerGrab, tree.client(of: grab) == client else { return false }
        pointerTake = PointerTake(onMotion: onMotion, ended: ended)
        pointerGrab = nil
        if pointerFocus != nil {
            setPointerFocus(nil)
            flushPointerFrames()
        }
        return true
    }

    /// While the pointer is taken: the event is the shell's. nil when it is not taken.
    func routeTakenPointer(_ event: InputEvent) -> RouteOutcome? {
        guard let take = pointerTake else { return nil }
        markDecided()
        switch event {
        case .pointerMotion(_, _, let dx, let dy):
            pointerPosition = clampedToOutputs(Point(pointerPosition.x + dx, pointerPosition.y + dy))
            take.onMotion(pointerPosition)
        case .pointerMotionAbsolute(_, _, let position):
            pointerPosition = position
            take.onMotion(pointerPosition)
        case .pointerButton(_, let time, let button, let state):
            switch state {
            case .pressed: if !pressedButtons.contains(button) { pressedButtons.append(button) }
            case .released: pressedButtons.removeAll { $0 == button }
            }
            if pressedButtons.isEmpty {
                pointerTake = nil
                take.ended()
                repickPointer(time: time)
                flushPointerFrames()
            }
        default:
            break
        }
        return .handled(by: .shell, declined: 0)
    }
}
