/// A touch held from clients, with the surface its down hit.
struct HeldTouch {
    var id: TouchID
    var surface: SurfaceID?
}

/// UIKit's delaysTouchesBegan: what the open sequence holds from clients, and why.
struct HoldState {
    /// Held events in arrival order, frames included, each with its own time.
    var events: ContiguousArray<QueuedEvent> = []
    var touches: [HeldTouch] = []
    /// The first held down's time, from which the hold limit runs.
    var started: RouterTime?
    /// The hold limit ran out: later downs of this sequence go straight to clients.
    var limitPassed = false
    /// The finger rule can no longer hold this sequence: a held finger lifted first.
    var fingerRuleSettled = false
    var fingerLimitReached = false
    /// The event being routed, when it was just held: a release during its own step
    /// leaves it to route as usual, so that its trace record says where it went.
    var current: UInt64?
    var currentReleased = false
    var currentGone = false
}

extension Router {
    func isHeld(_ id: TouchID) -> Bool {
        arena.hold.touches.contains { $0.id == id }
    }

    /// In a hold-back zone with a recognizer of its arena still undecided, or under the
    /// finger rule until it settles. Outside zones, delivery is immediate.
    func shouldHold(_ id: TouchID, at position: Point<GlobalSpace>, output: (id: OutputID, rect: Rect<GlobalSpace>, name: String)?, deferred: Bool) -> Bool {
        let configuration = arena.configuration
        if arena.hold.limitPassed { return false }
        if configuration.fingerLimit != nil, !arena.hold.fingerRuleSettled { return true }
        guard let output, arena.members.indices.contains(where: { arena.members[$0].isPending && memberHas($0, id) }) else { return false }
        for zone in configuration.holdZones where zone.output == nil || zone.output == output.name {
            switch zone.area {
            case .wholeOutput:
                return true
            case .rect(let rect):
                if rect.contains(position) { return true }
            case .edges(let edges, let width):
                if !deferred, let edge = Self.nearestEdge(of: output.rect, to: position), edges.contains(edge.edge), edge.distance < width { return true }
            }
        }
        return false
    }

    static func nearestEdge(of rect: Rect<GlobalSpace>, to point: Point<GlobalSpace>) -> (edge: ScreenEdge, distance: Double)? {
        guard rect.contains(point) else { return nil }
        var best = (ScreenEdge.left, point.x - Double(rect.minX))
        if Double(rect.maxX) - point.x < best.1 { best = (.right, Double(rect.maxX) - point.x) }
        if point.y - Double(rect.minY) < best.1 { best = (.top, point.y - Double(rect.minY)) }
        if Double(rect.maxY) - point.y < best.1 { best = (.bottom, Double(rect.maxY) - point.y) }
        return best
    }

    func holdDown(_ queued: QueuedEvent, id: TouchID, surface: SurfaceID?, time: RouterTime) {
        arena.hold.touches.append(HeldTouch(id: id, surface: surface))
        arena.hold.events.append(queued)
        if arena.hold.started == nil { arena.hold.started = time }
        traceArena(.held, member: nil, touches: [id], detail: arena.configuration.fingerLimit != nil && !arena.hold.fingerRuleSettled
            ? "the finger rule holds every touch until the sequence cannot reach \(arena.configuration.fingerLimit!) fingers"
            : "it went down in a hold-back zone", time: time)
    }

    func holdEvent(_ queued: QueuedEvent, id: TouchID, ends: Bool) {
        arena.hold.events.append(queued)
        // A held finger that lifts before the limit was reached settles the finger rule:
        // this touch was a tap or a stroke, not part of the kiosk's gesture.
        if ends { arena.hold.fingerRuleSettled = true }
    }

    func holdFrameIfHolding(_ queued: QueuedEvent) {
        guard let last = arena.hold.events.last else { return }
        if case .touchFrame = last.event { return }
        arena.hold.events.append(queued)
    }

    /// Drops a held touch's events: clients never see any of it.
    func discardHeld(_ id: TouchID, detail: @autoclosure () -> String, time: RouterTime) {
        arena.hold.touches.removeAll { $0.id == id }
        arena.hold.events.removeAll { $0.event.touchID == id }
        if arena.hold.touches.isEmpty {
            arena.hold.events.removeAll(keepingCapacity: true)
            arena.hold.started = nil
        }
        traceArena(.discarded, member: nil, touches: [id], detail: detail(), time: time)
    }

    /// Releases what is held once no recognizer of the arena is undecided (and the finger
    /// rule has settled), or when the hold limit runs out before any recognizer began.
    func checkHold(time: RouterTime) {
        guard !arena.hold.touches.isEmpty else { return }
        let undecided = arena.members.contains { $0.isPending }
        let fingerRulePending = arena.configuration.fingerLimit != nil && !arena.hold.fingerRuleSettled
        if !undecided, !fingerRulePending {
            let anyWon = arena.members.contains { $0.standing == .won }
            releaseHeld(because: anyWon ? "the recognizers decided and none claimed it" : "every recognizer of its arena failed", time: time)
            return
        }
        guard let started = arena.hold.started, time >= started else { return }
        let (elapsed, overflow) = time.nanoseconds.subtractingReportingOverflow(started.nanoseconds)
        guard overflow || elapsed >= arena.configuration.holdLimit else { return }
        if arena.members.contains(where: { $0.standing == .won || $0.standing == .waiting }) { return }
        arena.hold.limitPassed = true
        arena.hold.fingerRuleSettled = true
        releaseHeld(because: "no recognizer began within the hold limit of \(Double(arena.configuration.holdLimit) / 1_000_000) ms", time: time)
    }

    /// Routes every held event, in order, with its original time and coordinates, as if it
    /// arrived now. A touch whose surface went away meanwhile reaches nobody.
    func releaseHeld(because detail: @autoclosure () -> String, time: RouterTime) {
        guard !arena.hold.touches.isEmpty else {
            arena.hold.events.removeAll(keepingCapacity: true)
            return
        }
        let events = arena.hold.events
        let touches = arena.hold.touches
        arena.hold.events.removeAll(keepingCapacity: true)
        arena.hold.touches.removeAll(keepingCapacity: true)
        arena.hold.started = nil
        traceArena(.released, member: nil, touches: touches.map(\.id), detail: detail(), time: time)
        for queued in events {
            let gone = queued.event.touchID.flatMap { id in touches.first { $0.id == id } }.map { held in
                held.surface.map { !tree.contains($0) } ?? false
            } ?? false
            if queued.sequence == arena.hold.current {
                arena.hold.currentReleased = true
                arena.hold.currentGone = gone
                continue
            }
            routeReleased(queued, outcome: gone ? .dropped(.surfaceGone) : nil)
        }
    }

    private func routeReleased(_ queued: QueuedEvent, outcome fixed: RouteOutcome?) {
        let saved = recordDeliveries
        let savedDecidedAt = decidedAt
        let savedDeliveredTo = deliveredTo
        recordDeliveries.removeAll(keepingCapacity: true)
        decidedAt = nil
        deliveredTo = nil
        // A held event's own timeline: dequeued when it is released.
        let dequeued = clock.now()
        let outcome = fixed ?? handle(queued.event)
        finishRoute(queued.event, kind: queued.event.kind, sequence: queued.sequence, arrival: queued.arrival, dequeued: dequeued, arena: nil, outcome: outcome)
        recordDeliveries = saved
        decidedAt = savedDecidedAt
        deliveredTo = savedDeliveredTo
    }

    /// The kiosk rule: this sequence is the compositor's. What is held is dropped, and
    /// touches that reached clients after the hold are cancelled.
    func reachFingerLimit(time: RouterTime) {
        arena.hold.fingerLimitReached = true
        traceArena(.won, member: nil, touches: arena.touches.map(\.id), detail: "\(arena.touches.count) fingers are down: the finger rule takes the sequence", time: time)
        arena.claimScratch.removeAll(keepingCapacity: true)
        for touch in arena.touches { arena.claimScratch.append(touch.id) }
        claim(arena.claimScratch, by: "the finger rule", time: time)
    }

    /// Takes touches from clients: held ones are discarded, delivered ones cancelled
    /// (wl_touch.cancel, which ends every touch of that client: the trace names them all),
    /// an emulated pointer's button is released, a compositor responder hears a cancel.
    func claim(_ ids: [TouchID], by claimant: String, time: RouterTime) {
        for id in ids where !arena.claimed.contains(id) {
            arena.claimed.append(id)
            if isHeld(id) { discardHeld(id, detail: "claimed by \(claimant)", time: time) }
        }
        if tracing { traceCancellations(of: ids, by: claimant, time: time) }
        _ = cancelLiveTouches(time: time) { ids.contains($0.id) }
        for i in touches.indices where ids.contains(touches[i].id) {
            touches[i].target = .swallowed(.claimedByGesture)
        }
    }

    private func traceCancellations(of ids: [TouchID], by claimant: String, time: RouterTime) {
        var clients: [ClientID] = []
        for point in touches where ids.contains(point.id) {
            if case .client(_, let client) = point.target, !clients.contains(client) { clients.append(client) }
        }
        for client in clients {
            let claimed = touches.filter { ids.contains($0.id) && $0.target.client == client }.map(\.id)
            let alongside = touches.filter { !ids.contains($0.id) && $0.target.client == client }.map(\.id)
            let also = alongside.isEmpty ? "" : "; its touch\(alongside.count == 1 ? "" : "es") \(alongside.map(\.description).joined(separator: ", ")) end\(alongside.count == 1 ? "s" : "") with it, as wl_touch.cancel ends all of a client's touches"
            traceArena(.cancelled, member: nil, touches: claimed + alongside, client: client, detail: "claimed by \(claimant)\(also)", time: time)
        }
    }
}

extension TouchTarget {
    var client: ClientID? {
        switch self {
        case .client(_, let client): client
        case .emulatedPointer, .compositor, .swallowed: nil
        }
    }
}

extension InputEvent {
    var touchID: TouchID? {
        switch self {
        case .touchDown(_, _, let id, _), .touchMotion(_, _, let id, _), .touchUp(_, _, let id), .touchCancel(_, _, let id): id
        default: nil
        }
    }
}
