/// When one output composes its next frame: as late before its next vblank as composition
/// needs, so that what clients committed until then makes that vblank (Weston's repaint
/// window, sway's max_render_time, but measured unless configured). The margin is the
/// 99th percentile of the last `window` compositions plus `safety`; a vblank the schedule
/// has not seen is predicted from the last one it saw and the refresh period. An output's
/// configuration may fix the margin instead (`configuredMargin`), as sway's max_render_time
/// does; compositions are still measured, and one that ends past its vblank still counts as
/// late. Time is passed in: nothing here reads a clock.
public struct FrameSchedule: Sendable {
    /// Compositions the margin is measured over: two seconds at 60 Hz.
    public static let window = 120
    /// Added to the measured composition time, for the timer's wake-up and the flush after
    /// composition (this VM wakes within about 0.2 ms; half a millisecond covers its drift).
    public static let safety: Int64 = 500_000
    /// The margin before any composition was measured, and its floor.
    public static let minimumMargin: Int64 = 1_000_000

    /// The refresh period, nanoseconds.
    public let refresh: Int64
    /// The last vblank seen (a page flip's time) or assumed (the clock's start).
    public private(set) var lastVblank: RouterTime
    private var compositions: [Int64] = []
    private var nextComposition = 0
    /// Frames whose composition ended after the deadline's vblank.
    public private(set) var lateCompositions: UInt64 = 0
    /// The margin the configuration fixes (ns, at most one period); nil: measured.
    public var configuredMargin: Int64?

    /// The refresh period (ns) of `refreshMilliHertz`, taken between 1 Hz and 1000 Hz.
    public static func period(refreshMilliHertz: Int) -> Int64 {
        1_000_000_000_000 / Int64(min(max(refreshMilliHertz, 1_000), 1_000_000))
    }

    /// `refreshMilliHertz` as outputs give it; vblanks counted from `start`.
    public init(refreshMilliHertz: Int, start: RouterTime, configuredMargin: Int64? = nil) {
        refresh = Self.period(refreshMilliHertz: refreshMilliHertz)
        lastVblank = start
        self.configuredMargin = configuredMargin
        compositions.reserveCapacity(Self.window)
    }

    /// How long before a vblank composition starts.
    public var margin: Int64 {
        // A whole period composes right after the last vblank; more would aim before it.
        if let configuredMargin { return min(max(configuredMargin, 0), refresh) }
        guard !compositions.isEmpty else { return Self.minimumMargin }
        let sorted = compositions.sorted()
        let p99 = sorted[min(sorted.count - 1, (sorted.count * 99) / 100)]
        // At most most of a period: past that, composing earlier would not help the next vblank.
        return min(max(p99 + Self.safety, Self.minimumMargin), refresh * 3 / 4)
    }

    /// The first vblank after `time`.
    public func vblank(after time: RouterTime) -> RouterTime {
        guard time >= lastVblank else { return RouterTime(nanoseconds: lastVblank.nanoseconds &+ refresh) }
        let periods = (time.nanoseconds - lastVblank.nanoseconds) / refresh + 1
        return RouterTime(nanoseconds: lastVblank.nanoseconds &+ periods &* refresh)
    }

    /// When to compose next: the margin before the first vblank whose deadline is still
    /// ahead of `now`.
    public func deadline(after now: RouterTime) -> RouterTime {
        let margin = margin
        var vblank = vblank(after: now)
        if vblank.nanoseconds - margin <= now.nanoseconds { vblank = RouterTime(nanoseconds: vblank.nanoseconds &+ refresh) }
        return RouterTime(nanoseconds: vblank.nanoseconds - margin)
    }

    /// A vblank happened (a page flip completed) at `time`: later ones are predicted from it.
    public mutating func vblank(at time: RouterTime) {
        lastVblank = time
    }

    /// A composition that started at `start` took until `end`; `vblank` is the one it aimed at.
    public mutating func composed(from start: RouterTime, to end: RouterTime, aimingAt vblank: RouterTime) {
        let taken = max(end.nanoseconds - start.nanoseconds, 0)
        if compositions.count < Self.window {
            compositions.append(taken)
        } else {
            compositions[nextComposition] = taken
        }
        nextComposition = (nextComposition + 1) % Self.window
        if end > vblank { lateCompositions &+= 1 }
    }
}
