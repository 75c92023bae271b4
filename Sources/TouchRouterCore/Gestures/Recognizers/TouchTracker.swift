/// The touch bookkeeping every recognizer needs: the touches it is following, where and
/// when each went down, how far their centroid has travelled, and how fast.
///
/// Storage is reserved once at init; no call allocates afterwards, so a recognizer can
/// follow events for hours without touching the heap.
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

    private(set) var touches: [Touch] = []

    /// How far the centroid has travelled, summed from motion alone: a finger going down
    /// or up moves the centroid but not this, so adding a finger mid-pan causes no jump.
    private(set) var translationX = 0.0
    private(set) var translationY = 0.0

    private struct Sample {
        var time = RouterTime.zero
        var x = 0.0
        var y = 0.0
    }
    private var samples: [Sample]
    private var newestSample = 0
    private var sampleCount = 0

    init() {
        touches.reserveCapacity(Self.capacity)
        samples = Array(repeating: Sample(), count: 16)
    }

    var count: Int { touches.count }
    var isEmpty: Bool { touches.isEmpty }

    func index(of id: TouchID) -> Int? {
        for i in touches.indices where touches[i].id == id { return i }
        return nil
    }

    /// False, and nothing recorded, for a touch already followed, a full table, or an unusable position.
    mutating func add(_ id: TouchID, at position: Point<GlobalSpace>, time: RouterTime) -> Bool {
        guard position.isUsableForGestures, touches.count < Self.capacity, index(of: id) == nil else { return false }
        touches.append(Touch(id: id, start: position, current: position, startTime: time))
        return true
    }

    /// The touch's index, or nil when it is not followed or the position is unusable
    /// (then nothing changes).
    mutating func move(_ id: TouchID, to position: Point<GlobalSpace>, time: RouterTime) -> Int? {
        guard position.isUsableForGestures, let i = index(of: id) else { return nil }
        let share = 1.0 / Double(touches.count)
        translationX += (position.x - touches[i].current.x) * share
        translationY += (position.y - touches[i].current.y) * share
        touches[i].current = position
        record(time)
        return i
    }

    @discardableResult
    mutating func remove(_ id: TouchID) -> Touch? {
        guard let i = index(of: id) else { return nil }
        return touches.remove(at: i)
    }

    mutating func clear() {
        touches.removeAll(keepingCapacity: true)
        translationX = 0
        translationY = 0
        sampleCount = 0
        newestSample = 0
    }

    var centroid: Point<GlobalSpace> {
        guard !touches.isEmpty else { return Point(0, 0) }
        var x = 0.0, y = 0.0
        for touch in touches {
            x += touch.current.x
            y += touch.current.y
        }
        let n = Double(touches.count)
        return Point(x / n, y / n)
    }

    var translationLength: Double { hypotenuse(translationX, translationY) }

    /// How far touch `i` is from where it went down.
    func distanceMoved(_ i: Int) -> Double {
        hypotenuse(touches[i].current.x - touches[i].start.x, touches[i].current.y - touches[i].start.y)
    }

    /// The largest distance any touch has moved from where it went down.
    var largestDistanceMoved: Double {
        var largest = 0.0
        for i in touches.indices { largest = max(largest, distanceMoved(i)) }
        return largest
    }

    /// The centroid's velocity in layout pixels per second at `time`: its travel from the
    /// oldest to the newest sample within the horizon (or from the one before the newest,
    /// when samples are sparser than that), or zero when resting or unknown.
    func velocity(at time: RouterTime) -> (x: Double, y: Double) {
        guard sampleCount >= 2 else { return (0, 0) }
        let newest = samples[newestSample]
        guard time.saturatingNanoseconds(since: newest.time) <= Self.restingAfter else { return (0, 0) }
        var oldest = samples[(newestSample - 1 + samples.count) % samples.count]
        if sampleCount > 2 {
            for back in 2..<sampleCount {
                let sample = samples[(newestSample - back + samples.count) % samples.count]
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
        newestSample = (newestSample + 1) % samples.count
        samples[newestSample] = Sample(time: time, x: translationX, y: translationY)
        sampleCount = min(sampleCount + 1, samples.count)
    }

    /// Location, translation, velocity and touch count, as every kind reports them. With
    /// no touch left the location stays where the last one was.
    func report(into values: inout GestureValues, at time: RouterTime) {
        if !touches.isEmpty { values.location = centroid }
        values.translationX = translationX
        values.translationY = translationY
        let velocity = velocity(at: time)
        values.velocityX = velocity.x
        values.velocityY = velocity.y
        values.touches = touches.count
    }

    // MARK: The first two touches, for pinch and rotation

    /// The distance between the first two touches.
    var spread: Double {
        guard touches.count >= 2 else { return 0 }
        return hypotenuse(touches[1].current.x - touches[0].current.x, touches[1].current.y - touches[0].current.y)
    }

    /// The direction from the first touch to the second, in radians, clockwise on screen
    /// (y grows downwards); nil when they are too close together to have a direction.
    var pairAngle: Double? {
        guard touches.count >= 2 else { return nil }
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
    func saturatingAdvanced(by nanoseconds: Int64) -> RouterTime {
        let (sum, overflow) = self.nanoseconds.addingReportingOverflow(nanoseconds)
        if overflow { return RouterTime(nanoseconds: nanoseconds > 0 ? .max : .min) }
        return RouterTime(nanoseconds: sum)
    }

    /// How long after `earlier` this time is, stopping at the ends of Int64 instead of
    /// trapping; negative when the times run backwards.
    func saturatingNanoseconds(since earlier: RouterTime) -> Int64 {
        let (difference, overflow) = nanoseconds.subtractingReportingOverflow(earlier.nanoseconds)
        if overflow { return earlier.nanoseconds > nanoseconds ? .min : .max }
        return difference
    }
}
