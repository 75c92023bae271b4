import Foundation
import Testing

/// Outputs reconfigured in a running session with real clients: a GTK 4 kiosk app turned to
/// portrait by `msg output set`, wev's finger cancelled by a new mode, and `[[output]]`
/// applied and taken back by reloads. The drm backend's modesets are the VM's drm-rotate scenario.
@Suite("Outputs reconfigured while running: msg output set turns a GTK kiosk app to portrait, a new mode cancels wev's finger, [[output]] applies on reload", .serialized)
struct OutputRotationTests {
    static func outputs(_ session: RunningSession) throws -> [[String: Any]] {
        try session.msg("tree").json["outputs"] as? [[String: Any]] ?? []
    }

    @Test("msg output set HEADLESS-1 transform 90 turns a running GTK 4 kiosk app to portrait: it is configured 720x1280 and fills the output; the finger it had is cancelled; a tap at the portrait bottom lands under the finger; turning back gives 1280x720 again; scale 2 makes it 640x360, taps in its points, the screenshot 1280x720")
    func kioskTurnsToPortrait() throws {
        let command = KioskAppTests.toolkits.first { $0.name == "GTK 4" }!.command
        let session = try RunningSession(arguments: ["--kiosk", "--output", "1280x720"])
        defer { _ = session.terminate() }
        let log = session.file("app.log")
        let app = try session.client(command, output: log)
        try session.wait(for: "GTK 4 to be ready") { RunningSession.text(of: log).contains("ready") }
        let fills = { (width: Int, height: Int) in
            try session.toplevels().first.map { $0["position"] as? [Int] == [0, 0] && $0["size"] as? [Int] == [width, height] } ?? false
        }
        try session.wait(for: "GTK 4 to fill the landscape output") { try fills(1280, 720) }
        try session.inject(["touch down 3 640 360", "touch frame"])
        try session.wait(for: "the finger down on the app") { RunningSession.text(of: log).contains("press 640 360") }

        let turned = try session.msg("output", "set", "HEADLESS-1", "transform", "90")
        #expect(turned.status == 0 && turned.json["transform"] as? String == "90" && turned.json["mode"] as? String == "1280x720@60.0", "\(turned.json)")
        let output = try #require(try Self.outputs(session).first)
        #expect(output["rect"] as? [Int] == [0, 0, 720, 1280] && output["transform"] as? String == "90", "\(output)")
        try session.wait(for: "GTK 4 to be configured to the portrait output and fill it") { try fills(720, 1280) }
        try session.inject(["touch up 3", "touch frame"])
        try session.inject(["touch down 4 700 1200", "touch frame", "touch up 4", "touch frame"])
        try session.wait(for: "the tap at the portrait bottom") { RunningSession.text(of: log).contains("press 700 1200") }
        #expect(RunningSession.text(of: log).components(separatedBy: "press ").count == 3, "the cancelled finger pressed nothing more: \(RunningSession.text(of: log))")
        #expect(try session.msg("pixel", "700", "1200").json["argb"] as? String != "0xff2e3440", "the app is drawn where the portrait output's bottom is")

        #expect(try session.msg("output", "set", "HEADLESS-1", "transform", "normal").status == 0)
        try session.wait(for: "GTK 4 back at 1280x720") { try fills(1280, 720) }

        // Scale 2: the layout and the app see 640x360, the screen keeps its 1280x720 pixels.
        let scaled = try session.msg("output", "set", "HEADLESS-1", "scale", "2")
        #expect(scaled.status == 0 && scaled.json["scale"] as? Int == 2, "\(scaled.json)")
        try session.wait(for: "GTK 4 at 640x360 on the scale-2 output") { try fills(640, 360) }
        try session.inject(["touch down 5 300 200", "touch frame", "touch up 5", "touch frame"])
        try session.wait(for: "the tap on the scale-2 output") { RunningSession.text(of: log).contains("press 300 200") }
        let shot = session.file("scaled.png").path
        let taken = try session.msg("screenshot", shot)
        #expect(taken.json["width"] as? Int == 1280 && taken.json["height"] as? Int == 720, "the picture is the panel's pixels: \(taken.json)")
        #expect(app.isRunning, "\(RunningSession.text(of: log))")
    }

    @Test("a new mode cancels wev's finger down (its up reaches nobody) and the next tap reaches wev; a bad mode is refused with what was expected; [[output]] applies on msg reload and goes when the table does")
    func modeAndReload() throws {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("touch-router-outputs-\(getpid())-\(UUID().uuidString.prefix(8)).toml")
        try "".write(to: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: config) }
        let session = try RunningSession(arguments: ["--output", "1280x720", "--config", config.path])
        defer { _ = session.terminate() }
        let wevLog = session.file("wev.log")
        _ = try session.client(["wev"], output: wevLog)
        try session.wait(for: "wev to map") { try session.toplevels().first?["mapped"] as? Bool == true }
        let wev = try #require(try session.toplevels().first)
        let position = wev["position"] as? [Int] ?? [0, 0]
        let (x, y) = (position[0] + 50, position[1] + 50)
        try session.inject(["touch down 1 \(x) \(y)", "touch frame"])
        try session.wait(for: "wev's touch down") { RunningSession.text(of: wevLog).contains("wl_touch] down") }

        let set = try session.msg("output", "set", "HEADLESS-1", "mode", "1024x768")
        #expect(set.status == 0 && set.json["mode"] as? String == "1024x768@60.0", "\(set.json)")
        try session.wait(for: "wev's touch to be cancelled") { RunningSession.text(of: wevLog).contains("wl_touch] cancel") }
        try session.inject(["touch up 1", "touch frame"])
        usleep(300_000)
        #expect(!RunningSession.text(of: wevLog).contains("wl_touch] up"), "the cancelled finger's up reaches nobody")
        try session.inject(["touch down 2 \(x) \(y)", "touch frame", "touch up 2", "touch frame"])
        try session.wait(for: "the next tap to reach wev") { RunningSession.text(of: wevLog).contains("wl_touch] up") }
        #expect(try Self.outputs(session).first?["rect"] as? [Int] == [0, 0, 1024, 768])

        let margin = try session.msg("output", "set", "HEADLESS-1", "frame-margin", "7.5")
        #expect(margin.status == 0 && margin.json["frame_margin_us"] as? Int == 7500 && margin.json["mode"] as? String == "1024x768@60.0", "\(margin.json)")
        #expect(try Self.outputs(session).first?["frame_margin_us"] as? Int == 7500)

        let bad = try session.msg("output", "set", "HEADLESS-1", "mode", "1024x")
        #expect(bad.status != 0 && "\(bad.json["error"] ?? "")".contains("mode '1024x': expected WxH or WxH@Hz"), "\(bad.json)")

        try """
            [[output]]
            name = "HEADLESS-1"
            transform = 270
            """.write(to: config, atomically: true, encoding: .utf8)
        let reloaded = try session.msg("reload")
        #expect(reloaded.status == 0 && reloaded.json["output_errors"] == nil, "\(reloaded.json)")
        let turned = try #require(try Self.outputs(session).first)
        #expect(turned["rect"] as? [Int] == [0, 0, 720, 1280] && turned["mode"] as? String == "1280x720@60.0" && turned["transform"] as? String == "270",
                "the table over the backend's 1280x720; msg output set's mode is gone: \(turned)")
        #expect(turned["frame_margin_us"] as? Int != 7500, "and its frame margin, measured again: \(turned)")
        try "".write(to: config, atomically: true, encoding: .utf8)
        #expect(try session.msg("reload").status == 0)
        let back = try #require(try Self.outputs(session).first)
        #expect(back["rect"] as? [Int] == [0, 0, 1280, 720] && back["transform"] as? String == "normal", "without the table, the backend's mode: \(back)")
    }
}
