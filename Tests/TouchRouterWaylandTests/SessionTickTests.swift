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
        let tick = try #require(fixture.server.sessionTick)
        let runs = tick.runs
        Self.serve(fixture, for: 0.15)
        #expect(tick.runs == runs, "the tick ran \(tick.runs - runs) times with nothing waiting")
        #expect(tick.arming == .asleep)
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
        #expect(tick.arming == .frame, "armed by the round that took the callback")
        Self.serve(fixture, for: 1) { !client.events(of: callback, named: "done").isEmpty }
        #expect(client.events(of: callback, named: "done").count == 1)
        #expect(tick.runs >= 1)
        Self.serve(fixture, for: 0.05)
        #expect(tick.arming == .asleep)
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
        #expect(fixture.server.clock.now() >= deadline, "hidden at its deadline, not before")
        #expect(tick.runs <= 2, "the tick ran \(tick.runs) times for one deadline")
        Self.serve(fixture, for: 0.05)
        #expect(tick.arming == .asleep)
    }
}
