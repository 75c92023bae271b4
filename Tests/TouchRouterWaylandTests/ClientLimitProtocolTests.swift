import Foundation
import Testing
import TouchRouterCore
import TouchRouterWayland

/// Clients at and past what one client may do (`ClientLimits`, README's "What one client may
/// do"), each beside a well-behaved client holding a touch down, in process. These were
/// HostileClientTests' edgesOfInt32, pastALimit and protocolErrors with hostile-client.py
/// beside wev; that suite keeps the client that stops reading and the fuzzer's regressions.
@Suite("Client limits in process: values at int32's ends, every per-client limit, enum errors; the client beside goes on")
struct ClientLimitProtocolTests {
    /// What a hostile client did: the popup's configured box where it asked for one, and
    /// the error that ended it, if one did.
    struct Outcome {
        var box: [Int32]? = nil
    }

    /// hostile-client.py's modes, each against a fresh client of `fixture`.
    static func run(_ mode: String, _ fixture: ProtocolFixture, _ client: WireClient) throws -> Outcome {
        /// Sends `count` requests made by `body`, stopping once the session has ended the client.
        func flood(_ count: Int, _ body: (Int) throws -> Void) rethrows {
            for index in 0..<count where client.connectionError == 0 { try body(index) }
        }
        func chain(_ depth: Int, from root: Proxy) throws -> Proxy {
            var leaf = root
            for _ in 0..<depth {
                guard let child = client.request(try client.compositor, "create_surface") else { break }
                client.request(try client.subcompositor, "get_subsurface", child, leaf)
                leaf = child
            }
            return leaf
        }
        func popup(anchorRect: (Int32, Int32, Int32, Int32), offset: (Int32, Int32), anchor: UInt32, gravity: UInt32) throws -> [Int32] {
            let parent = try fixture.mapToplevel(client)
            let positioner = try #require(client.request(try client.wmBase, "create_positioner"))
            client.request(positioner, "set_size", 50, 50)
            client.request(positioner, "set_anchor_rect", anchorRect.0, anchorRect.1, anchorRect.2, anchorRect.3)
            client.request(positioner, "set_anchor", anchor)
            client.request(positioner, "set_gravity", gravity)
            client.request(positioner, "set_offset", offset.0, offset.1)
            let surface = try client.createSurface()
            let xdgSurface = try #require(client.request(try client.wmBase, "get_xdg_surface", surface))
            let popup = try #require(client.request(xdgSurface, "get_popup", parent.xdgSurface, positioner))
            client.request(surface, "commit")
            try fixture.roundtrip(client)
            let configure = try #require(client.events(of: popup, named: "configure").last)
            let serial = try #require(client.events(of: xdgSurface, named: "configure").last?.uint(0))
            client.request(xdgSurface, "ack_configure", serial)
            try client.show(surface, width: 50, height: 50)
            return (0..<4).compactMap { configure.int($0) }
        }
        func region(rectangles: Int) throws -> Proxy {
            let region = try #require(client.request(try client.compositor, "create_region"))
            flood(rectangles) { client.request(region, "add", 2 * ($0 % 100), 2 * ($0 / 100), 1, 1) }
            return region
        }

        var outcome = Outcome()
        switch mode {
        case "positioner-max":
            // Anchored right at 2^31 - 1, 1 further right: x = 2^31 + 1.
            outcome.box = try popup(anchorRect: (Int32.max, 0, 1, 1), offset: (1, 0), anchor: 4, gravity: 4)
        case "positioner-min":
            outcome.box = try popup(anchorRect: (Int32.min, 0, 1, 1), offset: (0, 0), anchor: 3, gravity: 3)
        case "damage-flood":
            let window = try fixture.mapToplevel(client)
            flood(100_000) { client.request(window.surface, "damage", $0 % 200, $0 % 199, 1, 1) }
            client.request(window.surface, "commit")
        case "offset-flood":
            let window = try fixture.mapToplevel(client)
            flood(10_000) { _ in client.request(window.surface, "offset", Int32.max, Int32.max) }
            client.request(window.surface, "commit")
        case "deep-subsurfaces":
            _ = try chain(40, from: try fixture.mapToplevel(client).surface)
        case "deep-bottom-up":
            let firstLeaf = try chain(20, from: try client.createSurface())
            let secondRoot = try client.createSurface()
            _ = try chain(20, from: secondRoot)
            client.request(try client.subcompositor, "get_subsurface", secondRoot, firstLeaf)
        case "region-flood":
            _ = try region(rectangles: 5000)
        case "huge-buffer":
            let pool = try client.pool(size: 20_000 * 4)
            client.request(pool, "create_buffer", 0, 20_000, 1, 80_000, 0)
        case "shown-pixels":
            try flood(9) { _ in
                let surface = try client.createSurface()
                client.request(surface, "attach", try client.buffer(width: 4096, height: 2048, fill: false), 0, 0)
                client.request(surface, "commit")
            }
        case "mapped-bytes":
            try flood(3) { _ in _ = try client.pool(size: 512 << 20) }
        case "surface-flood":
            try flood(4097) { _ in client.request(try client.compositor, "create_surface") }
        case "frame-flood":
            let surface = try client.createSurface()
            flood(4097) { _ in client.request(surface, "frame") }
        case "region-copies":
            let region = try region(rectangles: 4000)
            try flood(5) { _ in
                let holder = try client.createSurface()
                client.request(holder, "set_input_region", region)
                client.request(holder, "commit")
            }
        case "seat-devices":
            let seat = try client.seat
            flood(257) { _ in client.request(seat, "get_pointer") }
        case "global-binds":
            flood(1025) { _ in _ = client.bind("wl_output", version: 4) }
        case "object-flood":
            let wmBase = try client.wmBase
            flood(65_537) { _ in client.request(wmBase, "create_positioner") }
        case "bad-resize-edge":
            let seat = try client.seat
            let window = try fixture.mapToplevel(client)
            client.request(window.toplevel, "resize", seat, 0, 3)
        case "negative-min-size":
            let window = try fixture.mapToplevel(client)
            client.request(window.toplevel, "set_min_size", -1, 10)
        case "bad-action-mask":
            let source = try #require(client.request(try client.global("wl_data_device_manager", version: 3), "create_data_source"))
            client.request(source, "set_actions", 8)
        default:
            Issue.record("no mode \(mode)")
        }
        return outcome
    }

    /// A fresh session with a bystander holding touch 5 down on its window, a hostile client
    /// running `mode`, checked by `check`; then the bystander's touch ends and a key reaches
    /// it, and nothing of the hostile client is left. RunningSession.besideWev's steps.
    static func besideBystander(_ mode: String, check: (ProtocolFixture, WireClient, Outcome) -> Void) throws {
        let fixture = try ProtocolFixture()
        defer { fixture.end() }
        let bystander = try fixture.connect("bystander")
        let touch = try #require(bystander.request(try bystander.seat, "get_touch"))
        let keyboard = try #require(bystander.request(try bystander.seat, "get_keyboard"))
        _ = try fixture.mapToplevel(bystander)
        let window = try #require(fixture.toplevels(of: bystander).first)
        let (x, y) = (Double(window.originInOutput.dx + 100), Double(window.originInOutput.dy + 100))
        fixture.touchDown(5, x: x, y: y)

        let hostile = try fixture.connect(mode)
        let outcome = try run(mode, fixture, hostile)
        check(fixture, hostile, outcome)
        // Its process ends, and the session hears so before the next input.
        hostile.disconnect()
        try fixture.roundtrip(bystander)

        fixture.touchMotion(5, x: x + 20, y: y + 10)
        fixture.touchUp(5)
        fixture.type(48)
        try fixture.roundtrip(bystander)
        #expect(bystander.events(of: keyboard, named: "key").last.map { [$0.uint(2), $0.uint(3)] } == [48, 0], "the bystander gets the key after the other client")
        #expect(bystander.events(of: touch, named: "up").last?.int(2) == 5, "the touch that was down ends for the bystander")
        #expect(fixture.server.tree.outputs.flatMap(\.toplevels).count == 1, "the other client's windows left the tree")
        #expect(fixture.treeSurfaces(of: hostile).isEmpty, "and every surface of it")
        #expect(fixture.server.router.activeTouches.isEmpty, "no touch is left down")
        #expect(bystander.protocolError == nil)
    }

    @Test("numbers at the edges of int32 are taken and clamped, not trapped on",
          arguments: [("positioner-max", [Int32.max, -25, 50, 50]), ("positioner-min", [Int32.min, -25, 50, 50]), ("damage-flood", nil), ("offset-flood", nil)]
              as [(String, [Int32]?)])
    func edgesOfInt32(mode: String, box: [Int32]?) throws {
        try Self.besideBystander(mode) { fixture, client, outcome in
            #expect(outcome.box == box, "the popup's configure")
            #expect((try? fixture.roundtrip(client)) != nil, "alive: \(String(describing: client.protocolError))")
        }
    }

    @Test("a client past a limit is ended with an error that names its request and the limit",
          arguments: [
              ("deep-subsurfaces", "^wl_subcompositor@\\d+\\.get_subsurface: nests wl_surface@\\d+ past 32 levels, the most surfaces may nest"),
              ("deep-bottom-up", "^wl_subcompositor@\\d+\\.get_subsurface: nests wl_surface@\\d+ past 32 levels"),
              ("region-flood", "^wl_region@\\d+\\.add: past 4096 rectangles, the most one region may hold"),
              ("huge-buffer", "^wl_shm_pool@\\d+\\.create_buffer: 20000x1 is over 16384 pixels a side"),
              ("shown-pixels", "^wl_surface@\\d+\\.commit: 4096x2048 takes the client past 256 MiB of shown pixels"),
              ("mapped-bytes", "^wl_shm@\\d+\\.create_pool: 536870912 bytes take the client past 1024 MiB of mapped pools"),
              ("surface-flood", "^wl_compositor@\\d+\\.create_surface: past 4096 surfaces, the most one client may have"),
              ("frame-flood", "^wl_surface@\\d+\\.frame: past 4096 waiting frame callbacks"),
              ("region-copies", "^wl_surface@\\d+\\.(set_input_region|commit): past 16384 rectangles in all regions"),
              ("seat-devices", "^wl_seat@\\d+\\.get_pointer: past 256 pointers, keyboards and touches"),
              ("global-binds", "^wl_registry.bind of wl_output: past 1024 bound globals"),
              ("object-flood", "^xdg_positioner@\\d+ created: past 65536 objects, the most one client may have"),
          ])
    func pastALimit(mode: String, error pattern: String) throws {
        try Self.besideBystander(mode) { fixture, client, _ in
            let report = fixture.expectProtocolError(client, interface: "wl_display", code: 3)
            #expect(report?.objectID == 1, "wl_display's implementation error")
            #expect(report?.message.range(of: pattern, options: .regularExpression) != nil, "\(String(describing: report))")
        }
    }

    @Test("a value outside the protocol's enums and ranges gets the protocol's own error, naming the request",
          arguments: [
              ("bad-resize-edge", "xdg_toplevel", UInt32(0), "^xdg_toplevel@\\d+\\.resize: 3 is not an xdg_toplevel.resize_edge"),
              ("negative-min-size", "xdg_toplevel", UInt32(2), "^xdg_toplevel@\\d+\\.set_min_size: -1x10 is negative"),
              ("bad-action-mask", "wl_data_source", UInt32(0), "^wl_data_source@\\d+\\.set_actions: 0x8 has bits that are not wl_data_device_manager.dnd_action"),
          ])
    func protocolErrors(mode: String, interface: String, code: UInt32, pattern: String) throws {
        try Self.besideBystander(mode) { fixture, client, _ in
            let report = fixture.expectProtocolError(client, interface: interface, code: code)
            #expect(report?.message.range(of: pattern, options: .regularExpression) != nil, "\(String(describing: report))")
        }
    }
}
