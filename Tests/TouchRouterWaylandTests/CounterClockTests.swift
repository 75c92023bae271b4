import Glibc
import Testing
import TouchRouterCore
import TouchRouterWayland

/// The timeline's clock (CounterClock.swift): CLOCK_MONOTONIC's times, extrapolated from the
/// CPU's counter between real readings, never going back.
@Suite("CounterClock: CLOCK_MONOTONIC's times from the timestamp counter, never going back")
struct CounterClockTests {
    static func monotonic() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }

    /// Reads the clock between two readings of CLOCK_MONOTONIC for `nanoseconds`, and
    /// returns the worst distance outside that bracket, and whether any stamp went back.
    static func worstStray(_ clock: CounterClock, for nanoseconds: Int64) -> (stray: Int64, wentBack: Bool, reads: Int) {
        var stray: Int64 = 0, previous = Int64.min, wentBack = false, reads = 0
        let end = monotonic() + nanoseconds
        while true {
            let before = monotonic()
            let stamp = clock.now().nanoseconds
            let after = monotonic()
            reads += 1
            if stamp < previous { wentBack = true }
            previous = stamp
            stray = max(stray, before - stamp, stamp - after)
            if after > end { break }
        }
        return (stray, wentBack, reads)
    }

    @Test("on this machine's invariant counter, every stamp over 300 ms lies within 5 µs of CLOCK_MONOTONIC read around it, and none goes back")
    func followsTheKernelClock() {
        let clock = CounterClock()
        // CI's machines are x86-64 VMs with constant_tsc and nonstop_tsc; elsewhere this says why it failed.
        #expect(clock.usesCounter, "no invariant timestamp counter: /proc/cpuinfo lacks constant_tsc or nonstop_tsc")
        let result = Self.worstStray(clock, for: 300_000_000)
        #expect(result.reads > 1000)
        #expect(!result.wentBack)
        #expect(result.stray <= 5_000, "worst stamp \(result.stray) ns outside CLOCK_MONOTONIC's bracket")
    }

    @Test("without the counter every stamp is CLOCK_MONOTONIC itself, inside the bracket")
    func withoutTheCounter() {
        let clock = CounterClock(useCounter: false)
        #expect(!clock.usesCounter)
        let result = Self.worstStray(clock, for: 20_000_000)
        #expect(!result.wentBack)
        #expect(result.stray == 0)
    }
}
