/// UISwipeGestureRecognizer: discrete, possible → recognized | failed.
///
/// The direction of a movement is its dominant axis and that axis's sign. The swipe is
/// recognized when the centroid of `touchesRequired` fingers has moved `minimumDistance`
/// along one of `directions`, moving at least `minimumVelocity` along it at that moment.
/// It fails when the movement, once past `directionSlop`, goes in a direction not allowed;
/// when it reaches the distance too slowly or with too few fingers; when a finger past
/// the required number goes down; or when a finger lifts first.
public final class SwipeRecognizer: TrackingRecognizer {
    public let parameters: SwipeParameters
    override public var isContinuous: Bool { false }
    override public var awaitsMoreTouches: Bool { false }
    override public var deadline: RouterTime? { nil }

    /// Below Android's touch slop a movement's direction is mostly the finger settling.
    public static let directionSlop = 8.0

    private let touchesRequired: Int
    private let allowsUp: Bool, allowsDown: Bool, allowsLeft: Bool, allowsRight: Bool

    public init(_ parameters: SwipeParameters = SwipeParameters()) {
        self.parameters = parameters
        touchesRequired = max(1, min(parameters.touchesRequired, TouchTracker.capacity))
        // Plain flags, so the hot path never hashes into the set.
        allowsUp = parameters.directions.contains(.up)
        allowsDown = parameters.directions.contains(.down)
        allowsLeft = parameters.directions.contains(.left)
        allowsRight = parameters.directions.contains(.right)
    }

    override public func touchBegan(_ id: TouchID, at position: Point<GlobalSpace>, time: RouterTime, output: Rect<GlobalSpace>) {
        guard state == .possible, position.isUsableForGestures, tracker.index(of: id) == nil else { return }
        guard tracker.add(id, at: position, time: time, settling: &storedValues), tracker.count <= touchesRequired else {
            state = .failed
            return
        }
        tracker.report(into: &storedValues, at: time)
    }

    override public func touchMoved(_ id: TouchID, to position: Point<GlobalSpace>, time: RouterTime) {
        guard state == .possible, tracker.moveAndReport(id, to: position, time: time) != nil else { return }
        let dx = tracker.translationX, dy = tracker.translationY
        let horizontal = abs(dx) >= abs(dy)
        let direction: SwipeDirection = horizontal ? (dx >= 0 ? .right : .left) : (dy >= 0 ? .down : .up)
        let travelled = horizontal ? abs(dx) : abs(dy)
        guard travelled >= parameters.minimumDistance else {
            if travelled > Self.directionSlop && !allows(direction) { state = .failed }
            return
        }
        // The velocity the report due will hold.
        let velocity = tracker.velocity(at: time)
        let speed: Double
        switch direction {
        case .right: speed = velocity.x
        case .left: speed = -velocity.x
        case .down: speed = velocity.y
        case .up: speed = -velocity.y
        }
        if allows(direction) && tracker.count == touchesRequired && speed >= parameters.minimumVelocity {
            storedValues.direction = direction
            state = .recognized
        } else {
            state = .failed
        }
    }

    override public func touchEnded(_ id: TouchID, time: RouterTime) {
        guard state == .possible, tracker.remove(id, settling: &storedValues) else { return }
        state = .failed
    }

    override public func touchCancelled(_ id: TouchID, time: RouterTime) {
        guard state == .possible, tracker.remove(id, settling: &storedValues) else { return }
        state = .failed
    }

    override public func advance(to time: RouterTime) {}

    override public func reset() {
        state = .possible
        storedValues = GestureValues()
        tracker.clear()
    }

    private func allows(_ direction: SwipeDirection) -> Bool {
        switch direction {
        case .up: allowsUp
        case .down: allowsDown
        case .left: allowsLeft
        case .right: allowsRight
        }
    }
}
