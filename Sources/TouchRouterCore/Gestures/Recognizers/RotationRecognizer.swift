/// UIRotationGestureRecognizer: continuous, on the first two fingers (later ones are
/// ignored). It begins when the line between them has turned more than `minimumAngle`
/// since the second went down, is changed as they move, and ends when either lifts. A
/// lift before it began fails it.
///
/// `values.rotation` is in radians, positive clockwise on screen (y grows downwards), and
/// counts from the moment it began, so it reads exactly 0 at `.began`. It is summed from
/// small steps, so it goes past ±π when the fingers keep turning.
public final class RotationRecognizer: GestureRecognizer {
    public let parameters: RotationParameters
    public private(set) var state: GestureState = .possible
    public private(set) var values = GestureValues()
    public var isContinuous: Bool { true }
    public var awaitsMoreTouches: Bool { false }
    public var deadline: RouterTime? { nil }

    private var tracker = TouchTracker()
    /// The pair's direction at the last event where it had one.
    private var lastAngle: Double?
    /// How far the pair has turned since the second finger went down.
    private var turned = 0.0
    private var turnedAtBegin = 0.0

    public init(_ parameters: RotationParameters = RotationParameters()) {
        self.parameters = parameters
    }

    public func touchBegan(_ id: TouchID, at position: Point<GlobalSpace>, time: RouterTime, output: Rect<GlobalSpace>) {
        guard state == .possible, tracker.count < 2, tracker.add(id, at: position, time: time) else { return }
        if tracker.count == 2 {
            lastAngle = tracker.pairAngle
            turned = 0
        }
        tracker.report(into: &values, at: time)
    }

    public func touchMoved(_ id: TouchID, to position: Point<GlobalSpace>, time: RouterTime) {
        guard !state.isFinal, tracker.move(id, to: position, time: time) != nil else { return }
        tracker.report(into: &values, at: time)
        guard tracker.count == 2, let angle = tracker.pairAngle else { return }
        if let lastAngle { turned += wrappedAngle(angle - lastAngle) }
        lastAngle = angle
        if state == .possible {
            guard abs(turned) > parameters.minimumAngle else { return }
            turnedAtBegin = turned
            values.rotation = 0
            state = .began
        } else {
            values.rotation = turned - turnedAtBegin
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
        lastAngle = nil
        turned = 0
        turnedAtBegin = 0
    }
}
