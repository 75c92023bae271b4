/// The touch bookkeeping every recognizer needs: the touches it is following, where and
/// when each went down, how far their centroid has travelled, and how fast.
///
/// Storage is allocated once at init and freed by `release()`, which its one owner calls
/// in its deinit (a copy shares the storage, as a copy of `UncheckedState` does). No call
/// allocates afterwards, so a recognizer can follow events for hours without touching the
/// heap, and a motion pays no uniqueness check, reference count or copy. (An InlineArray
/// would be copied whole at every subscript, the tracker being reached through a pointer.)
///
/// It also owns the timing of the recognizer's report (`report(into:at:)`): a motion
/// only notes that a report is due (`moveAndReport`), and the values are computed when
/// they are read (`settle`). So that they read exactly as an eager report would have
/// left them, every other change to the touches settles a due report first.
struct TouchTracker {
    struct Touch {
        var id: TouchID
        var start: Point<GlobalSpace>
        var current: Point<GlobalSpace>
        var startTime: RouterTime
    }

    /// More fingers than any hand has; touches past it are not followed.
    static let capacity = 16
    /// Android's VelocityTracker and Flutter's look at about this much recent motion.
    static let velocityHorizon: Int64 = 100_000_000
    /// A finger that has not moved for this long is taken to be resting (Flutter's rule),
    /// so a lift after a pause does not report the speed of the motion before it.
    static let restingAfter: Int64 = 40_000_000

    /// `capacity` of them, the first `count` followed, in the order they went down.
    private let touches: UnsafeMutablePointer<Touch>
    private(set) var count = 0
    /// 1 / count, kept as the count changes so a motion does not divide.
    private var share = 0.0

    /// How far the centroid has travelled, summed from motion alone: a finger going down
    /// or up moves the centroid but not this, so adding a finger mid-pan causes no jump.
    private(set) var translationX = 0.0
    private(set) var translationY = 0.0

    private struct Sample {
        var time = RouterTime.zero
        var x = 0.0
        var y = 0.0
    }
    private static let sampleCapacity = 16
    /// A ring of `sampleCapacity`, `sampleCount` of them recorded, the newest at `newestSample`.
    private let samples: UnsafeMutablePointer<Sample>
    private var newestSample = 0
    private var sampleCount = 0

    /// The time of a report that is owed: `report(into:at:)` at this time, of the touches as they are now.
    private var reportDue: RouterTime?

    init() {
        touches = .allocate(capacity: Self.capacity)
        touches.initialize(repeating: Touch(id: TouchID(0), start: Point(0, 0), current: Point(0, 0), startTime: .zero), count: Self.capacity)
        samples = .allocate(capacity: Self.sampleCapacity)
        samples.initialize(repeating: Sample(), count: Self.sampleCapacity)
    }

    /// Frees the storage; the owner calls it in its deinit, and uses the tracker no more.
    func release() {
        touches.deinitialize(count: Self.capacity)
        touches.deallocate()
        samples.deinitialize(count: Self.sampleCapacity)
        samples.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    func index(of id: TouchID) -> Int? {
        var i = 0
        while i < count {
            if touches[i].id == id { return i }
            i &+= 1
        }
        return nil
    }

    /// False, and nothing recorded, for a touch already followed, a full table, or an
    /// unusable position. Settles a due report into `values` first.
    mutating func add(_ id: TouchID, at position: Point<GlobalSpace>, time: RouterTime, settling values: inout GestureValues) -> Bool {
        guard position.isUsableForGestures, count < Self.capacity, index(of: id) == nil else { return false }
        settle(&values)
        touches[count] = Touch(id: id, start: position, current: position, startTime: time)
        count += 1
        share = 1.0 / Double(count)
        return true
    }

    /// The touch's index, or nil when it is not followed or the position is unusable
    /// (then nothing changes). Settles a due report into `values` first.
    mutating func move(_ id: TouchID, to position: Point<GlobalSpace>, time: RouterTime, settling values: inout GestureValues) -> Int? {
        guard position.isUsableForGestures, let i = index(of: id) else { return nil }
        settle(&values)
        move(at: i, to: position, time: time)
        return i
    }

    /// Moves touch `i` (found by `index(of:)`, with a usable position) and settles a due report first.
    mutating func move(at i: Int, to position: Point<GlobalSpace>, time: RouterTime, settling values: inout GestureValues) {
        settle(&values)
        move(at: i, to: position, time: time)
    }

    /// `move` followed by `report(into:at:)` at `time`, which is only noted: the new
    /// report replaces any report due, as it writes every value a report writes.
    mutating func moveAndReport(_ id: TouchID, to position: Point<GlobalSpace>, time: RouterTime) -> Int? {
        guard position.isUsableForGestures, let i = index(of: id) else { return nil }
        move(at: i, to: position, time: time)
        reportDue = time
        return i
    }

    /// Moves touch `i` (found by `index(of:)`, with a usable position) and notes a report at `time`.
    mutating func moveAndReport(at i: Int, to position: Point<GlobalSpace>, time: RouterTime) {
        move(at: i, to: position, time: time)
        reportDue = time
    }

    private mutating func move(at i: Int, to position: Point<GlobalSpace>, time: RouterTime) {
        // The same arithmetic as `(dx) * (1 / count)` always did, so the sums are bit for bit the same.
        let current = touches[i].current
        translationX += (position.x - current.x) * share
        translationY += (position.y - current.y) * share
        touches[i].current = position
        record(time)
    }

    /// Settles a due report into `values` first.
    @discardableResult
    mutating func remove(_ id: TouchID, settling values: inout GestureValues) -> Bool {
        guard let i = index(of: id) else { return false }
        settle(&values)
        var j = i
        while j + 1 < count {
            touches[j] = touches[j + 1]
            j += 1
        }
        count -= 1
        share = count > 0 ? 1.0 / Double(count) : 0
        return true
    }

    /// Forgets everything, a due report included: for `reset()`, which clears the values too.
    mutating func clear() {
        count = 0
        share = 0
        translationX = 0
        translationY = 0
        sampleCount = 0
        newestSample = 0
        reportDue = nil
    }

    var centroid: Point<GlobalSpace> {
        guard count > 0 else { return Point(0, 0) }
        var x = 0.0, y = 0.0
        for i in 0..<count {
            x += touches[i].current.x
            y += touches[i].current.y
        }
        let n = Double(count)
        return Point(x / n, y / n)
    }

    var translationLength: Double { hypotenuse(translationX, translationY) }

    /// How far touch `i` is from where it went down.
    func distanceMoved(_ i: Int) -> Double {
        hypotenuse(touches[i].current.x - touches[i].start.x, touches[i].current.y - touches[i].start.y)
    }

    /// How far touch `i` would be from where it went down, were it at `position`.
    func distanceMoved(_ i: Int, to position: Point<GlobalSpace>) -> Double {
        hypotenuse(position.x - touches[i].start.x, position.y - touches[i].start.y)
    }

    /// The largest distance any touch has moved from where it went down.
    var largestDistanceMoved: Double {
        var largest = 0.0
        for i in 0..<count { largest = max(largest, distanceMoved(i)) }
        return largest
    }

    /// The centroid's velocity in layout pixels per second at `time`: its travel from the
    /// oldest to the newest sample within the horizon (or from the one before the newest,
    /// when samples are sparser than that), or zero when resting or unknown.
    func velocity(at time: RouterTime) -> (x: Double, y: Double) {
        guard sampleCount >= 2 else { return (0, 0) }
        let n = Self.sampleCapacity
        let newest = samples[newestSample]
        guard time.saturatingNanoseconds(since: newest.time) <= Self.restingAfter else { return (0, 0) }
        var oldest = samples[(newestSample - 1 + n) % n]
        if sampleCount > 2 {
            for back in 2..<sampleCount {
                let sample = samples[(newestSample - back + n) % n]
                guard newest.time.saturatingNanoseconds(since: sample.time) <= Self.velocityHorizon else { break }
                oldest = sample
            }
        }
        let seconds = Double(newest.time.saturatingNanoseconds(since: oldest.time)) / 1_000_000_000
        guard seconds > 0 else { return (0, 0) }
        return ((newest.x - oldest.x) / seconds, (newest.y - oldest.y) / seconds)
    }

    private mutating func record(_ time: RouterTime) {
        if sampleCount > 0 && samples[newestSample].time == time {
            // Several touches of one frame move at the same instant: one sample holds them.
            samples[newestSample].x = translationX
            samples[newestSample].y = translationY
            return
        }
        newestSample = newestSample == Self.sampleCapacity - 1 ? 0 : newestSample + 1
        samples[newestSample] = Sample(time: time, x: translationX, y: translationY)
        if sampleCount < Self.sampleCapacity { sampleCount += 1 }
    }

    /// Location, translation, velocity and touch count, as every kind reports them. With
    /// no touch left the location stays where the last one was. Replaces a due report.
    mutating func report(into values: inout GestureValues, at time: RouterTime) {
        // A due report is of these same touches (every change settles one first), so it is simply replaced.
        reportDue = nil
        write(into: &values, at: time)
    }

    /// Writes a due report into `values`, as it would have been written when it was noted.
    mutating func settle(_ values: inout GestureValues) {
        guard let time = reportDue else { return }
        reportDue = nil
        write(into: &values, at: time)
    }

    private func write(into values: inout GestureValues, at time: RouterTime) {
        if count > 0 { values.location = centroid }
        values.translationX = translationX
        values.translationY = translationY
        let velocity = velocity(at: time)
        values.velocityX = velocity.x
        values.velocityY = velocity.y
        values.touches = count
    }

    // MARK: The first two touches, for pinch and rotation

    /// The distance between the first two touches.
    var spread: Double {
        guard count >= 2 else { return 0 }
        return hypotenuse(touches[1].current.x - touches[0].current.x, touches[1].current.y - touches[0].current.y)
    }

    /// The direction from the first touch to the second, in radians, clockwise on screen
    /// (y grows downwards); nil when they are too close together to have a direction.
    var pairAngle: Double? {
        guard count >= 2 else { return nil }
        let dx = touches[1].current.x - touches[0].current.x
        let dy = touches[1].current.y - touches[0].current.y
        guard hypotenuse(dx, dy) >= 0.5 else { return nil }
        return arctangent(dy, dx)
    }
}

/// The length of (x, y) without overflow for any usable position's differences.
func hypotenuse(_ x: Double, _ y: Double) -> Double {
    (x * x + y * y).squareRoot()
}

func distanceBetween(_ a: Point<GlobalSpace>, _ b: Point<GlobalSpace>) -> Double {
    hypotenuse(b.x - a.x, b.y - a.y)
}

extension Point<GlobalSpace> {
    /// Far beyond any layout, and small enough that sums, squares and per-second rates of
    /// differences stay finite: positions past it (or NaN, or infinite) are ignored.
    static var gestureCoordinateLimit: Double { 1e9 }

    var isUsableForGestures: Bool {
        x.isFinite && y.isFinite && abs(x) <= Self.gestureCoordinateLimit && abs(y) <= Self.gestureCoordinateLimit
    }
}

extension RouterTime {
    /// This time plus `nanoseconds`, stopping at the ends of Int64 instead of trapping.
    public func saturatingAdvanced(by nanoseconds: Int64) -> RouterTime {
        let (sum, overflow) = self.nanoseconds.addingReportingOverflow(nanoseconds)
        if overflow { return RouterTime(nanoseconds: nanoseconds > 0 ? .max : .min) }
        return RouterTime(nanoseconds: sum)
    }

    /// How long after `earlier` this time is, stopping at the ends of Int64 instead of
    /// trapping; negative when the times run backwards.
    public func saturatingNanoseconds(since earlier: RouterTime) -> Int64 {
        let (difference, overflow) = nanoseconds.subtractingReportingOverflow(earlier.nanoseconds)
        if overflow { return earlier.nanoseconds > nanoseconds ? .min : .max }
        return difference
    }
}
