import Foundation
import Testing

/// Remote support: Debian's wayvnc serves the session's screen (zwlr_screencopy_manager_v1)
/// and feeds a VNC client's pointer and keys back (the virtual pointer and keyboard), driven
/// by PyPI's vncdotool (.ci/setup installs it into .build/tools-venv).
@Suite("Remote support: wayvnc serves the screen to a VNC client, whose click reaches GTK", .serialized)
struct RemoteSupportTests {
    static let vncdo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(".build/tools-venv/bin/vncdo").path
    static let button = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/gtk-button.py").path
    static let pixel = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/png-pixel.py").path

    /// vncdo's words against the server on `port`; its status and output.
    static func vncdo(_ port: Int, _ words: [String]) throws -> (Int32, String) {
        try run(vncdo, ["-s", "127.0.0.1::\(port)", "--timeout", "20"] + words)
    }

    static func run(_ program: String, _ arguments: [String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    @Test("a VNC capture is the session's picture, and a VNC click on GTK's button clicks it")
    func captureAndClick() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.vncdo), "vncdotool is not installed: TOUCH_ROUTER_SETUP=tests source .ci/setup installs it into .build/tools-venv")
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("touch-router-vnc-\(getpid())-\(UUID().uuidString.prefix(8)).toml")
        try "[privileges]\nscreen-capture = [\"wayvnc\"]\nvirtual-input = [\"wayvnc\"]\n".write(to: config, atomically: true, encoding: .utf8)
        let session = try RunningSession(arguments: ["--output", "640x480", "--config", config.path])
        defer { _ = session.terminate() }
        let buttonLog = session.file("button.log")
        _ = try session.client(["/usr/bin/python3", Self.button], output: buttonLog, environment: ["GDK_BACKEND": "wayland"])
        try session.wait(for: "the GTK window to map") { try RunningSession.text(of: buttonLog).contains("mapped") && session.toplevels().first?["mapped"] as? Bool == true }
        let window = try #require(try session.toplevels().first)
        let position = window["position"] as? [Int] ?? [0, 0], size = window["size"] as? [Int] ?? [0, 0]

        let port = 5900 + Int(getpid() % 90)
        let vncLog = session.file("wayvnc.log")
        let wayvnc = try session.client(["wayvnc", "127.0.0.1", String(port)], output: vncLog)
        try session.wait(for: "wayvnc to listen") { wayvnc.isRunning && (try? Self.vncdo(port, ["capture", session.file("probe.png").path]).0 == 0) == true }

        let capture = session.file("capture.png")
        let (status, output) = try Self.vncdo(port, ["capture", capture.path])
        #expect(status == 0, "\(output)")
        // The session's own picture of the same moment: msg screenshot, read at the same points.
        let shot = session.file("shot.png")
        #expect(try session.msg("screenshot", shot.path).status == 0)
        let points = [(5, 5), (position[0] + size[0] / 2, position[1] + size[1] / 2), (position[0] + 3, position[1] + 3), (630, 470)]
        let coordinates = points.flatMap { [String($0.0), String($0.1)] }
        let viaVNC = try Self.run("/usr/bin/python3", [Self.pixel, capture.path] + coordinates).1
        let composed = try Self.run("/usr/bin/python3", [Self.pixel, shot.path] + coordinates).1
        #expect(viaVNC.hasPrefix("640x480\n") && viaVNC.split(separator: "\n").count == points.count + 1, "the VNC picture is the output's: \(viaVNC)")
        #expect(viaVNC == composed, "at \(points): VNC shows\n\(viaVNC)the session composed\n\(composed)")
        #expect(Set(viaVNC.split(separator: "\n").dropFirst()).count >= 2, "the points are not all one colour: \(viaVNC)")
        let click = try Self.vncdo(port, ["move", String(position[0] + size[0] / 2), String(position[1] + size[1] / 2), "click", "1"])
        #expect(click.0 == 0, "\(click.1)")
        try session.wait(for: "GTK's button to be clicked through VNC") { RunningSession.text(of: buttonLog).contains("clicked") }
        #expect(wayvnc.isRunning, "\(RunningSession.text(of: vncLog))")
    }

    @Test("wayvnc granted the virtual input but not screen capture sees no zwlr_screencopy_manager_v1 and exits with an error")
    func notGranted() throws {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("touch-router-vnc-\(getpid())-\(UUID().uuidString.prefix(8)).toml")
        try "[privileges]\nvirtual-input = [\"wayvnc\"]\n".write(to: config, atomically: true, encoding: .utf8)
        let session = try RunningSession(arguments: ["--output", "640x480", "--config", config.path])
        defer { _ = session.terminate() }
        let vncLog = session.file("wayvnc.log")
        let wayvnc = try session.client(["wayvnc", "127.0.0.1", String(5990 + Int(getpid() % 9))], output: vncLog)
        try session.wait(for: "wayvnc to give up") { !wayvnc.isRunning }
        #expect(wayvnc.terminationStatus != 0)
        #expect(RunningSession.text(of: vncLog).lowercased().contains("screencopy"), "\(RunningSession.text(of: vncLog))")
    }
}
