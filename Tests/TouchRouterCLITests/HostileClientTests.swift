import Foundation
import Testing

/// Clients at and past the limits of what one client may do (`ClientLimits`, docs/hardening.md's "What
/// one client may do"): each is answered as docs/hardening.md says, and wev beside it goes on receiving.
@Suite("Hostile clients: numbers at the edges of int32, and every per-client limit", .serialized)
struct HostileClientTests {
    static let hostileClient = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/hostile-client.py").path

    @Test("numbers at the edges of int32 are taken and clamped, not trapped on",
          arguments: [
              // The popup's box is 2^31 + 1 in Int: it goes out clamped to int32.
              ("positioner-max", "configure 2147483647 -25 50 50\nalive"),
              ("positioner-min", "configure -2147483648 -25 50 50\nalive"),
              // Damage past 32 rectangles folds into their bounding box.
              ("damage-flood", "alive"),
              // Offsets add up within int32.
              ("offset-flood", "alive"),
          ])
    func edgesOfInt32(mode: String, expected: String) throws {
        try Self.run(mode, expecting: expected)
    }

    @Test("a client past a limit is ended with an error that names its request and the limit",
          arguments: [
              ("deep-subsurfaces", "error object 1 code 3: wl_subcompositor@\\d+\\.get_subsurface: nests wl_surface@\\d+ past 32 levels, the most surfaces may nest"),
              ("deep-bottom-up", "error object 1 code 3: wl_subcompositor@\\d+\\.get_subsurface: nests wl_surface@\\d+ past 32 levels"),
              ("region-flood", "error object 1 code 3: wl_region@\\d+\\.add: past 4096 rectangles, the most one region may hold"),
              ("huge-buffer", "error object 1 code 3: wl_shm_pool@\\d+\\.create_buffer: 20000x1 is over 16384 pixels a side"),
              ("shown-pixels", "error object 1 code 3: wl_surface@\\d+\\.commit: 4096x2048 takes the client past 256 MiB of shown pixels"),
              ("mapped-bytes", "error object 1 code 3: wl_shm@\\d+\\.create_pool: 536870912 bytes take the client past 1024 MiB of mapped pools"),
              ("surface-flood", "error object 1 code 3: wl_compositor@\\d+\\.create_surface: past 4096 surfaces, the most one client may have"),
              ("frame-flood", "error object 1 code 3: wl_surface@\\d+\\.frame: past 4096 waiting frame callbacks"),
              ("region-copies", "error object 1 code 3: wl_surface@\\d+\\.(set_input_region|commit): past 16384 rectangles in all regions"),
              ("seat-devices", "error object 1 code 3: wl_seat@\\d+\\.get_pointer: past 256 pointers, keyboards and touches"),
              ("global-binds", "error object 1 code 3: wl_registry.bind of wl_output: past 1024 bound globals"),
              ("object-flood", "error object 1 code 3: xdg_positioner@\\d+ created: past 65536 objects, the most one client may have"),
          ])
    func pastALimit(mode: String, error: String) throws {
        try Self.run(mode, expecting: error)
    }

    @Test("a value outside the protocol's enums and ranges gets the protocol's own error, naming the request",
          arguments: [
              ("bad-resize-edge", "error object \\d+ code 0: xdg_toplevel@\\d+\\.resize: 3 is not an xdg_toplevel.resize_edge"),
              ("negative-min-size", "error object \\d+ code 2: xdg_toplevel@\\d+\\.set_min_size: -1x10 is negative"),
              ("bad-action-mask", "error object \\d+ code 0: wl_data_source@\\d+\\.set_actions: 0x8 has bits that are not wl_data_device_manager.dnd_action"),
          ])
    func protocolErrors(mode: String, error: String) throws {
        try Self.run(mode, expecting: error)
    }

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
