import Foundation
import Testing

@Suite("touch-router run --backend wayland: the session as a window on a host compositor, a headless touch-router session here", .serialized)
struct NestedBackendTests {
    /// The host's socket by its absolute path, so that the nested session may have a runtime directory of its own.
    static func display(of host: RunningSession) -> String { host.runtimeDirectory + "/" + host.waylandDisplay }

    static func nested(on host: RunningSession, keepingErrors: Bool = false) throws -> RunningSession {
        try RunningSession(arguments: ["--backend", "wayland", "--output", "640x480"], environment: ["WAYLAND_DISPLAY": display(of: host)],
                           keepingErrors: keepingErrors)
    }

    /// The ARGB word `msg pixel` reads at a point of the session's layout.
    static func argb(_ session: RunningSession, _ x: Int, _ y: Int) throws -> UInt32? {
        (try session.msg("pixel", String(x), String(y)).json["argb"] as? String).flatMap { UInt32($0.dropFirst(2), radix: 16) }
    }

    static func screenshot(_ session: RunningSession, _ name: String, points: [(Int, Int)], sourceLocation: SourceLocation = #_sourceLocation) throws -> DecodedPNG {
        let path = session.file(name).path
        let run = try ToolRun(["msg", "--socket", session.controlSocket, "screenshot", path])
        #expect(run.status == 0, "\(run.output)", sourceLocation: sourceLocation)
        return try DecodedPNG(path, points: points, sourceLocation: sourceLocation)
    }

    /// The host's window for the nested session, once mapped: its position in the host's layout.
    static func mappedWindow(in host: RunningSession) throws -> [String: Any] {
        try host.wait(for: "the nested session's window to map in the host") { try host.toplevels().first?["mapped"] as? Bool == true }
        return try #require(try host.toplevels().first)
    }

    @Test("the nested window maps in the host as WL-1; a touch injected into the host reaches weston-simple-touch inside the nested session at the local point, down and moving; both sessions' screenshots show its red cross there")
    func touchThroughHost() throws {
        let host = try RunningSession()
        defer { _ = host.terminate() }
        let nested = try Self.nested(on: host)
        defer { _ = nested.terminate() }
        try #require(!nested.controlSocket.isEmpty, "the nested session started and printed its control socket")

        let window = try Self.mappedWindow(in: host)
        #expect(window["label"] as? String == "touch-router: TouchRouter - WL-1")
        #expect(window["size"] as? [Int] == [640, 480])
        let windowOrigin = try #require(window["position"] as? [Int])
        let outputs = try nested.msg("tree").json["outputs"] as? [[String: Any]] ?? []
        #expect(outputs.count == 1 && outputs.first?["name"] as? String == "WL-1" && outputs.first?["rect"] as? [Int] == [0, 0, 640, 480], "\(outputs)")

        _ = try nested.client(["weston-simple-touch"], output: nested.file("simple-touch.log"))
        try nested.wait(for: "weston-simple-touch to map in the nested session") { try nested.toplevels().first?["mapped"] as? Bool == true }
        let app = try #require(try nested.toplevels().first)
        let appOrigin = try #require(app["position"] as? [Int])
        // A point of weston-simple-touch in the nested layout, and where the host shows it.
        let local = (appOrigin[0] + 120, appOrigin[1] + 90)
        let hostPoint = (windowOrigin[0] + local.0, windowOrigin[1] + local.1)
        try #require(local.0 < 600 && local.1 < 440, "the point lies inside the nested output: \(local)")

        // The nested session's frames reach the host: weston-simple-touch's translucent grey
        // over the nested background, as the host reads the window's buffer.
        let grey: UInt32 = 0x4040_4040
        let shown = 0xff00_0000 | UInt32(over(grey, ScreenshotTests.backgroundWord), radix: 16)!
        try host.wait(for: "weston-simple-touch's first frame to show in the host") { try Self.argb(host, hostPoint.0, hostPoint.1) == shown }
        #expect(try Self.argb(nested, local.0, local.1) == grey)

        try host.inject(["touch down 0 \(hostPoint.0) \(hostPoint.1)", "touch frame"])
        try nested.wait(for: "the cross in the nested session") { try Self.argb(nested, local.0, local.1) == 0xffff_0000 }
        let touches = try nested.msg("focus").json["touches"] as? [[String: Any]] ?? []
        #expect(touches.count == 1 && touches.first?["surface"] as? Int == app["id"] as? Int, "the touch is on weston-simple-touch: \(touches)")
        try host.wait(for: "the cross in the host") { try Self.argb(host, hostPoint.0, hostPoint.1) == 0xffff_0000 }

        // The cross is centred on the point: its arms reach 2 pixels, the grey is 3 away.
        let blended = over(grey, ScreenshotTests.backgroundWord)
        let hostPNG = try Self.screenshot(host, "host.png", points: [hostPoint, (hostPoint.0 + 2, hostPoint.1), (hostPoint.0, hostPoint.1 - 2), (hostPoint.0 + 3, hostPoint.1)])
        #expect(hostPNG.colours.count == 4)
        if hostPNG.colours.count == 4 {
            #expect(hostPNG.colours[0] == "ff0000" && hostPNG.colours[1] == "ff0000" && hostPNG.colours[2] == "ff0000", "the host shows the cross: \(hostPNG.colours)")
            #expect(close(hostPNG.colours[3], blended), "past its arm, the nested composition of grey over the background: \(hostPNG.colours[3]), not \(blended)")
        }
        let nestedPNG = try Self.screenshot(nested, "nested.png", points: [local, (local.0 + 2, local.1), (local.0 + 3, local.1)])
        #expect(nestedPNG.size == "640x480")
        #expect(nestedPNG.colours.count == 3)
        if nestedPNG.colours.count == 3 {
            #expect(nestedPNG.colours[0] == "ff0000" && nestedPNG.colours[1] == "ff0000", "the nested session shows the cross: \(nestedPNG.colours)")
            #expect(close(nestedPNG.colours[2], blended), "\(nestedPNG.colours[2])")
        }

        // The finger moves on the host: the cross follows in the nested session and the host.
        try host.inject(["touch motion 0 \(hostPoint.0 + 30) \(hostPoint.1 + 20)", "touch frame"])
        try nested.wait(for: "the cross where the finger moved") { try Self.argb(nested, local.0 + 30, local.1 + 20) == 0xffff_0000 }
        try host.wait(for: "the moved cross in the host") { try Self.argb(host, hostPoint.0 + 30, hostPoint.1 + 20) == 0xffff_0000 }
        try host.inject(["touch up 0", "touch frame"])
        try nested.wait(for: "the touch to end in the nested session") { (try nested.msg("focus").json["touches"] as? [Any])?.isEmpty == true }
        #expect(nested.terminate() == 0, "SIGTERM ends the nested session cleanly")
        try host.wait(for: "the nested window to leave the host") { try host.toplevels().isEmpty }
    }

    @Test("wev inside the nested session gets the host's pointer at its local point, its button and a key; the host's close binding closes the window and the nested session ends with status 0")
    func pointerKeysAndClose() throws {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("touch-router-nested-\(getpid())-\(UUID().uuidString.prefix(8)).toml").path
        try "[[bind]]\nkeys = \"Ctrl+Alt+BackSpace\"\naction = \"close\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let host = try RunningSession(arguments: ["--config", config])
        defer { _ = host.terminate() }
        let nested = try Self.nested(on: host)
        defer { _ = nested.terminate() }
        try #require(!nested.controlSocket.isEmpty, "the nested session started")
        let windowOrigin = try #require(try Self.mappedWindow(in: host)["position"] as? [Int])

        let log = nested.file("wev.log")
        _ = try nested.client(["wev"], output: log)
        try nested.wait(for: "wev to map in the nested session") { try nested.toplevels().first?["mapped"] as? Bool == true }
        let wevOrigin = try #require(try nested.toplevels().first?["position"] as? [Int])
        let local = (wevOrigin[0] + 40, wevOrigin[1] + 30)
        try host.inject(["pointer motion \(windowOrigin[0] + local.0) \(windowOrigin[1] + local.1)",
                         "pointer button press BTN_LEFT", "pointer button release BTN_LEFT", "key press KEY_A", "key release KEY_A"])
        var text = ""
        try nested.wait(for: "wev to print the key") {
            text = RunningSession.text(of: log)
            return text.contains("key: 38; state: 0 (released)")
        }
        for pattern in [
            "wl_pointer] enter: serial: \\d+; surface: \\d+, x, y: \(local.0 - wevOrigin[0]).000000, \(local.1 - wevOrigin[1]).000000",
            "wl_pointer] button: serial: \\d+; time: \\d+; button: 272 \\(left\\), state: 1 \\(pressed\\)",
            "wl_pointer] button: serial: \\d+; time: \\d+; button: 272 \\(left\\), state: 0 \\(released\\)",
            "wl_keyboard] key: serial: \\d+; time: \\d+; key: 38; state: 1 \\(pressed\\)",
        ] {
            #expect(text.range(of: pattern, options: .regularExpression) != nil, "\(pattern) in:\n\(text)")
        }

        // The click gave the nested window the host's keyboard focus; the binding closes it.
        try host.inject(["key press KEY_LEFTCTRL", "key press KEY_LEFTALT", "key press KEY_BACKSPACE"])
        let deadline = Date().addingTimeInterval(15)
        while nested.process.isRunning, Date() < deadline { usleep(50_000) }
        #expect(!nested.process.isRunning, "xdg_toplevel.close ends the nested session")
        if !nested.process.isRunning {
            #expect(nested.process.terminationStatus == 0)
            try host.wait(for: "the nested window to leave the host") { try host.toplevels().isEmpty }
        }
    }

    @Test("with no host at WAYLAND_DISPLAY, run --backend wayland fails at once with an error naming the display, and opens no socket")
    func unreachableHost() throws {
        let runtime = FileManager.default.temporaryDirectory.appendingPathComponent("touch-router-xdg-nohost-\(getpid())").path
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: runtime) }
        for display in ["/nonexistent/wayland-nowhere", "wayland-nowhere-7"] {
            let run = try ToolRun(["run", "--backend", "wayland", "--", "true"],
                                  environment: ["WAYLAND_DISPLAY": display, "XDG_RUNTIME_DIR": runtime, "XDG_CONFIG_HOME": runtime])
            #expect(run.status == 1)
            #expect(run.errors == "touch-router run: cannot connect to the host Wayland display '\(display)' (WAYLAND_DISPLAY): No such file or directory\n", "\(run.errors)")
            #expect(run.output.isEmpty)
            #expect(try FileManager.default.contentsOfDirectory(atPath: runtime).isEmpty, "no socket is left behind")
        }
    }

    @Test("when the host session ends, the nested session ends too, with status 1 and an error naming the host display")
    func hostGoesAway() throws {
        let host = try RunningSession()
        let hostDisplay = Self.display(of: host)
        let nested = try Self.nested(on: host, keepingErrors: true)
        defer { _ = nested.terminate() }
        try #require(!nested.controlSocket.isEmpty, "the nested session started")
        _ = try Self.mappedWindow(in: host)
        _ = host.terminate()
        #expect(nested.waitForExit(), "the nested session ends when its host does")
        guard !nested.process.isRunning else { return }
        #expect(nested.process.terminationStatus == 1)
        let said = nested.errors.map(RunningSession.text(of:)) ?? ""
        #expect(said.hasPrefix("touch-router run: the host Wayland display '\(hostDisplay)' went away"), "\(said)")
        #expect(!FileManager.default.fileExists(atPath: nested.controlSocket), "its control socket is removed")
    }
}
