import Foundation
import Testing

/// `touch-router run --supervise` and `[supervise]` (docs/supervision.md): a crashing app
/// restarted with growing delays and then the fallback; a hung app found by unanswered
/// xdg_wm_base pings, its window taking no touches, reported or restarted; sd_notify's
/// READY=1 and WATCHDOG=1 on a socket the test binds.
@Suite("Supervision: restarts with backoff, the fallback, hung clients, sd_notify", .serialized)
struct SupervisionTests {
    /// A session whose configuration supervises `app` (a shell command line) once the test
    /// creates the gate file: the test subscribes first, so that it hears the first start.
    private func session(app: String, settings: String, environment: [String: String] = [:], gated: Bool = true) throws -> (RunningSession, gate: URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("touch-router-supervise-\(getpid())-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let gate = directory.appendingPathComponent("gate")
        let config = directory.appendingPathComponent("config.toml")
        let line = gated ? "while [ ! -e '\(gate.path)' ]; do sleep 0.05; done; \(app)" : app
        let text = """
            [supervise]
            command = ["/bin/sh", "-c", \(tomlString(line))]
            \(settings)
            """
        try text.write(to: config, atomically: true, encoding: .utf8)
        let session = try RunningSession(arguments: ["--config", config.path], environment: environment, keepingErrors: true)
        return (session, gate)
    }

    private func tomlString(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    private func appEvents(_ log: URL, _ change: String) -> [[String: Any]] {
        RunningSession.objects(of: log).filter { $0["type"] as? String == "app" && $0["change"] as? String == change }
    }

    private func errors(_ session: RunningSession) -> String { session.errors.map { RunningSession.text(of: $0) } ?? "" }

    @Test("an app that exits 3 three times is restarted after 200 then 400 ms, then the fallback runs and the session stays up")
    func crashThenFallback() throws {
        let (session, gate) = try session(app: "echo started >> \"$LOGDIR/starts\"; exec python3 \(SessionTests.rawClient) crash 3",
                                          settings: """
                                              backoff-initial = 0.2
                                              backoff-max = 5
                                              max-failures = 3
                                              window = 60
                                              hang-after = 0
                                              fallback = "echo fallback >> \\"$LOGDIR/fallback\\"; exec sleep 60"
                                              """, environment: ["LOGDIR": NSTemporaryDirectory()])
        defer { _ = session.terminate() }
        let starts = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("starts")
        let fallback = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("fallback")
        try? FileManager.default.removeItem(at: starts)
        try? FileManager.default.removeItem(at: fallback)
        let log = try session.subscribe(["app"])
        let began = Date()
        #expect(FileManager.default.createFile(atPath: gate.path, contents: nil), "the gate opens")
        try session.wait(for: "the fallback") { !appEvents(log, "fallback").isEmpty }
        let elapsed = Date().timeIntervalSince(began)
        let exits = appEvents(log, "exited")
        #expect(exits.count == 3, "\(RunningSession.text(of: log))")
        #expect(exits.map { $0["status"] as? Int } == [3, 3, 3])
        #expect(exits.map { $0["next_in_ms"] as? Int } == [200, 400, nil], "the delay doubles; no restart after the third failure")
        #expect(appEvents(log, "restarted").map { $0["restarts"] as? Int } == [1, 2])
        let failed = appEvents(log, "failed").first
        #expect((failed?["reason"] as? String)?.contains("failed 3 times within 60 s") == true, "\(String(describing: failed))")
        #expect(elapsed >= 0.6, "the two delays were waited: \(elapsed) s")
        try session.wait(for: "the fallback to run") { RunningSession.text(of: fallback) == "fallback\n" }
        #expect(RunningSession.text(of: starts) == "started\nstarted\nstarted\n")
        #expect(appEvents(log, "fallback").first?["pid"] as? Int != nil)
        #expect(session.process.isRunning, "the session stays up")
        let said = errors(session)
        #expect(said.contains("restart 1 in 200 ms") && said.contains("restart 2 in 400 ms"), "\(said)")
        #expect(said.contains("app failed: the app failed 3 times within 60 s"), "\(said)")
        #expect(said.contains("fallback started"), "\(said)")
    }

    @Test("without a fallback, a failing app leaves the session up with nothing but the reason on stderr and to subscribers")
    func noFallback() throws {
        let (session, gate) = try session(app: "exit 4", settings: "restart = \"never\"\nhang-after = 0")
        defer { _ = session.terminate() }
        let log = try session.subscribe(["app"])
        #expect(FileManager.default.createFile(atPath: gate.path, contents: nil), "the gate opens")
        try session.wait(for: "the fallback event") { !appEvents(log, "fallback").isEmpty }
        #expect(appEvents(log, "fallback").first?["pid"] is NSNull)
        #expect((appEvents(log, "failed").first?["reason"] as? String) == "the app failed (it exited with status 4) and restart = \"never\"")
        #expect(errors(session).contains("no fallback is configured"), "\(errors(session))")
        #expect(session.process.isRunning)
        #expect(try session.msg("tree").status == 0, "the session still answers")
    }

    @Test("an app that stops reading is reported hung within hang-after, its window takes no touch, and takes touches again once it answers")
    func hungThenResponsive() throws {
        let clientLog = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("hang-report-\(getpid()).log")
        try? FileManager.default.removeItem(at: clientLog)
        let (session, gate) = try session(app: "exec python3 \(SessionTests.rawClient) hang 5 > '\(clientLog.path)' 2>&1",
                                          settings: "hang-after = 1\nping-every = 0.5\non-hang = \"report\"")
        defer { _ = session.terminate() }
        let log = try session.subscribe(["app", "unhandled"])
        #expect(FileManager.default.createFile(atPath: gate.path, contents: nil), "the gate opens")
        try session.wait(for: "the app to map") { RunningSession.text(of: clientLog).contains("mapped pid") }
        try session.wait(for: "the app to be found hung") { !appEvents(log, "hung").isEmpty }
        let hung = appEvents(log, "hung")[0]
        #expect(hung["reason"] as? String == "ping" && hung["policy"] as? String == "report" && hung["supervised"] as? Bool == true, "\(hung)")
        #expect(!RunningSession.text(of: clientLog).contains("reading"), "found hung before it read again")
        try session.inject(["touch down 1 100 100", "touch frame"])
        try session.wait(for: "the touch on the hung window to reach nobody") {
            RunningSession.objects(of: log).contains { $0["type"] as? String == "unhandled" && ($0["event"] as? String)?.hasPrefix("touch down 1") == true }
        }
        try session.inject(["touch up 1", "touch frame"])
        try session.wait(for: "the app to answer again") { !appEvents(log, "responsive").isEmpty }
        try session.inject(["touch down 2 100 100", "touch frame", "touch up 2", "touch frame"])
        try session.wait(for: "the touch after the pong to reach the app") { RunningSession.text(of: clientLog).contains("touch down") }
        #expect(RunningSession.text(of: clientLog).components(separatedBy: "touch down").count == 2, "only the touch after the pong: \(RunningSession.text(of: clientLog))")
        #expect(appEvents(log, "exited").isEmpty, "report does not kill")
        #expect(errors(session).contains("is hung: it left a ping unanswered for 1 s; on-hang = report"), "\(errors(session))")
    }

    @Test("with on-hang = restart, an app that never answers a ping is killed and started again")
    func hungRestarted() throws {
        let clientLog = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("hang-restart-\(getpid()).log")
        try? FileManager.default.removeItem(at: clientLog)
        let (session, gate) = try session(app: "exec python3 \(SessionTests.rawClient) hang 0 >> '\(clientLog.path)' 2>&1",
                                          settings: "hang-after = 1\nping-every = 0.5\non-hang = \"restart\"\nbackoff-initial = 0.2")
        defer { _ = session.terminate() }
        let log = try session.subscribe(["app"])
        #expect(FileManager.default.createFile(atPath: gate.path, contents: nil), "the gate opens")
        try session.wait(for: "the app to be found hung") { !appEvents(log, "hung").isEmpty }
        try session.wait(for: "the app to be restarted") { !appEvents(log, "restarted").isEmpty }
        let exited = appEvents(log, "exited").first
        #expect(exited?["signal"] as? Int == 9 && exited?["hung"] as? Bool == true, "\(String(describing: exited))")
        try session.wait(for: "the restarted app to map") { RunningSession.text(of: clientLog).components(separatedBy: "mapped pid").count == 3 }
        let pids = RunningSession.text(of: clientLog).split(separator: "\n").filter { $0.hasPrefix("mapped pid") }
        #expect(Set(pids).count == 2, "a new process: \(pids)")
        #expect(errors(session).contains("(the supervised app) is hung"), "\(errors(session))")
    }

    @Test("an app whose socket stays full (it stops reading while it is sent events) is disconnected as before, reported hung with reason socket-full, and with on-hang = restart killed and started again")
    func socketFullRestarted() throws {
        let (session, gate) = try session(app: "exec python3 \(HostileClientTests.hostileClient) stops-reading",
                                          settings: "hang-after = 0\non-hang = \"restart\"\nbackoff-initial = 0.2")
        defer { _ = session.terminate() }
        let log = try session.subscribe(["app"])
        #expect(FileManager.default.createFile(atPath: gate.path, contents: nil), "the gate opens")
        try session.wait(for: "the app to be found hung") { !appEvents(log, "hung").isEmpty }
        let hung = appEvents(log, "hung")[0]
        #expect(hung["reason"] as? String == "socket-full" && hung["supervised"] as? Bool == true && hung["app_id"] as? String == "stops-reading", "\(hung)")
        try session.wait(for: "the app to be restarted") { !appEvents(log, "restarted").isEmpty }
        let exited = appEvents(log, "exited").first
        #expect(exited?["signal"] as? Int == 9 && exited?["hung"] as? Bool == true, "\(String(describing: exited))")
        #expect(errors(session).contains("its socket stayed full"), "\(errors(session))")
        #expect(errors(session).contains("is hung: it left its socket full for 5 s; on-hang = restart"), "\(errors(session))")
    }

    @Test("sd_notify: READY=1 once the app maps a window, and WATCHDOG=1 every half WATCHDOG_USEC, on a socket the test binds")
    func systemdNotify() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("notify-\(getpid()).sock").path
        unlink(path)
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        #expect(fd >= 0)
        defer { close(fd); unlink(path) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, byte) in path.utf8.enumerated() { raw[i] = byte } }
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        #expect(bound == 0, "bind: \(String(cString: strerror(errno)))")
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))

        let (session, gate) = try session(app: "exec python3 \(SessionTests.rawClient) hang 60", settings: "hang-after = 0",
                                          environment: ["NOTIFY_SOCKET": path, "WATCHDOG_USEC": "400000"])
        defer { _ = session.terminate() }
        var messages: [String] = []
        func receive(until deadline: Date) {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while Date() < deadline {
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count > 0 { messages.append(String(decoding: buffer[..<count], as: UTF8.self)) }
            }
        }
        receive(until: Date().addingTimeInterval(1))
        #expect(!messages.contains { $0.hasPrefix("READY=1") }, "not ready before the app has a window: \(messages)")
        #expect(messages.filter { $0 == "WATCHDOG=1" }.count >= 3, "a watchdog ping every 200 ms: \(messages)")
        #expect(FileManager.default.createFile(atPath: gate.path, contents: nil), "the gate opens")
        receive(until: Date().addingTimeInterval(3))
        let ready = messages.first { $0.hasPrefix("READY=1") }
        #expect(ready?.contains("STATUS=a window of process") == true, "\(messages)")
        #expect(messages.filter { $0.hasPrefix("READY=1") }.count == 1)
    }

    @Test("--supervise without a command is refused with a clear error; a bad [supervise] value names file:line:column")
    func badInput() throws {
        let run = try ToolRun(["run", "--backend", "headless", "--supervise"])
        #expect(run.status == 1)
        #expect(run.errors.contains("--supervise: there is no command to supervise"), "\(run.errors)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("touch-router-supervise-bad-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("bad.toml")
        try "[supervise]\ncommand = \"true\"\nrestart = \"sometimes\"\n".write(to: config, atomically: true, encoding: .utf8)
        let bad = try ToolRun(["run", "--backend", "headless", "--config", config.path])
        #expect(bad.status == 1)
        #expect(bad.errors.contains("\(config.path):3:11: error: supervise.restart: expected always, on-failure or never, found \"sometimes\""), "\(bad.errors)")
    }
}
