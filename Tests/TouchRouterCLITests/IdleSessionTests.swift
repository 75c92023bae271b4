import Foundation
import Testing

/// `[idle]` in a live session: Debian's swayidle on ext-idle-notify-v1, outputs that dim and
/// go dark, and the input that wakes one reaching nobody.
@Suite("Idle and blanking: swayidle, a dark output, and the waking tap that reaches nobody", .serialized)
struct IdleSessionTests {
    static let roomsClient = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/protocol-rooms.py").path

    /// A session reading `toml` as its configuration file.
    private func session(_ toml: String) throws -> RunningSession {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("touch-router-idle-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("idle.toml")
        try toml.write(to: file, atomically: true, encoding: .utf8)
        return try RunningSession(arguments: ["--config", file.path, "--output", "640x480"])
    }

    private func idle(_ session: RunningSession) throws -> [String: Any] { try session.msg("idle").json }

    private func power(_ session: RunningSession) throws -> String? {
        (try session.msg("tree").json["outputs"] as? [[String: Any]])?.first?["power"] as? String
    }

    @Test("swayidle hears idled and resumed over ext-idle-notify-v1; the output goes dark at blank-after; a tap on it wakes it and reaches no client, the trace saying why; the next tap reaches wev; subscribers hear each phase")
    func wakingTap() throws {
        let session = try session("[idle]\nblank-after = 2\n")
        defer { _ = session.terminate() }
        let wevLog = session.file("wev.log")
        _ = try session.client(["wev"], output: wevLog)
        try session.wait(for: "wev to map") { try session.toplevels().count == 1 }
        let events = try session.subscribe(["idle"])
        let trace = try session.startTrace()
        let swayidleLog = session.file("swayidle.log")
        let swayidle = try session.client(["swayidle", "-w", "timeout", "1", "echo idled", "resume", "echo resumed"], output: swayidleLog,
                                          environment: ["WAYLAND_DEBUG": "1"])
        try session.wait(for: "swayidle to run 'echo idled'") { RunningSession.text(of: swayidleLog).contains("\nidled\n") }
        #expect(RunningSession.text(of: swayidleLog).contains("ext_idle_notifier_v1@"), "swayidle 1.8 takes ext-idle-notify-v1 when offered")
        try session.wait(for: "the output to go dark") { try idle(session)["state"] as? String == "blanked" }
        #expect(try power(session) == "off")
        #expect(try idle(session)["dark_outputs"] as? [String] == ["HEADLESS-1"])
        #expect(!RunningSession.text(of: swayidleLog).contains("\nresumed\n"))

        try session.inject(["touch down 0 320 240", "touch frame", "touch motion 0 330 250", "touch frame", "touch up 0", "touch frame"])
        try session.wait(for: "the output to light") { try power(session) == "on" }
        #expect(try idle(session)["state"] as? String == "active")
        try session.wait(for: "swayidle to run 'echo resumed'") { RunningSession.text(of: swayidleLog).contains("\nresumed\n") }
        try session.wait(for: "the trace to show the waking tap") { RunningSession.text(of: trace).contains("it woke the output") }
        let woke = RunningSession.text(of: trace).split(separator: "\n").filter { $0.contains("it woke the output") }
        #expect(woke.count == 3, "the down, the motion and the up: \(woke)")
        #expect(!RunningSession.text(of: wevLog).contains("wl_touch] down"), "the waking tap reached wev")

        try session.inject(["touch down 1 320 240", "touch frame", "touch up 1", "touch frame"])
        try session.wait(for: "wev to get the next tap") { RunningSession.text(of: wevLog).contains("wl_touch] up") }
        #expect(RunningSession.text(of: wevLog).components(separatedBy: "wl_touch] down").count == 2, "one down reached wev: the second tap's")
        let states = RunningSession.objects(of: events).compactMap { $0["state"] as? String }
        #expect(states.starts(with: ["blanked", "active"]), "\(states)")
        swayidle.terminate()
    }

    @Test("dim-after dims, then blank-after darkens; a key that wakes is swallowed with its release by default and the next reaches wev; with waking-keys = \"deliver\" it reaches wev")
    func dimThenBlankAndKeys() throws {
        for deliver in [false, true] {
            let session = try session("[idle]\ndim-after = 0.5\nblank-after = 1.2\n" + (deliver ? "waking-keys = \"deliver\"\n" : ""))
            defer { _ = session.terminate() }
            let wevLog = session.file("wev.log")
            _ = try session.client(["wev"], output: wevLog)
            try session.wait(for: "wev to map") { try session.toplevels().count == 1 }
            try session.inject(["touch down 0 100 100", "touch frame", "touch up 0", "touch frame"])
            try session.wait(for: "wev to take the keyboard focus") { RunningSession.text(of: wevLog).contains("wl_keyboard] enter") }
            try session.wait(for: "the output to dim") { try power(session) == "dimmed" }
            try session.wait(for: "the output to go dark") { try power(session) == "off" }
            try session.inject(["key press KEY_A", "key release KEY_A"])
            try session.wait(for: "the output to light") { try power(session) == "on" }
            try session.inject(["key press KEY_B", "key release KEY_B"])
            try session.wait(for: "wev to get B") { RunningSession.text(of: wevLog).contains("key: 56; state: 0 (released)") }
            #expect(RunningSession.text(of: wevLog).contains("key: 38; state: 1 (pressed)") == deliver, "deliver \(deliver): \(RunningSession.text(of: wevLog).suffix(400))")
        }
    }

    @Test("a dimmed output's picture is at half its brightness in a screenshot, and whole again after a tap, which reaches wev")
    func dimmedPicture() throws {
        let session = try session("[idle]\ndim-after = 1\n")
        defer { _ = session.terminate() }
        let wevLog = session.file("wev.log")
        _ = try session.client(["wev"], output: wevLog)
        try session.wait(for: "wev to map") { try session.toplevels().count == 1 }
        let shot = { (name: String) throws -> String? in
            let path = session.file(name).path
            _ = try session.msg("screenshot", path)
            return try DecodedPNG(path, points: [(320, 240)]).colours.first
        }
        let halved = { (colour: String) -> String in
            let word = UInt32(colour, radix: 16) ?? 0
            return [16, 8, 0].map { String(format: "%02x", (word >> UInt32($0) & 0xff) / 2) }.joined()
        }
        let lit = try #require(try shot("lit.png"))
        try session.wait(for: "the output to dim") { try power(session) == "dimmed" }
        let dimmed = try shot("dimmed.png")
        #expect(close(dimmed, halved(lit)), "\(lit) at half its brightness: \(dimmed ?? "none")")
        #expect(lit != "000000" && lit != halved(lit), "a colour that halving changes: \(lit)")
        try session.inject(["touch down 0 100 100", "touch frame", "touch up 0", "touch frame"])
        try session.wait(for: "the tap to reach wev") { RunningSession.text(of: wevLog).contains("wl_touch] down") }
        #expect(try power(session) == "on")
        #expect(try shot("lit-again.png") == lit)
    }

    @Test("an idle inhibitor on a shown surface keeps the output lit past blank-after; once it goes, the output goes dark blank-after later")
    func inhibitorKeepsLit() throws {
        let session = try session("[idle]\nblank-after = 1\n")
        defer { _ = session.terminate() }
        let log = session.file("inhibit.log")
        let go = session.file("go")
        _ = try session.client(["python3", Self.roomsClient, "idle-inhibit"], output: log, environment: ["GO_FILE": go.path])
        try session.wait(for: "the inhibitor") { RunningSession.text(of: log).contains("waiting") }
        try session.wait(for: "the timer to be held") { try idle(session)["inhibited"] as? Bool == true }
        usleep(1_500_000)
        #expect(try power(session) == "on", "an inhibitor keeps the screen on")
        #expect(try idle(session)["state"] as? String == "active")
        _ = FileManager.default.createFile(atPath: go.path, contents: nil)
        try session.wait(for: "the inhibitor to go") { RunningSession.text(of: log).contains("released") }
        try session.wait(for: "the output to go dark") { try power(session) == "off" }
    }

    @Test("a bad [idle] table stops run naming file:line:column",
          arguments: [("[idle]\nblank-after = -1\n", ":2:15: error: idle.blank-after: expected a number from 0 to 2592000 s, found -1"),
                      ("[idle]\nblanking = \"off\"\n", ":2:12: error: idle.blanking: expected"),
                      ("[idle]\nwake = true\n", ":2:1: error:")])
    func badTable(toml: String, error: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("touch-router-idle-bad-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let file = directory.appendingPathComponent("bad.toml")
        try toml.write(to: file, atomically: true, encoding: .utf8)
        let run = try ToolRun(["run", "--config", file.path, "--", "true"], environment: ["XDG_RUNTIME_DIR": directory.path])
        #expect(run.status != 0)
        #expect(run.errors.contains(file.path + error), "\(run.errors)")
    }
}
