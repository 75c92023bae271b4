import Foundation
import Testing

@Suite("Layer shell: zwlr_layer_shell_v1 with a wire-protocol client", .serialized)
struct LayerShellTests {
    /// A configuration allowing the layer shell to the Python running the raw client.
    static func configuration() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("touch-router-layer-\(getpid())-\(UUID().uuidString.prefix(8)).toml").path
        let python = URL(fileURLWithPath: "/usr/bin/python3").resolvingSymlinksInPath().path
        try "[privileges]\nlayer-shell = [\"\(python)\"]\n".write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("a keyboard on the top layer: placed by its anchors and margin, its exclusive zone shrinks a maximized window, a touch on it reaches it over the window and leaves the keyboard focus on the window")
    func keyboardLayer() throws {
        let session = try RunningSession(arguments: ["--output", "1280x720", "--config", try Self.configuration()])
        defer { _ = session.terminate() }
        let log = session.file("raw.log")
        let raw = try session.client(["/usr/bin/python3", SessionTests.rawClient, "layer"], output: log)
        try session.wait(for: "the window to be maximized beside the layer surface") { RunningSession.text(of: log).contains("maximized ") || !raw.isRunning }
        let said = RunningSession.text(of: log)
        #expect(said.contains("layer configure 1280x100\n"), "stretched across the output, 100 high: \(said)")
        #expect(said.contains("maximized 1280x610\n"), "720 less the zone of 100 and its 10 px margin: \(said)")
        var window: [String: Any]? = nil, layer: [String: Any]? = nil
        try session.wait(for: "both surfaces mapped where they belong") {
            let toplevels = try session.toplevels()
            layer = toplevels.first { $0["size"] as? [Int] == [1280, 100] }
            window = toplevels.first { $0["size"] as? [Int] == [1280, 610] }
            return layer?["position"] as? [Int] == [0, 610] && window?["position"] as? [Int] == [0, 0]
        }
        let windowID = try #require(window?["id"] as? Int)
        #expect(try session.msg("focus").json["keyboard"] as? Int == windowID)
        // The layer surface lies on the top layer: above the window, which the maximize raised.
        #expect(try session.toplevels().last?["size"] as? [Int] == [1280, 100], "the layer surface is the topmost")
        try session.inject(["touch down 0 640 650", "touch frame", "touch up 0", "touch frame"])
        try session.wait(for: "the touch to reach the layer surface") { RunningSession.text(of: log).contains("layer touch down") }
        #expect(try session.msg("focus").json["keyboard"] as? Int == windowID, "interactivity none: the touch leaves the keyboard on the window")
        try session.inject(["touch down 1 640 300", "touch frame", "touch up 1", "touch frame"])
        try session.wait(for: "the touch to reach the window") { RunningSession.text(of: log).contains("window touch down") }
        #expect(raw.isRunning)
    }

    @Test("a layer surface whose output is removed is told closed and leaves the tree; its window moves to the output that stays")
    func closedWithOutput() throws {
        let session = try RunningSession(arguments: ["--output", "1280x720", "--output", "800x600", "--config", try Self.configuration()])
        defer { _ = session.terminate() }
        let log = session.file("raw.log")
        let raw = try session.client(["/usr/bin/python3", SessionTests.rawClient, "layer"], output: log)
        try session.wait(for: "the window to be maximized beside the layer surface") { RunningSession.text(of: log).contains("maximized ") || !raw.isRunning }
        #expect(try session.toplevels().count == 2)
        #expect(try session.msg("output", "remove", "HEADLESS-1").status == 0)
        try session.wait(for: "the client to be told closed") { RunningSession.text(of: log).contains("layer closed") }
        try session.wait(for: "only the window left") { try session.toplevels().count == 1 }
        #expect(try session.toplevels().first?["size"] as? [Int] != [1280, 100], "the one left is the window, not the layer surface")
        #expect(raw.isRunning)
    }

    @Test("sizes, margins and zones at uint32's and int32's ends neither trap nor stop the session: configures come clamped, the usable area never grows past the output")
    func extremes() throws {
        let session = try RunningSession(arguments: ["--config", try Self.configuration()])
        defer { _ = session.terminate() }
        let log = session.file("raw.log")
        let raw = try session.client(["/usr/bin/python3", SessionTests.rawClient, "layer-extreme"], output: log)
        raw.waitUntilExit()
        let said = RunningSession.text(of: log)
        #expect(raw.terminationStatus == 0 && said.contains("survived"), "\(said)")
        #expect(said.contains("configure 2147483647x2147483647\n"), "uint32 sizes configured clamped to int32: \(said)")
        #expect(said.contains("maximized 1920x1080\n"), "no zone here takes anything, and a negative margin gives nothing: \(said)")
        #expect(try session.msg("tree").status == 0, "the session still answers")
    }

    @Test("a panel's zone shrinks a maximized window, and is given back when its wl_surface is destroyed before its layer surface")
    func zoneGivenBack() throws {
        let session = try RunningSession(arguments: ["--output", "1024x600", "--config", try Self.configuration()])
        defer { _ = session.terminate() }
        let log = session.file("raw.log")
        let raw = try session.client(["/usr/bin/python3", SessionTests.rawClient, "layer-gone"], output: log)
        raw.waitUntilExit()
        let said = RunningSession.text(of: log)
        #expect(raw.terminationStatus == 0, "\(said)")
        #expect(said == "maximized 1024x550\nsurface gone 1024x600\nlayer gone 1024x600\n", "\(said)")
    }

    @Test("layer-shell's errors end the client with the protocol's code and a message naming the request",
          arguments: [
              ("layer-error", "error object \\d+ code 1: zwlr_layer_shell_v1@\\d+\\.get_layer_surface: 7 is not a zwlr_layer_shell_v1.layer"),
              ("layer-size", "error object \\d+ code 1: zwlr_layer_surface_v1@\\d+: a size of 0x50 needs anchors on both edges"),
          ])
    func errors(mode: String, pattern: String) throws {
        let session = try RunningSession(arguments: ["--config", try Self.configuration()])
        defer { _ = session.terminate() }
        let log = session.file("raw.log")
        let raw = try session.client(["/usr/bin/python3", SessionTests.rawClient, mode], output: log)
        raw.waitUntilExit()
        let said = RunningSession.text(of: log)
        #expect(raw.terminationStatus == 0, "\(said)")
        #expect(said.range(of: pattern, options: .regularExpression) != nil, "\(said)")
    }

    @Test("without [privileges] layer-shell the global is not listed")
    func hidden() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let log = session.file("raw.log")
        let raw = try session.client(["/usr/bin/python3", SessionTests.rawClient, "layer-error"], output: log)
        raw.waitUntilExit()
        #expect(raw.terminationStatus != 0)
        #expect(RunningSession.text(of: log).contains("KeyError: 'zwlr_layer_shell_v1'"), "\(RunningSession.text(of: log))")
    }
}
