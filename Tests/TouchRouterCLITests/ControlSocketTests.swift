import Foundation
import Testing

/// The control socket's bounds (docs/session.md, "Control socket"), with a peer that pipelines
/// requests, holds connections and stops reading a trace.
@Suite("The control socket: many requests a connection, a cap on connections, a trace reader told what it lost", .serialized)
struct ControlSocketTests {
    static let controlClient = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/control-client.py").path

    private func peer(_ session: RunningSession, _ mode: String) throws -> [String] {
        let log = session.file("control-\(mode).log")
        let client = try session.client(["python3", Self.controlClient, session.controlSocket, mode], output: log)
        client.waitUntilExit()
        let text = RunningSession.text(of: log)
        #expect(client.terminationStatus == 0, "\(text)")
        return text.split(separator: "\n").map(String.init)
    }

    @Test("one connection takes any number of requests, written at once, and answers each with one line, in order")
    func manyRequests() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let replies = try peer(session, "many-requests")
        #expect(replies.count == 6, "\(replies)")
        guard replies.count == 6 else { return }
        #expect(replies[0].hasPrefix("{\"ok\":true,\"outputs\":"))
        #expect(replies[1].hasPrefix("{\"ok\":true,\"keyboard\":"))
        #expect(replies[2].hasPrefix("{\"ok\":true,\"surface\":null"))
        #expect(replies[3] == "{\"ok\":false,\"error\":\"unknown request 'no-such-request': expected tree, pick, pixel, screenshot, inject, trace, subscribe, reload, devices, output, stats, idle, play, focus, ignore-interaction, grant-socket or revoke-socket\"}")
        #expect(replies[4] == "{\"ok\":true,\"event\":\"touch down 1 5 5\"}")
        #expect(replies[5] == "{\"ok\":true,\"event\":\"touch up 1\"}")
    }

    @Test("msg is answered by the launcher alone, loading neither the Swift runtime nor the session's libraries, with the CLI's replies, statuses and errors; other commands load the CLI library")
    func msgWithoutTheCLILibrary() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        func loaded(_ run: ToolRun) -> [String] {
            run.errors.split(separator: "\n").compactMap { line in
                guard let range = line.range(of: "file=") else { return nil }
                return String(line[range.upperBound...].prefix { $0 != " " && $0 != "[" })
            }
        }
        let ok = try ToolRun(["msg", "--socket", session.controlSocket, "focus"], environment: ["LD_DEBUG": "files"])
        #expect(ok.status == 0)
        #expect(ok.output.hasPrefix("{\"ok\":true,\"keyboard\":"), "\(ok.output)")
        let libraries = loaded(ok)
        #expect(!libraries.isEmpty, "LD_DEBUG=files lists what the loader opens: \(ok.errors)")
        #expect(!libraries.contains { $0.contains("libTouchRouterCLI") || $0.contains("libswiftCore") || $0.contains("libwayland") || $0.contains("libinput") }, "\(libraries)")

        let refused = try ToolRun(["msg", "--socket=\(session.controlSocket)", "no-such-request"])
        #expect(refused.status == 1)
        #expect(refused.output.hasPrefix("{\"ok\":false,\"error\":\"unknown request 'no-such-request'"), "\(refused.output)")
        let nowhere = try ToolRun(["msg", "--socket", "/nonexistent/control.sock", "tree"])
        #expect(nowhere.status == 1)
        #expect(nowhere.errors == "Error: cannot connect to the control socket /nonexistent/control.sock: No such file or directory\n", "\(nowhere.errors)")
        // What the launcher leaves to the CLI gets the CLI's own message.
        let noRequest = try ToolRun(["msg", "--socket", session.controlSocket], environment: ["LD_DEBUG": "files"])
        #expect(noRequest.status != 0)
        #expect(noRequest.errors.contains("touch-router msg: no request: expected tree, pick"), "\(noRequest.errors.suffix(400))")
        #expect(loaded(noRequest).contains { $0.contains("libTouchRouterCLI.so") })
    }

    @Test("past 64 connections a new one is refused with a reason; once one closes, a new one is served")
    func connectionCap() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let said = try peer(session, "connections")
        #expect(said.contains("refused: {\"ok\":false,\"error\":\"the session has 64 control connections open, the most it keeps: close one first\"}"), "\(said)")
        #expect(said.contains { $0.hasPrefix("after one closed: {\"ok\":true,\"keyboard\":") }, "\(said)")
        #expect(try session.msg("tree").status == 0)
    }

    @Test("a trace reader that falls behind loses lines, not the session's time, and is told how many it lost")
    func slowTraceReader() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let said = try peer(session, "slow-trace")
        let lost = said.first { $0.hasPrefix("lost line: ") }.map { String($0.dropFirst("lost line: ".count)) } ?? ""
        let count = (try? JSONSerialization.jsonObject(with: Data(lost.utf8)) as? [String: Any])?["lost"] as? Int ?? 0
        #expect(count > 0, "\(said)")
        #expect(said.contains { $0.hasPrefix("lines after it: ") && $0 != "lines after it: 0" }, "the trace goes on after the count: \(said)")
        #expect(try session.msg("focus").status == 0)
    }

    @Test("a connection with nothing to stream that sends no request is closed once it has been idle long enough (2 s here, 60 s by default)")
    func idleConnection() throws {
        let session = try RunningSession(environment: ["TOUCH_ROUTER_CONTROL_IDLE_SECONDS": "2"])
        defer { _ = session.terminate() }
        let said = try peer(session, "idle")
        let seconds = said.first { $0.hasPrefix("closed after ") }.flatMap { Int($0.split(separator: " ")[2]) } ?? -1
        #expect((2...4).contains(seconds), "\(said)")
        #expect(said.contains { $0.hasSuffix("with 0 more bytes") }, "\(said)")
        #expect(try session.msg("tree").status == 0)
    }

    @Test("inject puts at most 256 touches down at once, as scripts may; the 257th is refused with the reason")
    func injectedTouches() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let said = try peer(session, "touch-cap")
        #expect(said.contains("257th: {\"ok\":false,\"error\":\"inject: 256 touches are down already, the most the control socket puts down; lift one first\"}"), "\(said)")
        #expect(said.contains("after one lifted: {\"ok\":true,\"event\":\"touch down 300 5 5\"}"), "\(said)")
    }

    @Test("the session raises its soft limit on open files to the hard limit, so that many clients cannot starve it")
    func descriptorLimit() throws {
        // The session inherits a soft limit below the hard one, for as long as it takes to start it.
        var inherited = rlimit()
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #expect(getrlimit(resource, &inherited) == 0)
        #expect(inherited.rlim_max > 256, "the hard limit leaves nothing to raise")
        var lowered = inherited
        lowered.rlim_cur = 256
        setrlimit(resource, &lowered)
        let started = Result { try RunningSession() }
        setrlimit(resource, &inherited)
        let session = try started.get()
        defer { _ = session.terminate() }
        let limits = try String(contentsOfFile: "/proc/\(session.process.processIdentifier)/limits", encoding: .utf8)
        let row = limits.split(separator: "\n").first { $0.hasPrefix("Max open files") }.map { $0.split(separator: " ", omittingEmptySubsequences: true) } ?? []
        // "Max open files SOFT HARD files"
        #expect(row.count == 6 && row[3] == row[4], "\(row)")
    }
}
