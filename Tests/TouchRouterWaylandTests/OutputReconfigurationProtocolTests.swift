import Foundation
import Testing
import TouchRouterConfig
import TouchRouterCore
import TouchRouterWayland

/// Outputs reconfigured while clients run (`msg output set`, `[[output]]`), in process: what
/// wl_output, xdg_output, a kiosk window, a lock surface and a finger down on the output see.
@Suite("Outputs reconfigured in process: wl_output and xdg_output follow, kiosk windows and lock surfaces are configured again, fingers down are cancelled")
struct OutputReconfigurationProtocolTests {
    /// A screen that refuses every mode, as a drm connector lacking it does.
    final class RefusingScreen: OutputModeSetter {
        var asked: [OutputMode] = []
        func setMode(_ mode: OutputMode, onOutput name: String) throws -> OutputMode {
            asked.append(mode)
            throw FixtureError("no mode \(mode.width)x\(mode.height)")
        }
    }

    /// A screen whose one mode is 1280x720 at 59.94 Hz: any 1280x720 asked for is that one.
    final class SnappingScreen: OutputModeSetter {
        func setMode(_ mode: OutputMode, onOutput name: String) throws -> OutputMode {
            var set = mode
            set.refreshMilliHertz = 59_940
            return set
        }
    }

    static func kiosk(_ modes: [OutputMode] = [OutputMode(width: 1280, height: 720)]) throws -> ProtocolFixture {
        try ProtocolFixture {
            $0.kiosk = true
            $0.outputs = modes
        }
    }

    @Test("turned to portrait: a finger down is cancelled and its up reaches nobody; wl_output says transform 90 with the panel's mode, xdg_output the portrait size; the kiosk window is configured 720x1280, and a tap at the bottom lands in it")
    func turnToPortrait() throws {
        let fixture = try Self.kiosk()
        defer { fixture.end() }
        let app = try fixture.connect("app")
        let output = try app.global("wl_output", version: 4)
        let xdgOutput = try #require(app.request(try app.global("zxdg_output_manager_v1", version: 3), "get_xdg_output", output))
        let window = try fixture.mapToplevel(app, width: 1280, height: 720)
        #expect(app.lastConfigure(of: window).map { [$0.width, $0.height] } == [1280, 720])
        let touch = try #require(app.request(try app.seat, "get_touch"))
        try fixture.roundtrip(app)
        fixture.touchDown(1, x: 640, y: 360)
        try fixture.roundtrip(app)
        #expect(app.events(of: touch).map(\.name) == ["down", "frame"])
        let outputEventsBefore = app.events(of: output).count

        let mode = try fixture.server.setOutput(named: "HEADLESS-1", OutputChange(transform: .rotated90))
        #expect(mode.transform == .rotated90 && mode.width == 1280 && mode.height == 720)
        try fixture.roundtrip(app)
        #expect(app.events(of: touch).map(\.name) == ["down", "frame", "cancel"], "the finger down is cancelled")
        let changed = Array(app.events(of: output).dropFirst(outputEventsBefore))
        #expect(changed.map(\.name) == ["geometry", "mode", "scale", "description", "done"])
        #expect(changed.first?.int(7) == 1, "geometry's transform is 90")
        #expect(changed.dropFirst().first.map { [$0.int(1), $0.int(2)] } == [1280, 720], "the mode is the panel's, unturned")
        #expect(app.events(of: xdgOutput, named: "logical_size").last.map { [$0.int(0), $0.int(1)] } == [720, 1280])
        #expect(app.lastConfigure(of: window).map { [$0.width, $0.height] } == [720, 1280], "the kiosk window is configured to the portrait output")
        #expect(fixture.server.tree.outputs.first?.rect == Rect(x: 0, y: 0, width: 720, height: 1280))

        fixture.touchUp(1)
        try fixture.roundtrip(app)
        #expect(app.events(of: touch).map(\.name) == ["down", "frame", "cancel"], "the cancelled finger's up reaches nobody")
        try app.ackAndDraw(window, width: 720, height: 1280)
        try fixture.roundtrip(app)
        fixture.tap(2, x: 700, y: 1200)
        try fixture.roundtrip(app)
        let down = try #require(app.events(of: touch, named: "down").last)
        #expect([down.fixed(4), down.fixed(5)] == [700, 1200], "a tap at the portrait output's bottom lands there in the window")
    }

    @Test("scale 2: wl_output says 2, xdg_output and the layout half the mode, fractional scale 240; the kiosk window is configured 640x360 and its scale-2 buffer fills the 1280x720 picture; a tap lands at the logical point; a screen capture is 1280x720")
    func scaleTwo() throws {
        let fixture = try ProtocolFixture {
            $0.kiosk = true
            $0.outputs = [OutputMode(width: 1280, height: 720)]
            $0.grantedToEveryClient = [.screenCapture]
        }
        defer { fixture.end() }
        let app = try fixture.connect("app")
        let output = try app.global("wl_output", version: 4)
        let xdgOutput = try #require(app.request(try app.global("zxdg_output_manager_v1", version: 3), "get_xdg_output", output))
        let window = try fixture.mapToplevel(app, width: 1280, height: 720)
        let fractional = try #require(app.request(try app.global("wp_fractional_scale_manager_v1", version: 1), "get_fractional_scale", window.surface))
        let touch = try #require(app.request(try app.seat, "get_touch"))
        try fixture.roundtrip(app)
        #expect(app.events(of: output, named: "scale").last?.int(0) == 1)
        #expect(app.events(of: fractional, named: "preferred_scale").last?.uint(0) == 120)

        let mode = try fixture.server.setOutput(named: "HEADLESS-1", OutputChange(scale: 2))
        #expect(mode.scale == 2 && mode.width == 1280 && mode.height == 720)
        try fixture.roundtrip(app)
        #expect(app.events(of: output, named: "scale").last?.int(0) == 2)
        #expect(app.events(of: xdgOutput, named: "logical_size").last.map { [$0.int(0), $0.int(1)] } == [640, 360])
        #expect(app.events(of: fractional, named: "preferred_scale").last?.uint(0) == 240, "fractional scale follows the output's")
        #expect(app.lastConfigure(of: window).map { [$0.width, $0.height] } == [640, 360])
        #expect(fixture.server.tree.outputs.first?.rect == Rect(x: 0, y: 0, width: 640, height: 360))

        // A buffer of 640x720 at buffer scale 2: a surface of 320x360, the panel's left 640x720.
        let configure = try #require(app.lastConfigure(of: window))
        app.request(window.xdgSurface, "ack_configure", configure.serial)
        app.request(window.surface, "set_buffer_scale", Int32(2))
        try app.show(window.surface, width: 640, height: 720, argb: 0xFF00_00FF)
        try fixture.roundtrip(app)
        let picture = try fixture.server.compose().framebuffer
        #expect(picture.width == 1280 && picture.height == 720, "the framebuffer is the panel's pixels")
        for (x, y, argb) in [(0, 0, 0xFF00_00FF), (639, 719, 0xFF00_00FF), (640, 0, SoftwareComposer.background), (0, 719, 0xFF00_00FF)] as [(Int, Int, UInt32)] {
            #expect(picture.pixel(x, y) == argb, "(\(x), \(y)): \(String(picture.pixel(x, y) ?? 0, radix: 16))")
        }
        fixture.tap(1, x: 300, y: 300)
        try fixture.roundtrip(app)
        let down = try #require(app.events(of: touch, named: "down").last)
        #expect([down.fixed(4), down.fixed(5)] == [300, 300], "touch is in layout (logical) points")

        let capture = try #require(app.request(try app.global("zwlr_screencopy_manager_v1", version: 3), "capture_output", Int32(0), output))
        try fixture.roundtrip(app)
        let offered = try #require(app.events(of: capture, named: "buffer").first)
        #expect([offered.uint(1), offered.uint(2)] == [1280, 720], "a capture is of the panel's pixels")
        let region = try #require(app.request(try app.global("zwlr_screencopy_manager_v1", version: 3), "capture_output_region", Int32(0), output,
                                              Int32(10), Int32(10), Int32(100), Int32(50)))
        try fixture.roundtrip(app)
        #expect(app.events(of: region, named: "buffer").first.map { [$0.uint(1), $0.uint(2)] } == [200, 100], "a region is logical, its buffer the panel's pixels")
    }

    @Test("a new mode moves the output right of it and tells its clients; a lock surface on the changed output is configured to the new size")
    func modeMovesNeighbourAndLock() throws {
        let fixture = try ProtocolFixture {
            $0.outputs = [OutputMode(width: 1280, height: 720), OutputMode(width: 640, height: 480)]
            $0.grantedToEveryClient = [.sessionLock]
        }
        defer { fixture.end() }
        let locker = try fixture.connect("locker")
        let lock = try SessionLockProtocolTests.lock(fixture, locker)
        let (_, role) = try SessionLockProtocolTests.lockSurface(locker, lock, fixture)
        #expect(locker.events(of: role, named: "configure").last.map { [$0.uint(1), $0.uint(2)] } == [1280, 720])
        let watcher = try fixture.connect("watcher")
        let secondOutput = try #require(watcher.bind("wl_output", version: 4, index: 1))
        try fixture.roundtrip(watcher)
        #expect(watcher.events(of: secondOutput, named: "geometry").last?.int(0) == 1280)

        try fixture.server.setOutput(named: "HEADLESS-1", OutputChange(mode: ModeText("800x600")))
        try fixture.roundtrip()
        #expect(locker.events(of: role, named: "configure").last.map { [$0.uint(1), $0.uint(2)] } == [800, 600], "the lock surface is configured again")
        #expect(watcher.events(of: secondOutput, named: "geometry").last?.int(0) == 800, "the output right of it moved to its new edge")
        #expect(fixture.server.tree.outputs.map(\.rect) == [Rect(x: 0, y: 0, width: 800, height: 600), Rect(x: 800, y: 0, width: 640, height: 480)])
        // An unchanged request changes nothing and tells nobody.
        let count = watcher.events.count
        try fixture.server.setOutput(named: "HEADLESS-1", OutputChange(mode: ModeText("800x600")))
        try fixture.roundtrip(watcher)
        #expect(watcher.events.count == count + 1, "only the sync's done")
    }

    @Test("a mode the screen answers with the one it has (its nearest refresh) changes nothing: no finger is cancelled, no client hears anything")
    func sameModeFromTheScreen() throws {
        let fixture = try Self.kiosk([OutputMode(width: 1280, height: 720, refreshMilliHertz: 59_940)])
        defer { fixture.end() }
        // The session holds its screen weakly, as the backend owns it.
        let screen = SnappingScreen()
        fixture.server.outputModeSetter = screen
        let app = try fixture.connect("app")
        let output = try app.global("wl_output", version: 4)
        _ = try fixture.mapToplevel(app, width: 1280, height: 720)
        let touch = try #require(app.request(try app.seat, "get_touch"))
        try fixture.roundtrip(app)
        fixture.touchDown(1, x: 100, y: 100)
        try fixture.roundtrip(app)
        let before = app.events(of: output).count
        let mode = try fixture.server.setOutput(named: "HEADLESS-1", OutputChange(mode: ModeText("1280x720@60")))
        #expect(mode.refreshMilliHertz == 59_940)
        try fixture.roundtrip(app)
        #expect(app.events(of: output).count == before, "nothing to tell")
        #expect(app.events(of: touch).map(\.name) == ["down", "frame"], "the finger is not cancelled")
        fixture.touchUp(1)
        try fixture.roundtrip(app)
        #expect(app.events(of: touch).map(\.name) == ["down", "frame", "up", "frame"])
        withExtendedLifetime(screen) {}
    }

    @Test("a mode the screen refuses keeps the output as it was, with the screen's reason; no client hears anything")
    func refused() throws {
        let fixture = try Self.kiosk()
        defer { fixture.end() }
        let screen = RefusingScreen()
        fixture.server.outputModeSetter = screen
        let app = try fixture.connect("app")
        let output = try app.global("wl_output", version: 4)
        try fixture.roundtrip(app)
        let before = app.events(of: output).count
        #expect {
            try fixture.server.setOutput(named: "HEADLESS-1", OutputChange(mode: ModeText("1234x567"), transform: .rotated270))
        } throws: { error in
            "\(error)" == "HEADLESS-1: no mode 1234x567; it keeps 1280x720@60.0, transform normal, scale 1"
        }
        #expect(screen.asked.map { [$0.width, $0.height, Int($0.transform.rawValue)] } == [[1234, 567, 3]])
        try fixture.roundtrip(app)
        #expect(app.events(of: output).count == before)
        #expect(fixture.server.tree.outputs.first?.rect == Rect(x: 0, y: 0, width: 1280, height: 720))
        #expect(throws: WaylandError.self) { try fixture.server.setOutput(named: "HDMI-A-9", OutputChange(transform: .rotated90)) }
    }

    @Test("[[output]] tables wait for the backend, then apply; a reload without them puts the backend's mode back; a refused one is reported, the rest applied")
    func rules() throws {
        let fixture = try Self.kiosk([OutputMode(width: 1280, height: 720), OutputMode(width: 640, height: 480)])
        defer { fixture.end() }
        var configuration = ServerConfiguration()
        configuration.outputs = [OutputRule(name: "HEADLESS-1", transform: .rotated270), OutputRule(name: "HEADLESS-2", width: 320, height: 240),
                                 OutputRule(name: "NOT-HERE", transform: .rotated90)]
        try fixture.server.shell.apply(configuration)
        #expect(fixture.server.tree.outputs.map(\.rect.width) == [1280, 640], "before the backend is attached, nothing is set")
        fixture.server.startApplyingOutputRules()
        #expect(fixture.server.tree.outputs.map(\.rect) == [Rect(x: 0, y: 0, width: 720, height: 1280), Rect(x: 720, y: 0, width: 320, height: 240)])
        #expect(fixture.server.outputModes["HEADLESS-1"]?.transform == .rotated270)

        try fixture.server.shell.apply(ServerConfiguration())
        #expect(fixture.server.tree.outputs.map(\.rect) == [Rect(x: 0, y: 0, width: 1280, height: 720), Rect(x: 1280, y: 0, width: 640, height: 480)])
        #expect(fixture.server.shell.outputProblems.isEmpty)

        let screen = RefusingScreen()
        fixture.server.outputModeSetter = screen
        configuration.outputs = [OutputRule(name: "HEADLESS-2", width: 320, height: 240, position: SourcePosition(line: 7, column: 1))]
        try fixture.server.shell.apply(configuration)
        #expect(fixture.server.shell.outputProblems == ["[[output]] \"HEADLESS-2\" at line 7: HEADLESS-2: no mode 320x240; it keeps 640x480@60.0, transform normal, scale 1"])
        #expect(fixture.server.tree.outputs.map(\.rect.width) == [1280, 640])
    }

    @Test("frame-margin-ms fixes an output's composition margin; a reload without it measures again; an output that appears takes its table's")
    func configuredFrameMargin() throws {
        let fixture = try Self.kiosk([OutputMode(width: 1280, height: 720), OutputMode(width: 640, height: 480)])
        defer { fixture.end() }
        func margin(_ name: String) -> Int64? {
            fixture.server.outputs.first { $0.name == name }.flatMap { fixture.server.protocols.output.frameClocks[$0.id]?.schedule.margin }
        }
        #expect(margin("HEADLESS-1") == FrameSchedule.minimumMargin)
        var configuration = ServerConfiguration()
        configuration.outputs = [OutputRule(name: "HEADLESS-1", frameMargin: 4_000_000), OutputRule(name: "HEADLESS-3", frameMargin: 50_000_000)]
        try fixture.server.shell.apply(configuration)
        fixture.server.startApplyingOutputRules()
        #expect(margin("HEADLESS-1") == 4_000_000)
        #expect(margin("HEADLESS-2") == FrameSchedule.minimumMargin, "no table: measured")

        try fixture.server.addOutput(OutputIdentity(name: "HEADLESS-3", make: "TouchRouter", model: "virtual"), mode: OutputMode(width: 320, height: 240))
        #expect(margin("HEADLESS-3") == 16_666_666, "more than a period is a period: composed right after the last vblank")

        try fixture.server.shell.apply(ServerConfiguration())
        #expect(margin("HEADLESS-1") == FrameSchedule.minimumMargin)
        #expect(margin("HEADLESS-3") == FrameSchedule.minimumMargin)

        // msg output set fixes it at run time, as swaymsg's max_render_time, leaving the mode; measured gives it back.
        let mode = fixture.server.outputs[0].mode
        try fixture.server.setOutput(named: "HEADLESS-1", OutputChange(frameMargin: .fixed(nanoseconds: 7_500_000)))
        #expect(margin("HEADLESS-1") == 7_500_000)
        #expect(fixture.server.frameMargin(ofOutput: "HEADLESS-1") == 7_500_000)
        #expect(fixture.server.outputs[0].mode == mode)
        try fixture.server.setOutput(named: "HEADLESS-1", OutputChange(frameMargin: .measured))
        #expect(margin("HEADLESS-1") == FrameSchedule.minimumMargin)
        try fixture.server.setOutput(named: "HEADLESS-1", OutputChange(frameMargin: .fixed(nanoseconds: 2_000_000)))
        try fixture.server.shell.apply(ServerConfiguration())
        #expect(margin("HEADLESS-1") == FrameSchedule.minimumMargin, "a reload sets it as the file says, as it does the mode")
    }
}
