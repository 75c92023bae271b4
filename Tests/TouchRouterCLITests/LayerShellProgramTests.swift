import Foundation
import Testing

/// The layer shell with a real program of Debian's: swaybg, the wallpaper of sway and other
/// wlroots compositors, which puts one layer surface on the background layer of each output.
@Suite("Layer shell with a real program: swaybg on the background layer", .serialized)
struct LayerShellProgramTests {
    static let swaybg = "/usr/bin/swaybg"
    /// swaybg's colour, as rrggbb.
    static let wallpaper = "ff2010"

    static func configuration(allowing programs: [String]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("touch-router-swaybg-\(getpid())-\(UUID().uuidString.prefix(8)).toml").path
        try "[privileges]\nlayer-shell = [\(programs.map { "\"\($0)\"" }.joined(separator: ", "))]\n".write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func colours(_ session: RunningSession, _ name: String, _ points: [(Int, Int)]) throws -> [String] {
        let shot = try ScreenshotTests().screenshot(session, name)
        #expect(shot.status == 0, "\(shot.reply)")
        return try DecodedPNG(shot.path, points: points).colours
    }

    @Test("swaybg, allowed by [privileges] layer-shell, fills the output below wev's window: its colour where no window is, wev's pixels over it, touches pass through it, and the session's own background once it is killed")
    func wallpaperBelowWindows() throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.swaybg), "swaybg is not installed: .ci/setup installs it (apt-get install swaybg)")
        let session = try RunningSession(arguments: ["--output", "1280x720", "--config", try Self.configuration(allowing: [Self.swaybg])])
        defer { _ = session.terminate() }
        let background = try session.client([Self.swaybg, "-c", "#\(Self.wallpaper)"], output: session.file("swaybg.log"))
        try session.wait(for: "swaybg's wallpaper to map over the whole output") {
            try session.toplevels().contains { $0["label"] as? String == "wallpaper" && $0["mapped"] as? Bool == true && $0["size"] as? [Int] == [1280, 720] }
        }
        try session.wait(for: "the wallpaper's first frame") { try colours(session, "wallpaper.png", [(100, 100)]) == [Self.wallpaper] }
        // Its input region is empty: nothing is under a touch there.
        #expect(try session.msg("pixel", "100", "100").json["surface"] is NSNull, "a touch on the wallpaper reaches no surface")

        _ = try session.client(["wev"], output: session.file("wev.log"))
        try session.wait(for: "wev to map above the wallpaper") {
            let toplevels = try session.toplevels()
            return toplevels.count == 2 && toplevels[1]["mapped"] as? Bool == true && (toplevels[1]["label"] as? String)?.hasPrefix("wev") == true
        }
        let wev = try session.toplevels()[1]
        let position = wev["position"] as? [Int] ?? [0, 0], size = wev["size"] as? [Int] ?? [0, 0]
        let inside = (position[0] + size[0] / 2, position[1] + size[1] / 2)
        // The output's corner farthest from the window (wev is 640×480 on a 1280×720 output).
        let outside = (inside.0 < 640 ? 1270 : 10, inside.1 < 360 ? 710 : 10)
        #expect(outside.0 < position[0] || outside.0 >= position[0] + size[0] || outside.1 < position[1] || outside.1 >= position[1] + size[1],
                "\(outside) is outside wev at \(position) \(size)")
        try session.wait(for: "wev's first frame over the wallpaper") {
            let pixel = try colours(session, "wev.png", [inside, outside])
            return pixel[0] != Self.wallpaper && pixel[1] == Self.wallpaper
        }
        let reached = try session.msg("pixel", String(inside.0), String(inside.1)).json["surface"] as? [String: Any]
        #expect(reached?["id"] as? Int == wev["id"] as? Int, "a touch there reaches wev: \(String(describing: reached))")

        // Killed, as a client that dies: SIGTERM may be ignored where the tests run (an ignored
        // signal stays ignored across exec, and swaybg installs no handler).
        kill(background.processIdentifier, SIGKILL)
        background.waitUntilExit()
        try session.wait(for: "the wallpaper to leave the tree") { try !session.toplevels().contains { $0["label"] as? String == "wallpaper" } }
        try session.wait(for: "the session's background where the wallpaper was") { try colours(session, "gone.png", [outside]) == [ScreenshotTests.background] }
        #expect(try session.msg("focus").status == 0, "the session keeps running")
    }

    @Test("without the privilege swaybg finds no layer shell and exits with an error; the session keeps running")
    func wallpaperRefused() throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.swaybg), "swaybg is not installed: .ci/setup installs it (apt-get install swaybg)")
        let session = try RunningSession(arguments: ["--config", try Self.configuration(allowing: ["/usr/bin/wev"])])
        defer { _ = session.terminate() }
        let log = session.file("swaybg.log")
        let background = try session.client([Self.swaybg, "-c", "#\(Self.wallpaper)"], output: log)
        try session.wait(for: "swaybg to give up") { !background.isRunning }
        #expect(background.terminationStatus != 0, "swaybg: \(RunningSession.text(of: log))")
        #expect(try session.toplevels().isEmpty, "nothing mapped")
        #expect(try session.msg("focus").status == 0, "the session keeps running")
    }
}
