/// UITapGestureRecognizer: discrete, possible → recognized | failed.
///
/// A tap is `touchesRequired` fingers going down and all lifting again, none moving more
/// than `allowableMovement` nor staying down longer than `maximumPressDuration`. After a
/// tap short of `tapsRequired` it stays possible with no touch down (`awaitsMoreTouches`),
/// so the arena keeps it across touch sequences until the next tap or the interval's end.
///
/// `values.tapCount` counts like UITouch.tapCount: taps whose down comes within
/// `maximumTapInterval` of the previous tap's up and within `maximumTapDistance` of it
/// count up. That chain survives `reset()`, so a single-tap recognizer that recognized
/// and was reset still reports 2 for a quick second tap; the recognizer's own progress
/// towards `tapsRequired` does not survive it.
public final class TapRecognizer: TrackingRecognizer {
    public let parameters: TapParameters
    override public var isContinuous: Bool { false }

    private let touchesRequired: Int
    private let tapsRequired: Int

    /// All mutable state, unchecked (see `UncheckedState`).
    struct Storage {
        /// Taps completed towards `tapsRequired`.
        var tapsCompleted = 0
        /// While a tap's fingers are down: when its first went down.
        var tapStart: RouterTime?
        var tapPeakTouches = 0
        /// Where the tap's fingers went down, summed, for its location.
        var tapSumX = 0.0, tapSumY = 0.0, tapTouchesSeen = 0
        /// The previous tap's up and location, for the interval and distance to the next.
        var lastTapUp = RouterTime.zero
        var lastTapLocation = Point<GlobalSpace>(0, 0)
        /// UITouch.tapCount's chain, which `reset()` keeps.
        var chainCount = 0
        var chainLastUp = RouterTime.zero
        var chainLastLocation = Point<GlobalSpace>(0, 0)
    }
    private let storage = UncheckedState(Storage())

    deinit {
        storage.release()
    }

    private var tapsCompleted: Int {
        _read { yield storage.pointee.tapsCompleted }
        _modify { yield &storage.pointee.tapsCompleted }
    }
    private var tapStart: RouterTime? {
        _read { yield storage.pointee.tapStart }
        _modify { yield &storage.pointee.tapStart }
    }
    private var tapPeakTouches: Int {
        _read { yield storage.pointee.tapPeakTouches }
        _modify { yield &storage.pointee.tapPeakTouches }
    }
    private var tapSumX: Double {
        _read { yield storage.pointee.tapSumX }
        _modify { yield &storage.pointee.tapSumX }
    }
    private var tapSumY: Double {
        _read { yield storage.pointee.tapSumY }
        _modify { yield &storage.pointee.tapSumY }
    }
    private var tapTouchesSeen: Int {
        _read { yield storage.pointee.tapTouchesSeen }
        _modify { yield &storage.pointee.tapTouchesSeen }
    }
    private var lastTapUp: RouterTime {
        _read { yield storage.pointee.lastTapUp }
        _modify { yield &storage.pointee.lastTapUp }
    }
    private var lastTapLocation: Point<GlobalSpace> {
        _read { yield storage.pointee.lastTapLocation }
        _modify { yield &storage.pointee.lastTapLocation }
    }
    private var chainCount: Int {
        _read { yield storage.pointee.chainCount }
        _modify { yield &storage.pointee.chainCount }
    }
    private var chainLastUp: RouterTime {
        _read { yield storage.pointee.chainLastUp }
        _modify { yield &storage.pointee.chainLastUp }
    }
    private var chainLastLocation: Point<GlobalSpace> {
        _read { yield storage.pointee.chainLastLocation }
        _modify { yield &storage.pointee.chainLastLocation }
    }

    public init(_ parameters: TapParameters = TapParameters()) {
        self.parameters = parameters
        touchesRequired = max(1, min(parameters.touchesRequired, TouchTracker.capacity))
        tapsRequired = max(1, parameters.tapsRequired)
    }

    override public var awaitsMoreTouches: Bool { state == .possible && tapsCompleted > 0 && tapStart == nil }

    override public var deadline: RouterTime? {
        guard state == .possible else { return nil }
        // A tap fails once it is *longer* than the limit, so the first failing instant is 1 ns past it.
        if let tapStart { return tapStart.saturatingAdvanced(by: parameters.maximumPressDuration).saturatingAdvanced(by: 1) }
        if tapsCompleted > 0 { return lastTapUp.saturatingAdvanced(by: parameters.maximumTapInterval).saturatingAdvanced(by: 1) }
        return nil
    }

    override public func touchBegan(_ id: TouchID, at position: Point<GlobalSpace>, time: RouterTime, output: Rect<GlobalSpace>) {
        guard state == .possible, position.isUsableForGestures else { return }
        if tapStart == nil {
            if tapsCompleted > 0 {
                guard time.saturatingNanoseconds(since: lastTapUp) <= parameters.maximumTapInterval,
                      distanceBetween(position, lastTapLocation) <= parameters.maximumTapDistance
                else { return fail() }
            }
            tapStart = time
            tapPeakTouches = 0
            tapSumX = 0; tapSumY = 0; tapTouchesSeen = 0
        }
        guard tracker.add(id, at: position, time: time, settling: &storedValues) else {
            if tracker.count >= TouchTracker.capacity { fail() }
            return
        }
        tapPeakTouches = max(tapPeakTouches, tracker.count)
        tapSumX += position.x; tapSumY += position.y; tapTouchesSeen += 1
        if tracker.count > touchesRequired { return fail() }
        storedValues.touches = tracker.count
        storedValues.location = tapLocation
    }

    override public func touchMoved(_ id: TouchID, to position: Point<GlobalSpace>, time: RouterTime) {
        guard state == .possible, let i = tracker.move(id, to: position, time: time, settling: &storedValues) else { return }
        if tracker.distanceMoved(i) > parameters.allowableMovement { fail() }
    }

    override public func touchEnded(_ id: TouchID, time: RouterTime) {
        guard state == .possible, tracker.remove(id, settling: &storedValues), tracker.isEmpty, let start = tapStart else { return }
        guard tapPeakTouches == touchesRequired,
              time.saturatingNanoseconds(since: start) <= parameters.maximumPressDuration
        else { return fail() }
        completeTap(start: start, up: time)
    }

    override public func touchCancelled(_ id: TouchID, time: RouterTime) {
        guard state == .possible, tracker.remove(id, settling: &storedValues) else { return }
        fail()
    }

    override public func advance(to time: RouterTime) {
        guard let deadline, time >= deadline else { return }
        fail()
    }

    override public func reset() {
        state = .possible
        storedValues = GestureValues()
        tracker.clear()
        tapsCompleted = 0
        tapStart = nil
        tapPeakTouches = 0
        tapSumX = 0; tapSumY = 0; tapTouchesSeen = 0
    }

    private var tapLocation: Point<GlobalSpace> {
        guard tapTouchesSeen > 0 else { return Point(0, 0) }
        return Point(tapSumX / Double(tapTouchesSeen), tapSumY / Double(tapTouchesSeen))
    }

    private func completeTap(start: RouterTime, up: RouterTime) {
        let location = tapLocation
        let continuesChain = chainCount > 0
            && start.saturatingNanoseconds(since: chainLastUp) <= parameters.maximumTapInterval
            && start.saturatingNanoseconds(since: chainLastUp) >= 0
            && distanceBetween(location, chainLastLocation) <= parameters.maximumTapDistance
        chainCount = continuesChain ? chainCount &+ 1 : 1
        chainLastUp = up
        chainLastLocation = location

        tapsCompleted += 1
        tapStart = nil
        lastTapUp = up
        lastTapLocation = location
        storedValues.location = location
        storedValues.touches = tapPeakTouches
        storedValues.tapCount = chainCount
        if tapsCompleted >= tapsRequired { state = .recognized }
    }

    private func fail() {
        state = .failed
        // Whatever failed was no tap, so it breaks UITouch.tapCount's chain too.
        chainCount = 0
    }
}
