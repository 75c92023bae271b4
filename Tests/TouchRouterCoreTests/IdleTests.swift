import TouchRouterCore
import TouchRouterReplay
import Testing

/// Remembers each wake the router reports.
final class WakeLog: WakeObserver {
    var wakes: [(outputs: [OutputID], by: OutputID?)] = []
    func outputsWoke(_ outputs: [OutputID], by output: OutputID?, at time: RouterTime) { wakes.append((outputs, output)) }
}

private func ms(_ value: Int64) -> Int64 { value * 1_000_000 }
private func at(_ milliseconds: Int64) -> RouterTime { RouterTime(nanoseconds: ms(milliseconds)) }

@Suite("Idle: the timer, dark outputs, and the touch that wakes one reaching nobody")
struct IdleTests {
    @Test("the timer dims, then blanks, after its times without input; input starts it again")
    func timerPhases() {
        var timer = IdleTimer(configuration: IdleConfiguration(dimAfter: ms(1_000), blankAfter: ms(3_000)), start: at(0))
        #expect(timer.nextDeadline == at(1_000))
        #expect(timer.tick(at: at(999)) == nil)
        #expect(timer.tick(at: at(1_000)) == .active)
        #expect(timer.phase == .dimmed)
        #expect(timer.nextDeadline == at(3_000))
        #expect(timer.input(at: at(2_000)) == .dimmed, "input while dimmed brings the seat back")
        #expect(timer.phase == .active)
        #expect(timer.tick(at: at(4_999)) == .active)
        #expect(timer.phase == .dimmed, "dims 1 s after the input at 2 s, blanking not yet due")
        #expect(timer.tick(at: at(5_000)) == .dimmed)
        #expect(timer.phase == .blanked)
        #expect(timer.nextDeadline == nil, "nothing deeper than dark")
        #expect(timer.tick(at: at(60_000)) == nil)
    }

    @Test("a timer past both times at once goes straight to dark; one with neither time never moves")
    func straightToDark() {
        var timer = IdleTimer(configuration: IdleConfiguration(dimAfter: ms(1_000), blankAfter: ms(2_000)), start: at(0))
        #expect(timer.tick(at: at(10_000)) == .active)
        #expect(timer.phase == .blanked)
        var never = IdleTimer(configuration: .never, start: at(0))
        #expect(never.tick(at: at(Int64.max / 2_000_000)) == nil)
        #expect(never.nextDeadline == nil)
    }

    @Test("an inhibitor holds the timer; its end starts the count again from then, not from the last input")
    func inhibited() {
        var timer = IdleTimer(configuration: IdleConfiguration(blankAfter: ms(1_000)), start: at(0))
        #expect(timer.setInhibited(true, at: at(500)) == nil)
        #expect(timer.tick(at: at(5_000)) == nil)
        #expect(timer.nextDeadline == nil)
        _ = timer.setInhibited(false, at: at(6_000))
        #expect(timer.nextDeadline == at(7_000))
        #expect(timer.tick(at: at(6_999)) == nil)
        #expect(timer.tick(at: at(7_000)) == .active)
        #expect(timer.phase == .blanked)
        _ = timer.setInhibited(true, at: at(8_000))
        #expect(timer.phase == .blanked, "an inhibitor keeps a screen on; it does not turn a dark one on")
    }

    @Test("a touch on a dark output wakes it and reaches nobody, to its last up; the next touch reaches the app")
    func wakingTouchSwallowed() {
        let h = Harness()
        let app = h.toplevel(1, 0, 0, 1000, 1000)
        let wakes = WakeLog()
        h.router.wakeObserver = wakes
        h.router.setOutputs([h.output], dark: true)
        h.down(1, 500, 500)
        #expect(h.log.last == .dropped(.wokeOutput))
        h.frame()
        #expect(wakes.wakes.count == 1 && wakes.wakes[0].outputs == [h.output] && wakes.wakes[0].by == h.output)
        #expect(h.router.darkOutputs.isEmpty, "the output is lit at the down")
        h.down(2, 600, 600); h.frame()
        h.move(1, 520, 500); h.frame()
        h.up(1); h.frame()
        h.move(2, 620, 600); h.frame()
        h.up(2); h.frame()
        #expect(h.delivery.take() == [], "no down, motion, up or frame of the waking sequence reached the app")
        #expect(h.log.records.filter { if case .touchFrame = $0.event { false } else { true } }.map(\.outcome).allSatisfy { $0 == .dropped(.wokeOutput) })
        #expect(DropReason.wokeOutput.description == "it woke the output")
        #expect(h.router.activeTouches.isEmpty)
        h.down(3, 500, 500)
        #expect(h.delivery.take() == [.touchDown(app, TouchID(3), Point(500, 500))], "once the sequence ended, touches route again")
        #expect(wakes.wakes.count == 1)
    }

    @Test("beside a dark output, a touch on a lit one is not swallowed and wakes nothing")
    func litBesideDark() {
        let h = Harness(outputs: [Rect(x: 0, y: 0, width: 1000, height: 1000), Rect(x: 1000, y: 0, width: 1000, height: 1000)])
        let left = h.toplevel(1, 0, 0, 1000, 1000)
        let right = h.toplevel(2, 0, 0, 1000, 1000, output: 2)
        let wakes = WakeLog()
        h.router.wakeObserver = wakes
        h.router.setOutputs([OutputID(2)], dark: true)
        h.down(1, 500, 500)
        #expect(h.delivery.take() == [.touchDown(left, TouchID(1), Point(500, 500))])
        #expect(wakes.wakes.isEmpty)
        #expect(h.router.darkOutputs == [OutputID(2)])
        h.down(2, 1500, 500)
        #expect(h.delivery.take() == [], "the dark one's waking touch is swallowed")
        #expect(wakes.wakes.map(\.by) == [OutputID(2)])
        h.move(1, 510, 500)
        #expect(h.delivery.take() == [.touchMotion(left, TouchID(1), Point(510, 500))], "the lit output's touch goes on")
        h.down(3, 1600, 500)
        #expect(h.delivery.take() == [], "a finger joining the waking sequence on the woken output is swallowed too")
        h.up(2); h.up(3)
        h.down(4, 1500, 500)
        #expect(h.delivery.take() == [.touchDown(right, TouchID(4), Point(500, 500))])
    }

    @Test("no recognizer sees the waking touch: a pan in a hold-back zone is not joined")
    func noRecognizer() throws {
        let h = Harness()
        h.toplevel(1, 0, 0, 1000, 1000)
        try h.gestures([spec("edge")], zones: [leftEdgeZone])
        h.router.setOutputs([h.output], dark: true)
        h.down(1, 10, 500); h.frame()
        h.move(1, 200, 500); h.frame()
        h.up(1); h.frame()
        #expect(h.log.arenaDecisions.isEmpty)
        #expect(h.delivery.take() == [])
        h.down(2, 10, 500)
        #expect(h.log.arenaDecisions.first == "joined edge", "a touch on the lit output joins the arena again")
    }

    @Test("a key that wakes is swallowed with its release, unless keys are let through; pointer motion wakes and is delivered")
    func keysAndPointer() {
        let h = Harness()
        let app = h.toplevel(1, 0, 0, 1000, 1000)
        h.router.setKeyboardFocus(app)
        _ = h.delivery.take()
        let wakes = WakeLog()
        h.router.wakeObserver = wakes
        h.router.setOutputs([h.output], dark: true)
        h.key(30, .pressed)
        h.key(30, .released)
        #expect(h.delivery.take() == [])
        #expect(wakes.wakes.count == 1 && wakes.wakes[0].by == nil)
        h.key(30, .pressed)
        #expect(h.delivery.take() == [.key(app, 30, .pressed)])
        h.key(30, .released)
        _ = h.delivery.take()
        h.router.letWakingKeysThrough = true
        h.router.setOutputs([h.output], dark: true)
        h.key(31, .pressed)
        #expect(h.delivery.take() == [.key(app, 31, .pressed)])
        #expect(h.router.darkOutputs.isEmpty)
        h.router.setOutputs([h.output], dark: true)
        h.pointer(100, 100)
        #expect(h.delivery.take().contains(.pointerEnter(app, Point(100, 100))))
        #expect(wakes.wakes.count == 3)
        #expect(h.router.darkOutputs.isEmpty)
    }
}
