import Foundation
import Testing
import TouchRouterConfig
import TouchRouterCore
import TouchRouterWayland

/// The in-process protocol fixture itself (Fixture/): registry, roundtrip, errors, and a
/// client going while another stays.
@Suite("In-process protocol fixture: registry, roundtrip, errors, disconnects")
struct FixtureTests {
    @Test("the registry lists the session's globals; the layer shell, foreign toplevel and virtual input managers only when the options give them to every client")
    func registry() throws {
        let plain = try ProtocolFixture()
        defer { plain.end() }
        let client = try plain.connect()
        let listed = client.globalNames
        for core in ["wl_compositor", "wl_subcompositor", "wl_shm", "xdg_wm_base", "wl_seat", "wl_output", "wl_data_device_manager", "zwp_input_timestamps_manager_v1"] {
            #expect(listed.contains(core), "\(core) is listed: \(listed.sorted())")
        }
        for privileged in ["zwlr_layer_shell_v1", "zwlr_foreign_toplevel_manager_v1", "zwlr_virtual_pointer_manager_v1", "zwp_virtual_keyboard_manager_v1"] {
            #expect(!listed.contains(privileged), "\(privileged) is hidden without its privilege")
        }

        let open = try ProtocolFixture { options in
            options.grantedToEveryClient = [.layerShell, .foreignToplevel, .virtualInput]
        }
        defer { open.end() }
        let allowed = try open.connect().globalNames
        for privileged in ["zwlr_layer_shell_v1", "zwlr_foreign_toplevel_manager_v1", "zwlr_virtual_pointer_manager_v1", "zwp_virtual_keyboard_manager_v1"] {
            #expect(allowed.contains(privileged), "\(privileged) is listed when given to every client")
        }
    }

    @Test("a roundtrip returns once the session has answered everything before it: wl_shm's formats, wl_seat's capabilities and the output's done")
    func roundtrip() throws {
        let fixture = try ProtocolFixture()
        defer { fixture.end() }
        let client = try fixture.connect()
        let shm = try client.shm
        let seat = try client.seat
        let output = try #require(client.bind("wl_output", version: 4))
        #expect(client.events(of: shm).isEmpty, "nothing is read before the roundtrip")
        try fixture.roundtrip(client)
        let formats = client.events(of: shm, named: "format").compactMap { $0.uint(0) }
        #expect(formats.contains(0) && formats.contains(1), "ARGB8888 and XRGB8888: \(formats)")
        #expect(client.events(of: seat, named: "capabilities").first?.uint(0) == 7, "pointer, keyboard and touch")
        #expect(client.events(of: output, named: "mode").first.map { [$0.int(1), $0.int(2)] } == [1920, 1080])
        #expect(client.events(of: output).last?.name == "done")
    }

    @Test("a mapped toplevel is in the core's tree as the client's; a client's disconnect takes its surfaces out and leaves the session serving the other")
    func disconnect() throws {
        let fixture = try ProtocolFixture()
        defer { fixture.end() }
        let first = try fixture.connect("first")
        let second = try fixture.connect("second")
        _ = try fixture.mapToplevel(first, width: 300, height: 200)
        _ = try fixture.mapToplevel(second, width: 100, height: 100)
        let firstWindows = fixture.toplevels(of: first)
        #expect(firstWindows.map(\.size) == [Size(width: 300, height: 200)], "the fixture's client id is the core's")
        #expect(fixture.toplevels(of: second).map(\.size) == [Size(width: 100, height: 100)])
        #expect(fixture.server.fuzzingCensus.clients == 2)

        first.disconnect()
        try fixture.roundtrip(second)
        #expect(fixture.treeSurfaces(of: first).isEmpty, "the first client's surfaces left the tree")
        #expect(fixture.server.fuzzingCensus.clients == 1)
        #expect(fixture.server.fuzzingCensus.surfaceObjects == 1)
        _ = try fixture.mapToplevel(second, width: 50, height: 50)
        #expect(fixture.toplevels(of: second).count == 2, "the session goes on serving the second client")
        let third = try fixture.connect("third")
        #expect(third.coreID.raw == 3)
        try fixture.roundtrip(third)
    }

    @Test("a protocol error names the object, its code and the session's message; the other client goes on")
    func protocolError() throws {
        let fixture = try ProtocolFixture()
        defer { fixture.end() }
        let bystander = try fixture.connect("bystander")
        let client = try fixture.connect("offender")
        let surface = try client.createSurface()
        client.request(surface, "attach", null, 5, 5)
        let report = fixture.expectProtocolError(client, interface: "wl_surface", code: 3)
        #expect(report?.objectID == surface.id)
        #expect(report?.message.hasPrefix("wl_surface@\(surface.id).attach: x and y must be 0 from version 5") == true, "\(String(describing: report))")
        try fixture.roundtrip(bystander)
        #expect(fixture.server.fuzzingCensus.clients == 1, "the offender is gone")
    }
}
