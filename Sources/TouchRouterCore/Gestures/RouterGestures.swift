// The arena's public face on the router: configuration, time, and what the Wayland layer
// tells it about surfaces (app ids, clients' deferral regions).
extension Router {
    /// Replaces the recognizers, zones and rules. A configuration that fails validation
    /// leaves the old one in place. While a sequence is open it keeps its arena; the new
    /// configuration applies when that sequence closes.
    public func configureGestures(_ configuration: GestureConfiguration) throws(GestureConfigurationError) {
        try configureGestures(configuration) { $0.makeRecognizer() }
    }

    /// `makeRecognizer` builds each spec's recognizer: an embedder's own kinds, or tests'
    /// scripted stand-ins.
    public func configureGestures(_ configuration: GestureConfiguration, makeRecognizer: @escaping (GestureKind) -> GestureRecognizer) throws(GestureConfigurationError) {
        try configuration.validate()
        arena.pendingConfiguration = configuration
        arena.pendingFactory = makeRecognizer
        if !arena.open { applyPendingConfiguration() }
    }

    public var gestureConfiguration: GestureConfiguration { arena.pendingConfiguration ?? arena.configuration }

    /// Whether a touch sequence's arena is open (fingers down, or a recognizer waiting for more).
    public var gestureArenaIsOpen: Bool { arena.open }

    /// The touches held from clients now, in the order they went down.
    public var heldTouches: [TouchID] { arena.hold.touches.map(\.id) }

    func applyPendingConfiguration() {
        guard let configuration = arena.pendingConfiguration, let factory = arena.pendingFactory else { return }
        arena.pendingConfiguration = nil
        arena.pendingFactory = nil
        var members = ContiguousArray<ArenaMember>()
        let index = Dictionary(uniqueKeysWithValues: configuration.recognizers.enumerated().map { ($1.name, $0) })
        for spec in configuration.recognizers {
            var isEdge = false
            if case .screenEdgePan = spec.kind { isEdge = true }
            var member = ArenaMember(spec: spec, recognizer: factory(spec.kind), isEdge: isEdge)
            member.requiresFailureOf = spec.requiresFailureOf.compactMap { index[$0] }
            member.touches.reserveCapacity(10)
            members.append(member)
        }
        // Simultaneity is mutual: either side may declare it.
        for (i, spec) in configuration.recognizers.enumerated() {
            for name in spec.simultaneousWith {
                guard let j = index[name], j != i else { continue }
                if !members[i].simultaneous.contains(j) { members[i].simultaneous.append(j) }
                if !members[j].simultaneous.contains(i) { members[j].simultaneous.append(i) }
            }
        }
        arena.members = members
        arena.hot = ContiguousArray(members.map { HotMember(recognizer: Unmanaged.passUnretained($0.recognizer), seen: $0.recognizer.state) })
        arena.configuration = configuration
        arena.enabled = !members.isEmpty || configuration.fingerLimit != nil
        arena.touches.reserveCapacity(10)
        arena.claimed.reserveCapacity(10)
        arena.claimScratch.reserveCapacity(10)
        arena.hold.events.reserveCapacity(64)
        arena.hold.touches.reserveCapacity(10)
    }

    /// The app id of a toplevel (xdg_toplevel.set_app_id), which `GestureAttachment.appID` matches.
    public func setAppID(_ appID: String?, for toplevel: SurfaceID) {
        arena.appIDs[toplevel] = appID.flatMap { $0.isEmpty ? nil : $0 }
    }

    public func appID(of toplevel: SurfaceID) -> String? { arena.appIDs[toplevel] }

    /// The most rectangles a surface's deferral keeps.
    public static let maximumDeferralRects = 32

    /// A client's regions of `surface` where edge gestures yield to it (Android's
    /// setSystemGestureExclusionRects); along each edge only `maximumDeferralLength` of
    /// them counts, so that an app cannot disable the kiosk's exit gesture.
    public func setGestureDeferral(_ rects: [Rect<SurfaceSpace>], on surface: SurfaceID) {
        let kept = rects.filter { !$0.isEmpty }.prefix(Self.maximumDeferralRects)
        arena.deferrals[surface] = kept.isEmpty ? nil : Array(kept)
    }

    /// Time passed without events: recognizers' deadlines and held touches' limit run out.
    public func advanceTime(to time: RouterTime) {
        guard arena.open else { return }
        for i in arena.members.indices where arena.members[i].isPending || arena.members[i].standing == .won {
            arena.members[i].recognizer.advance(to: time)
        }
        let saved = recordDeliveries
        recordDeliveries.removeAll(keepingCapacity: true)
        resolveArena(time: time)
        closeArenaIfDone(time: time)
        // Released events may have left a frame open that no later event would close.
        if !touchFrameClients.isEmpty { _ = touchFrame() }
        if !state.pointee.touch.pendingPresses.isEmpty { settlePresses() }
        recordDeliveries = saved
    }

    /// When `advanceTime(to:)` next has something to do.
    public var nextGestureDeadline: RouterTime? {
        guard arena.open else { return nil }
        var next: RouterTime?
        for member in arena.members where member.isPending || member.standing == .won {
            if let deadline = member.recognizer.deadline, next.map({ deadline < $0 }) ?? true { next = deadline }
        }
        if let started = arena.hold.started, !arena.hold.touches.isEmpty {
            let (limit, overflow) = started.nanoseconds.addingReportingOverflow(arena.configuration.holdLimit)
            let deadline = RouterTime(nanoseconds: overflow ? .max : limit)
            if next.map({ deadline < $0 }) ?? true { next = deadline }
        }
        return next
    }

    /// Whether a down at `position` falls in a region where the client under it defers
    /// edge gestures, counting only the first `maximumDeferralLength` along the edge.
    func isDeferred(_ position: Point<GlobalSpace>, hit: HitResult?, output: Rect<GlobalSpace>?) -> Bool {
        guard !arena.deferrals.isEmpty, let hit, let output, let edge = Self.nearestEdge(of: output, to: position),
              edge.distance < edgeBandWidth else { return false }
        var current: SurfaceID? = hit.surface
        while let surface = current {
            if let rects = arena.deferrals[surface], let local = tree.localPoint(position, in: surface) {
                let origin = Point<GlobalSpace>(position.x - local.x, position.y - local.y)
                if Self.deferralHonours(rects, origin: origin, edge: edge.edge, cap: arena.configuration.maximumDeferralLength, point: position) { return true }
            }
            current = tree.parent(of: surface)
        }
        return false
    }

    /// How far from an edge edge gestures reach: the widest edge recognizer or edge zone.
    private var edgeBandWidth: Double {
        var width = 0.0
        for spec in arena.configuration.recognizers {
            if case .screenEdgePan(let parameters) = spec.kind { width = max(width, parameters.zoneWidth) }
        }
        for zone in arena.configuration.holdZones {
            if case .edges(_, let zoneWidth) = zone.area { width = max(width, zoneWidth) }
        }
        return width
    }

    /// Android honours the bottom-most part of a left or right edge's exclusions; this does
    /// the same, and the left-most part of a top or bottom edge's.
    static func deferralHonours(_ rects: [Rect<SurfaceSpace>], origin: Point<GlobalSpace>, edge: ScreenEdge, cap: Double, point: Point<GlobalSpace>) -> Bool {
        let vertical = edge == .left || edge == .right
        let global = rects.map { (minX: origin.x + Double($0.minX), minY: origin.y + Double($0.minY), maxX: origin.x + Double($0.maxX), maxY: origin.y + Double($0.maxY)) }
        let ordered = vertical ? global.sorted { $0.maxY > $1.maxY } : global.sorted { $0.minX < $1.minX }
        var remaining = cap
        for rect in ordered where remaining > 0 {
            let length = vertical ? rect.maxY - rect.minY : rect.maxX - rect.minX
            let honoured = min(length, remaining)
            remaining -= honoured
            let inside = point.x >= rect.minX && point.x < rect.maxX && point.y >= rect.minY && point.y < rect.maxY
            let inHonouredPart = vertical ? point.y >= rect.maxY - honoured : point.x < rect.minX + honoured
            if inside && inHonouredPart { return true }
        }
        return false
    }
}

extension GestureConfiguration {
    /// Checks names, references, failure cycles and numbers; `configureGestures` calls it.
    public func validate() throws(GestureConfigurationError) {
        if recognizers.count > Self.maximumRecognizers { throw .tooManyRecognizers(recognizers.count) }
        if let n = fingerLimit, !(2...10).contains(n) { throw .invalidFingerLimit(n) }
        if !(0...10_000_000_000).contains(holdLimit) { throw .invalidHoldLimit(holdLimit) }
        var index: [String: Int] = [:]
        for (i, spec) in recognizers.enumerated() {
            if index[spec.name] != nil { throw .duplicateName(spec.name) }
            index[spec.name] = i
        }
        for spec in recognizers {
            for name in spec.simultaneousWith + spec.requiresFailureOf where index[name] == nil {
                throw .unknownName(name, referencedBy: spec.name)
            }
            try spec.kind.validate(recognizer: spec.name)
        }
        // Depth-first, three colours: a grey node reached again closes a cycle.
        var colour = [Int](repeating: 0, count: recognizers.count)
        var path: [Int] = []
        func visit(_ i: Int) throws(GestureConfigurationError) {
            colour[i] = 1
            path.append(i)
            for name in recognizers[i].requiresFailureOf {
                let j = index[name]!
                if colour[j] == 1 {
                    let start = path.firstIndex(of: j)!
                    throw .failureCycle(path[start...].map { recognizers[$0].name })
                }
                if colour[j] == 0 { try visit(j) }
            }
            path.removeLast()
            colour[i] = 2
        }
        for i in recognizers.indices where colour[i] == 0 { try visit(i) }
    }
}

extension GestureKind {
    func validate(recognizer: String) throws(GestureConfigurationError) {
        func length(_ name: String, _ value: Double) throws(GestureConfigurationError) {
            guard value.isFinite, value >= 0, value <= 100_000 else {
                throw .invalidParameter(recognizer: recognizer, parameter: name, problem: "must be a length from 0 to 100000 px, not \(value)")
            }
        }
        func count(_ name: String, _ value: Int, _ range: ClosedRange<Int> = 1...10) throws(GestureConfigurationError) {
            guard range.contains(value) else {
                throw .invalidParameter(recognizer: recognizer, parameter: name, problem: "must be from \(range.lowerBound) to \(range.upperBound), not \(value)")
            }
        }
        func duration(_ name: String, _ value: Int64) throws(GestureConfigurationError) {
            guard (0...60_000_000_000).contains(value) else {
                throw .invalidParameter(recognizer: recognizer, parameter: name, problem: "must be from 0 to 60 s, not \(Double(value) / 1_000_000) ms")
            }
        }
        switch self {
        case .tap(let p):
            try count("taps", p.tapsRequired); try count("touches", p.touchesRequired)
            try length("allowable movement", p.allowableMovement); try length("tap distance", p.maximumTapDistance)
            try duration("press duration", p.maximumPressDuration); try duration("tap interval", p.maximumTapInterval)
        case .longPress(let p):
            try duration("minimum duration", p.minimumDuration); try length("allowable movement", p.allowableMovement)
            try count("touches", p.touchesRequired)
        case .pan(let p):
            try count("minimum touches", p.minimumTouches); try count("maximum touches", p.maximumTouches, p.minimumTouches...10)
            try length("slop", p.slop)
        case .swipe(let p):
            try count("touches", p.touchesRequired); try length("minimum distance", p.minimumDistance)
            try length("minimum velocity", p.minimumVelocity)
            if p.directions.isEmpty { throw .invalidParameter(recognizer: recognizer, parameter: "directions", problem: "must name at least one direction") }
        case .pinch(let p):
            try length("slop", p.slop)
        case .rotation(let p):
            guard p.minimumAngle.isFinite, (0...Double.pi).contains(p.minimumAngle) else {
                throw .invalidParameter(recognizer: recognizer, parameter: "minimum angle", problem: "must be from 0 to π radians, not \(p.minimumAngle)")
            }
        case .screenEdgePan(let p):
            try length("zone width", p.zoneWidth); try length("slop", p.slop); try count("touches", p.touchesRequired)
            if p.edges.isEmpty { throw .invalidParameter(recognizer: recognizer, parameter: "edges", problem: "must name at least one edge") }
        }
    }
}
