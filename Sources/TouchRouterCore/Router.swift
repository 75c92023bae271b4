/// Where a touch point's events go for its whole life.
enum TouchTarget {
    case client(SurfaceID, ClientID)
    /// The client has no wl_touch: this touch drives its pointer.
    case emulatedPointer(SurfaceID, ClientID)
    case compositor(any CompositorResponder, Responder)
    /// Nobody gets the rest of this touch's sequence, for `DropReason`.
    case swallowed(DropReason)
}

struct ClientGrab {
    var client: ClientID
    var dismissed: () -> Void
}

struct QueuedEvent {
    var sequence: UInt64
    var arrival: RouterTime
    var event: InputEvent
}

struct TouchPoint {
    var device: DeviceID
    var id: TouchID
    var output: OutputID?
    var target: TouchTarget

    var trackingSurface: SurfaceID? {
        switch target {
        case .client(let surface, _), .emulatedPointer(let surface, _): surface
        case .compositor, .swallowed: nil
        }
    }
}

/// When the router moves keyboard focus by itself.
public enum FocusPolicy: Sendable {
    /// Only `setKeyboardFocus` moves it.
    case explicit
    /// A touch down or button press gives focus to the surface it hits (or its nearest
    /// ancestor that can take focus), as sway, Weston and UIKit's text fields do.
    case onPress
}

/// The event router: a FIFO queue, dispatched one event at a time, through hit testing,
/// focus, touch binding and the fallback chain, to an `InputDelivery`.
public final class Router {
    public let tree: SurfaceTree
    public var delivery: any InputDelivery {
        get { state.pointee.delivery }
        set { state.pointee.delivery = newValue }
    }
    public var traceSink: (any RoutingTraceSink)? {
        get { state.pointee.traceSink }
        set { state.pointee.traceSink = newValue }
    }
    public var focusPolicy: FocusPolicy {
        get { state.pointee.focusPolicy }
        set { state.pointee.focusPolicy = newValue }
    }
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
    private let clock: any RouterClock

    /// All mutable state, unchecked (see `UncheckedState`); the accessors below keep the
    /// handlers' code as it reads.
    private struct State {
        var delivery: any InputDelivery
        var traceSink: (any RoutingTraceSink)?
        var focusPolicy = FocusPolicy.explicit
        var defaultClientCapabilities = ClientCapabilities.all
        var queue: ContiguousArray<QueuedEvent> = []
        var queueHead = 0
        var nextSequence: UInt64 = 1
        var monitors: [any EventMonitor] = []
        var attachments: [Responder: [any CompositorResponder]] = [:]
        var clientCapabilities: [ClientID: ClientCapabilities] = [:]
        var devices: [DeviceID: (name: String, capabilities: DeviceCapabilities)] = [:]
        var keyboardFocus: SurfaceID?
        /// The focus's client, which still hears its leave once the surface has left the tree.
        var keyboardFocusClient: ClientID?
        var focusHistory: [SurfaceID] = []
        var pressedKeys: [UInt32] = []
        var modifiers = KeyboardModifiers()
        var pointerPosition = Point<GlobalSpace>(0, 0)
        var pointerFocus: SurfaceID?
        var pointerFocusClient: ClientID?
        /// Where the focus last heard the pointer was, in its own space.
        var pointerLocal: Point<SurfaceSpace>?
        /// False until the pointer first moves: a seat with no pointer yet focuses nothing.
        var pointerPlaced = false
        /// The tree's hit-test revision when the pointer's focus was last picked; nil when
        /// the focus must be picked again whatever the tree did.
        var pointerPickRevision: UInt64? = nil
        var pointerGrab: SurfaceID?
        var clientGrab: ClientGrab?
        /// Buttons whose press dismissed a grab: their release is dropped too.
        var buttonsPressedOutsideGrab: [UInt32] = []
        var buttonsPressedOnGoneSurface: [UInt32] = []
        var pressedButtons: [UInt32] = []
        var pointerFrameClients: [ClientID] = []
        var touches: [TouchPoint] = []
        var touchFrameClients: [ClientID] = []
        var ignoreInteractionDepth = 0
        var ignoredInteractionEvents = 0
        var recordDeliveries: [DeliveryRecord] = []
        var decidedAt: RouterTime?
        var gestureObserver: (any GestureObserver)?
    }

    private let state: UncheckedState<State>

    deinit {
        state.release()
    }

    private var queue: ContiguousArray<QueuedEvent> {
        _read { yield state.pointee.queue }
        _modify { yield &state.pointee.queue }
    }
    private var queueHead: Int { _read { yield state.pointee.queueHead } _modify { yield &state.pointee.queueHead } }
    private var nextSequence: UInt64 { _read { yield state.pointee.nextSequence } _modify { yield &state.pointee.nextSequence } }
    private var monitors: [any EventMonitor] { _read { yield state.pointee.monitors } _modify { yield &state.pointee.monitors } }
    private var attachments: [Responder: [any CompositorResponder]] {
        _read { yield state.pointee.attachments }
        _modify { yield &state.pointee.attachments }
    }
    private var clientCapabilities: [ClientID: ClientCapabilities] {
        _read { yield state.pointee.clientCapabilities }
        _modify { yield &state.pointee.clientCapabilities }
    }
    private var devices: [DeviceID: (name: String, capabilities: DeviceCapabilities)] {
        _read { yield state.pointee.devices }
        _modify { yield &state.pointee.devices }
    }
    public private(set) var keyboardFocus: SurfaceID? {
        get { state.pointee.keyboardFocus }
        set { state.pointee.keyboardFocus = newValue }
    }
    private var focusHistory: [SurfaceID] { _read { yield state.pointee.focusHistory } _modify { yield &state.pointee.focusHistory } }
    private static let focusHistoryLimit = 32
    public private(set) var pressedKeys: [UInt32] {
        get { state.pointee.pressedKeys }
        _modify { yield &state.pointee.pressedKeys }
    }
    public private(set) var modifiers: KeyboardModifiers {
        get { state.pointee.modifiers }
        _modify { yield &state.pointee.modifiers }
    }
    public private(set) var pointerPosition: Point<GlobalSpace> {
        get { state.pointee.pointerPosition }
        set { state.pointee.pointerPosition = newValue }
    }
    public private(set) var pointerFocus: SurfaceID? {
        get { state.pointee.pointerFocus }
        set { state.pointee.pointerFocus = newValue }
    }
    private var keyboardFocusClient: ClientID? {
        _read { yield state.pointee.keyboardFocusClient } _modify { yield &state.pointee.keyboardFocusClient }
    }
    private var pointerFocusClient: ClientID? {
        _read { yield state.pointee.pointerFocusClient } _modify { yield &state.pointee.pointerFocusClient }
    }
    /// Buttons held when the surface they were pressed on left the tree: their releases
    /// go nowhere, as the rest of a touch on a gone surface does, rather than to a client
    /// that never saw the press.
    private var buttonsPressedOnGoneSurface: [UInt32] {
        _read { yield state.pointee.buttonsPressedOnGoneSurface } _modify { yield &state.pointee.buttonsPressedOnGoneSurface }
    }
    private var buttonsPressedOutsideGrab: [UInt32] {
        _read { yield state.pointee.buttonsPressedOutsideGrab } _modify { yield &state.pointee.buttonsPressedOutsideGrab }
    }
    private var clientGrab: ClientGrab? { _read { yield state.pointee.clientGrab } _modify { yield &state.pointee.clientGrab } }
    private var pointerGrab: SurfaceID? { _read { yield state.pointee.pointerGrab } _modify { yield &state.pointee.pointerGrab } }
    private var pointerLocal: Point<SurfaceSpace>? { _read { yield state.pointee.pointerLocal } _modify { yield &state.pointee.pointerLocal } }
    private var pointerPlaced: Bool { _read { yield state.pointee.pointerPlaced } _modify { yield &state.pointee.pointerPlaced } }
    private var pointerPickRevision: UInt64? {
        _read { yield state.pointee.pointerPickRevision } _modify { yield &state.pointee.pointerPickRevision }
    }
    public private(set) var pressedButtons: [UInt32] {
        get { state.pointee.pressedButtons }
        _modify { yield &state.pointee.pressedButtons }
    }
    private var pointerFrameClients: [ClientID] { _read { yield state.pointee.pointerFrameClients } _modify { yield &state.pointee.pointerFrameClients } }
    private var touches: [TouchPoint] { _read { yield state.pointee.touches } _modify { yield &state.pointee.touches } }
    private var touchFrameClients: [ClientID] { _read { yield state.pointee.touchFrameClients } _modify { yield &state.pointee.touchFrameClients } }
    public private(set) var ignoreInteractionDepth: Int {
        get { state.pointee.ignoreInteractionDepth }
        set { state.pointee.ignoreInteractionDepth = newValue }
    }
    public private(set) var ignoredInteractionEvents: Int {
        get { state.pointee.ignoredInteractionEvents }
        set { state.pointee.ignoredInteractionEvents = newValue }
    }

    // The record being built for the event in flight.
    private var tracing: Bool { traceSink != nil }
    private var recordDeliveries: [DeliveryRecord] { _read { yield state.pointee.recordDeliveries } _modify { yield &state.pointee.recordDeliveries } }
    private var decidedAt: RouterTime? { _read { yield state.pointee.decidedAt } _modify { yield &state.pointee.decidedAt } }

    public init(tree: SurfaceTree, delivery: any InputDelivery, clock: any RouterClock) {
        self.tree = tree
        state = UncheckedState(State(delivery: delivery))
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

    // MARK: Configuration

    public func addMonitor(_ monitor: any EventMonitor) { monitors.append(monitor) }

    public func removeMonitor(_ monitor: any EventMonitor) { monitors.removeAll { $0 === monitor } }

    /// Adds a compositor responder at a link of the fallback chain; several at one link are asked in order.
    public func attach(_ responder: any CompositorResponder, to link: Responder) {
        attachments[link, default: []].append(responder)
    }

    public func detach(_ responder: any CompositorResponder) {
        for (link, list) in attachments {
            let kept = list.filter { $0 !== responder }
            attachments[link] = kept.isEmpty ? nil : kept
        }
        for i in touches.indices {
            if case .compositor(let bound, _) = touches[i].target, bound === responder {
                touches[i].target = .swallowed(.touchCancelled)
            }
        }
    }

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

    // MARK: Inspection

    public struct TouchState: Hashable, Sendable {
        public var device: DeviceID
        public var id: TouchID
        /// The client surface the touch is bound to, if any.
        public var surface: SurfaceID?
        /// The compositor link that took it, if any.
        public var responder: Responder?
        public var emulatingPointer: Bool
        public var swallowed: DropReason?
    }

    public var activeTouches: [TouchState] {
        touches.map { point in
            switch point.target {
            case .client(let surface, _):
                TouchState(device: point.device, id: point.id, surface: surface, responder: nil, emulatingPointer: false, swallowed: nil)
            case .emulatedPointer(let surface, _):
                TouchState(device: point.device, id: point.id, surface: surface, responder: nil, emulatingPointer: true, swallowed: nil)
            case .compositor(_, let link):
                TouchState(device: point.device, id: point.id, surface: nil, responder: link, emulatingPointer: false, swallowed: nil)
            case .swallowed(let reason):
                TouchState(device: point.device, id: point.id, surface: nil, responder: nil, emulatingPointer: false, swallowed: reason)
            }
        }
    }

    public var pendingEvents: Int { queue.count - queueHead }

    public var knownDevices: [DeviceID: DeviceCapabilities] { devices.mapValues(\.capabilities) }

    public func deviceName(_ device: DeviceID) -> String? { devices[device]?.name }

    /// Names a device (libinput's device name), for traces and `msg` replies.
    public func nameDevice(_ device: DeviceID, _ name: String) {
        devices[device, default: (name, [])].name = name
    }

    /// The links a positional event at `point` would travel, first to last.
    public func fallbackChain(at point: Point<GlobalSpace>) -> [Responder] {
        if let hit = tree.hitTest(point) { return fallbackChain(from: hit.surface) }
        return (tree.output(at: point).map { [Responder.output($0)] } ?? []) + [.shell, .shellDelegate]
    }

    /// The links an event starting at `surface` travels: the surface, its role, its parents, its output, the shell.
    public func fallbackChain(from surface: SurfaceID?) -> [Responder] {
        var links: [Responder] = []
        var current = surface
        while let id = current, let role = tree.role(of: id) {
            links.append(.surface(id))
            if role != .subsurface { links.append(.role(id, role)) }
            current = tree.parent(of: id)
        }
        if let surface, let output = tree.outputOf(surface) { links.append(.output(output)) }
        return links + [.shell, .shellDelegate]
    }

    /// The chain of a non-positional event (a key, a switch): it starts at the keyboard focus.
    public var firstResponderChain: [Responder] { fallbackChain(from: keyboardFocus) }

    // MARK: Queue

    /// Queues an event, stamping its arrival.
    public func enqueue(_ event: InputEvent) {
        if queueHead == queue.count, queueHead > 0 {
            queue.removeAll(keepingCapacity: true)
            queueHead = 0
        }
        queue.append(QueuedEvent(sequence: nextSequence, arrival: clock.now(), event: event))
        nextSequence &+= 1
    }

    /// Routes the oldest queued event; false when the queue is empty.
    @discardableResult
    public func dispatchNext() -> Bool {
        guard queueHead < queue.count else { return false }
        let queued = queue[queueHead]
        queueHead += 1
        route(queued.event, sequence: queued.sequence, arrival: queued.arrival)
        return true
    }

    public func dispatchAll() {
        while dispatchNext() {}
    }

    // MARK: Routing

    private func route(_ event: InputEvent, sequence: UInt64, arrival: RouterTime) {
        let dequeued = clock.now()
        for monitor in monitors { monitor.observe(event, sequence: sequence, arrival: arrival) }
        recordDeliveries.removeAll(keepingCapacity: true)
        decidedAt = nil
        let outcome: RouteOutcome
        if event.isInteraction, ignoreInteractionDepth > 0, !event.isTouchSequenceContinuation {
            ignoredInteractionEvents += 1
            outcome = ignore(event)
        } else {
            outcome = handle(event)
        }
        if let sink = traceSink {
            let delivered = clock.now()
            sink.routed(RouteRecord(
                sequence: sequence, event: event, arrival: arrival, dequeued: dequeued,
                decided: decidedAt ?? delivered, delivered: delivered, outcome: outcome, deliveries: recordDeliveries))
        }
    }

    /// One handler per kind of event.
    private func handle(_ event: InputEvent) -> RouteOutcome {
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
            return pointerMotion(event, time: time, to: clampedToOutputs(Point(pointerPosition.x + dx, pointerPosition.y + dy)))
        case .pointerMotionAbsolute(_, let time, let position):
            return pointerMotion(event, time: time, to: position)
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

    private func ignore(_ event: InputEvent) -> RouteOutcome {
        if case .touchDown(let device, _, let id, _) = event, touchIndex(id) == nil {
            touches.append(TouchPoint(device: device, id: id, output: nil, target: .swallowed(.interactionIgnored)))
        }
        return .dropped(.interactionIgnored)
    }

    // MARK: Touch

    /// Touch ids are seat slots, unique across the seat's devices, as wl_touch needs them.
    private func touchIndex(_ id: TouchID) -> Int? {
        for i in touches.indices where touches[i].id == id { return i }
        return nil
    }

    private func touchDown(_ event: InputEvent, device: DeviceID, time: RouterTime, id: TouchID, position: Point<GlobalSpace>) -> RouteOutcome {
        guard touchIndex(id) == nil else { return .dropped(.duplicateTouch) }
        let hit = tree.hitTest(position)
        if let grab = clientGrab, hit.flatMap({ tree.client(of: $0.surface) }) != grab.client {
            markDecided()
            dismissClientGrab()
            touches.append(TouchPoint(device: device, id: id, output: hit?.output, target: .swallowed(.outsideGrab)))
            return .dropped(.outsideGrab)
        }
        guard let hit else {
            let output = tree.output(at: position)
            let (outcome, target) = compositorChain(event, from: nil, output: output)
            touches.append(TouchPoint(device: device, id: id, output: output, target: target))
            return outcome
        }
        if let blocked = touchRuleBlocking(hit.surface, on: hit.output) {
            touches.append(TouchPoint(device: device, id: id, output: hit.output, target: .swallowed(blocked)))
            return .dropped(blocked)
        }
        // Walk the surface links for a client that takes touch, or pointer input in its stead.
        var declined = 0
        var current: SurfaceID? = hit.surface
        while let surface = current, let client = tree.client(of: surface) {
            let capabilities = capabilities(of: client)
            let reason: DeliveryReason = surface == hit.surface ? .hit : .fallback
            if capabilities.contains(.touch) {
                let local = surface == hit.surface ? hit.local : tree.localPoint(position, in: surface)!
                focusOnPress(surface)
                markDecided()
                delivery.touchDown(surface: surface, client: client, time: time, id: id, local: local)
                record(.touchDown, surface, client, local, reason)
                noteTouchFrame(for: client)
                touches.append(TouchPoint(device: device, id: id, output: hit.output, target: .client(surface, client)))
                return .delivered(reason)
            }
            if capabilities.contains(.pointer) {
                if touches.contains(where: { if case .emulatedPointer = $0.target { true } else { false } }) {
                    touches.append(TouchPoint(device: device, id: id, output: hit.output, target: .swallowed(.pointerEmulationBusy)))
                    return .dropped(.pointerEmulationBusy)
                }
                focusOnPress(surface)
                markDecided()
                emulatePointerPress(time: time, at: position)
                touches.append(TouchPoint(device: device, id: id, output: hit.output, target: .emulatedPointer(surface, client)))
                return .delivered(.pointerEmulation)
            }
            if let taken = askResponders(event, at: .surface(surface)) {
                touches.append(TouchPoint(device: device, id: id, output: hit.output, target: .compositor(taken, .surface(surface))))
                return .handled(by: .surface(surface), declined: declined)
            }
            declined += 1
            if let role = tree.role(of: surface), role != .subsurface {
                if let taken = askResponders(event, at: .role(surface, role)) {
                    touches.append(TouchPoint(device: device, id: id, output: hit.output, target: .compositor(taken, .role(surface, role))))
                    return .handled(by: .role(surface, role), declined: declined)
                }
                declined += 1
            }
            current = tree.parent(of: surface)
        }
        let (outcome, target) = compositorChain(event, from: nil, output: hit.output, declinedSoFar: declined)
        touches.append(TouchPoint(device: device, id: id, output: hit.output, target: target))
        return outcome
    }

    /// UIKit's multipleTouchEnabled and exclusiveTouch, judged per output (UIKit's window).
    private func touchRuleBlocking(_ surface: SurfaceID, on output: OutputID) -> DropReason? {
        guard let properties = tree.properties(of: surface) else { return nil }
        if !properties.multipleTouch, touches.contains(where: { $0.trackingSurface == surface }) {
            return .multipleTouchDisabled(surface: surface)
        }
        for point in touches where point.output == output {
            guard let tracking = point.trackingSurface else { continue }
            if properties.exclusiveTouch, tracking != surface {
                return .blockedByExclusiveTouch(exclusive: surface, tracking: tracking)
            }
            if !properties.exclusiveTouch, tree.properties(of: tracking)?.exclusiveTouch == true {
                return .blockedByExclusiveTouch(exclusive: tracking, tracking: tracking)
            }
        }
        return nil
    }

    private func touchMotion(device: DeviceID, time: RouterTime, id: TouchID, position: Point<GlobalSpace>) -> RouteOutcome {
        guard let i = touchIndex(id) else { return .dropped(.unknownTouch) }
        switch touches[i].target {
        case .client(let surface, let client):
            guard let local = tree.localPoint(position, in: surface) else { return .dropped(.surfaceGone) }
            markDecided()
            delivery.touchMotion(surface: surface, client: client, time: time, id: id, local: local)
            record(.touchMotion, surface, client, local, .boundTouch)
            noteTouchFrame(for: client)
            return .delivered(.boundTouch)
        case .emulatedPointer(let surface, _):
            guard tree.contains(surface) else { return .dropped(.surfaceGone) }
            markDecided()
            movePointer(to: position, time: time)
            flushPointerFrames()
            return .delivered(.pointerEmulation)
        case .compositor(let responder, let link):
            markDecided()
            _ = responder.respond(to: .touchMotion(device: device, time: time, id: id, position: position), at: link)
            return .handled(by: link, declined: 0)
        case .swallowed(let reason):
            return .dropped(reason)
        }
    }

    private func touchUp(_ event: InputEvent, time: RouterTime, id: TouchID) -> RouteOutcome {
        guard let i = touchIndex(id) else { return .dropped(.unknownTouch) }
        let point = touches.remove(at: i)
        switch point.target {
        case .client(let surface, let client):
            markDecided()
            delivery.touchUp(surface: surface, client: client, time: time, id: id)
            record(.touchUp, surface, client, nil, .boundTouch)
            noteTouchFrame(for: client)
            return .delivered(.boundTouch)
        case .emulatedPointer:
            markDecided()
            releaseEmulatedButton(time: time)
            return .delivered(.pointerEmulation)
        case .compositor(let responder, let link):
            markDecided()
            _ = responder.respond(to: event, at: link)
            return .handled(by: link, declined: 0)
        case .swallowed(let reason):
            return .dropped(reason)
        }
    }

    private func touchCancel(_ event: InputEvent, id: TouchID) -> RouteOutcome {
        guard let i = touchIndex(id) else { return .dropped(.unknownTouch) }
        let point = touches.remove(at: i)
        switch point.target {
        case .client(_, let client):
            markDecided()
            cancelTouches(of: client, reason: .cancel)
            return .delivered(.cancel)
        case .emulatedPointer:
            markDecided()
            releaseEmulatedButton(time: event.time)
            return .delivered(.pointerEmulation)
        case .compositor(let responder, let link):
            markDecided()
            _ = responder.respond(to: event, at: link)
            return .handled(by: link, declined: 0)
        case .swallowed(let reason):
            return .dropped(reason)
        }
    }

    /// wl_touch.cancel ends every touch the client has, so the rest of each is swallowed.
    private func cancelTouches(of client: ClientID, reason: DeliveryReason) {
        delivery.touchCancel(client: client)
        record(.touchCancel, nil, client, nil, reason)
        touchFrameClients.removeAll { $0 == client }
        for j in touches.indices {
            if case .client(_, let owner) = touches[j].target, owner == client {
                touches[j].target = .swallowed(.touchCancelled)
            }
        }
    }

    private func touchFrame() -> RouteOutcome {
        guard !touchFrameClients.isEmpty else { return .dropped(.nothingPending) }
        markDecided()
        for client in touchFrameClients {
            delivery.touchFrame(client: client)
            record(.touchFrame, nil, client, nil, .frame)
        }
        touchFrameClients.removeAll(keepingCapacity: true)
        return .delivered(.frame)
    }

    private func noteTouchFrame(for client: ClientID) {
        if !touchFrameClients.contains(client) { touchFrameClients.append(client) }
    }

    // MARK: Pointer emulation

    /// Emulated input goes wherever the pointer focus is, which the move puts on the touched surface.
    private func emulatePointerPress(time: RouterTime, at position: Point<GlobalSpace>) {
        movePointer(to: position, time: time)
        if pressedButtons.isEmpty { pointerGrab = pointerFocus }
        if !pressedButtons.contains(EvdevCode.buttonLeft) { pressedButtons.append(EvdevCode.buttonLeft) }
        if let focus = pointerFocus, let focusClient = tree.client(of: focus) {
            delivery.pointerButton(surface: focus, client: focusClient, time: time, button: EvdevCode.buttonLeft, state: .pressed)
            record(.pointerButton, focus, focusClient, nil, .pointerEmulation)
            notePointerFrame(for: focusClient)
        }
        flushPointerFrames()
    }

    private func releaseEmulatedButton(time: RouterTime) {
        pressedButtons.removeAll { $0 == EvdevCode.buttonLeft }
        if let focus = pointerFocus, let focusClient = tree.client(of: focus) {
            delivery.pointerButton(surface: focus, client: focusClient, time: time, button: EvdevCode.buttonLeft, state: .released)
            record(.pointerButton, focus, focusClient, nil, .pointerEmulation)
            notePointerFrame(for: focusClient)
        }
        endPointerGrabIfReleased(time: time)
        flushPointerFrames()
    }

    // MARK: Pointer

    private func clampedToOutputs(_ point: Point<GlobalSpace>) -> Point<GlobalSpace> {
        // A device's delta that is not a number leaves the pointer where it was.
        guard !point.x.isNaN, !point.y.isNaN else { return pointerPosition }
        if tree.output(at: point) != nil { return point }
        guard let output = tree.output(at: pointerPosition).flatMap({ tree.output($0) }) ?? tree.outputs.first,
              output.rect.width > 0, output.rect.height > 0 else { return point }
        let rect = output.rect
        // Just inside the far edges: rectangles are half-open.
        let x = min(max(point.x, Double(rect.minX)), Double(rect.maxX) - 1.0 / 256)
        let y = min(max(point.y, Double(rect.minY)), Double(rect.maxY) - 1.0 / 256)
        return Point(x, y)
    }

    private func pointerMotion(_ event: InputEvent, time: RouterTime, to position: Point<GlobalSpace>) -> RouteOutcome {
        let reason = movePointer(to: position, time: time)
        if pointerFocus == nil {
            flushPointerFrames()
            return compositorChain(event, from: tree.hitTest(position)?.surface, output: tree.output(at: position)).0
        }
        flushPointerFrames()
        return .delivered(reason)
    }

    /// Moves the pointer, re-picks its focus unless a button holds it, and sends motion.
    @discardableResult
    private func movePointer(to position: Point<GlobalSpace>, time: RouterTime) -> DeliveryReason {
        pointerPosition = position
        pointerPlaced = true
        pointerPickRevision = tree.hitTestRevision
        if let grab = pointerGrab, tree.contains(grab), let client = tree.client(of: grab) {
            let local = tree.localPoint(position, in: grab)!
            markDecided()
            pointerLocal = local
            delivery.pointerMotion(surface: grab, client: client, time: time, local: local)
            record(.pointerMotion, grab, client, local, .implicitGrab)
            notePointerFrame(for: client)
            return .implicitGrab
        }
        pointerGrab = nil
        let target = pointerTarget(at: position)
        markDecided()
        if target?.surface != pointerFocus { setPointerFocus(target) }
        guard let target else { return .pointerFocus }
        pointerLocal = target.local
        delivery.pointerMotion(surface: target.surface, client: target.client, time: time, local: target.local)
        record(.pointerMotion, target.surface, target.client, target.local, .pointerFocus)
        notePointerFrame(for: target.client)
        return .pointerFocus
    }

    /// Looks again at what lies under a still pointer once the scene has changed, as
    /// Weston's repick and sway's cursor rebase do: the focus leaves a surface that moved
    /// away and enters the one now there; a focus that stays hears its new local position
    /// as motion. Held buttons keep the focus, which still hears where it now is. Cheap
    /// when nothing changed. The host calls it once it has applied a batch of changes;
    /// buttons and axis events call it first, so that they never reach a stale focus.
    public func refreshPointerFocus() {
        guard pointerPlaced, ignoreInteractionDepth == 0, pointerPickRevision != tree.hitTestRevision else { return }
        let saved = recordDeliveries
        recordDeliveries.removeAll(keepingCapacity: true)
        let old = pointerFocus
        repickPointer(time: clock.now())
        flushPointerFrames()
        if tracing, !recordDeliveries.isEmpty {
            traceSink?.focusChanged(FocusChangeRecord(kind: .pointer, from: old, to: pointerFocus, cause: .sceneChanged, deliveries: recordDeliveries))
        }
        recordDeliveries = saved
    }

    /// Once the last button is up the implicit grab ends, and the pointer goes to what is
    /// under it now, as in Weston.
    private func endPointerGrabIfReleased(time: RouterTime) {
        guard pressedButtons.isEmpty, pointerGrab != nil else { return }
        pointerGrab = nil
        if ignoreInteractionDepth == 0 { repickPointer(time: time) }
    }

    /// Gives the still pointer to what is under it now (the grabbed surface while a button
    /// is held): leave and enter if that changed, motion if only its local position did.
    private func repickPointer(time: RouterTime) {
        pointerPickRevision = tree.hitTestRevision
        var target: PointerTarget?
        if let grab = pointerGrab {
            if let client = tree.client(of: grab), let local = tree.localPoint(pointerPosition, in: grab) { target = (grab, client, local) }
        } else {
            target = pointerTarget(at: pointerPosition)
        }
        if target?.surface != pointerFocus {
            if pointerGrab == nil { setPointerFocus(target) }
        } else if let target, target.local != pointerLocal {
            pointerLocal = target.local
            delivery.pointerMotion(surface: target.surface, client: target.client, time: time, local: target.local)
            record(.pointerMotion, target.surface, target.client, target.local, pointerGrab == nil ? .pointerFocus : .implicitGrab)
            notePointerFrame(for: target.client)
        }
    }

    private typealias PointerTarget = (surface: SurfaceID, client: ClientID, local: Point<SurfaceSpace>)

    /// The surface under `position` if its client bound wl_pointer: the pointer's focus there.
    private func pointerTarget(at position: Point<GlobalSpace>) -> PointerTarget? {
        guard let hit = tree.hitTest(position), let client = tree.client(of: hit.surface),
              capabilities(of: client).contains(.pointer), clientGrab.map({ $0.client == client }) ?? true else { return nil }
        return (hit.surface, client, hit.local)
    }

    private func setPointerFocus(_ target: PointerTarget?) {
        if let old = pointerFocus, let client = pointerFocusClient {
            delivery.pointerLeave(surface: old, client: client)
            record(.pointerLeave, old, client, nil, .focusChange)
            notePointerFrame(for: client)
        }
        pointerFocus = target?.surface
        pointerFocusClient = target?.client
        pointerLocal = target?.local
        if let (surface, client, local) = target {
            delivery.pointerEnter(surface: surface, client: client, local: local)
            record(.pointerEnter, surface, client, local, .focusChange)
            notePointerFrame(for: client)
        }
    }

    private func pointerButton(_ event: InputEvent, time: RouterTime, button: UInt32, state: ButtonState) -> RouteOutcome {
        refreshPointerFocus()
        if state == .pressed, let grab = clientGrab, pointerGrab == nil, pointerFocusClient != grab.client {
            markDecided()
            buttonsPressedOutsideGrab.append(button)
            dismissClientGrab()
            return .dropped(.outsideGrab)
        }
        if state == .released, let i = buttonsPressedOutsideGrab.firstIndex(of: button) {
            buttonsPressedOutsideGrab.remove(at: i)
            return .dropped(.outsideGrab)
        }
        if state == .released, let i = buttonsPressedOnGoneSurface.firstIndex(of: button) {
            buttonsPressedOnGoneSurface.remove(at: i)
            return .dropped(.surfaceGone)
        }
        switch state {
        case .pressed:
            if pressedButtons.isEmpty { pointerGrab = pointerFocus }
            if !pressedButtons.contains(button) { pressedButtons.append(button) }
        case .released:
            pressedButtons.removeAll { $0 == button }
        }
        defer { if pressedButtons.isEmpty { pointerGrab = nil } }
        guard let focus = pointerFocus, let client = tree.client(of: focus) else {
            return compositorChain(event, from: tree.hitTest(pointerPosition)?.surface, output: tree.output(at: pointerPosition)).0
        }
        if state == .pressed { focusOnPress(focus) }
        markDecided()
        delivery.pointerButton(surface: focus, client: client, time: time, button: button, state: state)
        let reason: DeliveryReason = pointerGrab == nil ? .pointerFocus : .implicitGrab
        record(.pointerButton, focus, client, nil, reason)
        notePointerFrame(for: client)
        endPointerGrabIfReleased(time: time)
        flushPointerFrames()
        return .delivered(reason)
    }

    private func pointerAxis(_ event: InputEvent, time: RouterTime, axis: PointerAxis, value: Double, discrete: Int32, source: AxisSource) -> RouteOutcome {
        refreshPointerFocus()
        guard let focus = pointerFocus, let client = tree.client(of: focus) else {
            return compositorChain(event, from: tree.hitTest(pointerPosition)?.surface, output: tree.output(at: pointerPosition)).0
        }
        markDecided()
        delivery.pointerAxis(surface: focus, client: client, time: time, axis: axis, value: value, discrete: discrete, source: source)
        record(.pointerAxis, focus, client, nil, .pointerFocus)
        notePointerFrame(for: client)
        flushPointerFrames()
        return .delivered(.pointerFocus)
    }

    private func notePointerFrame(for client: ClientID) {
        if !pointerFrameClients.contains(client) { pointerFrameClients.append(client) }
    }

    private func flushPointerFrames() {
        for client in pointerFrameClients {
            delivery.pointerFrame(client: client)
            record(.pointerFrame, nil, client, nil, .frame)
        }
        pointerFrameClients.removeAll(keepingCapacity: true)
    }

    /// Core Wayland gives clients no touchpad gestures, so they go to compositor responders,
    /// starting at the surface under the pointer.
    private func touchpadGesture(_ event: InputEvent) -> RouteOutcome {
        compositorChain(event, from: pointerFocus ?? tree.hitTest(pointerPosition)?.surface, output: tree.output(at: pointerPosition)).0
    }

    // MARK: Keyboard

    private func keyEvent(_ event: InputEvent, time: RouterTime, key: UInt32, state: KeyState) -> RouteOutcome {
        switch state {
        case .pressed:
            if !pressedKeys.contains(key) { pressedKeys.append(key) }
        case .released:
            pressedKeys.removeAll { $0 == key }
        }
        let modifiersChanged = updateModifiers(key: key, state: state)
        return nonPositional(event) { surface in
            guard let client = tree.client(of: surface), capabilities(of: client).contains(.keyboard) else { return false }
            markDecided()
            delivery.key(surface: surface, client: client, time: time, key: key, state: state)
            record(.key, surface, client, nil, surface == keyboardFocus ? .keyboardFocus : .fallback)
            if modifiersChanged {
                delivery.modifiers(surface: surface, client: client, modifiers: modifiers)
                record(.modifiers, surface, client, nil, .keyboardFocus)
            }
            return true
        }
    }

    private func updateModifiers(key: UInt32, state: KeyState) -> Bool {
        let before = modifiers
        var depressed: UInt32 = 0
        for pressed in pressedKeys {
            switch pressed {
            case EvdevCode.keyLeftShift, EvdevCode.keyRightShift: depressed |= KeyboardModifiers.shift
            case EvdevCode.keyLeftCtrl, EvdevCode.keyRightCtrl: depressed |= KeyboardModifiers.control
            case EvdevCode.keyLeftAlt, EvdevCode.keyRightAlt: depressed |= KeyboardModifiers.alt
            case EvdevCode.keyLeftMeta, EvdevCode.keyRightMeta: depressed |= KeyboardModifiers.logo
            default: break
            }
        }
        modifiers.depressed = depressed
        if state == .pressed, key == EvdevCode.keyCapsLock { modifiers.locked ^= KeyboardModifiers.capsLock }
        if state == .pressed, key == EvdevCode.keyNumLock { modifiers.locked ^= KeyboardModifiers.numLock }
        return modifiers != before
    }

    /// Starts at the first responder; `clientTakes` tries to deliver to a surface's client.
    private func nonPositional(_ event: InputEvent, clientTakes: (SurfaceID) -> Bool) -> RouteOutcome {
        var declined = 0
        var current = keyboardFocus
        while let surface = current {
            if clientTakes(surface) { return .delivered(surface == keyboardFocus ? .keyboardFocus : .fallback) }
            if askResponders(event, at: .surface(surface)) != nil { return .handled(by: .surface(surface), declined: declined) }
            declined += 1
            if let role = tree.role(of: surface), role != .subsurface {
                if askResponders(event, at: .role(surface, role)) != nil { return .handled(by: .role(surface, role), declined: declined) }
                declined += 1
            }
            current = tree.parent(of: surface)
        }
        return compositorChain(event, from: nil, output: keyboardFocus.flatMap { tree.outputOf($0) }, declinedSoFar: declined).0
    }

    // MARK: Fallback chain

    private func askResponders(_ event: InputEvent, at link: Responder) -> (any CompositorResponder)? {
        guard !attachments.isEmpty, let list = attachments[link] else { return nil }
        for responder in list where responder.respond(to: event, at: link) == .handled {
            markDecided()
            return responder
        }
        return nil
    }

    /// The compositor's part of the chain: surface and role links from `surface` (whose
    /// clients have declined), then the output, the shell and the shell delegate.
    private func compositorChain(_ event: InputEvent, from surface: SurfaceID?, output: OutputID?, declinedSoFar: Int = 0) -> (RouteOutcome, TouchTarget) {
        var declined = declinedSoFar
        var current = surface
        while let id = current {
            if let taken = askResponders(event, at: .surface(id)) { return (.handled(by: .surface(id), declined: declined), .compositor(taken, .surface(id))) }
            declined += 1
            if let role = tree.role(of: id), role != .subsurface {
                if let taken = askResponders(event, at: .role(id, role)) { return (.handled(by: .role(id, role), declined: declined), .compositor(taken, .role(id, role))) }
                declined += 1
            }
            current = tree.parent(of: id)
        }
        if let output {
            if let taken = askResponders(event, at: .output(output)) { return (.handled(by: .output(output), declined: declined), .compositor(taken, .output(output))) }
            declined += 1
        }
        for link in [Responder.shell, .shellDelegate] {
            if let taken = askResponders(event, at: link) { return (.handled(by: link, declined: declined), .compositor(taken, link)) }
            declined += 1
        }
        markDecided()
        return (.discarded(declined: declined), .swallowed(.touchDiscarded))
    }

    // MARK: Devices

    private func deviceRemoved(_ event: InputEvent, device: DeviceID) -> RouteOutcome {
        devices[device] = nil
        markDecided()
        let cancelledAny = cancelLiveTouches(time: event.time) { $0.device == device }
        touches.removeAll { $0.device == device }
        return cancelledAny ? .delivered(.cancel) : .recorded
    }

    /// Ends the touches that `matching` picks for whoever has them: wl_touch.cancel once
    /// per client, a button release for an emulated pointer, a cancel to a compositor
    /// responder. True when some client got a cancel.
    private func cancelLiveTouches(time: RouterTime, matching: (TouchPoint) -> Bool) -> Bool {
        var cancelledClients: [ClientID] = []
        for point in touches where matching(point) {
            switch point.target {
            case .client(_, let client):
                if !cancelledClients.contains(client) { cancelledClients.append(client) }
            case .emulatedPointer:
                releaseEmulatedButton(time: time)
            case .compositor(let responder, let link):
                _ = responder.respond(to: .touchCancel(device: point.device, time: time, id: point.id), at: link)
            case .swallowed:
                break
            }
        }
        for client in cancelledClients { cancelTouches(of: client, reason: .cancel) }
        return !cancelledClients.isEmpty
    }

    // MARK: Keyboard focus

    /// Makes `surface` the first responder; false when it cannot take keyboard focus.
    @discardableResult
    public func setKeyboardFocus(_ surface: SurfaceID?) -> Bool {
        setKeyboardFocus(surface, cause: .request)
    }

    @discardableResult
    private func setKeyboardFocus(_ surface: SurfaceID?, cause: FocusChangeCause) -> Bool {
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

    private func focusOnPress(_ surface: SurfaceID) {
        // A grab keeps the keyboard where it put it (the grabbing popup), as wlroots' popup
        // grab does, until it ends.
        guard focusPolicy == .onPress, clientGrab == nil else { return }
        var current: SurfaceID? = surface
        while let candidate = current {
            if tree.canTakeKeyboardFocus(candidate) {
                setKeyboardFocus(candidate, cause: .press)
                return
            }
            current = tree.parent(of: candidate)
        }
    }

    /// Where focus goes when its surface leaves: the nearest ancestor that can take it
    /// (a field inside an app leaves focus in that app), else the most recently focused
    /// surface that still can (a closed window leaves focus to the previous one), else nobody.
    private func fallBackKeyboardFocus(from ancestor: SurfaceID?, cause: FocusChangeCause) {
        focusHistory.removeAll { !tree.contains($0) }
        var next: SurfaceID?
        var current = ancestor
        while let candidate = current, next == nil {
            if tree.canTakeKeyboardFocus(candidate) { next = candidate }
            current = tree.parent(of: candidate)
        }
        next = next ?? focusHistory.last { tree.canTakeKeyboardFocus($0) }
        setKeyboardFocus(next, cause: cause)
    }

    // MARK: Client grabs

    /// Gives the seat to `client`, as xdg_popup.grab does: the pointer enters only that
    /// client's surfaces, and the first touch down or button press anywhere else is
    /// dropped and dismisses the grab (`dismissed` runs, and the host sends popup_done).
    /// A later grab replaces an earlier one.
    public func beginClientGrab(_ client: ClientID, dismissed: @escaping () -> Void) {
        clientGrab = ClientGrab(client: client, dismissed: dismissed)
        pointerPickRevision = nil
    }

    public var grabbingClient: ClientID? { clientGrab?.client }

    /// Ends the grab as its client did (its last grabbing popup went): nothing is dismissed.
    public func endClientGrab() {
        guard clientGrab != nil else { return }
        clientGrab = nil
        pointerPickRevision = nil
    }

    /// Ends the grab as the shell would dismiss it (a new window came up): `dismissed` runs.
    public func dismissClientGrab() {
        guard let grab = clientGrab else { return }
        endClientGrab()
        grab.dismissed()
    }

    // MARK: Ignoring interaction

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
        _ = cancelLiveTouches(time: clock.now()) { _ in true }
        for i in touches.indices { touches[i].target = .swallowed(.interactionIgnored) }
        pointerGrab = nil
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

    // MARK: Trace helpers

    @inline(__always)
    private func markDecided() {
        if decidedAt == nil, tracing { decidedAt = clock.now() }
    }

    @inline(__always)
    private func record(_ kind: DeliveryKind, _ surface: SurfaceID?, _ client: ClientID, _ local: Point<SurfaceSpace>?, _ reason: DeliveryReason) {
        if tracing { recordDeliveries.append(DeliveryRecord(kind: kind, surface: surface, client: client, local: local, reason: reason)) }
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

// MARK: Following the tree

extension Router: SurfaceTreeObserver {
    public func surfaceTree(_ tree: SurfaceTree, didRemove surfaces: [SurfaceID], from parent: SurfaceID?) {
        for link in attachments.keys {
            switch link {
            case .surface(let id), .role(let id, _):
                if surfaces.contains(id) { attachments[link] = nil }
            case .output, .shell, .shellDelegate:
                break
            }
        }
        endTouches(on: surfaces)
        for i in touches.indices {
            switch touches[i].target {
            case .client:
                break
            case .emulatedPointer(let surface, _):
                if surfaces.contains(surface) {
                    pressedButtons.removeAll { $0 == EvdevCode.buttonLeft }
                    touches[i].target = .swallowed(.surfaceGone)
                }
            case .compositor(_, .surface(let surface)), .compositor(_, .role(let surface, _)):
                if surfaces.contains(surface) { touches[i].target = .swallowed(.surfaceGone) }
            case .compositor, .swallowed:
                break
            }
        }
        if let grab = pointerGrab, surfaces.contains(grab) {
            buttonsPressedOnGoneSurface += pressedButtons
            pressedButtons.removeAll(keepingCapacity: true)
            pointerGrab = nil
        }
        if let focus = pointerFocus, surfaces.contains(focus) {
            // A surface leaving the tree may live on in its client (an unmapped popup):
            // it hears its leave. The Wayland layer drops it for a destroyed wl_surface.
            let saved = recordDeliveries
            recordDeliveries.removeAll(keepingCapacity: true)
            setPointerFocus(nil)
            flushPointerFrames()
            traceSink?.focusChanged(FocusChangeRecord(kind: .pointer, from: focus, to: nil, cause: .surfaceRemoved, deliveries: recordDeliveries))
            recordDeliveries = saved
        }
        focusHistory.removeAll { surfaces.contains($0) }
        if let focus = keyboardFocus, surfaces.contains(focus) {
            fallBackKeyboardFocus(from: parent, cause: .surfaceRemoved)
        }
    }

    /// A touch whose surface goes away gets its up at once, as Mir sends it: the client
    /// would otherwise hold a touch point open that no event will ever close. The up joins
    /// the client's open frame if it has one, and comes with its own frame otherwise.
    private func endTouches(on surfaces: [SurfaceID]) {
        let saved = recordDeliveries
        recordDeliveries.removeAll(keepingCapacity: true)
        var framedClients: [ClientID] = []
        var ended: [SurfaceID] = []
        let time = clock.now()
        for i in touches.indices {
            guard case .client(let surface, let client) = touches[i].target, surfaces.contains(surface) else { continue }
            delivery.touchUp(surface: surface, client: client, time: time, id: touches[i].id)
            record(.touchUp, surface, client, nil, .surfaceRemoved)
            touches[i].target = .swallowed(.surfaceGone)
            if !touchFrameClients.contains(client), !framedClients.contains(client) { framedClients.append(client) }
            if !ended.contains(surface) { ended.append(surface) }
        }
        for client in framedClients {
            delivery.touchFrame(client: client)
            record(.touchFrame, nil, client, nil, .frame)
        }
        if tracing {
            // One record per surface with its ups; the frames close the last one.
            for (index, surface) in ended.enumerated() {
                let last = index == ended.count - 1
                let deliveries = recordDeliveries.filter { $0.surface == surface || (last && $0.kind == .touchFrame) }
                traceSink?.focusChanged(FocusChangeRecord(kind: .touch, from: surface, to: nil, cause: .surfaceRemoved, deliveries: deliveries))
            }
        }
        recordDeliveries = saved
    }

    public func surfaceTree(_ tree: SurfaceTree, didChangePropertiesOf surface: SurfaceID) {
        if let focus = keyboardFocus, !tree.canTakeKeyboardFocus(focus) {
            fallBackKeyboardFocus(from: tree.parent(of: focus), cause: .surfaceCannotTakeFocus)
        }
    }
}
