import Foundation
import Testing
import TouchRouterConfig
import TouchRouterCore
import TouchRouterWayland
import CWaylandClientShim

/// wlr-screencopy in process: the picture, the damage since a client's last copy, regions,
/// and the errors.
@Suite("Screen capture in process: the output's picture in the client's buffer, damage, regions, errors")
struct ScreencopyProtocolTests {
    static func fixture() throws -> ProtocolFixture { try ProtocolFixture { $0.grantedToEveryClient = [.screenCapture] } }

    /// A capture of the first output (or a region) and the buffer it asks for, copied with or
    /// without damage; the frame and the memory the client reads the picture from.
    static func capture(_ client: WireClient, region: (Int32, Int32, Int32, Int32)? = nil, withDamage: Bool = false, overlayCursor: Bool = false,
                        _ fixture: ProtocolFixture) throws -> (frame: Proxy, pixels: UnsafeMutablePointer<UInt32>, width: Int, height: Int) {
        let manager = try client.global("zwlr_screencopy_manager_v1", version: 3)
        let output = try client.global("wl_output", version: 4)
        let frame: Proxy
        let cursor = Int32(overlayCursor ? 1 : 0)
        if let (x, y, w, h) = region {
            frame = try #require(client.request(manager, "capture_output_region", cursor, output, x, y, w, h))
        } else {
            frame = try #require(client.request(manager, "capture_output", cursor, output))
        }
        try fixture.roundtrip(client)
        let buffer = try #require(client.events(of: frame, named: "buffer").first)
        #expect(client.events(of: frame).last?.name == "buffer_done")
        #expect(buffer.uint(0) == 1, "XRGB8888")
        let width = Int(buffer.uint(1)!), height = Int(buffer.uint(2)!)
        #expect(buffer.uint(3) == UInt32(width * 4))
        let size = width * height * 4
        let fd = trc_shm_file(size)
        defer { close(fd) }
        let pixels = try #require(trc_map_shared(fd, size)).bindMemory(to: UInt32.self, capacity: width * height)
        let pool = try #require(client.request(try client.shm, "create_pool", FileDescriptor(fd: fd), Int32(size)))
        let wlBuffer = try #require(client.request(pool, "create_buffer", 0, Int32(width), Int32(height), Int32(width * 4), 1))
        client.request(frame, withDamage ? "copy_with_damage" : "copy", wlBuffer)
        try fixture.roundtrip(client)
        return (frame, pixels, width, height)
    }

    static func serveUntilEnded(_ fixture: ProtocolFixture, _ client: WireClient, _ frame: Proxy) {
        IdleProtocolTests.serve(fixture) { client.events(of: frame).contains { $0.name == "ready" || $0.name == "failed" } }
    }

    @Test("a copy is the composed picture, flagged not inverted, damaged whole, then ready; copy_with_damage waits for the next change and is damaged only where it changed")
    func pictureAndDamage() throws {
        let fixture = try Self.fixture()
        defer { fixture.end() }
        let app = try fixture.connect("app")
        let window = try fixture.mapToplevel(app, width: 200, height: 100)
        let capturer = try fixture.connect("capturer")
        let first = try Self.capture(capturer, fixture)
        Self.serveUntilEnded(fixture, capturer, first.frame)
        #expect(capturer.events(of: first.frame).map(\.name) == ["buffer", "buffer_done", "flags", "damage", "ready"])
        #expect(capturer.events(of: first.frame, named: "flags").first?.uint(0) == 0)
        #expect(capturer.events(of: first.frame, named: "damage").first.map { [$0.uint(0), $0.uint(1), $0.uint(2), $0.uint(3)] } == [0, 0, 1920, 1080])
        let composed = try fixture.server.compose().framebuffer
        #expect(first.width == 1920 && first.height == 1080)
        for (x, y) in [(10, 10), (150, 50), (1000, 700)] {
            #expect(first.pixels[y * first.width + x] == composed.pixel(x, y), "(\(x), \(y))")
        }

        let second = try Self.capture(capturer, withDamage: true, fixture)
        let until = Date().addingTimeInterval(0.2)
        IdleProtocolTests.serve(fixture) { Date() > until }
        #expect(capturer.events(of: second.frame, named: "ready").isEmpty, "nothing changed: copy_with_damage waits")
        // The window draws a 20x10 patch red.
        app.request(window.surface, "attach", try app.buffer(width: 200, height: 100, argb: 0xFFFF_0000), 0, 0)
        app.request(window.surface, "damage", 0, 0, 20, 10)
        app.request(window.surface, "commit")
        try fixture.roundtrip(app)
        Self.serveUntilEnded(fixture, capturer, second.frame)
        let damage = capturer.events(of: second.frame, named: "damage").map { [$0.uint(0)!, $0.uint(1)!, $0.uint(2)!, $0.uint(3)!] }
        #expect(!damage.isEmpty && damage.allSatisfy { $0[2] < 1920 || $0[3] < 1080 }, "damaged where it changed, not whole: \(damage)")
        let origin = try #require(fixture.toplevels(of: app).first?.originInOutput)
        #expect(second.pixels[(origin.dy + 5) * 1920 + origin.dx + 5] & 0xFFFFFF == 0xFF0000, "the red patch is in the copy")
    }

    @Test("a region is captured at its size, clipped to the output; a region outside it fails")
    func region() throws {
        let fixture = try Self.fixture()
        defer { fixture.end() }
        let client = try fixture.connect()
        _ = try fixture.mapToplevel(client)
        let inside = try Self.capture(client, region: (1900, 1000, 100, 100), fixture)
        Self.serveUntilEnded(fixture, client, inside.frame)
        #expect(inside.width == 20 && inside.height == 80, "clipped to the output")
        #expect(client.events(of: inside.frame, named: "ready").count == 1)
        let manager = try client.global("zwlr_screencopy_manager_v1", version: 3)
        let outside = try #require(client.request(manager, "capture_output_region", Int32(0), try client.global("wl_output", version: 4), Int32(5000), Int32(0), Int32(10), Int32(10)))
        try fixture.roundtrip(client)
        #expect(client.events(of: outside).map(\.name) == ["failed"])
    }

    @Test("a buffer destroyed after copy and before the frame tick fails the frame; the session goes on")
    func bufferDestroyed() throws {
        let fixture = try Self.fixture()
        defer { fixture.end() }
        let client = try fixture.connect()
        let manager = try client.global("zwlr_screencopy_manager_v1", version: 3)
        let frame = try #require(client.request(manager, "capture_output", Int32(0), try client.global("wl_output", version: 4)))
        try fixture.roundtrip(client)
        let buffer = try client.buffer(width: 1920, height: 1080, fill: false)
        client.request(frame, "copy", buffer)
        client.request(buffer, "destroy")
        try fixture.roundtrip(client)
        Self.serveUntilEnded(fixture, client, frame)
        #expect(client.events(of: frame).last?.name == "failed")
        let again = try Self.capture(client, fixture)
        Self.serveUntilEnded(fixture, client, again.frame)
        #expect(client.events(of: again.frame).last?.name == "ready")
    }

    @Test("errors: a buffer of the wrong size is invalid_buffer; a second copy of one frame is already_used", arguments: ["invalid_buffer", "already_used"])
    func errors(_ kind: String) throws {
        let fixture = try Self.fixture()
        defer { fixture.end() }
        let client = try fixture.connect()
        let manager = try client.global("zwlr_screencopy_manager_v1", version: 3)
        let frame = try #require(client.request(manager, "capture_output", Int32(0), try client.global("wl_output", version: 4)))
        try fixture.roundtrip(client)
        if kind == "invalid_buffer" {
            client.request(frame, "copy", try client.buffer(width: 100, height: 100))
            let report = fixture.expectProtocolError(client, interface: "zwlr_screencopy_frame_v1", code: 1)
            #expect(report?.message.contains("1920x1080") == true, "\(String(describing: report))")
        } else {
            let buffer = try client.buffer(width: 1920, height: 1080, fill: false)
            client.request(frame, "copy", buffer)
            client.request(frame, "copy", buffer)
            fixture.expectProtocolError(client, interface: "zwlr_screencopy_frame_v1", code: 0)
        }
    }
}

/// The session's tick while screen capture waits for damage (SessionTick.swift).
@Suite("Screen capture and the session's tick: a capture waiting for damage is looked at when the picture may change, not every frame")
struct CaptureWaitTests {
    @Test("with only copy_with_damage waiting and nothing changing, the tick runs about four times a second; a new capturer's frame, a moved cursor and a commit each arm it for the next frame")
    func damageWaitIsQuiet() throws {
        let fixture = try ScreencopyProtocolTests.fixture()
        defer { fixture.end() }
        let app = try fixture.connect("app")
        let window = try fixture.mapToplevel(app, width: 200, height: 100)
        let capturer = try fixture.connect("capturer")
        let first = try ScreencopyProtocolTests.capture(capturer, fixture)
        ScreencopyProtocolTests.serveUntilEnded(fixture, capturer, first.frame)
        let waiting = try ScreencopyProtocolTests.capture(capturer, withDamage: true, fixture)
        SessionTickTests.serve(fixture, for: 0.1)
        let tick = try #require(fixture.server.sessionTick)
        let runs = tick.runs
        SessionTickTests.serve(fixture, for: 0.6)
        // Two or three looks in 0.6 s, one more if a stalled machine let one fall due at once; every frame would be 36.
        #expect(tick.runs - runs <= 4, "the tick ran \(tick.runs - runs) times in 0.6 s with nothing changing")
        #expect(capturer.events(of: waiting.frame, named: "ready").isEmpty, "nothing changed: it still waits")

        // A new capturer's first copy_with_damage, asked while the tick waits for a change, has
        // everything to copy: it is not held for the next look.
        let other = try fixture.connect("other")
        let fresh = try ScreencopyProtocolTests.capture(other, withDamage: true, fixture)
        #expect(tick.arming == .frame || !other.events(of: fresh.frame, named: "ready").isEmpty, "the new frame armed the tick for the next frame")
        ScreencopyProtocolTests.serveUntilEnded(fixture, other, fresh.frame)
        #expect(other.events(of: fresh.frame, named: "ready").count == 1)
        #expect(capturer.events(of: waiting.frame, named: "ready").isEmpty, "the first capturer's frame still waits")

        // The cursor shown, then moved: the motion alone (no stamp changes) is a look's reason.
        fixture.server.inject(.pointerMotionAbsolute(device: WaylandServer.injectionDevice, time: fixture.now, position: Point(x: 900, y: 500)))
        SessionTickTests.serve(fixture, for: 0.1)
        let pointed = try ScreencopyProtocolTests.capture(other, withDamage: true, fixture)
        ScreencopyProtocolTests.serveUntilEnded(fixture, other, pointed.frame)
        let quietPointer = try ScreencopyProtocolTests.capture(other, withDamage: true, fixture)
        SessionTickTests.serve(fixture, for: 0.1)
        fixture.server.inject(.pointerMotionAbsolute(device: WaylandServer.injectionDevice, time: fixture.now, position: Point(x: 905, y: 505)))
        #expect(tick.arming == .frame, "the motion armed the tick for the next frame: \(tick.arming)")
        ScreencopyProtocolTests.serveUntilEnded(fixture, other, quietPointer.frame)
        #expect(other.events(of: quietPointer.frame, named: "ready").count == 1, "the moved cursor was copied")

        app.request(window.surface, "attach", try app.buffer(width: 200, height: 100, argb: 0xFF00_FF00), 0, 0)
        app.request(window.surface, "damage", 0, 0, 20, 10)
        app.request(window.surface, "commit")
        try fixture.roundtrip(app)
        #expect(tick.arming == .frame || !capturer.events(of: waiting.frame, named: "ready").isEmpty, "the commit armed the tick for the next frame")
        ScreencopyProtocolTests.serveUntilEnded(fixture, capturer, waiting.frame)
        #expect(capturer.events(of: waiting.frame, named: "ready").count == 1)
    }
}
