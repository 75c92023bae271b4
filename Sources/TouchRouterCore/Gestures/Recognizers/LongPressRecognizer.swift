/// UILongPressGestureRecognizer: continuous. It begins once `touchesRequired` fingers have
/// been down for `minimumDuration` without any moving more than `allowableMovement`, is
/// changed as they move, and ends when any of them lifts (as UIKit's does). Lifting or
/// moving too far before it began fails it; touches past the required number fail it
/// before it began and are ignored after.
///
/// It begins from `advance(to:)` at its deadline, or from the first event at or past the
/// deadline when the arena had no chance to advance time first. A lift past the deadline
/// reports `.began` (the press did last long enough); it ends at the next call, which
/// `deadline` asks for at once.
public final class LongPressRecognizer: TrackingRecognizer {
    public let parameters: LongPressParameters
    override public var isContinuous: Bool { true }
    override public var awaitsMoreTouches: Bool { false }

    private let touchesRequired: Int

    /// All mutable state, unchecked (see `UncheckedState`).
    struct Storage {
        /// When the last required finger went down: the press is timed from there.
        var pressStart: RouterTime?
        /// Set when it began from a lift: the time of that lift, and it ends next.
        var endPending: RouterTime?
    }
    private let storage = UncheckedState(Storage())

    deinit {
        storage.release()
    }

    private var pressStart: RouterTime? {
        _read { yield storage.pointee.pressStart }
        _modify { yield &storage.pointee.pressStart }
    }
    private var endPending: RouterTime? {
        _read { yield storage.pointee.endPending }
        _modify { yield &storage.pointee.endPending }
    }

    public init(_ parameters: LongPressParameters = LongPressParameters()) {
        self.parameters = parameters
        touchesRequired = max(1, min(parameters.touchesRequired, TouchTracker.capacity))
    }

    override public var deadline: RouterTime? {
        if let endPending, !state.isFinal { return endPending }
        guard state == .possible, let pressStart else { return nil }
        return pressStart.saturatingAdvanced(by: parameters.minimumDuration)
    }

    override public func touchBegan(_ id: TouchID, at position: Point<GlobalSpace>, time: RouterTime, output: Rect<GlobalSpace>) {
        if finishPendingEnd(time) { return }
        // Fingers joining once it began (even by this very event) are not part of it.
        guard state == .possible else { return }
        if beginIfDue(time) { return }
        guard position.isUsableForGestures, tracker.index(of: id) == nil else { return }
        guard tracker.add(id, at: position, time: time, settling: &storedValues), tracker.count <= touchesRequired else { return fail() }
        if tracker.count == touchesRequired { pressStart = time }
        tracker.report(into: &storedValues, at: time)
    }

    override public func touchMoved(_ id: TouchID, to position: Point<GlobalSpace>, time: RouterTime) {
        if finishPendingEnd(time) { return }
        switch state {
        case .possible:
            let due = isDue(time)
            guard position.isUsableForGestures, let i = tracker.index(of: id) else {
                _ = beginIfDue(time)
                return
            }
            if due {
                // The press began before this motion; the motion is part of the first report.
                tracker.moveAndReport(at: i, to: position, time: time)
                begin(at: time)
            } else if tracker.distanceMoved(i, to: position) > parameters.allowableMovement {
                // Failing reports nothing: the values stay those of the last report.
                tracker.move(at: i, to: position, time: time, settling: &storedValues)
                fail()
            } else {
                tracker.moveAndReport(at: i, to: position, time: time)
            }
        case .began, .changed:
            guard tracker.moveAndReport(id, to: position, time: time) != nil else { return }
            state = .changed
        case .ended, .cancelled, .failed, .recognized:
            break
        }
    }

    override public func touchEnded(_ id: TouchID, time: RouterTime) {
        if finishPendingEnd(time) { return }
        switch state {
        case .possible:
            let due = isDue(time)
            guard tracker.index(of: id) != nil else {
                _ = beginIfDue(time)
                return
            }
            if due {
                begin(at: time)
                tracker.remove(id, settling: &storedValues)
                endPending = time
            } else {
                tracker.remove(id, settling: &storedValues)
                fail()
            }
        case .began, .changed:
            guard tracker.remove(id, settling: &storedValues) else { return }
            state = .ended
            storedValues.touches = tracker.count
        case .ended, .cancelled, .failed, .recognized:
            break
        }
    }

    override public func touchCancelled(_ id: TouchID, time: RouterTime) {
        if finishPendingEnd(time) { return }
        guard !state.isFinal, tracker.remove(id, settling: &storedValues) else { return }
        switch state {
        case .possible: fail()
        case .began, .changed: state = .cancelled
        case .ended, .cancelled, .failed, .recognized: break
        }
    }

    override public func advance(to time: RouterTime) {
        if let endPending, time < endPending { return }
        if finishPendingEnd(time) { return }
        if state == .possible { _ = beginIfDue(time) }
    }

    override public func reset() {
        state = .possible
        storedValues = GestureValues()
        tracker.clear()
        pressStart = nil
        endPending = nil
    }

    private func isDue(_ time: RouterTime) -> Bool {
        guard state == .possible, tracker.count == touchesRequired, let deadline else { return false }
        return time >= deadline
    }

    private func beginIfDue(_ time: RouterTime) -> Bool {
        guard isDue(time) else { return false }
        begin(at: time)
        return true
    }

    private func begin(at time: RouterTime) {
        state = .began
        tracker.report(into: &storedValues, at: time)
    }

    /// Ends a press that began from a lift; true when it did, and the call is used up.
    private func finishPendingEnd(_ time: RouterTime) -> Bool {
        guard endPending != nil, state == .began || state == .changed else { return false }
        endPending = nil
        state = .ended
        tracker.settle(&storedValues)
        storedValues.touches = tracker.count
        return true
    }

    private func fail() {
        state = .failed
    }
}
