/// UIPinchGestureRecognizer: continuous, on the first two fingers (later ones are ignored).
/// It begins when their spread has changed by more than `slop` since the second went
/// down, is changed as they move, and ends when either lifts. A lift before it began fails it.
///
/// `values.scale` is the spread over the spread at the moment it began, so it reads
/// exactly 1 at `.began` and a binding never jumps by the slop; `values.translation*` is
/// the centroid's travel since the first finger went down, as for pan.
public final class PinchRecognizer: TrackingRecognizer {
    public let parameters: PinchParameters
    override public var isContinuous: Bool { true }
    override public var awaitsMoreTouches: Bool { false }
    override public var deadline: RouterTime? { nil }

    /// Spreads under a pixel are fingers on top of each other; dividing by them would
    /// make scales that mean nothing (or infinity).
    private static let smallestBaseSpread = 1.0

    /// All mutable state, unchecked (see `UncheckedState`).
    struct Storage {
        var spreadAtDown = 0.0
        var spreadAtBegin = 1.0
    }
    private let storage = UncheckedState(Storage())

    deinit {
        storage.release()
    }

    private var spreadAtDown: Double {
        _read { yield storage.pointee.spreadAtDown }
        _modify { yield &storage.pointee.spreadAtDown }
    }
    private var spreadAtBegin: Double {
        _read { yield storage.pointee.spreadAtBegin }
        _modify { yield &storage.pointee.spreadAtBegin }
    }

    public init(_ parameters: PinchParameters = PinchParameters()) {
        self.parameters = parameters
    }

    override public func touchBegan(_ id: TouchID, at position: Point<GlobalSpace>, time: RouterTime, output: Rect<GlobalSpace>) {
        guard state == .possible, tracker.count < 2, tracker.add(id, at: position, time: time, settling: &storedValues) else { return }
        if tracker.count == 2 { spreadAtDown = tracker.spread }
        tracker.report(into: &storedValues, at: time)
    }

    override public func touchMoved(_ id: TouchID, to position: Point<GlobalSpace>, time: RouterTime) {
        // With one finger down only the report changes, and it is computed when read.
        guard !state.isFinal, tracker.moveAndReport(id, to: position, time: time) != nil, tracker.count == 2 else { return }
        let spread = tracker.spread
        if state == .possible {
            guard abs(spread - spreadAtDown) > parameters.slop else { return }
            spreadAtBegin = max(spread, Self.smallestBaseSpread)
            storedValues.scale = 1
            state = .began
        } else {
            storedValues.scale = max(spread, Self.smallestBaseSpread) / spreadAtBegin
            state = .changed
        }
    }

    override public func touchEnded(_ id: TouchID, time: RouterTime) {
        guard !state.isFinal, tracker.remove(id, settling: &storedValues) else { return }
        tracker.report(into: &storedValues, at: time)
        state = state == .possible ? .failed : .ended
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
        spreadAtDown = 0
        spreadAtBegin = 1
    }
}
