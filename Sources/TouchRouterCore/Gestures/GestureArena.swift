/// One configured recognizer and where it stands in the open sequence's arena.
struct ArenaMember {
    enum Standing: Equatable {
        /// Has not seen a down in its area this sequence.
        case out
        /// Joined, still possible.
        case contending
        /// Began or recognized, but a recognizer it requires to fail has not failed yet.
        case waiting
        case won
        /// Failed by itself, or another won.
        case lost
    }

    let spec: GestureSpec
    let recognizer: GestureRecognizer
    let isEdge: Bool
    /// Indices of the members it may win beside, and of those that must fail first.
    var simultaneous: [Int] = []
    var requiresFailureOf: [Int] = []
    var standing = Standing.out
    /// Its touches still down: the ones that went down in its area.
    var touches: [TouchID] = []
    /// What bindings last heard of it.
    var reported = GestureState.possible
    var fedSinceReport = false

    var isPending: Bool { standing == .contending || standing == .waiting }
}

struct HotMember {
    let recognizer: Unmanaged<GestureRecognizer>
    var touchBits: UInt64 = 0
    var fed = false
    var won = false
    var seen: GestureState
}

/// A touch of the open sequence.
struct ArenaTouch {
    var id: TouchID
    var device: DeviceID
}

/// The gesture arena of the open touch sequence (from the first down to the last up, kept
/// open while a recognizer waits for another tap), with what it holds from clients.
struct ArenaState {
    var configuration = GestureConfiguration()
    /// A configuration given while a sequence was open; it applies when that one closes.
    var pendingConfiguration: GestureConfiguration?
    var pendingFactory: ((GestureKind) -> GestureRecognizer)?
    var members: ContiguousArray<ArenaMember> = []
    /// What a motion needs of each member, kept apart from the rest in one flat array so
    /// that feeding counts no references: the recognizer unretained (`members` owns it),
    /// touch ids 0…63 as bits (others are looked up in the member's list), whether it is
    /// still fed (joined and not lost) or has won, and its state when last seen.
    var hot: ContiguousArray<HotMember> = []
    var enabled = false
    var open = false
    var touches: [ArenaTouch] = []
    /// Touches a winner (or the finger rule) took from clients: their events go nowhere.
    var claimed: [TouchID] = []
    var hold = HoldState()
    var appIDs: [SurfaceID: String] = [:]
    var deferrals: [SurfaceID: [Rect<SurfaceSpace>]] = [:]
    /// Scratch space for a claim's touches, kept so that claims do not allocate.
    var claimScratch: [TouchID] = []
}

extension Router {
    var arena: ArenaState {
        _read { yield state.pointee.arena }
        _modify { yield &state.pointee.arena }
    }

    // MARK: Feeding

    /// The arena's part of a touch event, before hit testing and delivery. nil: route the
    /// event as usual; else the arena held or swallowed it, with this outcome.
    func arenaTouch(_ event: InputEvent, sequence: UInt64, arrival: RouterTime) -> RouteOutcome? {
        switch event {
        case .touchDown(let device, let time, let id, let position):
            return arenaDown(QueuedEvent(sequence: sequence, arrival: arrival, event: event), device: device, time: time, id: id, position: position)
        case .touchMotion(_, let time, let id, let position):
            guard arenaTouchIndex(id) != nil else { return nil }
            var decisions = false
            let bit: UInt64 = id.raw >= 0 && id.raw < 64 ? 1 << UInt64(id.raw) : 0
            for i in arena.hot.indices {
                let member = arena.hot[i]
                guard member.fed, bit == 0 ? arena.members[i].touches.contains(id) : member.touchBits & bit != 0 else { continue }
                let state = member.recognizer._withUnsafeGuaranteedRef { recognizer in
                    recognizer.touchMoved(id, to: position, time: time)
                    return recognizer.state
                }
                if state != member.seen || member.won {
                    arena.hot[i].seen = state
                    arena.members[i].fedSinceReport = true
                    decisions = true
                }
            }
            // The common motion: nobody decided anything, and nothing of this touch is held or claimed.
            if !decisions, arena.hold.touches.isEmpty, arena.claimed.isEmpty { return nil }
            return afterFeeding(QueuedEvent(sequence: sequence, arrival: arrival, event: event), id: id, time: time, ends: false)
        case .touchUp(_, let time, let id), .touchCancel(_, let time, let id):
            guard arenaTouchIndex(id) != nil else { return nil }
            let cancelled = if case .touchCancel = event { true } else { false }
            for i in arena.members.indices where arena.hot[i].fed && memberHas(i, id) {
                if cancelled {
                    arena.members[i].recognizer.touchCancelled(id, time: time)
                } else {
                    arena.members[i].recognizer.touchEnded(id, time: time)
                }
                arena.members[i].fedSinceReport = true
            }
            // A recognizer that recognizes at this up (a tap) still claims the touch, so its
            // client gets wl_touch.cancel instead of the up, as UIKit's touchesCancelled.
            let outcome = afterFeeding(QueuedEvent(sequence: sequence, arrival: arrival, event: event), id: id, time: time, ends: true, cancelled: cancelled)
            for i in arena.members.indices { removeMemberTouch(i, id) }
            if let t = arenaTouchIndex(id) { arena.touches.remove(at: t) }
            closeArenaIfDone(time: time)
            return outcome
        case .touchFrame:
            holdFrameIfHolding(QueuedEvent(sequence: sequence, arrival: arrival, event: event))
            return nil
        default:
            return nil
        }
    }

    func arenaTouchIndex(_ id: TouchID) -> Int? {
        guard arena.open else { return nil }
        for i in arena.touches.indices where arena.touches[i].id == id { return i }
        return nil
    }

    private func arenaDown(_ queued: QueuedEvent, device: DeviceID, time: RouterTime, id: TouchID, position: Point<GlobalSpace>) -> RouteOutcome? {
        guard arena.enabled, arenaTouchIndex(id) == nil, touchIndex(id) == nil else { return nil }
        if !arena.open { openArena() }
        arena.touches.append(ArenaTouch(id: id, device: device))
        let placement = tree.outputPlacement(at: position)
        let hit = tree.hitTest(position)
        let deferred = isDeferred(position, hit: hit, output: placement?.rect)
        for i in arena.members.indices where arena.members[i].standing != .lost {
            guard memberArea(arena.members[i], contains: hit, output: placement?.name, deferred: deferred) else { continue }
            if arena.members[i].standing == .out {
                arena.members[i].standing = .contending
                arena.hot[i].fed = true
                traceArena(.joined, member: i, touches: [id], detail: "a down in its area (\(arena.members[i].spec.attachment))", time: time)
            }
            addMemberTouch(i, id)
            arena.members[i].recognizer.touchBegan(id, at: position, time: time, output: placement?.rect ?? Rect(x: 0, y: 0, width: 0, height: 0))
            arena.members[i].fedSinceReport = true
        }
        if let limit = arena.configuration.fingerLimit, arena.touches.count >= limit, !arena.hold.fingerLimitReached {
            reachFingerLimit(time: time)
        }
        if arena.hold.fingerLimitReached {
            arena.claimed.append(id)
            resolveArena(time: time)
            return .dropped(.fingerLimit)
        }
        let held = shouldHold(id, at: position, output: placement, deferred: deferred)
        if held { holdDown(queued, id: id, surface: hit?.surface, time: time) } else { state.pointee.touch.arenaHit = (position, tree.hitTestRevision, hit) }
        beginStep(held ? queued.sequence : nil)
        resolveArena(time: time)
        if arena.claimed.contains(id) { return .dropped(.claimedByGesture) }
        return endStep(held ? .held : nil)
    }

    /// After a motion, up or cancel was fed: hold it, swallow it, or let it route.
    private func afterFeeding(_ queued: QueuedEvent, id: TouchID, time: RouterTime, ends: Bool, cancelled: Bool = false) -> RouteOutcome? {
        var outcome: RouteOutcome?
        if let reason = claimReason(id) {
            outcome = .dropped(reason)
            if ends { arena.claimed.removeAll { $0 == id } }
            // A touch that reached a client before it was claimed still has its point in the router.
            if touchIndex(id) != nil { outcome = nil }
        } else if isHeld(id) {
            if cancelled {
                discardHeld(id, detail: "the device cancelled it", time: time)
                outcome = .dropped(.touchCancelled)
            } else {
                holdEvent(queued, id: id, ends: ends)
                outcome = .held
            }
        }
        beginStep(outcome == .held ? queued.sequence : nil)
        resolveArena(time: time)
        outcome = endStep(outcome)
        if outcome == nil, !ends, arena.claimed.contains(id), touchIndex(id) == nil { return .dropped(.claimedByGesture) }
        return outcome
    }

    private func beginStep(_ heldSequence: UInt64?) {
        arena.hold.current = heldSequence
        arena.hold.currentReleased = false
    }

    /// The event held in this step and released in the same step routes as usual.
    private func endStep(_ outcome: RouteOutcome?) -> RouteOutcome? {
        defer { arena.hold.current = nil }
        guard outcome == .held, arena.hold.currentReleased else { return outcome }
        return arena.hold.currentGone ? .dropped(.surfaceGone) : nil
    }

    private func claimReason(_ id: TouchID) -> DropReason? {
        guard arena.claimed.contains(id) else { return nil }
        return arena.hold.fingerLimitReached ? .fingerLimit : .claimedByGesture
    }

    // MARK: Members' touches

    @inline(__always)
    func memberHas(_ i: Int, _ id: TouchID) -> Bool {
        if id.raw >= 0 && id.raw < 64 { return arena.hot[i].touchBits & (1 << UInt64(id.raw)) != 0 }
        return arena.members[i].touches.contains(id)
    }

    private func addMemberTouch(_ i: Int, _ id: TouchID) {
        arena.members[i].touches.append(id)
        if id.raw >= 0 && id.raw < 64 { arena.hot[i].touchBits |= 1 << UInt64(id.raw) }
    }

    func removeMemberTouch(_ i: Int, _ id: TouchID) {
        guard let k = arena.members[i].touches.firstIndex(of: id) else { return }
        arena.members[i].touches.remove(at: k)
        if id.raw >= 0 && id.raw < 64 { arena.hot[i].touchBits &= ~(1 << UInt64(id.raw)) }
    }

    // MARK: Areas

    private func memberArea(_ member: ArenaMember, contains hit: HitResult?, output: String?, deferred: Bool) -> Bool {
        if member.isEdge, deferred, member.spec.deferrable { return false }
        switch member.spec.attachment {
        case .shell:
            return true
        case .output(let name):
            return output == name
        case .appID(let appID):
            guard let surface = hit?.surface, let top = tree.toplevel(of: surface) else { return false }
            return arena.appIDs[top] == appID
        case .role(let role):
            var current = hit?.surface
            while let surface = current {
                if tree.role(of: surface) == role { return true }
                current = tree.parent(of: surface)
            }
            return false
        }
    }

    // MARK: Deciding

    /// Applies UIKit's arena rules until nothing changes: the first to begin or recognize
    /// wins and the others fail, unless declared simultaneous; one that requires another
    /// to fail waits for it. Then tells bindings what winners did, and checks the hold.
    func resolveArena(time: RouterTime) {
        guard arena.open else { return }
        var changed = true
        while changed {
            changed = false
            for i in arena.members.indices where arena.members[i].isPending {
                let state = arena.members[i].recognizer.state
                arena.hot[i].seen = state
                if state == .failed || (state == .cancelled && arena.members[i].standing == .waiting) {
                    lose(i, because: "it failed", time: time)
                    changed = true
                    continue
                }
                guard state != .possible else { continue }
                if let blocker = arena.members[i].requiresFailureOf.first(where: { arena.members[$0].isPending }) {
                    if arena.members[i].standing != .waiting {
                        arena.members[i].standing = .waiting
                        traceArena(.waiting, member: i, touches: arena.members[i].touches, detail: "until \"\(arena.members[blocker].spec.name)\" fails", time: time)
                    }
                    continue
                }
                if let required = arena.members[i].requiresFailureOf.first(where: { arena.members[$0].standing == .won }) {
                    lose(i, because: "\"\(arena.members[required].spec.name)\", which had to fail, won", time: time)
                    changed = true
                    continue
                }
                if let rival = arena.members.indices.first(where: { arena.members[$0].standing == .won && !arena.members[i].simultaneous.contains($0) }) {
                    lose(i, because: "\"\(arena.members[rival].spec.name)\" won first", time: time)
                    changed = true
                    continue
                }
                win(i, time: time)
                changed = true
            }
        }
        reportWinners(time: time)
        checkHold(time: time)
    }

    private func lose(_ i: Int, because detail: @autoclosure () -> String, time: RouterTime) {
        arena.members[i].standing = .lost
        arena.hot[i].fed = false
        traceArena(.failed, member: i, touches: arena.members[i].touches, detail: detail(), time: time)
    }

    private func win(_ i: Int, time: RouterTime) {
        arena.members[i].standing = .won
        arena.hot[i].won = true
        traceArena(.won, member: i, touches: arena.members[i].touches, detail: "it \(arena.members[i].recognizer.state == .recognized ? "recognized" : "began") first", time: time)
        for j in arena.members.indices where j != i && arena.members[j].isPending && !arena.members[i].simultaneous.contains(j) {
            lose(j, because: "\"\(arena.members[i].spec.name)\" won", time: time)
        }
        if arena.members[i].spec.cancelsTouchesInView {
            arena.claimScratch.removeAll(keepingCapacity: true)
            arena.claimScratch.append(contentsOf: arena.members[i].touches)
            claim(arena.claimScratch, by: arena.members[i].spec.name, time: time)
        }
    }

    /// Bindings hear a winner's every state: began (even when it began while waiting),
    /// changed for each event it was fed, and how it ended.
    private func reportWinners(time: RouterTime) {
        for i in arena.members.indices where arena.members[i].standing == .won {
            let state = arena.members[i].recognizer.state
            let before = arena.members[i].reported
            guard state != before || (state == .changed && arena.members[i].fedSinceReport) else { continue }
            if before == .possible, state == .changed || state == .ended || state == .cancelled {
                report(i, .began, time: time)
            }
            report(i, state, time: time)
            arena.members[i].reported = state
            arena.members[i].fedSinceReport = false
        }
    }

    private func report(_ i: Int, _ state: GestureState, time: RouterTime) {
        let member = arena.members[i]
        if tracing { traceArena(.reported, member: i, touches: member.touches, detail: state.rawValue, time: time) }
        gestureObserver?.gesture(GestureEvent(name: member.spec.name, state: state, values: member.recognizer.values, time: time))
    }

    // MARK: Opening and closing

    private func openArena() {
        arena.open = true
        arena.hold = HoldState()
        for i in arena.members.indices {
            arena.members[i].standing = .out
            arena.members[i].touches.removeAll(keepingCapacity: true)
            arena.members[i].reported = .possible
            arena.members[i].fedSinceReport = false
            arena.hot[i].touchBits = 0
            arena.hot[i].fed = false
            arena.hot[i].seen = arena.members[i].recognizer.state
            arena.hot[i].won = false
        }
    }

    /// Closes the arena once every finger is up and no recognizer waits for more touches:
    /// the undecided fail, whatever is still held is released, and recognizers reset.
    func closeArenaIfDone(time: RouterTime) {
        guard arena.open, arena.touches.isEmpty else { return }
        // One that waits for more touches must say until when, or the arena would never close.
        if arena.members.contains(where: { $0.isPending && $0.recognizer.awaitsMoreTouches && $0.recognizer.deadline != nil && !$0.recognizer.state.isFinal }) { return }
        for i in arena.members.indices where arena.members[i].isPending {
            lose(i, because: "every finger is up", time: time)
        }
        reportWinners(time: time)
        releaseHeld(because: "the sequence ended", time: time)
        for i in arena.members.indices where arena.members[i].standing != .out {
            arena.members[i].recognizer.reset()
            arena.members[i].standing = .out
            arena.hot[i].fed = false
            arena.hot[i].won = false
        }
        arena.claimed.removeAll(keepingCapacity: true)
        arena.open = false
        traceArena(.closed, member: nil, touches: [], detail: "every finger is up", time: time)
        applyPendingConfiguration()
    }

    /// Ends the open sequence at once (ignore-interaction began): every touch is cancelled
    /// to the recognizers, and what was held is dropped, as the clients' touches are.
    func abandonArena(time: RouterTime) {
        guard arena.open else { return }
        for touch in arena.touches {
            for i in arena.members.indices {
                guard memberHas(i, touch.id) else { continue }
                removeMemberTouch(i, touch.id)
                arena.members[i].recognizer.touchCancelled(touch.id, time: time)
            }
            if isHeld(touch.id) { discardHeld(touch.id, detail: "interaction is ignored", time: time) }
        }
        arena.touches.removeAll(keepingCapacity: true)
        resolveArena(time: time)
        for i in arena.members.indices where arena.members[i].isPending {
            lose(i, because: "interaction is ignored", time: time)
        }
        closeArenaIfDone(time: time)
    }

    /// A device went away: its touches end for the recognizers as cancelled.
    func arenaDeviceRemoved(_ device: DeviceID, time: RouterTime) {
        guard arena.open else { return }
        var i = 0
        while i < arena.touches.count {
            let touch = arena.touches[i]
            guard touch.device == device else { i += 1; continue }
            for m in arena.members.indices {
                guard memberHas(m, touch.id) else { continue }
                removeMemberTouch(m, touch.id)
                arena.members[m].recognizer.touchCancelled(touch.id, time: time)
            }
            if isHeld(touch.id) { discardHeld(touch.id, detail: "its device went away", time: time) }
            arena.claimed.removeAll { $0 == touch.id }
            arena.touches.remove(at: i)
        }
        resolveArena(time: time)
        closeArenaIfDone(time: time)
    }

    // MARK: Trace

    /// Builds nothing unless a trace is being written.
    func traceArena(_ decision: ArenaDecision, member: Int?, touches: @autoclosure () -> [TouchID], client: ClientID? = nil, detail: @autoclosure () -> String, time: RouterTime) {
        guard let sink = traceSink else { return }
        sink.arenaDecided(ArenaRecord(decision: decision, recognizer: member.map { arena.members[$0].spec.name }, touches: touches(), client: client, detail: detail(), time: time))
    }
}
