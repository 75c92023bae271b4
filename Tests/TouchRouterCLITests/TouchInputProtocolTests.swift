import Foundation
import Testing

/// Clients/touch-input-client.c, built once per test run with its wayland-scanner code
/// generated from protocols/ (Clients/build-touch-input-client.sh).
enum TouchInputClient {
    static let clients = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients")

    /// The built client's path, or what the build said.
    static let built: Result<String, BuildFailure> = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("touch-input-client-\(getpid())").path
        let build = Process()
        build.executableURL = URL(fileURLWithPath: "/bin/sh")
        build.arguments = [clients.appendingPathComponent("build-touch-input-client.sh").path, directory]
        let output = Pipe()
        build.standardOutput = output
        build.standardError = output
        do { try build.run() } catch { return .failure(BuildFailure(text: "\(error)")) }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        build.waitUntilExit()
        guard build.terminationStatus == 0 else { return .failure(BuildFailure(text: text)) }
        return .success(directory + "/touch-input-client")
    }()

    struct BuildFailure: Error, CustomStringConvertible {
        var text: String
        var description: String { "building touch-input-client failed:\n\(text)" }
    }

    static func path() throws -> String { try built.get() }
}

extension RunningSession {
    /// Starts the extension's client with `flags` and waits until its window is mapped;
    /// returns its log and its toplevel from `msg tree`.
    func touchInputClient(_ flags: [String], log name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> (log: URL, window: [String: Any]) {
        let before = Set(try toplevels().compactMap { $0["id"] as? Int })
        let log = file(name)
        _ = try client([try TouchInputClient.path()] + flags, output: log)
        var window: [String: Any] = [:]
        try wait(for: "\(name): the client to map") {
            window = try toplevels().first { !before.contains($0["id"] as? Int ?? -1) && $0["mapped"] as? Bool == true } ?? [:]
            return !window.isEmpty && RunningSession.text(of: log).contains("mapped\n")
        }
        return (log, window)
    }

    /// A window started before, mapped: wev and its toplevel.
    func wev(log name: String = "wev.log") throws -> (log: URL, window: [String: Any]) {
        let log = file(name)
        _ = try client(["wev"], output: log)
        var window: [String: Any] = [:]
        try wait(for: "wev to map") {
            window = try toplevels().first { $0["mapped"] as? Bool == true } ?? [:]
            return !window.isEmpty
        }
        return (log, window)
    }

    /// Waits until `log` holds `line` as a whole line.
    func wait(for line: String, in log: URL) throws {
        try wait(for: "'\(line)' in \(log.lastPathComponent)") { Self.lines(of: log).contains(line) }
    }

    static func lines(of log: URL) -> [String] { text(of: log).split(separator: "\n").map(String.init) }
}

extension Dictionary where Key == String, Value == Any {
    var position: [Int] { self["position"] as? [Int] ?? [0, 0] }
    var size: [Int] { self["size"] as? [Int] ?? [0, 0] }
    var id: Int? { self["id"] as? Int }
}

/// touch-router-input-v1 with a real client of it (Clients/touch-input-client.c) in a real
/// `touch-router run`, input injected through the control socket. Each policy is also run
/// at its default, so that a test whose policy did nothing would see the difference.
@Suite("The touch-router-input-v1 protocol: policies, deferral, rejection and its errors, with a libwayland client", .serialized)
struct TouchInputProtocolTests {
    @Test("multiple touch off: the surface gets only the first of two touches (on: both)", arguments: [("off", false), ("on", true)])
    func multipleTouch(setting: String, getsSecond: Bool) throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let (log, window) = try session.touchInputClient(["--multiple-touch", setting], log: "client.log")
        let (x, y) = (window.position[0], window.position[1])
        try session.inject(["touch down 0 \(x + 50) \(y + 50)", "touch frame", "touch down 1 \(x + 150) \(y + 150)", "touch frame",
                            "touch motion 1 \(x + 160) \(y + 160)", "touch frame", "touch up 1", "touch frame", "touch up 0", "touch frame"])
        try session.wait(for: "up 0", in: log)
        let lines = RunningSession.lines(of: log)
        #expect(lines.contains("down 0 50.0 50.0"), "\(lines)")
        #expect(lines.contains("down 1 150.0 150.0") == getsSecond, "\(lines)")
        #expect(lines.contains("up 1") == getsSecond, "\(lines)")
    }

    @Test("exclusive touch: while the exclusive surface tracks a touch another window's touch is not delivered, and the other way round")
    func exclusiveTouch() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        // A at (0, 0), 100×100; B cascades to (32, 32), 200×200: (10, 10) is only A's, (200, 200) only B's.
        let (exclusiveLog, a) = try session.touchInputClient(["--exclusive-touch", "on", "--size", "100x100"], log: "exclusive.log")
        let (otherLog, b) = try session.touchInputClient(["--size", "200x200"], log: "other.log")
        let onA = "\(a.position[0] + 10) \(a.position[1] + 10)", onB = "\(b.position[0] + 168) \(b.position[1] + 168)"
        #expect(try session.msg("pick", "\(a.position[0] + 10)", "\(a.position[1] + 10)").json["surface"].flatMap { ($0 as? [String: Any])?["id"] as? Int } == a.id)
        // The exclusive surface tracks touch 0: B's touch 1 is blocked for its whole life.
        try session.inject(["touch down 0 \(onA)", "touch frame", "touch down 1 \(onB)", "touch frame", "touch up 1", "touch frame", "touch up 0", "touch frame"])
        // B tracks touch 2: A's touch 3 is blocked.
        try session.inject(["touch down 2 \(onB)", "touch frame", "touch down 3 \(onA)", "touch frame", "touch up 3", "touch frame", "touch up 2", "touch frame"])
        try session.wait(for: "up 0", in: exclusiveLog)
        try session.wait(for: "up 2", in: otherLog)
        let exclusive = RunningSession.lines(of: exclusiveLog), other = RunningSession.lines(of: otherLog)
        #expect(exclusive.contains("down 0 10.0 10.0"), "\(exclusive)")
        #expect(!exclusive.contains { $0.hasPrefix("down 3") }, "A's touch while B tracks one: \(exclusive)")
        #expect(other.contains("down 2 168.0 168.0"), "\(other)")
        #expect(!other.contains { $0.hasPrefix("down 1") }, "B's touch while exclusive A tracks one: \(other)")
    }

    @Test("interaction disabled: a touch on the surface falls through to wev beneath (enabled: the surface takes it)", arguments: [("off", true), ("on", false)])
    func interactionDisabled(setting: String, wevGetsIt: Bool) throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let (wevLog, beneath) = try session.wev()
        let (log, window) = try session.touchInputClient(["--interaction", setting], log: "client.log")
        // Inside both: the client's window overlaps wev's by its cascade.
        let (x, y) = (window.position[0] + 20, window.position[1] + 20)
        try #require(x < beneath.position[0] + beneath.size[0] && y < beneath.position[1] + beneath.size[1], "wev is too small: \(beneath)")
        let picked = try session.msg("pick", "\(x)", "\(y)").json["surface"] as? [String: Any]
        #expect(picked?["id"] as? Int == (wevGetsIt ? beneath.id : window.id))
        try session.inject(["touch down 0 \(x) \(y)", "touch frame", "touch up 0", "touch frame"])
        if wevGetsIt {
            try session.wait(for: "wev to get the touch") { RunningSession.text(of: wevLog).contains("wl_touch] up: ") }
            let local = "\(x - beneath.position[0]).000000, \(y - beneath.position[1]).000000"
            #expect(RunningSession.text(of: wevLog).contains("id: 0; x, y: \(local)"), "\(RunningSession.text(of: wevLog))")
            #expect(!RunningSession.lines(of: log).contains { $0.hasPrefix("down") }, "\(RunningSession.lines(of: log))")
        } else {
            try session.wait(for: "up 0", in: log)
            #expect(RunningSession.lines(of: log).contains("down 0 20.0 20.0"))
            #expect(!RunningSession.text(of: wevLog).contains("wl_touch] down"))
        }
    }

    @Test("accepts keyboard focus off: the new window never gets keyboard focus, not on mapping, not on a tap; keys go on to wev (on: it takes focus)",
          arguments: [("off", false), ("on", true)])
    func keyboardFocus(setting: String, takesFocus: Bool) throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let (wevLog, wevWindow) = try session.wev()
        try session.wait(for: "wev to take keyboard focus") { try session.msg("focus").json["keyboard"] as? Int == wevWindow.id }
        let (log, window) = try session.touchInputClient(["--keyboard-focus", setting], log: "client.log")
        let (x, y) = (window.position[0] + 20, window.position[1] + 20)
        try session.inject(["touch down 0 \(x) \(y)", "touch frame", "touch up 0", "touch frame", "key press KEY_K", "key release KEY_K"])
        try session.wait(for: "up 0", in: log)
        #expect(try session.msg("focus").json["keyboard"] as? Int == (takesFocus ? window.id : wevWindow.id))
        let lines = RunningSession.lines(of: log)
        #expect(lines.contains("keyboard enter") == takesFocus, "\(lines)")
        if takesFocus {
            try session.wait(for: "key 37 0", in: log)
        } else {
            try session.wait(for: "wev to get the key") { RunningSession.text(of: wevLog).contains("key: 45; state: 0 (released)") }
            #expect(!lines.contains { $0.hasPrefix("key ") }, "\(lines)")
        }
    }

    /// Two touches, `first` then `second`, on the client's window; the second lifts first.
    private func twoFingers(_ session: RunningSession, _ window: [String: Any], _ first: Int, _ second: Int) throws {
        let (x, y) = (window.position[0], window.position[1])
        try session.inject(["touch down \(first) \(x + 30) \(y + 30)", "touch frame", "touch down \(second) \(x + 120) \(y + 120)", "touch frame",
                            "touch up \(second)", "touch frame", "touch up \(first)", "touch frame"])
    }

    @Test("double-buffered: a policy sent after mapping changes nothing until the surface's next commit, then holds")
    func appliedOnCommit() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let (log, window) = try session.touchInputClient(["--late", "--multiple-touch", "off", "--on-up", "commit"], log: "client.log")
        try twoFingers(session, window, 0, 1)
        try session.wait(for: "up 0", in: log)
        #expect(RunningSession.lines(of: log).contains("down 1 120.0 120.0"), "pending, not yet committed: both touches arrive: \(RunningSession.lines(of: log))")
        #expect(RunningSession.lines(of: log).contains("committed"))
        // The client flushed its commit before it said so (see rejectTouch).
        usleep(100_000)
        try twoFingers(session, window, 2, 3)
        try session.wait(for: "up 2", in: log)
        let lines = RunningSession.lines(of: log)
        #expect(lines.contains("down 2 30.0 30.0"), "\(lines)")
        #expect(!lines.contains { $0.hasPrefix("down 3") }, "committed: only the first touch: \(lines)")
    }

    @Test("destroying the surface's input object returns it to the defaults at its next commit")
    func destroyRestoresDefaults() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let (log, window) = try session.touchInputClient(["--multiple-touch", "off", "--on-up", "destroy-input"], log: "client.log")
        try twoFingers(session, window, 0, 1)
        try session.wait(for: "committed", in: log)
        #expect(!RunningSession.lines(of: log).contains { $0.hasPrefix("down 1") }, "multiple touch off while the object lives: \(RunningSession.lines(of: log))")
        usleep(100_000)
        try twoFingers(session, window, 2, 3)
        try session.wait(for: "up 3", in: log)
        #expect(RunningSession.lines(of: log).contains("down 3 120.0 120.0"), "the default again: \(RunningSession.lines(of: log))")
    }

    @Test("a subsurface's own policy: with interaction off, a touch on it reaches its parent, at the parent's coordinates (on: the subsurface takes it)",
          arguments: [(["--sub", "--interaction", "off"], "down 0 60.0 60.0"), ([], "down 0 10.0 10.0 sub")])
    func subsurfacePolicy(flags: [String], expected: String) throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let (log, window) = try session.touchInputClient(["--subsurface"] + flags, log: "client.log")
        try session.inject(["touch down 0 \(window.position[0] + 60) \(window.position[1] + 60)", "touch frame", "touch up 0", "touch frame"])
        try session.wait(for: "up 0", in: log)
        #expect(RunningSession.lines(of: log).contains(expected), "\(RunningSession.lines(of: log))")
    }

    @Test("a synchronized subsurface's policy waits, cached, for its parent's commit, as the rest of its state does")
    func synchronizedSubsurfaceCachesPolicy() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let (log, window) = try session.touchInputClient(["--subsurface", "--late", "--sub", "--interaction", "off", "--on-up", "commit-sub", "--on-up", "commit"],
                                                         log: "client.log")
        let tap = { (id: Int) throws in
            try session.inject(["touch down \(id) \(window.position[0] + 60) \(window.position[1] + 60)", "touch frame", "touch up \(id)", "touch frame"])
            try session.wait(for: "up \(id)", in: log)
            // Each up makes the client commit; it flushed the commit before it said so (see rejectTouch).
            try session.wait(for: "the commit after up \(id)") { RunningSession.lines(of: log).filter { $0 == "committed" }.count == min(id + 1, 2) }
            usleep(100_000)
        }
        try tap(0)  // The subsurface commits: its policy is cached.
        try tap(1)  // The toplevel commits: the cached policy applies.
        try tap(2)
        let lines = RunningSession.lines(of: log)
        #expect(lines.contains("down 0 10.0 10.0 sub"), "pending: \(lines)")
        #expect(lines.contains("down 1 10.0 10.0 sub"), "committed by the subsurface, cached for its parent: \(lines)")
        #expect(lines.contains("down 2 60.0 60.0"), "applied with the parent's commit: \(lines)")
    }

    @Test("gesture deferral: rectangles at the ends of int32 are taken without a trap; the client goes on receiving touches")
    func gestureDeferralAtTheEdgesOfInt32() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let max = Int32.max, min = Int32.min
        let (log, window) = try session.touchInputClient(["--defer", "\(max),\(max),\(max),\(max)", "--defer", "\(min),\(min),\(max),\(max)",
                                                          "--defer", "0,0,1,1"], log: "client.log")
        try session.inject(["touch down 4 \(window.position[0] + 5) \(window.position[1] + 5)", "touch frame", "touch up 4", "touch frame"])
        try session.wait(for: "up 4", in: log)
        #expect(try session.msg("tree").json["ok"] as? Bool == true)
    }

    @Test("reject: the client gets cancel and nothing more of the touch, the trace shows the rejection and the rest of the sequence passing it by; its next touch is fresh")
    func rejectTouch() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let trace = try session.startTrace()
        let (log, window) = try session.touchInputClient(["--reject-first"], log: "client.log")
        let (x, y) = (window.position[0] + 50, window.position[1] + 50)
        try session.inject(["touch down 0 \(x) \(y)", "touch frame"])
        try session.wait(for: "rejected 0", in: log)
        // The client flushed its reject before it said so; the session reads it in its next
        // loop round, which a moment's wait leaves no doubt about (two sockets, no shared order
        // between the client's and the control socket's).
        usleep(100_000)
        try session.inject(["touch motion 0 \(x + 10) \(y + 10)", "touch frame", "touch up 0", "touch frame",
                            "touch down 1 \(x) \(y)", "touch frame", "touch up 1", "touch frame"])
        try session.wait(for: "up 1", in: log)
        let lines = RunningSession.lines(of: log)
        #expect(lines.contains("down 0 50.0 50.0"), "\(lines)")
        #expect(lines.contains("down 1 50.0 50.0"), "a later touch is the client's again: \(lines)")
        #expect(try session.msg("tree").json["ok"] as? Bool == true, "a reject is no protocol error")

        #expect(lines.contains("cancel"), "\(lines)")
        let afterCancel = lines.drop { $0 != "cancel" }
        #expect(!afterCancel.contains { $0.hasPrefix("motion 0") || $0 == "up 0" }, "nothing of touch 0 after its cancel: \(lines)")
        let traced = RunningSession.lines(of: trace)
        #expect(traced.contains { $0.localizedCaseInsensitiveContains("reject") }, "the trace names the rejection: \(traced)")
        let records = traced.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
        let motion = records.first { ($0["event"] as? String)?.hasPrefix("touch motion 0 ") == true }
        #expect(motion != nil && motion?["outcome"] as? String != "delivered", "the rest of the sequence is not delivered to the client: \(String(describing: motion))")
    }

    /// touch-input-client's `--break` modes, each with the message libwayland-client prints.
    @Test("a client that breaks the extension is ended with an error naming the object and the request; wev, beside it, goes on receiving",
          arguments: [
              ("second-object", "touch_router_input_manager_v1@\\d+: error 0: touch_router_input_manager_v1@\\d+\\.get_surface_input: wl_surface@\\d+ already has a touch_router_surface_input_v1"),
              ("bad-setting", "touch_router_surface_input_v1@\\d+: error 1: touch_router_surface_input_v1@\\d+\\.set_exclusive_touch: 2 is neither off \\(0\\) nor on \\(1\\)"),
              ("bad-rectangle", "touch_router_surface_input_v1@\\d+: error 2: touch_router_surface_input_v1@\\d+\\.set_gesture_deferral: rectangle 0 is -5x10, not at least 1x1"),
              ("ragged-array", "touch_router_surface_input_v1@\\d+: error 2: touch_router_surface_input_v1@\\d+\\.set_gesture_deferral: 22 bytes are not whole rectangles of four int32"),
              ("too-many-rectangles", "touch_router_surface_input_v1@\\d+: error 3: touch_router_surface_input_v1@\\d+\\.set_gesture_deferral: 200 rectangles, past 32, the most one surface may defer"),
              ("after-surface-destroy", "touch_router_surface_input_v1@\\d+: error 0: touch_router_surface_input_v1@\\d+\\.set_multiple_touch: its wl_surface was destroyed"),
              ("bad-receipt-nanoseconds", "touch_router_input_manager_v1@\\d+: error 1: touch_router_input_manager_v1@\\d+\\.received: the receipt time \\(sec_hi 0, sec_lo 6, nsec 1000000000\\) is not a time"),
              ("bad-receipt-seconds", "touch_router_input_manager_v1@\\d+: error 1: touch_router_input_manager_v1@\\d+\\.received: the event time \\(sec_hi 2147483648, sec_lo 0, nsec 0\\) is not a time"),
          ])
    func protocolErrors(mode: String, error: String) throws {
        try RunningSession.besideWev([try TouchInputClient.path(), "--break", mode], expecting: error)
    }
}
