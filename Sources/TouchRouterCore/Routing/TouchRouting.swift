/// Where a touch point's events go for its whole life.
enum TouchTarget {
    case client(SurfaceID, ClientID)
    /// The client has no wl_touch: this touch drives its pointer.
    case emulatedPointer(SurfaceID, ClientID)
    case compositor(any CompositorResponder, Responder)
    /// Nobody gets the rest of this touch's sequence, for `DropReason`.
    case swallowed(DropReason)
}

struct TouchPoint {
    var device: DeviceID
    var id: TouchID
    var output: OutputID?
    var target: TouchTarget
    /// Where it last was, for passing a rejected touch down the chain.
    var position = Point<GlobalSpace>(0, 0)
    /// The origin of `originSurface` in the layout while the tree's `geometryStamp` is
    /// `originStamp`: a bound touch's motions then find their surface-local point without a
    /// lookup and a walk up the surface's parents.
    var origin = Offset.zero
    var originSurface: SurfaceID?
    var originStamp: UInt64 = .max

    var trackingSurface: SurfaceID? {
        switch target {
        case .client(let surface, _), .emulatedPointer(let surface, _): surface
        case .compositor, .swallowed: nil
        }
    }
}

/// Every touch point down, and the clients whose touch frame is open.
struct TouchTrackingState {
    var touches: [TouchPoint] = []
    var frameClients: [ClientID] = []
    /// Where the next touch looked up probably is: a frame's touches come in the order they
    /// went down, one after the other. Only a hint, checked before it is used.
    var nextIndexHint = 0
    /// What the arena's hit test found for a down it let through, at that point and tree
    /// revision: the down's routing uses it instead of asking again, while both still hold.
    var arenaHit: (position: Point<GlobalSpace>, revision: UInt64, hit: HitResult?)?
    /// The presses of the touch frame being routed, whose raise and keyboard focus wait
    /// until the frame is written (`settlePresses`).
    var pendingPresses: [PendingPress] = []
}

/// A touch that went down on `surface`; `focusFollows` is whether the keyboard focus
/// could follow it then (the policy, and no grab).
struct PendingPress: Equatable {
    var surface: SurfaceID
    var focusFollows: Bool
}

/// Touches with UIKit's rules: each is bound at its down to whoever takes it for its
/// whole life; exclusive and multiple touch judged per output; cancels per client.
extension Router {
    var touches: [TouchPoint] {
        _read { yield state.pointee.touch.touches }
        _modify { yield &state.pointee.touch.touches }
    }
    var touchFrameClients: [ClientID] {
        _read { yield state.pointee.touch.frameClients }
        _modify { yield &state.pointee.touch.frameClients }
    }

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

    /// Touch ids are seat slots, unique across the seat's devices, as wl_touch needs them.
    /// The hint first, then one pass over the array's storage: with a hundred touches down,
    /// a search from the start cost more than the rest of routing a motion.
    func touchIndex(_ id: TouchID) -> Int? {
        let found: Int? = state.pointee.touch.touches.withUnsafeBufferPointer { points in
            let hint = state.pointee.touch.nextIndexHint
            if hint < points.count, points[hint].id == id { return hint }
            for i in points.indices where points[i].id == id { return i }
            return nil
        }
        if let found { state.pointee.touch.nextIndexHint = found + 1 }
        return found
    }

    func touchDown(_ event: InputEvent, device: DeviceID, time: RouterTime, id: TouchID, position: Point<GlobalSpace>) -> RouteOutcome {
        guard touchIndex(id) == nil else { return .dropped(.duplicateTouch) }
        defer { if let i = touchIndex(id) { touches[i].position = position } }
        let hit: HitResult?
        if let known = state.pointee.touch.arenaHit, known.position == position, known.revision == tree.hitTestRevision {
            hit = known.hit
        } else {
            hit = tree.hitTest(position)
        }
        state.pointee.touch.arenaHit = nil
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
                deferPress(on: surface)
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
                deferPress(on: surface)
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
    func touchRuleBlocking(_ surface: SurfaceID, on output: OutputID) -> DropReason? {
        guard let properties = tree.properties(of: surface) else { return nil }
        if !properties.multipleTouch, touches.contains(where: { $0.trackingSurface == surface }) {
            return .multipleTouchDisabled(surface: surface)
        }
        if properties.ignoresExclusiveTouch { return nil }
        // Without an exclusive surface no touch down can block this one.
        if !properties.exclusiveTouch, tree.exclusiveTouchSurfaces == 0 { return nil }
        // A surface's fingers sit side by side in `touches`, so the last surface looked up is
        // kept: one lookup for each run of them, not two for each finger, which for a hundred
        // fingers going down together was ten thousand lookups and most of a millisecond.
        var lastLookedUp: (surface: SurfaceID, properties: SurfaceProperties?)?
        for i in touches.indices where touches[i].output == output {
            // A touch on the same surface never blocks: both or neither are exclusive.
            guard let tracking = touches[i].trackingSurface, tracking != surface else { continue }
            let trackingProperties: SurfaceProperties?
            if let lastLookedUp, lastLookedUp.surface == tracking {
                trackingProperties = lastLookedUp.properties
            } else {
                trackingProperties = tree.properties(of: tracking)
                lastLookedUp = (tracking, trackingProperties)
            }
            if trackingProperties?.ignoresExclusiveTouch == true { continue }
            if properties.exclusiveTouch { return .blockedByExclusiveTouch(exclusive: surface, tracking: tracking) }
            if trackingProperties?.exclusiveTouch == true { return .blockedByExclusiveTouch(exclusive: tracking, tracking: tracking) }
        }
        return nil
    }

    func touchMotion(device: DeviceID, time: RouterTime, id: TouchID, position: Point<GlobalSpace>) -> RouteOutcome {
        guard let i = touchIndex(id) else { return .dropped(.unknownTouch) }
        touches[i].position = position
        switch touches[i].target {
        case .client(let surface, let client):
            let stamp = tree.geometryStamp
            let origin: Offset
            if touches[i].originStamp == stamp, touches[i].originSurface == surface {
                origin = touches[i].origin
            } else {
                guard let found = tree.globalOrigin(of: surface) else { return .dropped(.surfaceGone) }
                origin = found
                touches[i].origin = found
                touches[i].originSurface = surface
                touches[i].originStamp = stamp
            }
            let local: Point<SurfaceSpace> = position.relative(to: origin)
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

    func touchUp(_ event: InputEvent, time: RouterTime, id: TouchID) -> RouteOutcome {
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

    func touchCancel(_ event: InputEvent, id: TouchID) -> RouteOutcome {
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
    func cancelTouches(of client: ClientID, reason: DeliveryReason) {
        delivery.touchCancel(client: client)
        record(.touchCancel, nil, client, nil, reason)
        touchFrameClients.removeAll { $0 == client }
        for j in touches.indices {
            if case .client(_, let owner) = touches[j].target, owner == client {
                touches[j].target = .swallowed(.touchCancelled)
            }
        }
    }

    func touchFrame() -> RouteOutcome {
        guard !touchFrameClients.isEmpty else { return .dropped(.nothingPending) }
        markDecided()
        for client in touchFrameClients {
            delivery.touchFrame(client: client)
            record(.touchFrame, nil, client, nil, .frame)
        }
        touchFrameClients.removeAll(keepingCapacity: true)
        return .delivered(.frame)
    }

    /// A frame's touches come client by client: the last client noted is checked before the
    /// search of all of them.
    @inline(__always)
    func noteTouchFrame(for client: ClientID) {
        if state.pointee.touch.frameClients.last == client { return }
        if !touchFrameClients.contains(client) { touchFrameClients.append(client) }
    }

    /// Ends the touches that `matching` picks for whoever has them: wl_touch.cancel once
    /// per client, a button release for an emulated pointer, a cancel to a compositor
    /// responder. True when some client got a cancel.
    func cancelLiveTouches(time: RouterTime, matching: (TouchPoint) -> Bool) -> Bool {
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
}
