import Foundation
import Testing

/// Clients at and past the limits of what one client may do (`ClientLimits`, docs/hardening.md's "What
/// one client may do"): each is answered as docs/hardening.md says, and wev beside it goes on receiving.
/// Values at int32's ends, each per-client limit and the enum errors are tested in process
/// (TouchRouterWaylandTests' ClientLimitProtocolTests); here, the client that stops reading
/// (it takes seconds of real time) and the wire fuzzer's findings, each in a real session.
@Suite("Hostile clients: one that stops reading, and the wire fuzzer's findings", .serialized)
struct HostileClientTests {
    static let hostileClient = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/hostile-client.py").path

    @Test("a client that stops reading while its window is pointed at is disconnected within seconds; the session and wev go on")
    func stopsReading() throws {
        try Self.run("stops-reading", expecting: "dropped after \\d+ s\ndisconnected")
    }

    static let regressions = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/regressions.py").path

    @Test("each crash, hang or blow-up the wire fuzzer found stays fixed (Tests/Fuzz/regressions.py, each on a fresh session)",
          arguments: ["positioner_anchor_rect_max_x_offset_1", "positioner_anchor_rect_min_x_gravity_left", "positioner_anchor_rect_max_y_offset_1",
                      "positioner_wide_anchor_rect_null_parent", "positioner_wide_anchor_rect_toplevel_parent", "popup_reposition_extreme",
                      "positioner_extreme_size_and_rect", "subsurface_chain_10000", "region_20000_disjoint_rects", "shm_buffer_8192x32768",
                      "killed_holding_popup_grab_then_tap"])
    func fuzzerFinding(name: String) throws {
        let run = Process()
        run.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        run.arguments = ["python3", Self.regressions, ToolRun.executable.path, name]
        let output = Pipe()
        run.standardOutput = output
        run.standardError = output
        try run.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        run.waitUntilExit()
        #expect(run.terminationStatus == 0, "\(text)")
        #expect(text.contains("regressions: 1 passed, 0 failed"), "\(text)")
    }

    private static func run(_ mode: String, expecting pattern: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try RunningSession.besideWev(["python3", hostileClient, mode], expecting: pattern, sourceLocation: sourceLocation)
    }
}
