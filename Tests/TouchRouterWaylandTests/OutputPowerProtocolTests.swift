import Foundation
import Testing
import TouchRouterConfig
import TouchRouterCore
import TouchRouterWayland

/// wlr-output-power-management in process.
@Suite("Output power control in process: off and on, the waking touch, one controller an output, errors")
struct OutputPowerProtocolTests {
    static func fixture() throws -> ProtocolFixture { try ProtocolFixture { $0.grantedToEveryClient = [.outputPower] } }

    @Test("a control hears the output on; set_mode off darkens it (msg tree's power off), a touch there wakes it and reaches nobody, and the control hears on again; set_mode on lights it")
    func offAndOn() throws {
        let fixture = try Self.fixture()
        defer { fixture.end() }
        let app = try fixture.connect("app")
        _ = try fixture.mapToplevel(app)
        let touch = try #require(app.request(try app.seat, "get_touch"))
        let tool = try fixture.connect("tool")
        let manager = try tool.global("zwlr_output_power_manager_v1", version: 1)
        let control = try #require(tool.request(manager, "get_output_power", try tool.global("wl_output", version: 4)))
        try fixture.roundtrip()
        #expect(tool.events(of: control).map { $0.uint(0) } == [1], "on")
        tool.request(control, "set_mode", UInt32(0))
        try fixture.roundtrip(tool)
        #expect(tool.events(of: control).map { $0.uint(0) } == [1, 0])
        #expect(fixture.server.router.darkOutputs.count == 1)
        fixture.tap(1, x: 50, y: 50)
        try fixture.roundtrip()
        #expect(app.events(of: touch).isEmpty, "the waking tap reaches nobody")
        #expect(fixture.server.router.darkOutputs.isEmpty)
        #expect(tool.events(of: control).map { $0.uint(0) } == [1, 0, 1], "the control hears the output on again")
        tool.request(control, "set_mode", UInt32(0))
        tool.request(control, "set_mode", UInt32(1))
        try fixture.roundtrip(tool)
        #expect(fixture.server.router.darkOutputs.isEmpty)
        #expect(tool.events(of: control).map { $0.uint(0) } == [1, 0, 1, 0, 1])
    }

    @Test("a second control of an output fails while the first lives; an unknown mode is invalid_mode")
    func exclusiveAndErrors() throws {
        let fixture = try Self.fixture()
        defer { fixture.end() }
        let first = try fixture.connect("first")
        let control = try #require(first.request(try first.global("zwlr_output_power_manager_v1", version: 1), "get_output_power", try first.global("wl_output", version: 4)))
        let second = try fixture.connect("second")
        let refused = try #require(second.request(try second.global("zwlr_output_power_manager_v1", version: 1), "get_output_power", try second.global("wl_output", version: 4)))
        try fixture.roundtrip()
        #expect(second.events(of: refused).map(\.name) == ["failed"])
        first.request(control, "set_mode", UInt32(7))
        let report = fixture.expectProtocolError(first, interface: "zwlr_output_power_v1", code: 1)
        #expect(report?.message.contains("7 is not a zwlr_output_power_v1.mode") == true, "\(String(describing: report))")
    }
}
