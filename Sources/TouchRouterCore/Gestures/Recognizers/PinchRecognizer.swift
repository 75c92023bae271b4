/// UIPinchGestureRecognizer: continuous, on the first two fingers (later ones are ignored).
/// It begins when their spread has changed by more than `slop` since the second went
/// down, is changed as they move, and ends when either lifts. A lift before it began fails it.
///
/// `values.scale` is the spread over the spread at the moment it began, so it reads
/// exactly 1 at `.began` and a binding never jumps by the slop; `values.translation*` is
/// the centroid's travel since the first finger went down, as for pan.
public final class PinchRecognizer: GestureRecognizer {
    public let parameters: PinchParameters
    public private(set) var state: GestureState = .possible
    public private(set) var values = GestureValues()
    public var isContinuous: Bool { true }
    public var awaitsMoreTouches: Bool { false }
    public var deadline: RouterTime? { nil }

    /// Spreads under a pixel are fingers on top of each other; dividing by them would
    /// make scales that mean nothing (or infinity).
    private static let smallestBaseSpread = 1.0

    private var tracker = TouchTracker()
    private var spreadAtDown = 0.0
    private var spreadAtBegin = 1.0

    public init(_ parameters: PinchParameters = PinchParameters()) {
        self.parameters = parameters
    }

    public func touchBegan(_ id: TouchID, at position: Point<GlobalSpace>, time: RouterTime, output: Rect<GlobalSpace>) {
        guard state == .possible, tracker.count < 2, tracker.add(id, at: position, time: time) else { return }
        if tracker.count == 2 { spreadAtDown = tracker.spread }
        tracker.report(into: &values, at: time)
    }

    public func touchMoved(_ id: TouchID, to position: Point<GlobalSpace>, time: RouterTime) {
        guard !state.isFinal, tracker.move(id, to: position, time: time) != nil else { return }
        tracker.report(into: &values, at: time)
        guard tracker.count == 2 else { return }
        let spread = tracker.spread
        if state == .possible {
            guard abs(spread - spreadAtDown) > parameters.slop else { return }
            spreadAtBegin = max(spread, Self.smallestBaseSpread)
            values.scale = 1
            state = .began
        } else {
            values.scale = max(spread, Self.smallestBaseSpread) / spreadAtBegin
            state = .changed
        }
    }

    public func touchEnded(_ id: TouchID, time: RouterTime) {
        guard !state.isFinal, tracker.remove(id) != nil else { return }
        tracker.report(into: &values, at: time)
        state = state == .possible ? .failed : .ended
    }

    public func touchCancelled(_ id: TouchID, time: RouterTime) {
        guard !state.isFinal, tracker.remove(id) != nil else { return }
        state = state == .possible ? .failed : .cancelled
    }

    public func advance(to time: RouterTime) {}

    public func reset() {
        state = .possible
        values = GestureValues()
        tracker.clear()
        spreadAtDown = 0
        spreadAtBegin = 1
    }
}
