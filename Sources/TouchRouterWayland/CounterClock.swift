import CTimestampCounter
import Glibc
import TouchRouterCore

/// CLOCK_MONOTONIC for the timeline's stamps at half the cost: read for real at most once
/// a millisecond, and between those readings extrapolated from the CPU's timestamp counter
/// (`rdtsc`). Every event takes three or four stamps and routing a motion costs about as
/// much as two clock_gettime calls in this VM, so the reads were half the router's share.
///
/// The counter's rate is measured against CLOCK_MONOTONIC, over the longest span seen, so
/// a stamp strays from the kernel's clock by at most the rate's error over one millisecond:
/// about 20 ns in the first second, under 1 ns after. The times are still CLOCK_MONOTONIC's,
/// comparable with libinput's device times and with other processes' readings. Without an
/// invariant counter (not x86-64, or no constant_tsc and nonstop_tsc) it reads the clock.
public final class CounterClock: RouterClock {
    /// How long a real reading stands before the next `now()` takes a new one.
    package static let anchorLifetimeNanoseconds: Int64 = 1_000_000
    /// How long start-up spends measuring the rate before the counter is trusted.
    package static let calibrationNanoseconds: Int64 = 2_000_000

    private let usable: Bool
    private var first: (ticks: UInt64, nanoseconds: Int64) = (0, 0)
    private var anchor: (ticks: UInt64, nanoseconds: Int64) = (0, 0)
    /// The counter's rate in fixed point (32 fraction bits): between readings a stamp is one
    /// multiply and a shift, not a conversion through Double with its range checks. Ticks
    /// within an anchor's lifetime times this stay below 2^52 (a millisecond times 2^32).
    private var nanosecondsPerTickFixed: UInt64 = 0
    private var anchorLifetimeTicks: UInt64 = 0
    /// Stamps never go back, even where a new reading lands a few ns before the estimate.
    private var latest: Int64 = .min

    public init(useCounter: Bool = true) {
        usable = useCounter && tr_timestamp_counter_is_invariant() != 0 && tr_timestamp_counter() != 0
        guard usable else { return }
        first = Self.reading()
        var end = first
        while end.nanoseconds - first.nanoseconds < Self.calibrationNanoseconds { end = Self.reading() }
        measureRate(to: end)
    }

    /// Whether stamps come from the counter (else every `now()` is a clock_gettime).
    public var usesCounter: Bool { usable }

    public func now() -> RouterTime {
        guard usable else { return RouterTime(nanoseconds: Self.monotonic()) }
        let ticks = tr_timestamp_counter()
        let elapsed = ticks &- anchor.ticks
        var time: Int64
        if elapsed < anchorLifetimeTicks {
            time = anchor.nanoseconds &+ Int64(truncatingIfNeeded: (elapsed &* nanosecondsPerTickFixed) &>> 32)
        } else {
            let reading = Self.reading()
            measureRate(to: reading)
            time = reading.nanoseconds
        }
        if time < latest { time = latest }
        latest = time
        return RouterTime(nanoseconds: time)
    }

    private func measureRate(to reading: (ticks: UInt64, nanoseconds: Int64)) {
        let ticks = reading.ticks &- first.ticks
        if ticks > 0, reading.nanoseconds > first.nanoseconds {
            let nanosecondsPerTick = Double(reading.nanoseconds - first.nanoseconds) / Double(ticks)
            anchorLifetimeTicks = UInt64(Double(Self.anchorLifetimeNanoseconds) / nanosecondsPerTick)
            nanosecondsPerTickFixed = UInt64(nanosecondsPerTick * 4_294_967_296)
        }
        anchor = reading
    }

    /// The counter and the clock read together; the counter in the middle of the clock's read.
    /// The tightest of a few tries: a thread preempted inside one (a loaded VM) put the middle
    /// tens of µs from the clock's reading, and every stamp until the next reading with it
    /// (a test saw one 41 µs outside the kernel's clock).
    private static func reading() -> (ticks: UInt64, nanoseconds: Int64) {
        var best: (span: UInt64, ticks: UInt64, nanoseconds: Int64) = (.max, 0, 0)
        for _ in 0..<Self.readingTries {
            let before = tr_timestamp_counter()
            let nanoseconds = monotonic()
            let after = tr_timestamp_counter()
            let span = after &- before
            if span < best.span { best = (span, before &+ span / 2, nanoseconds) }
        }
        return (best.ticks, best.nanoseconds)
    }

    /// How many times a real reading is tried; once a millisecond, so the cost is small.
    package static let readingTries = 3

    // Kept out of `now()`, whose fast path it would give a stack guard for its timespec.
    @inline(never)
    private static func monotonic() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }
}
