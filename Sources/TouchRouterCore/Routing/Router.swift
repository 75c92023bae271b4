/// The event router: a FIFO queue, dispatched one event at a time. Each event flows one
/// way: monitors see it, then its handler (one per kind) hit-tests and applies the rules,
/// then `InputDelivery` sends it. The handlers live beside the state they own:
/// `RouterQueue`, `TouchRouting`, `PointerRouting`, `ClientGrab`, `KeyboardRouting`,
/// `KeyboardFocus`, `FallbackChain`, `InteractionIgnoring`, `TreeFollowing`, `RouterTrace`.
public final class Router {
    public let tree: SurfaceTree
    // A `let` of this final class: a call on it needs no retain and release, which a `var`
    // (or the state's) paid on every delivery, since the call might have replaced it.
    public let delivery: any InputDelivery
    /// What a client that was never described has bound. The Wayland layer sets each client.
    public var defaultClientCapabilities: ClientCapabilities {
        get { state.pointee.defaultClientCapabilities }
        set { state.pointee.defaultClientCapabilities = newValue }
    }
    /// Hears the winning recognizers' states; the session runs bound actions from it.
    public var gestureObserver: (any GestureObserver)? {
        get { state.pointee.gestureObserver }
        set { state.pointee.gestureObserver = newValue }
    }
    /// Hears where each press landed; the session raises the window there.
    public var pressObserver: (any PressObserver)? {
        get { state.pointee.pressObserver }
        set { state.pointee.pressObserver = newValue }
    }
    let clock: any RouterClock

    /// All mutable state, unchecked (see `UncheckedState`), grouped by the part that owns
    /// it; each part's file has accessors that keep its handlers' code as it reads.
    struct State {
        var defaultClientCapabilities = ClientCapabilities.all
        var clientCapabilities: [ClientID: ClientCapabilities] = [:]
        var devices: [DeviceID: (name: String, capabilities: DeviceCapabilities)] = [:]
        var gestureObserver: (any GestureObserver)?
        var pressObserver: (any PressObserver)?
        var queue = QueueState()
        var touch = TouchTrackingState()
        var pointer = PointerState()
        var keyboard = KeyboardState()
        var chain = ChainState()
        var ignoring = IgnoringState()
        var trace = TraceState()
        var arena = ArenaState()
        var waking = WakingState()
        var sessionLocked = false
    }

    let state: UncheckedState<State>

    deinit {
        state.release()
    }

    public init(tree: SurfaceTree, delivery: any InputDelivery, clock: any RouterClock) {
        self.tree = tree
        self.delivery = delivery
        state = UncheckedState(State())
        self.clock = clock
        queue.reserveCapacity(256)
        touches.reserveCapacity(16)
        touchFrameClients.reserveCapacity(16)
        pointerFrameClients.reserveCapacity(4)
        pressedKeys.reserveCapacity(16)
        pressedButtons.reserveCapacity(8)
        recordDeliveries.reserveCapacity(16)
        tree.observer = self
    }

    var clientCapabilities: [ClientID: ClientCapabilities] {
        _read { yield state.pointee.clientCapabilities }
        _modify { yield &state.pointee.clientCapabilities }
    }
    var devices: [DeviceID: (name: String, capabilities: DeviceCapabilities)] {
        _read { yield state.pointee.devices }
        _modify { yield &state.pointee.devices }
    }

    // MARK: Clients

    public func setCapabilities(_ capabilities: ClientCapabilities, for client: ClientID) {
        clientCapabilities[client] = capabilities
    }

    public func capabilities(of client: ClientID) -> ClientCapabilities {
        clientCapabilities[client] ?? defaultClientCapabilities
    }

    /// Forgets a client that disconnected. Its surfaces must be removed from the tree first.
    public func forgetClient(_ client: ClientID) {
        if clientGrab?.client == client { endClientGrab() }
        clientCapabilities[client] = nil
        touchFrameClients.removeAll { $0 == client }
        pointerFrameClients.removeAll { $0 == client }
    }

    // MARK: Routing

    func route(_ event: InputEvent, sequence: UInt64, arrival: RouterTime, dequeued: RouterTime) {
        let kind = event.kind
        if !state.pointee.touch.pendingPresses.isEmpty {
            // Only a touch frame's own events pass a press waiting for that frame's end.
            switch event {
            case .touchDown, .touchMotion, .touchUp, .touchCancel, .touchFrame: break
            default: settlePresses()
            }
        }
        if state.pointee.chain.monitoredKinds.contains(kind) {
            for monitor in monitors where monitor.observedKinds.contains(kind) { monitor.observe(event, sequence: sequence, arrival: arrival) }
        }
        // Filled only while tracing; emptying an empty array still cost a call an event.
        if !recordDeliveries.isEmpty { recordDeliveries.removeAll(keepingCapacity: true) }
        decidedAt = nil
        deliveredTo = nil
        var arenaAt: RouterTime?
        let outcome: RouteOutcome
        if state.pointee.waking.active, let woke = routeWaking(event) {
            outcome = woke
        } else if event.isInteraction, ignoreInteractionDepth > 0, !event.isTouchSequenceContinuation {
            ignoredInteractionEvents += 1
            outcome = ignore(event)
        } else if state.pointee.arena.enabled, !state.pointee.sessionLocked, event.isArenaTouch {
            let decided = arenaTouch(event, sequence: sequence, arrival: arrival)
            // The arena's stage ends here; what it decided (a claim, a hold) is decided now.
            let now = clock.now()
            arenaAt = now
            if let decided {
                decidedAt = now
                outcome = decided
            } else {
                decidedAt = nil
                outcome = handle(event)
            }
        } else {
            outcome = handle(event)
        }
        finishRoute(event, kind: kind, sequence: sequence, arrival: arrival, dequeued: dequeued, arena: arenaAt, outcome: outcome)
        if kind == .touchFrame, !state.pointee.touch.pendingPresses.isEmpty {
            delivery.writeToClients()
            settlePresses()
        }
    }

    /// One handler per kind of event.
    func handle(_ event: InputEvent) -> RouteOutcome {
        if state.pointee.pointer.take != nil {
            switch event {
            case .pointerMotion, .pointerMotionAbsolute, .pointerButton, .pointerAxis:
                if let taken = routeTakenPointer(event) { return taken }
            default:
                break
            }
        }
        switch event {
        case .touchDown(let device, let time, let id, let position):
            return touchDown(event, device: device, time: time, id: id, position: position)
        case .touchMotion(let device, let time, let id, let position):
            return touchMotion(device: device, time: time, id: id, position: position)
        case .touchUp(_, let time, let id):
            return touchUp(event, time: time, id: id)
        case .touchCancel(_, _, let id):
            return touchCancel(event, id: id)
        case .touchFrame:
            return touchFrame()
        case .key(_, let time, let key, let state):
            return keyEvent(event, time: time, key: key, state: state)
        case .pointerMotion(_, let time, let dx, let dy):
            deliverRelativeMotion(time: time, dx: dx, dy: dy)
            if pointerLocked { return lockedMotion() }
            return pointerMotion(event, time: time, to: confined(clampedToOutputs(Point(pointerPosition.x + dx, pointerPosition.y + dy))))
        case .pointerMotionAbsolute(_, let time, let position):
            if pointerLocked { return lockedMotion() }
            return pointerMotion(event, time: time, to: confined(position))
        case .pointerButton(_, let time, let button, let state):
            return pointerButton(event, time: time, button: button, state: state)
        case .pointerAxis(_, let time, let axis, let value, let discrete, let source):
            return pointerAxis(event, time: time, axis: axis, value: value, discrete: discrete, source: source)
        case .swipe, .pinch, .hold:
            return touchpadGesture(event)
        case .switchToggle:
            return nonPositional(event) { _ in false }
        case .deviceAdded(let device, _, let capabilities):
            devices[device] = (devices[device]?.name ?? "", capabilities)
            return .recorded
        case .deviceRemoved(let device, _):
            return deviceRemoved(event, device: device)
        }
    }

    func ignore(_ event: InputEvent) -> RouteOutcome {
        if case .touchDown(let device, _, let id, _) = event, touchIndex(id) == nil {
            touches.append(TouchPoint(device: device, id: id, output: nil, target: .swallowed(.interactionIgnored)))
        }
        return .dropped(.interactionIgnored)
    }

    // MARK: Devices

    public var knownDevices: [DeviceID: DeviceCapabilities] { devices.mapValues(\.capabilities) }

    public func deviceName(_ device: DeviceID) -> String? { devices[device]?.name }

    /// Names a device (libinput's device name), for traces and `msg` replies.
    public func nameDevice(_ device: DeviceID, _ name: String) {
        devices[device, default: (name, [])].name = name
    }

    func deviceRemoved(_ event: InputEvent, device: DeviceID) -> RouteOutcome {
        devices[device] = nil
        markDecided()
        arenaDeviceRemoved(device, time: event.time)
        let cancelledAny = cancelLiveTouches(time: event.time) { $0.device == device }
        touches.removeAll { $0.device == device }
        wakingDeviceRemoved()
        return cancelledAny ? .delivered(.cancel) : .recorded
    }
}
