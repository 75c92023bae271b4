import Foundation
import Testing
import TouchRouterConfig
import TouchRouterCore
import TouchRouterWayland

/// zwlr_layer_shell_v1 in process (these were Tests/TouchRouterCLITests/LayerShellTests.swift,
/// with raw-client.py's layer modes): configures, exclusive zones, stacking, touches, a
/// removed output, extreme values and errors.
@Suite("Layer shell in process: configures, zones, stacking, touches and errors")
struct LayerShellProtocolTests {
    /// Layer-shell's anchors.
    static let top: UInt32 = 1, bottom: UInt32 = 2, left: UInt32 = 4, right: UInt32 = 8

    static func fixture(outputs: [OutputMode] = [OutputMode(width: 1920, height: 1080)]) throws -> ProtocolFixture {
        try ProtocolFixture { options in
            options.grantedToEveryClient = [.layerShell]
            options.outputs = outputs
        }
    }

    /// A layer surface (no output: the first) with `size`, `anchor`, `margins` (top, right,
    /// bottom, left), `zone` and `interactivity` committed; the configure it got, unacked.
    struct LayerSurface {
        let surface: Proxy
        let role: Proxy
        var configure: (serial: UInt32, width: UInt32, height: UInt32)?
    }

    static func layerSurface(_ fixture: ProtocolFixture, _ client: WireClient, layer: UInt32, namespace: String, size: (UInt32, UInt32),
                             anchor: UInt32, margins: (Int32, Int32, Int32, Int32) = (0, 0, 0, 0), zone: Int32 = 0,
                             interactivity: UInt32 = 0) throws -> LayerSurface {
        let shell = try client.global("zwlr_layer_shell_v1", version: 4)
        let surface = try client.createSurface()
        let role = try #require(client.request(shell, "get_layer_surface", surface, null, layer, namespace))
        client.request(role, "set_size", size.0, size.1)
        client.request(role, "set_anchor", anchor)
        client.request(role, "set_margin", margins.0, margins.1, margins.2, margins.3)
        client.request(role, "set_exclusive_zone", zone)
        client.request(role, "set_keyboard_interactivity", interactivity)
        client.request(surface, "commit")
        try fixture.roundtrip(client)
        let configure = client.events(of: role, named: "configure").last.map { ($0.uint(0) ?? 0, $0.uint(1) ?? 0, $0.uint(2) ?? 0) }
        return LayerSurface(surface: surface, role: role, configure: configure)
    }

    /// Acks the layer surface's configure and shows a buffer of its size (`drawn` if given).
    static func map(_ fixture: ProtocolFixture, _ client: WireClient, _ layer: LayerSurface, drawn: (Int, Int)? = nil) throws {
        let configure = try #require(layer.configure, "\(layer.role) was configured")
        client.request(layer.role, "ack_configure", configure.serial)
        try client.show(layer.surface, width: drawn?.0 ?? Int(configure.width), height: drawn?.1 ?? Int(configure.height))
        try fixture.roundtrip(client)
    }

    /// Maximizes the window and draws it at the size configured; that size.
    static func maximize(_ fixture: ProtocolFixture, _ client: WireClient, _ window: Window) throws -> (Int32, Int32) {
        client.request(window.toplevel, "set_maximized")
        try fixture.roundtrip(client)
        let configure = try #require(client.lastConfigure(of: window))
        try client.ackAndDraw(window, width: Int(configure.width), height: Int(configure.height))
        try fixture.roundtrip(client)
        return (configure.width, configure.height)
    }

    /// raw-client.py's `layer`: a 200×200 window, then a keyboard-like layer surface on the
    /// top layer along the bottom edge, 100 high, 10 px above the bottom, zone 100, no
    /// keyboard; the window maximized after it.
    static func keyboardAndWindow(_ fixture: ProtocolFixture, _ client: WireClient) throws -> (window: Window, layer: LayerSurface, maximized: (Int32, Int32)) {
        let window = try fixture.mapToplevel(client, width: 200, height: 200)
        let layer = try layerSurface(fixture, client, layer: 2, namespace: "keyboard", size: (0, 100), anchor: bottom | left | right,
                                     margins: (0, 0, 10, 0), zone: 100, interactivity: 0)
        try map(fixture, client, layer)
        return (window, layer, try maximize(fixture, client, window))
    }

    @Test("a keyboard on the top layer: placed by its anchors and margin, its exclusive zone shrinks a maximized window, a touch on it reaches it over the window and leaves the keyboard focus on the window")
    func keyboardLayer() throws {
        let fixture = try Self.fixture(outputs: [OutputMode(width: 1280, height: 720)])
        defer { fixture.end() }
        let client = try fixture.connect()
        let touch = try #require(client.request(try client.seat, "get_touch"))
        let (window, layer, maximized) = try Self.keyboardAndWindow(fixture, client)
        #expect(layer.configure.map { [$0.width, $0.height] } == [1280, 100], "stretched across the output, 100 high")
        #expect([maximized.0, maximized.1] == [1280, 610], "720 less the zone of 100 and its 10 px margin")

        let toplevels = fixture.toplevels(of: client)
        let layerNode = try #require(toplevels.first { $0.size == Size(width: 1280, height: 100) })
        let windowNode = try #require(toplevels.first { $0.size == Size(width: 1280, height: 610) })
        #expect(layerNode.originInOutput == Offset(dx: 0, dy: 610))
        #expect(windowNode.originInOutput == Offset(dx: 0, dy: 0))
        #expect(fixture.server.router.keyboardFocus == windowNode.id)
        #expect(fixture.server.tree.outputs.first?.toplevels.last == layerNode.id, "the layer surface is the topmost, above the maximized window")

        fixture.tap(0, x: 640, y: 650)
        try fixture.roundtrip(client)
        #expect(client.events(of: touch, named: "down").last?.object(2) == layer.surface, "the touch reaches the layer surface")
        #expect(fixture.server.router.keyboardFocus == windowNode.id, "interactivity none: the touch leaves the keyboard on the window")
        fixture.tap(1, x: 640, y: 300)
        try fixture.roundtrip(client)
        #expect(client.events(of: touch, named: "down").last?.object(2) == window.surface, "the touch reaches the window")
        #expect(client.protocolError == nil)
    }

    @Test("a layer surface whose output is removed is told closed and leaves the tree; its window moves to the output that stays")
    func closedWithOutput() throws {
        let fixture = try Self.fixture(outputs: [OutputMode(width: 1280, height: 720), OutputMode(width: 800, height: 600)])
        defer { fixture.end() }
        let client = try fixture.connect()
        let (_, layer, _) = try Self.keyboardAndWindow(fixture, client)
        #expect(fixture.toplevels(of: client).count == 2)
        try fixture.server.removeOutput(named: "HEADLESS-1")
        try fixture.roundtrip(client)
        #expect(client.events(of: layer.role, named: "closed").count == 1, "the client is told closed")
        let left = fixture.toplevels(of: client)
        #expect(left.count == 1 && left.first?.size != Size(width: 1280, height: 100), "only the window is left: \(left.map(\.size))")
        #expect(left.first?.output == fixture.server.tree.outputs.first?.id, "on the output that stays")
        #expect(client.protocolError == nil)
    }

    @Test("sizes, margins and zones at uint32's and int32's ends neither trap nor stop the session: configures come clamped, the usable area never grows past the output")
    func extremes() throws {
        let fixture = try Self.fixture()
        defer { fixture.end() }
        let client = try fixture.connect()
        let big = Int32.max, low = Int32.min
        let cases: [(size: (UInt32, UInt32), anchor: UInt32, margins: (Int32, Int32, Int32, Int32), zone: Int32)] = [
            ((UInt32.max, UInt32.max), Self.right | Self.bottom, (big, big, big, big), big),
            ((0, 0), 15, (big, low, big, low), low),
            ((UInt32.max, 0), Self.top | Self.bottom | Self.right, (low, low, low, low), big),
            ((1, 1), 0, (0, 0, 0, 0), -1),
        ]
        var configures: [[UInt32]] = []
        for item in cases {
            let layer = try Self.layerSurface(fixture, client, layer: 3, namespace: "extreme", size: item.size, anchor: item.anchor,
                                              margins: item.margins, zone: item.zone)
            configures.append(layer.configure.map { [$0.width, $0.height] } ?? [])
            try Self.map(fixture, client, layer, drawn: (10, 10))
        }
        #expect(configures.first == [2_147_483_647, 2_147_483_647], "uint32 sizes configured clamped to int32: \(configures)")
        #expect(configures.count == 4 && configures.allSatisfy { $0.count == 2 }, "each configured: \(configures)")
        let window = try fixture.mapToplevel(client, width: 20, height: 20)
        let maximized = try Self.maximize(fixture, client, window)
        #expect([maximized.0, maximized.1] == [1920, 1080], "no zone here takes anything, and a negative margin gives nothing")
        let fresh = try fixture.connect("fresh")
        try fixture.roundtrip(fresh)
        #expect(client.protocolError == nil)
    }

    @Test("a panel's zone shrinks a maximized window, and is given back when its wl_surface is destroyed before its layer surface")
    func zoneGivenBack() throws {
        let fixture = try Self.fixture(outputs: [OutputMode(width: 1024, height: 600)])
        defer { fixture.end() }
        let client = try fixture.connect()
        let panel = try Self.layerSurface(fixture, client, layer: 2, namespace: "panel", size: (0, 50), anchor: Self.top | Self.left | Self.right, zone: 50)
        try Self.map(fixture, client, panel)
        let window = try client.makeToplevel()
        try fixture.roundtrip(client)
        try client.ackAndDraw(window, width: 20, height: 20)
        let maximized = try Self.maximize(fixture, client, window)
        #expect([maximized.0, maximized.1] == [1024, 550])
        client.request(panel.surface, "destroy")
        try fixture.roundtrip(client)
        #expect(client.lastConfigure(of: window).map { [$0.width, $0.height] } == [1024, 600], "the wl_surface gone, its zone is given back")
        client.request(panel.role, "destroy")
        try fixture.roundtrip(client)
        #expect(client.lastConfigure(of: window).map { [$0.width, $0.height] } == [1024, 600], "and stays given back when the layer surface goes")
        #expect(client.protocolError == nil)
    }

    @Test("a layer on 7 is invalid_layer, naming the request")
    func invalidLayer() throws {
        let fixture = try Self.fixture()
        defer { fixture.end() }
        let client = try fixture.connect()
        let shell = try client.global("zwlr_layer_shell_v1", version: 4)
        client.request(shell, "get_layer_surface", try client.createSurface(), null, 7, "bad")
        let report = fixture.expectProtocolError(client, interface: "zwlr_layer_shell_v1", code: 1)
        #expect(report?.objectID == shell.id)
        #expect(report?.message == "zwlr_layer_shell_v1@\(shell.id).get_layer_surface: 7 is not a zwlr_layer_shell_v1.layer", "\(String(describing: report))")
    }

    @Test("a size of 0 wide anchored on the left only is invalid_size at commit, naming the object")
    func zeroSize() throws {
        let fixture = try Self.fixture()
        defer { fixture.end() }
        let client = try fixture.connect()
        let shell = try client.global("zwlr_layer_shell_v1", version: 4)
        let surface = try client.createSurface()
        let role = try #require(client.request(shell, "get_layer_surface", surface, null, 3, "bad"))
        client.request(role, "set_size", 0, 50)
        client.request(role, "set_anchor", Self.top | Self.left)
        client.request(surface, "commit")
        let report = fixture.expectProtocolError(client, interface: "zwlr_layer_surface_v1", code: 1)
        #expect(report?.objectID == role.id)
        #expect(report?.message.hasPrefix("zwlr_layer_surface_v1@\(role.id): a size of 0x50 needs anchors on both edges") == true, "\(String(describing: report))")
    }
}
