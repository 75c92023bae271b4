import Testing
import TouchRouterCore

/// FrameSchedule: when an output composes, as late before its vblank as measured composition allows.
@Suite("Frame schedule: the deadline is the measured margin before the next vblank")
struct FrameScheduleTests {
    static let refresh: Int64 = 16_666_666
    func at(_ ns: Int64) -> RouterTime { RouterTime(nanoseconds: ns) }

    @Test("before any composition the margin is the minimum; the deadline is that much before the next vblank, or the one after when it has passed")
    func firstDeadline() {
        let schedule = FrameSchedule(refreshMilliHertz: 60_000, start: at(0))
        #expect(schedule.refresh == Self.refresh)
        #expect(schedule.margin == FrameSchedule.minimumMargin)
        #expect(schedule.vblank(after: at(1)) == at(Self.refresh))
        #expect(schedule.deadline(after: at(1)) == at(Self.refresh - FrameSchedule.minimumMargin))
        // Past the deadline of the next vblank: the one after.
        let late = Self.refresh - FrameSchedule.minimumMargin / 2
        #expect(schedule.deadline(after: at(late)) == at(2 * Self.refresh - FrameSchedule.minimumMargin))
    }

    @Test("the margin is the 99th percentile of the last 120 compositions plus the safety, within its floor and three quarters of a period; an old slow one ages out")
    func measuredMargin() {
        var schedule = FrameSchedule(refreshMilliHertz: 60_000, start: at(0))
        for i in 0..<118 { schedule.composed(from: at(Int64(i) * Self.refresh), to: at(Int64(i) * Self.refresh + 2_000_000), aimingAt: at(Int64(i + 1) * Self.refresh)) }
        schedule.composed(from: at(0), to: at(6_000_000), aimingAt: at(Self.refresh))
        #expect(schedule.margin == 2_000_000 + FrameSchedule.safety, "one slow composition in 119 is past the 99th percentile")
        schedule.composed(from: at(0), to: at(6_000_000), aimingAt: at(Self.refresh))
        #expect(schedule.margin == 6_000_000 + FrameSchedule.safety, "two in 120 are not")
        for i in 0..<120 { schedule.composed(from: at(Int64(i)), to: at(Int64(i) + 100_000), aimingAt: at(Self.refresh)) }
        #expect(schedule.margin == FrameSchedule.minimumMargin, "fast compositions: the floor")
        for i in 0..<120 { schedule.composed(from: at(Int64(i)), to: at(Int64(i) + 40_000_000), aimingAt: at(Self.refresh)) }
        #expect(schedule.margin == Self.refresh * 3 / 4, "never more than three quarters of a period")
        #expect(schedule.lateCompositions == 120, "each ended past the vblank it aimed at")
    }

    @Test("a reported vblank (a page flip) moves the grid: later vblanks are predicted from it")
    func flipMovesTheGrid() {
        var schedule = FrameSchedule(refreshMilliHertz: 60_000, start: at(0))
        schedule.vblank(at: at(5_000_000))
        #expect(schedule.vblank(after: at(5_000_001)) == at(5_000_000 + Self.refresh))
        #expect(schedule.vblank(after: at(5_000_000 + 3 * Self.refresh)) == at(5_000_000 + 4 * Self.refresh))
        #expect(schedule.deadline(after: at(6_000_000)) == at(5_000_000 + Self.refresh - FrameSchedule.minimumMargin))
    }

    @Test("a refresh out of range is clamped: 1 Hz to 1000 Hz")
    func clampedRefresh() {
        #expect(FrameSchedule(refreshMilliHertz: 0, start: .zero).refresh == 1_000_000_000)
        #expect(FrameSchedule(refreshMilliHertz: Int.max, start: .zero).refresh == 1_000_000)
    }

    @Test("a configured margin replaces the measured one, up to a whole period; compositions are still measured, and late ones counted")
    func configuredMargin() {
        var schedule = FrameSchedule(refreshMilliHertz: 60_000, start: at(0), configuredMargin: 3_000_000)
        #expect(schedule.margin == 3_000_000)
        #expect(schedule.deadline(after: at(1)) == at(Self.refresh - 3_000_000))
        schedule.composed(from: at(0), to: at(Self.refresh + 1), aimingAt: at(Self.refresh))
        #expect(schedule.margin == 3_000_000, "a slow composition does not widen a configured margin")
        #expect(schedule.lateCompositions == 1)
        schedule.configuredMargin = 5 * Self.refresh
        #expect(schedule.margin == Self.refresh)
        #expect(schedule.deadline(after: at(1)) == at(Self.refresh), "the deadline is the next vblank: composed just after it, for the one after")
        schedule.configuredMargin = nil
        #expect(schedule.margin == Self.refresh * 3 / 4, "measured again: the slow composition, within three quarters of a period")
    }
}
