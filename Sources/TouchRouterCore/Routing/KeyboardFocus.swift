/// When the router moves keyboard focus by itself.
public enum FocusPolicy: Sendable {
    /// Only `setKeyboardFocus` moves it.
    case explicit
    /// A touch down or button press gives focus to the surface it hits (or its nearest
    /// ancestor that can take focus), as sway, Weston and UIKit's text fields do.
    case onPress
}

/// What the router may give the keyboard focus to when it moves it by itself: on a press,
/// and when the focused surface goes. `setKeyboardFocus` gives it to any surface that can
/// take it, whatever the unit.
public enum KeyboardFocusUnit: Sendable {
    /// Any surface that accepts focus, as any UIKit view can become first responder.
    case surface
    /// A window, as Wayland's keyboard focus is: a toplevel (a layer surface among them), or
    /// a popup while its client holds a grab. A press on a subsurface or on a popup with no
    /// grab focuses the window that owns it, so that a browser's dropdown (a popup without a
    /// grab, or a subsurface) stays open while it is tapped.
    case window
}

/// The first responder and what it falls back to.
struct KeyboardState {
    var policy = FocusPolicy.explicit
    var unit = KeyboardFocusUnit.surface
    var focus: SurfaceID?
    /// The focus's client, which still hears its leave once the surface has left the tree.
    var focusClient: ClientID?
    var focusHistory: [SurfaceID] = []
    var pressedKeys: [UInt32] = []
    /// Keys still down when the session unlocked: they were typed into the lock, so the
    /// window that gets the focus back hears neither them nor their release.
    var heldAtUnlock: Set<UInt32> = []
    var modifiers = KeyboardModifiers()
}

extension Router {
    public var focusPolicy: FocusPolicy {
        get { state.pointee.keyboard.policy }
        set { state.pointee.keyboard.policy = newValue }
    }
    public var keyboardFocusUnit: KeyboardFocusUnit {
        get { state.pointee.keyboard.unit }
        set { state.pointee.keyboard.unit = newValue }
    }
    public internal(set) var keyboardFocus: SurfaceID? {
        get { state.pointee.keyboard.focus }
        set { state.pointee.keyboard.focus = newValue }
    }
    var keyboardFocusClient: ClientID? {
        _read { yield state.pointee.keyboard.focusClient }
        _modify { yield &state.pointee.keyboard.focusClient }
    }
    var focusHistory: [SurfaceID] {
        _read { yield state.pointee.keyboard.focusHistory }
        _modify { yield &state.pointee.keyboard.focusHistory }
    }
    static let focusHistoryLimit = 32
    public internal(set) var pressedKeys: [UInt32] {
        get { state.pointee.keyboard.pressedKeys }
        _modify { yield &state.pointee.keyboard.pressedKeys }
    }
    public internal(set) var modifiers: KeyboardModifiers {
        get { state.pointee.keyboard.modifiers }
        _modify { yield &state.pointee.keyboard.modifiers }
    }

    /// The chain of a non-positional event (a key, a switch): it starts at the keyboard focus.
    public var firstResponderChain: [Responder] { fallbackChain(from: keyboardFocus) }

    // MARK: Keyboard focus

    /// Makes `surface` the first responder; false when it cannot take keyboard focus.
    @discardableResult
    public func setKeyboardFocus(_ surface: SurfaceID?) -> Bool {
        setKeyboardFocus(surface, cause: .request)
    }

    @discardableResult
    func setKeyboardFocus(_ surface: SurfaceID?, cause: FocusChangeCause) -> Bool {
        if let surface, !tree.canTakeKeyboardFocus(surface) { return false }
        guard surface != keyboardFocus else { return true }
        let old = keyboardFocus
        let saved = recordDeliveries
        recordDeliveries.removeAll(keepingCapacity: true)
        if let old, let client = keyboardFocusClient {
            delivery.keyboardLeave(surface: old, client: client)
            record(.keyboardLeave, old, client, nil, .focusChange)
        }
        if let old, tree.contains(old) {
            focusHistory.removeAll { $0 == old }
            focusHistory.append(old)
            if focusHistory.count > Self.focusHistoryLimit { focusHistory.removeFirst() }
        }
        keyboardFocus = surface
        keyboardFocusClient = surface.flatMap { tree.client(of: $0) }
        if let surface, let client = keyboardFocusClient {
            focusHistory.removeAll { $0 == surface }
            delivery.keyboardEnter(surface: surface, client: client, pressedKeys: pressedKeys)
            record(.keyboardEnter, surface, client, nil, .focusChange)
            delivery.modifiers(surface: surface, client: client, modifiers: modifiers)
            record(.modifiers, surface, client, nil, .focusChange)
        }
        traceSink?.focusChanged(FocusChangeRecord(kind: .keyboard, from: old, to: surface, cause: cause, deliveries: recordDeliveries))
        recordDeliveries = saved
        return true
    }

    /// A press went to `surface`: the press observer hears it, and the keyboard focus follows.
    func pressLanded(on surface: SurfaceID) {
        state.pointee.pressObserver?.pressLanded(on: surface)
        focusOnPress(surface)
    }

    /// A touch went down on `surface`: its raise and the keyboard focus wait for the end of
    /// its frame, so that the frame's touches are written to their clients first and every
    /// finger of the frame is hit-tested against the stack they were put down on.
    func deferPress(on surface: SurfaceID) {
        let press = PendingPress(surface: surface, focusFollows: focusPolicy == .onPress && clientGrab == nil)
        if state.pointee.touch.pendingPresses.last == press { return }
        state.pointee.touch.pendingPresses.append(press)
    }

    /// Presses whose raise and focus still wait: none once the router has returned.
    public var waitingPresses: Int { state.pointee.touch.pendingPresses.count }

    /// The deferred presses, once their frame is written, or before anything but a touch is
    /// routed, or when the router returns: each pressed window is heard in order, and the
    /// keyboard focus moves once, to where the last press that could take it landed,
    /// which is where pressing one after the other would have left it.
    func settlePresses() {
        var i = 0
        while i < state.pointee.touch.pendingPresses.count {
            let surface = state.pointee.touch.pendingPresses[i].surface
            if tree.contains(surface) { state.pointee.pressObserver?.pressLanded(on: surface) }
            i += 1
        }
        var j = state.pointee.touch.pendingPresses.count
        while j > 0 {
            j -= 1
            let press = state.pointee.touch.pendingPresses[j]
            guard press.focusFollows, tree.contains(press.surface), let candidate = nearestFocusable(from: press.surface) else { continue }
            if candidate != keyboardFocus { setKeyboardFocus(candidate, cause: .press) }
            break
        }
        state.pointee.touch.pendingPresses.removeAll(keepingCapacity: true)
        // The next event's wait is measured from now, not from the frame's encoding.
        lastEncoded = nil
    }

    private func focusOnPress(_ surface: SurfaceID) {
        // A grab keeps the keyboard where it put it (the grabbing popup), as wlroots' popup
        // grab does, until it ends.
        guard focusPolicy == .onPress, clientGrab == nil else { return }
        // The candidate can take the focus (nearestFocusable asked): one already holding it is left.
        if let candidate = nearestFocusable(from: surface), candidate != keyboardFocus { setKeyboardFocus(candidate, cause: .press) }
    }

    /// `surface` or its nearest ancestor that can hold the focus as the unit allows.
    func nearestFocusable(from surface: SurfaceID?) -> SurfaceID? {
        var current = surface
        while let candidate = current {
            if isFocusUnit(candidate), tree.canTakeKeyboardFocus(candidate) { return candidate }
            current = tree.parent(of: candidate)
        }
        return nil
    }

    private func isFocusUnit(_ surface: SurfaceID) -> Bool {
        guard keyboardFocusUnit == .window else { return true }
        switch tree.role(of: surface) {
        case .toplevel: return true
        case .popup: return clientGrab.map { $0.client == tree.client(of: surface) } ?? false
        case .subsurface, nil: return false
        }
    }

    /// A grab ended: a popup holding the focus through it gives it to its window.
    func keyboardFocusAfterGrab() {
        guard keyboardFocusUnit == .window, let focus = keyboardFocus, tree.role(of: focus) == .popup else { return }
        fallBackKeyboardFocus(from: focus, cause: .grabEnded)
    }

    /// Where focus goes when its surface leaves: the nearest ancestor that can take it
    /// (a field inside an app leaves focus in that app), else the most recently focused
    /// surface that still can (a closed window leaves focus to the previous one), else nobody.
    func fallBackKeyboardFocus(from ancestor: SurfaceID?, cause: FocusChangeCause) {
        focusHistory.removeAll { !tree.contains($0) }
        let next = nearestFocusable(from: ancestor) ?? focusHistory.last { tree.canTakeKeyboardFocus($0) }
        setKeyboardFocus(next, cause: cause)
    }
}
