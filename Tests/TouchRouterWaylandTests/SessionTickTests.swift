import CWaylandClientShim
import Foundation
import Testing
import TouchRouterConfig
import TouchRouterCore
import TouchRouterWayland

/// The session's tick and the headless outputs' frame clocks run only while something waits
/// for them (SessionTick.swift, OutputFrames.swift).
@Suite("The session's tick and headless frame clocks in process: asleep while nothing waits, awake for what does")
struct SessionTickTests {
    /// Serves rounds for `seconds`, or until `condition` holds.
    static func serve(_ fixture: ProtocolFixture, for seconds: Double, until condition: () -> Bool = { false }) {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition(), Date() < deadline {
            fixture.serveOnce()
            usleep(2_000)
        }
    }

    /// Serves `seconds`: the tick must not run, and stays asleep.
    static func expectTickSleeps(_ fixture: ProtocolFixture, _ tick: SessionTick, for seconds: Double, sourceLocation: SourceLocation = #_sourceLocation) {
        let runs = tick.runs
        serve(fixture, for: seconds)
        #expect(tick.runs == runs, "the tick ran \(tick.runs - runs) times in \(seconds) s with nothing waiting", sourceLocation: sourceLocation)
        #expect(tick.arming == .asleep, sourceLocation: sourceLocation)
    }

    static func clocksAsleep(_ fixture: ProtocolFixture) -> Bool {
        fixture.server.protocols.output.frameClocks.values.allSatisfy(\.asleep)
    }

    @Test("with no client and nothing waiting, the tick never runs and every headless output's clock sleeps after its first deadline")
    func idleSessionSleeps() throws {
        let fixture = try ProtocolFixture { $0.outputs = [OutputMode(width: 800, height: 600), OutputMode(width: 640, height: 480)] }
        defer { fixture.end() }
        Self.serve(fixture, for: 0.25)
        let tick = try #require(fixture.server.sessionTick)
        #expect(tick.runs == 0)
        #expect(tick.arming == .asleep)
        #expect(fixture.server.protocols.output.frameClocks.count == 2)
        #expect(Self.clocksAsleep(fixture))
    }

    @Test("a client drawing frame after frame gets every frame callback, from its output's clock; once it stops, the clocks and the tick sleep")
    func drawingThenQuiet() throws {
        let fixture = try ProtocolFixture()
        defer { fixture.end() }
        let client = try fixture.connect()
        let window = try fixture.mapToplevel(client)
        Self.serve(fixture, for: 0.1)
        for frame in 1...5 {
            let callback = try #require(client.request(window.surface, "frame"))
            try client.show(window.surface, width: 200, height: 200, argb: 0xFF00_0000 | UInt32(frame))
            Self.serve(fixture, for: 1) { !client.events(of: callback, named: "done").isEmpty }
            #expect(client.events(of: callback, named: "done").count == 1, "frame \(frame)'s callback")
        }
        Self.serve(fixture, for: 0.1)
        #expect(fixture.server.protocols.surface.pendingFrames.isEmpty)
        #expect(Self.clocksAsleep(fixture))
        Self.expectTickSleeps(fixture, try #require(fixture.server.sessionTick), for: 0.15)
    }

    @Test("a frame callback of a surface on no output is sent by the tick, which then sleeps")
    func callbackOnNoOutput() throws {
        let fixture = try ProtocolFixture()
        defer { fixture.end() }
        let client = try fixture.connect()
        let surface = try client.createSurface()
        let callback = try #require(client.request(surface, "frame"))
        client.request(surface, "commit")
        try fixture.roundtrip(client)
        let tick = try #require(fixture.server.sessionTick)
        Self.serve(fixture, for: 1) { !client.events(of: callback, named: "done").isEmpty }
        #expect(client.events(of: callback, named: "done").count == 1)
        #expect(tick.runs >= 1, "only the tick sends the callbacks of surfaces on no output")
        Self.serve(fixture, for: 0.05)
        #expect(tick.arming == .asleep)
    }

    @Test("an idle notification made and destroyed leaves no deadline behind: after input the tick sleeps, rather than waking for a timeout that is gone")
    func goneTimeoutLeavesNoDeadline() throws {
        let fixture = try ProtocolFixture()
        defer { fixture.end() }
        let client = try fixture.connect()
        let notification = try IdleProtocolTests.notification(client, after: 40)
        try fixture.roundtrip(client)
        let tick = try #require(fixture.server.sessionTick)
        client.request(notification, "destroy")
        try fixture.roundtrip(client)
        fixture.tap(1, x: 50, y: 50)
        try fixture.roundtrip(client)
        SessionTickTests.serve(fixture, for: 0.2)
        Self.expectTickSleeps(fixture, tick, for: 0.1)
    }

    @Test("a live inhibitor on a shown surface holds an idle notification and [idle]'s timer without the tick running every frame; hiding the surface lets the tick see it at the next frame, and both go idle after their time")
    func inhibitorHoldsWithoutTicking() throws {
        let fixture = try ProtocolFixture()
        defer { fixture.end() }
        let (client, window, _, notification) = try IdleProtocolTests.inhibitedWindow(fixture, notifyAfter: 30)
        try fixture.server.shell.apply(try ServerConfiguration.parse("[idle]\nblank-after = 0.06\n", file: "idle.toml"))
        let tick = try #require(fixture.server.sessionTick)
        Self.serve(fixture, for: 0.15)
        #expect(fixture.server.protocols.seat.idle.isHeld)
        #expect(fixture.server.protocols.idleNotify.timeouts.isHeld)
        Self.expectTickSleeps(fixture, tick, for: 0.25)
        try fixture.roundtrip(client)
        #expect(client.events(of: notification).isEmpty, "held back while the inhibitor's surface is shown")
        #expect(fixture.server.router.darkOutputs.isEmpty, "the screen stays lit while the inhibitor's surface is shown")
        let runs = tick.runs
        client.request(window.surface, "attach", null, 0, 0)
        client.request(window.surface, "commit")
        try fixture.roundtrip(client)
        // Asleep before, so a run since (on a machine that stalled past the frame) was armed by the hiding too.
        #expect(tick.arming == .frame || tick.runs > runs, "hiding the inhibitor's surface arms the tick for the next frame, not \(tick.arming)")
        Self.serve(fixture, for: 3) { !client.events(of: notification, named: "idled").isEmpty && !fixture.server.router.darkOutputs.isEmpty }
        #expect(client.events(of: notification).map(\.name) == ["idled"])
        #expect(fixture.server.router.darkOutputs.count == 1)
        Self.serve(fixture, for: 0.05)
        Self.expectTickSleeps(fixture, tick, for: 0.1)
    }

    @Test("an inhibitor's client ended by its failed write at the round's flush (its socket shut for reading) arms the tick, and the idle timers go on")
    func inhibitorClientEndedInFlush() throws {
        let fixture = try ProtocolFixture()
        defer { fixture.end() }
        let (client, _, _, _) = try IdleProtocolTests.inhibitedWindow(fixture, notifyAfter: 30)
        let watcher = try fixture.connect("watcher")
        let notification = try IdleProtocolTests.notification(watcher, after: 30)
        try fixture.roundtrip(watcher)
        try fixture.server.shell.apply(try ServerConfiguration.parse("[idle]\nblank-after = 0.06\n", file: "idle.toml"))
        let tick = try #require(fixture.server.sessionTick)
        Self.serve(fixture, for: 0.15)
        #expect(fixture.server.protocols.idleNotify.timeouts.isHeld)
        Self.expectTickSleeps(fixture, tick, for: 0.1)
        let (runs, clients) = (tick.runs, fixture.server.fuzzingCensus.clients)
        // The session still reads it, so nothing ends it but a write: the flush that ends the
        // round answering its sync fails (EPIPE), and libwayland destroys it there, after the
        // round has looked at the inhibitors.
        #expect(shutdown(wl_display_get_fd(try #require(client.display)), Int32(SHUT_RD)) == 0)
        _ = client.sync()
        for _ in 0..<50 where fixture.server.fuzzingCensus.clients == clients { fixture.serveOnce() }
        #expect(fixture.server.fuzzingCensus.clients == clients - 1, "the session ended the client it could not write to")
        #expect(tick.arming == .frame || tick.runs > runs, "its inhibitor's end arms the tick for the next frame, not \(tick.arming)")
        Self.serve(fixture, for: 3) { !watcher.events(of: notification, named: "idled").isEmpty && !fixture.server.router.darkOutputs.isEmpty }
        #expect(watcher.events(of: notification).map(\.name) == ["idled"])
        #expect(fixture.server.router.darkOutputs.count == 1, "the screen went dark")
    }

    @Test("frame work waiting arms the tick for the next frame, or sooner when an idle timeout is due within the frame, and the timeout is sent")
    func timeoutDueWithinFrame() throws {
        let fixture = try ProtocolFixture()
        defer { fixture.end() }
        let client = try fixture.connect()
        let tick = try #require(fixture.server.sessionTick)
        // The milliseconds last armed stay when the tick runs: on a machine that stalls past
        // the frame they still say what it was armed for.
        let surface = try client.createSurface()
        _ = try #require(client.request(surface, "frame"))
        client.request(surface, "commit")
        try fixture.roundtrip(client)
        #expect(tick.armedMilliseconds == tick.period, "nothing due sooner than a frame")
        Self.serve(fixture, for: 0.1)
        #expect(tick.arming == .asleep)
        let notification = try IdleProtocolTests.notification(client, after: 8)
        _ = try #require(client.request(surface, "frame"))
        client.request(surface, "commit")
        try fixture.roundtrip(client)
        #expect(tick.armedMilliseconds <= 8 && tick.armedMilliseconds < tick.period, "armed for \(tick.armedMilliseconds) ms with a timeout due in 8")
        Self.serve(fixture, for: 1) { !client.events(of: notification, named: "idled").isEmpty }
        #expect(client.events(of: notification).map(\.name) == ["idled"])
    }

    @Test("pointer motion shows the cursor and arms the tick for its hiding, with no other work: it hides on time, and the tick sleeps again")
    func cursorHides() throws {
        let fixture = try ProtocolFixture()
        defer { fixture.end() }
        try fixture.server.shell.apply(try ServerConfiguration.parse("[cursor]\nhide-after-ms = 60\n", file: "cursor.toml"))
        Self.serve(fixture, for: 0.05)
        let tick = try #require(fixture.server.sessionTick)
        #expect(tick.arming == .asleep, "a hidden cursor waits for nothing")
        fixture.server.inject(.pointerMotionAbsolute(device: WaylandServer.injectionDevice, time: fixture.now, position: Point(x: 100, y: 100)))
        #expect(fixture.server.cursor.visible)
        guard case .deadline(let deadline) = tick.arming else {
            Issue.record("the tick is \(tick.arming) after the motion, not armed for the cursor's deadline")
            return
        }
        #expect(deadline == fixture.server.cursor.deadline)
        Self.serve(fixture, for: 3) { !fixture.server.cursor.visible }
        #expect(!fixture.server.cursor.visible)
        #expect(tick.runs >= 1 && tick.runs <= 2, "the tick hid it, running \(tick.runs) times for one deadline")
        Self.serve(fixture, for: 0.05)
        #expect(tick.arming == .asleep)
    }
}

/// An output with a screen goes quiet when nothing changes on it, and wakes for what may.
@Suite("A screen's frame clock in process: quiet after half a second of nothing new, woken by what may change the picture")
struct QuietScreenTests {
    /// A screen that takes every frame and shows it at once, counting them.
    final class CountingScreen: OutputPresenter {
        var frames = 0
        var readyForFrame: Bool { true }
        func present(_ framebuffer: Framebuffer, damage: [PixelRect]?) -> Bool {
            frames += 1
            onShown?(nil)
            return true
        }
        var onShown: ((RouterTime?) -> Void)?
    }

    static func screened() throws -> (ProtocolFixture, CountingScreen, OutputFrameClock) {
        let fixture = try ProtocolFixture()
        let screen = CountingScreen()
        let output = try #require(fixture.server.outputs.first)
        try fixture.server.setPresenter(screen, forOutput: output.name)
        let clock = try #require(fixture.server.protocols.output.frameClocks[output.id])
        return (fixture, screen, clock)
    }

    static func serveUntilQuiet(_ fixture: ProtocolFixture, _ clock: OutputFrameClock) {
        SessionTickTests.serve(fixture, for: 3) { clock.quiet }
    }

    @Test("with nothing new the screen's clock goes quiet and looks about four times a second, not sixty; its own look does not wake it")
    func goesQuiet() throws {
        let (fixture, screen, clock) = try Self.screened()
        defer { fixture.end() }
        Self.serveUntilQuiet(fixture, clock)
        #expect(clock.quiet)
        #expect(screen.frames >= 1, "the first frame was shown whole")
        let deadlines = clock.deadlinesRun, frames = screen.frames
        SessionTickTests.serve(fixture, for: 0.6)
        // Two or three looks; four if a stalled machine let one fall due just as it began.
        #expect(clock.deadlinesRun - deadlines <= 4, "\(clock.deadlinesRun - deadlines) deadlines in 0.6 s")
        #expect(clock.quiet)
        #expect(screen.frames == frames, "nothing new was shown")
    }

    @Test("pointer motion wakes a quiet screen at once, and the cursor it shows reaches the screen")
    func pointerWakes() throws {
        let (fixture, screen, clock) = try Self.screened()
        defer { fixture.end() }
        Self.serveUntilQuiet(fixture, clock)
        let frames = screen.frames
        fixture.server.inject(.pointerMotionAbsolute(device: WaylandServer.injectionDevice, time: fixture.now, position: Point(x: 300, y: 200)))
        #expect(!clock.quiet, "woken by the motion itself, before any round")
        SessionTickTests.serve(fixture, for: 1) { screen.frames > frames }
        #expect(screen.frames > frames, "the cursor was shown")
    }

    @Test("a client's new window, its commits and its window's end wake a quiet screen at once, each shown; a screen's power changing wakes it too")
    func commitsAndPowerWake() throws {
        let (fixture, screen, clock) = try Self.screened()
        defer { fixture.end() }
        let client = try fixture.connect()
        Self.serveUntilQuiet(fixture, clock)
        var frames = screen.frames
        let window = try fixture.mapToplevel(client)
        // Within the roundtrip, far sooner than the next look: woken, and shown or about to be.
        #expect(!clock.quiet || screen.frames > frames, "the rounds that mapped the window woke it")
        SessionTickTests.serve(fixture, for: 1) { screen.frames > frames }
        #expect(screen.frames > frames, "the window was shown")

        Self.serveUntilQuiet(fixture, clock)
        frames = screen.frames
        try client.show(window.surface, width: 200, height: 200, argb: 0xFF11_2233)
        try fixture.roundtrip(client)
        #expect(!clock.quiet, "the commit woke it")
        SessionTickTests.serve(fixture, for: 1) { screen.frames > frames }
        #expect(screen.frames > frames, "the new buffer was shown")

        // No commit reaches the screen here: the tree changing is what wakes it.
        Self.serveUntilQuiet(fixture, clock)
        frames = screen.frames
        client.request(window.toplevel, "destroy")
        try fixture.roundtrip(client)
        #expect(!clock.quiet, "the settle after the window went woke it")
        SessionTickTests.serve(fixture, for: 1) { screen.frames > frames }
        #expect(screen.frames > frames, "the window's end was shown")

        Self.serveUntilQuiet(fixture, clock)
        let output = try #require(fixture.server.outputs.first)
        fixture.server.powerOutputs([output.id], to: .dimmed, blanking: .black)
        #expect(!clock.quiet, "dimming wakes it")
    }
}
