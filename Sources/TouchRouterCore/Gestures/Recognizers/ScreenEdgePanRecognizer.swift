/// UIScreenEdgePanGestureRecognizer: continuous. The first finger must go down within
/// `zoneWidth` of one of `edges` of its output, or the recognizer fails at once. It begins
/// when `touchesRequired` fingers are down and their centroid has moved more than `slop`
/// inward from such an edge, more inward than along it; it fails when it moves along
/// every such edge more than `slop` before that, when a finger past the required number
/// goes down, or when a finger lifts first. It is changed on motion and ends when the last
/// finger lifts; fingers joining after it began are ignored.
///
/// In a corner both edges are candidates and the movement picks one; `values.edge` says which.
public final class ScreenEdgePanRecognizer: TrackingRecognizer {
    public let parameters: ScreenEdgePanParameters
    override public var isContinuous: Bool { true }
    override public var awaitsMoreTouches: Bool { false }
    override public var deadline: RouterTime? { nil }

    private let touchesRequired: Int

    /// All mutable state, unchecked (see `UncheckedState`).
    struct Storage {
        /// The edges the first finger went down near (only those in `parameters.edges`).
        var nearLeft = false, nearRight = false, nearTop = false, nearBottom = false
    }
    private let storage = UncheckedState(Storage())

    deinit {
        storage.release()
    }

    private var nearLeft: Bool {
        _read { yield storage.pointee.nearLeft }
        _modify { yield &storage.pointee.nearLeft }
    }
    private var nearRight: Bool {
        _read { yield storage.pointee.nearRight }
        _modify { yield &storage.pointee.nearRight }
    }
    private var nearTop: Bool {
        _read { yield storage.pointee.nearTop }
        _modify { yield &storage.pointee.nearTop }
    }
    private var nearBottom: Bool {
        _read { yield storage.pointee.nearBottom }
        _modify { yield &storage.pointee.nearBottom }
    }

    public init(_ parameters: ScreenEdgePanParameters = ScreenEdgePanParameters()) {
        self.parameters = parameters
        touchesRequired = max(1, min(parameters.touchesRequired, TouchTracker.capacity))
    }

    override public func touchBegan(_ id: TouchID, at position: Point<GlobalSpace>, time: RouterTime, output: Rect<GlobalSpace>) {
        guard state == .possible, tracker.index(of: id) == nil else { return }
        if tracker.isEmpty {
            findEdges(near: position, on: output)
            guard nearLeft || nearRight || nearTop || nearBottom, tracker.add(id, at: position, time: time, settling: &storedValues) else {
                state = .failed
                return
            }
        } else {
            guard position.isUsableForGestures else { return }
            guard tracker.add(id, at: position, time: time, settling: &storedValues), tracker.count <= touchesRequired else {
                state = .failed
                return
            }
        }
        tracker.report(into: &storedValues, at: time)
    }

    override public func touchMoved(_ id: TouchID, to position: Point<GlobalSpace>, time: RouterTime) {
        guard !state.isFinal, tracker.moveAndReport(id, to: position, time: time) != nil else { return }
        if state != .possible {
            state = .changed
            return
        }
        let dx = tracker.translationX, dy = tracker.translationY
        var choice = EdgeChoice()
        choice.consider(.left, if: nearLeft, inward: dx, along: dy, slop: parameters.slop)
        choice.consider(.right, if: nearRight, inward: -dx, along: dy, slop: parameters.slop)
        choice.consider(.top, if: nearTop, inward: dy, along: dx, slop: parameters.slop)
        choice.consider(.bottom, if: nearBottom, inward: -dy, along: dx, slop: parameters.slop)
        if !choice.anyAlive {
            state = .failed
        } else if let edge = choice.best, tracker.count == touchesRequired {
            storedValues.edge = edge
            state = .began
        }
    }

    override public func touchEnded(_ id: TouchID, time: RouterTime) {
        guard !state.isFinal, tracker.remove(id, settling: &storedValues) else { return }
        tracker.report(into: &storedValues, at: time)
        switch state {
        case .possible: state = .failed
        case .began, .changed: state = tracker.isEmpty ? .ended : .changed
        case .ended, .cancelled, .failed, .recognized: break
        }
    }

    override public func touchCancelled(_ id: TouchID, time: RouterTime) {
        guard !state.isFinal, tracker.remove(id, settling: &storedValues) else { return }
        state = state == .possible ? .failed : .cancelled
    }

    override public func advance(to time: RouterTime) {}

    override public func reset() {
        state = .possible
        storedValues = GestureValues()
        tracker.clear()
        nearLeft = false; nearRight = false; nearTop = false; nearBottom = false
    }

    private func findEdges(near position: Point<GlobalSpace>, on output: Rect<GlobalSpace>) {
        nearLeft = false; nearRight = false; nearTop = false; nearBottom = false
        guard position.isUsableForGestures, output.width > 0, output.height > 0 else { return }
        // In Double: Int's x + width could overflow for a rectangle nobody checked.
        let minX = Double(output.x), maxX = Double(output.x) + Double(output.width)
        let minY = Double(output.y), maxY = Double(output.y) + Double(output.height)
        guard position.x >= minX, position.x <= maxX, position.y >= minY, position.y <= maxY else { return }
        let zone = parameters.zoneWidth
        nearLeft = parameters.edges.contains(.left) && position.x - minX <= zone
        nearRight = parameters.edges.contains(.right) && maxX - position.x <= zone
        nearTop = parameters.edges.contains(.top) && position.y - minY <= zone
        nearBottom = parameters.edges.contains(.bottom) && maxY - position.y <= zone
    }
}

/// Which of the candidate edges the movement so far points away from.
private struct EdgeChoice {
    var best: ScreenEdge?
    var bestInward = 0.0
    /// Some candidate edge has not yet been ruled out by sideways movement.
    var anyAlive = false

    mutating func consider(_ edge: ScreenEdge, if near: Bool, inward: Double, along: Double, slop: Double) {
        guard near else { return }
        let sideways = abs(along)
        if sideways > slop && sideways > inward { return }
        anyAlive = true
        if inward > slop && inward >= sideways && inward > bestInward {
            best = edge
            bestInward = inward
        }
    }
}
