/// UIPanGestureRecognizer: continuous. It begins when the centroid of `minimumTouches`…
/// `maximumTouches` fingers has travelled more than `slop`, is changed on every motion and
/// whenever a finger joins or leaves, and ends when the last finger lifts. All fingers
/// lifting before it began fails it. Fingers past `maximumTouches` are ignored, as UIKit
/// ignores them.
///
/// `values.translation*` is the centroid's travel since the first finger went down, slop
/// included, so whatever follows it stays under the fingers; a finger joining or leaving
/// moves the centroid but not the translation.
public final class PanRecognizer: TrackingRecognizer {
    public let parameters: PanParameters
    override public var isContinuous: Bool { true }
    override public var awaitsMoreTouches: Bool { false }
    override public var deadline: RouterTime? { nil }

    private let minimumTouches: Int
    private let maximumTouches: Int

    public init(_ parameters: PanParameters = PanParameters()) {
        self.parameters = parameters
        maximumTouches = max(1, min(parameters.maximumTouches, TouchTracker.capacity))
        minimumTouches = max(1, min(parameters.minimumTouches, maximumTouches))
    }

    override public func touchBegan(_ id: TouchID, at position: Point<GlobalSpace>, time: RouterTime, output: Rect<GlobalSpace>) {
        guard !state.isFinal, tracker.count < maximumTouches, tracker.add(id, at: position, time: time, settling: &storedValues) else { return }
        if state != .possible { state = .changed }
        tracker.report(into: &storedValues, at: time)
    }

    override public func touchMoved(_ id: TouchID, to position: Point<GlobalSpace>, time: RouterTime) {
        guard !state.isFinal, tracker.moveAndReport(id, to: position, time: time) != nil else { return }
        if state == .possible {
            // Too few fingers cannot begin it, whatever the travel.
            if tracker.count >= minimumTouches && tracker.translationLength > parameters.slop { state = .began }
        } else {
            state = .changed
        }
    }

    override public func touchEnded(_ id: TouchID, time: RouterTime) {
        guard !state.isFinal, tracker.remove(id, settling: &storedValues) else { return }
        tracker.report(into: &storedValues, at: time)
        switch state {
        case .possible:
            if tracker.isEmpty { state = .failed }
        case .began, .changed:
            state = tracker.isEmpty ? .ended : .changed
        case .ended, .cancelled, .failed, .recognized:
            break
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
    }
}
