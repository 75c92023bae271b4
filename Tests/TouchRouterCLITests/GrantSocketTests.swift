import Foundation
import Testing

/// Privileges handed out by a socket (PrivilegedSockets.swift): `msg grant-socket`,
/// `msg revoke-socket` and `run --grant`, with Debian's wayland-info and the virtual input
/// client (Clients/virtual-input-client.c) in a real `touch-router run` with no `[privileges]`.
@Suite("Grant sockets: privileged globals by a socket the session hands out", .serialized)
struct GrantSocketTests {
    static let privileged = ["zwlr_virtual_pointer_manager_v1", "zwp_virtual_keyboard_manager_v1", "zwp_input_method_manager_v2",
                             "zwlr_layer_shell_v1", "zwlr_foreign_toplevel_manager_v1"]

    /// wayland-info's globals, on the session's display or on `display` (a grant socket's path).
    static func globals(_ session: RunningSession, _ name: String, display: String? = nil) throws -> (status: Int32, text: String) {
        let log = session.file(name)
        let info = try session.client(["wayland-info"], output: log, environment: display.map { ["WAYLAND_DISPLAY": $0] } ?? [:])
        info.waitUntilExit()
        return (info.terminationStatus, RunningSession.text(of: log))
    }

    static func listed(_ text: String) -> [String] { privileged.filter { text.contains("'\($0)'") } }

    @Test("no [privileges]: wayland-info on WAYLAND_DISPLAY lists no privileged global; through a grant socket it lists exactly what the socket grants")
    func exactlyTheGrants() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let plain = try Self.globals(session, "plain.log")
        #expect(plain.status == 0 && plain.text.contains("'wl_compositor'"), "\(plain.text)")
        #expect(Self.listed(plain.text).isEmpty, "\(plain.text)")

        let grant = try session.msg("grant-socket", "virtual-input")
        #expect(grant.status == 0, "\(grant.json)")
        let path = try #require(grant.json["socket"] as? String)
        #expect(grant.json["grants"] as? [String] == ["virtual-input"])
        #expect(path.hasPrefix(session.runtimeDirectory + "/touch-router.") && path.hasSuffix(".grant-1.sock"), "\(path)")
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect(attributes[.type] as? FileAttributeType == .typeSocket)
        #expect(attributes[.posixPermissions] as? Int == 0o600)

        let granted = try Self.globals(session, "granted.log", display: path)
        #expect(granted.status == 0 && granted.text.contains("'wl_compositor'") && granted.text.contains("'wl_seat'"), "ordinary globals too: \(granted.text)")
        #expect(Self.listed(granted.text) == ["zwlr_virtual_pointer_manager_v1", "zwp_virtual_keyboard_manager_v1"], "\(granted.text)")

        let other = try session.msg("grant-socket", "input-method,layer-shell")
        let otherPath = try #require(other.json["socket"] as? String)
        #expect(otherPath != path)
        #expect(other.json["grants"] as? [String] == ["input-method", "layer-shell"])
        let second = try Self.globals(session, "second.log", display: otherPath)
        #expect(Self.listed(second.text) == ["zwp_input_method_manager_v2", "zwlr_layer_shell_v1"], "\(second.text)")

        let all = try session.msg("grant-socket", "foreign-toplevel,virtual-input,input-method,layer-shell")
        let third = try Self.globals(session, "third.log", display: try #require(all.json["socket"] as? String))
        #expect(Self.listed(third.text) == Self.privileged, "\(third.text)")
        // The plain display is unchanged by the grants.
        #expect(Self.listed(try Self.globals(session, "plain-again.log").text).isEmpty)
    }

    @Test("[privileges] naming wayland-info does not widen a grant: a granted client sees exactly its socket's privileges")
    func grantsAreExact() throws {
        let config = try ConfigurationSessionTests.ConfigFile("[privileges]\nvirtual-input = [\"wayland-info\"]\nlayer-shell = [\"wayland-info\"]\n")
        let session = try RunningSession(arguments: ["--config", config.path])
        defer { _ = session.terminate() }
        #expect(Self.listed(try Self.globals(session, "plain.log").text) == ["zwlr_virtual_pointer_manager_v1", "zwp_virtual_keyboard_manager_v1", "zwlr_layer_shell_v1"])
        let path = try #require(try session.msg("grant-socket", "input-method").json["socket"] as? String)
        let granted = try Self.globals(session, "granted.log", display: path)
        #expect(Self.listed(granted.text) == ["zwp_input_method_manager_v2"], "\(granted.text)")
    }

    @Test("a virtual pointer and keyboard through a grant socket move, click and type in a client; after revoke a new connection fails and the connected client goes on")
    func injectThenRevoke() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let (log, window) = try session.receiver()
        let (x, y) = (window.position[0] + 20, window.position[1] + 30)
        // Refused on the plain display: no [privileges].
        let refusedLog = session.file("refused.log")
        let refused = try session.client([try VirtualInputClient.path(), "pointer", "frame"], output: refusedLog)
        refused.waitUntilExit()
        #expect(refused.terminationStatus == 3 && RunningSession.lines(of: refusedLog) == ["no manager"], "\(RunningSession.text(of: refusedLog))")

        let path = try #require(try session.msg("grant-socket", "virtual-input").json["socket"] as? String)
        let pointerLog = session.file("pointer.log")
        let pointer = try session.client([try VirtualInputClient.path(), "pointer", "absolute", "\(x)", "\(y)", "1920", "1080", "frame",
                                          "button", "272", "1", "frame", "button", "272", "0", "frame", "await",
                                          "motion", "5", "7", "frame", "button", "273", "1", "frame", "button", "273", "0", "frame"],
                                         output: pointerLog, environment: ["WAYLAND_DISPLAY": path])
        try session.wait(for: "the granted pointer to wait") { RunningSession.lines(of: pointerLog).contains("waiting") }
        try session.wait(for: "its click") { RunningSession.lines(of: log).contains { $0.hasPrefix("button 272 0 ") } }
        #expect(RunningSession.lines(of: log).contains { $0.hasPrefix("pointer motion 20.0 30.0 ") }, "\(RunningSession.lines(of: log))")

        let keyboardLog = session.file("keyboard.log")
        _ = try session.client([try VirtualInputClient.path(), "keyboard", "keymap", "key", "30", "1", "key", "30", "0"],
                               output: keyboardLog, environment: ["WAYLAND_DISPLAY": path])
        try session.wait(for: "the granted key") { RunningSession.lines(of: log).contains { $0.hasPrefix("key 30 0 ") } }

        let revoke = try session.msg("revoke-socket", path)
        #expect(revoke.status == 0, "\(revoke.json)")
        #expect(revoke.json["revoked"] as? String == path)
        #expect(revoke.json["clients"] as? Int == 1, "the waiting pointer is still connected: \(revoke.json)")
        #expect(!FileManager.default.fileExists(atPath: path), "the socket's file is removed")
        let late = try Self.globals(session, "late.log", display: path)
        #expect(late.status != 0 && Self.listed(late.text).isEmpty, "a new connection fails: \(late.text)")
        let again = try session.msg("revoke-socket", path)
        #expect(again.status == 1 && (again.json["error"] as? String)?.contains("is not an open grant socket") == true, "\(again.json)")

        kill(pointer.processIdentifier, SIGUSR1)
        try session.wait(for: "the connected pointer's 'done'") { RunningSession.lines(of: pointerLog).contains("done") }
        try session.wait(for: "its click after the revoke") { RunningSession.lines(of: log).contains { $0.hasPrefix("button 273 0 ") } }
        #expect(RunningSession.lines(of: log).contains { $0.hasPrefix("pointer motion 25.0 37.0 ") }, "\(RunningSession.lines(of: log))")
    }

    @Test("an unknown privilege, too many sockets, a path that cannot be created and an unknown path are errors naming what was wrong; the session goes on; its sockets go with it")
    func errors() throws {
        let session = try RunningSession()
        var ended = false
        defer { if !ended { _ = session.terminate() } }
        let unknown = try session.msg("grant-socket", "virtual-input,screen-share")
        #expect(unknown.status == 1)
        #expect((unknown.json["error"] as? String)?.hasPrefix("grant-socket: 'screen-share' is not a privilege: expected one or more of virtual-input, input-method, layer-shell, foreign-toplevel, session-lock, screen-capture, output-power") == true,
                "\(unknown.json)")
        let none = try session.msg("grant-socket")
        #expect(none.status == 1 && (none.json["error"] as? String)?.contains("expected one comma-separated list of privileges") == true, "\(none.json)")

        let first = try #require(try session.msg("grant-socket", "layer-shell").json["socket"] as? String)
        // The next socket's path, taken by a file that is not a socket: it is not removed.
        let taken = first.replacingOccurrences(of: ".grant-1.sock", with: ".grant-2.sock")
        #expect(FileManager.default.createFile(atPath: taken, contents: Data("mine".utf8)))
        let blocked = try session.msg("grant-socket", "layer-shell")
        #expect(blocked.status == 1)
        #expect((blocked.json["error"] as? String) == "grant-socket: cannot create the grant socket \(taken): Address already in use", "\(blocked.json)")
        #expect(RunningSession.text(of: URL(fileURLWithPath: taken)) == "mine")

        var paths = [first]
        for _ in 1..<64 {
            let reply = try session.msg("grant-socket", "virtual-input")
            guard let path = reply.json["socket"] as? String else {
                Issue.record("grant \(paths.count + 1) refused: \(reply.json)")
                break
            }
            paths.append(path)
        }
        #expect(Set(paths).count == 64)
        let tooMany = try session.msg("grant-socket", "virtual-input")
        #expect(tooMany.status == 1)
        #expect((tooMany.json["error"] as? String) == "grant-socket: 64 grant sockets are open, the most the session keeps: revoke one first", "\(tooMany.json)")
        #expect(try session.msg("revoke-socket", paths.removeLast()).status == 0)
        let room = try session.msg("grant-socket", "virtual-input")
        paths.append(try #require(room.json["socket"] as? String))

        let notOurs = try session.msg("revoke-socket", session.runtimeDirectory + "/nothing.sock")
        #expect(notOurs.status == 1 && (notOurs.json["error"] as? String) == "revoke-socket: \(session.runtimeDirectory)/nothing.sock is not an open grant socket of this session",
                "\(notOurs.json)")
        let relative = try session.msg("revoke-socket", "grant-1.sock")
        #expect(relative.status == 1 && (relative.json["error"] as? String)?.contains("is not an absolute path") == true, "\(relative.json)")

        #expect(try session.msg("focus").status == 0, "the session goes on")
        #expect(Self.listed(try Self.globals(session, "info.log", display: paths[1]).text) == ["zwlr_virtual_pointer_manager_v1", "zwp_virtual_keyboard_manager_v1"])

        // Its end removes every socket it made, and only those.
        session.process.terminate()
        session.process.waitUntilExit()
        let left = try FileManager.default.contentsOfDirectory(atPath: session.runtimeDirectory).filter { $0.contains(".grant-") }
        #expect(left == [URL(fileURLWithPath: taken).lastPathComponent], "\(left)")
        ended = true
        _ = session.terminate()
    }

    @Test("run --grant: the command's own connection (WAYLAND_SOCKET) sees exactly those privileged globals and can use them; without it, none")
    func runGrant() throws {
        let runtime = FileManager.default.temporaryDirectory.appendingPathComponent("touch-router-xdg-grant-\(getpid())").path
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: runtime) }
        let environment = ["XDG_RUNTIME_DIR": runtime, "XDG_CONFIG_HOME": runtime, "WAYLAND_DISPLAY": ""]
        let granted = try ToolRun(["run", "--backend", "headless", "--grant", "virtual-input,foreign-toplevel", "--", "wayland-info"], environment: environment)
        #expect(granted.status == 0, "\(granted.errors)")
        #expect(Self.listed(granted.output) == ["zwlr_virtual_pointer_manager_v1", "zwp_virtual_keyboard_manager_v1", "zwlr_foreign_toplevel_manager_v1"], "\(granted.output)")
        let plain = try ToolRun(["run", "--backend", "headless", "--", "wayland-info"], environment: environment)
        #expect(plain.status == 0 && plain.output.contains("'wl_compositor'") && Self.listed(plain.output).isEmpty, "\(plain.output)")
        let sender = try ToolRun(["run", "--backend", "headless", "--grant", "virtual-input", "--", try VirtualInputClient.path(), "pointer", "motion", "3", "4", "frame"], environment: environment)
        #expect(sender.status == 0 && sender.output.contains("done"), "\(sender.output) \(sender.errors)")
        let bad = try ToolRun(["run", "--backend", "headless", "--grant", "virtual-input,teleport", "--", "true"], environment: environment)
        #expect(bad.status != 0 && bad.errors.contains("'teleport' is not a privilege"), "\(bad.errors)")
        let noCommand = try ToolRun(["run", "--backend", "headless", "--grant", "virtual-input"], environment: environment)
        #expect(noCommand.status != 0 && noCommand.errors.contains("no command to grant them to"), "\(noCommand.errors)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: runtime).allSatisfy { !$0.contains(".grant-") })
    }
}
