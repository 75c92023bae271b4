/// UIRotationGestureRecognizer: continuous, on the first two fingers (later ones are
/// ignored). It begins when the line between them has turned more than `minimumAngle`
/// since the second went down, is changed as they move, and ends when either lifts. A
/// lift before it began fails it.
///
/// `values.rotation` is in radians, positive clockwise on screen (y grows downwards), and
/// counts from the moment it began, so it reads exactly 0 at `.began`. It is summed from
/// small steps, so it goes past ±π when the fingers keep turning.
public final class RotationRecognizer: TrackingRecognizer {
    public let parameters: RotationParameters
    override public var isContinuous: Bool { true }
    override public var awaitsMoreTouches: Bool { false }
    override public var deadline: RouterTime? { nil }

    /// All mutable state, unchecked (see `UncheckedState`).
    struct Storage {
        /// The pair's direction at the last event where it had one.
        var lastAngle: Double?
        /// How far the pair has turned since the second finger went down.
        var turned = 0.0
        var turnedAtBegin = 0.0
    }
    private let storage = UncheckedState(Storage())

    deinit {
        storage.release()
    }

    private var lastAngle: Double? {
        _read { yield storage.pointee.lastAngle }
        _modify { yield &storage.pointee.lastAngle }
    }
    private var turned: Double {
        _read { yield storage.pointee.turned }
        _modify { yield &storage.pointee.turned }
    }
    private var turnedAtBegin: Double {
        _read { yield storage.pointee.turnedAtBegin }
        _modify { yield &storage.pointee.turnedAtBegin }
    }

    public init(_ parameters: RotationParameters = RotationParameters()) {
        self.parameters = parameters
    }

    override public func touchBegan(_ id: TouchID, at position: Point<GlobalSpace>, time: RouterTime, output: Rect<GlobalSpace>) {
        guard state == .possible, tracker.count < 2, tracker.add(id, at: position, time: time, settling: &storedValues) else { return }
        if tracker.count == 2 {
            lastAngle = tracker.pairAngle
            turned = 0
        }
        tracker.report(into: &storedValues, at: time)
    }

    override public func touchMoved(_ id: TouchID, to position: Point<GlobalSpace>, time: RouterTime) {
        // With one finger down only the report changes, and it is computed when read.
        guard !state.isFinal, tracker.moveAndReport(id, to: position, time: time) != nil,
              tracker.count == 2, let angle = tracker.pairAngle
        else { return }
        if let lastAngle { turned += wrappedAngle(angle - lastAngle) }
        lastAngle = angle
        if state == .possible {
            guard abs(turned) > parameters.minimumAngle else { return }
            turnedAtBegin = turned
            storedValues.rotation = 0
            state = .began
        } else {
            storedValues.rotation = turned - turnedAtBegin
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
        lastAngle = nil
        turned = 0
        turnedAtBegin = 0
    }
}
