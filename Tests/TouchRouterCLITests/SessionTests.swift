import Foundation
import Testing

/// A `touch-router run` session with no command, as a person starts one; ended by SIGTERM.
final class RunningSession {
    let process = Process()
    let runtimeDirectory: String
    private(set) var waylandDisplay = ""
    private(set) var controlSocket = ""
    /// Xwayland's DISPLAY, printed third when the configuration enables `[xwayland]` (`x11: true`).
    private(set) var x11Display = ""
    /// Every client started in the session; `terminate` ends those still running.
    private var clients: [Process] = []
    private let output = Pipe()
    /// Where the session's standard error goes, with `keepingErrors`; else the test's own.
    let errors: URL?

    init(arguments: [String] = [], environment: [String: String] = [:], keepingErrors: Bool = false, x11: Bool = false) throws {
        runtimeDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("touch-router-xdg-\(getpid())-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: runtimeDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        process.executableURL = ToolRun.executable
        process.arguments = ["run"] + arguments
        // XDG_CONFIG_HOME too, so that no configuration file of the person running the tests is read;
        // and no WAYLAND_DISPLAY, so that a session started on a desktop is headless, not a window on it.
        var inherited = ProcessInfo.processInfo.environment
        inherited["WAYLAND_DISPLAY"] = nil
        process.environment = inherited.merging(["XDG_RUNTIME_DIR": runtimeDirectory, "XDG_CONFIG_HOME": runtimeDirectory]) { $1 }
            .merging(environment) { $1 }
        process.standardOutput = output
        if keepingErrors {
            let log = URL(fileURLWithPath: runtimeDirectory).appendingPathComponent("stderr.log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            process.standardError = try FileHandle(forWritingTo: log)
            errors = log
        } else {
            errors = nil
        }
        try process.run()
        var text = ""
        while text.split(separator: "\n").count < (x11 ? 3 : 2) {
            let data = output.fileHandleForReading.availableData
            guard !data.isEmpty else { break }
            text += String(decoding: data, as: UTF8.self)
        }
        for line in text.split(separator: "\n") {
            if line.hasPrefix("WAYLAND_DISPLAY=") { waylandDisplay = String(line.dropFirst("WAYLAND_DISPLAY=".count)) }
            if line.hasPrefix("TOUCH_ROUTER_SOCKET=") { controlSocket = String(line.dropFirst("TOUCH_ROUTER_SOCKET=".count)) }
            if line.hasPrefix("DISPLAY=") { x11Display = String(line.dropFirst("DISPLAY=".count)) }
        }
    }

    func msg(_ words: String...) throws -> (status: Int32, json: [String: Any]) {
        let run = try ToolRun(["msg", "--socket", controlSocket] + words)
        let object = (try? JSONSerialization.jsonObject(with: Data(run.output.utf8))) as? [String: Any] ?? [:]
        return (run.status, object)
    }

    /// A Debian client, with its output line-buffered so that nothing is lost when it is killed.
    func client(_ arguments: [String], output: URL, environment: [String: String] = [:]) throws -> Process {
        let client = Process()
        client.executableURL = URL(fileURLWithPath: "/usr/bin/stdbuf")
        client.arguments = ["-oL"] + arguments
        var inherited = ProcessInfo.processInfo.environment
        // Only Wayland: a toolkit must not fall back to an X server it finds; X11 clients get the session's own Xwayland.
        inherited["DISPLAY"] = x11Display.isEmpty ? nil : x11Display
        client.environment = inherited.merging(["XDG_RUNTIME_DIR": runtimeDirectory, "WAYLAND_DISPLAY": waylandDisplay]) { $1 }
            .merging(environment) { $1 }
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let handle = try FileHandle(forWritingTo: output)
        client.standardOutput = handle
        client.standardError = handle
        try client.run()
        clients.append(client)
        return client
    }

    /// A file in the session's runtime directory, for a client's log.
    func file(_ name: String) -> URL { URL(fileURLWithPath: runtimeDirectory).appendingPathComponent(name) }

    /// What a log holds so far; empty before its client wrote anything.
    static func text(of file: URL) -> String { (try? String(contentsOf: file, encoding: .utf8)) ?? "" }

    /// `msg inject` for each request (the script syntax without the time), each expected to be taken.
    func inject(_ requests: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        for request in requests {
            let reply = try ToolRun(["msg", "--socket", controlSocket, "inject"] + request.split(separator: " ").map(String.init))
            #expect(reply.status == 0, "\(request): \(reply.output)", sourceLocation: sourceLocation)
        }
    }

    /// The toplevels the session's tree holds, from `msg tree`.
    func toplevels() throws -> [[String: Any]] {
        let outputs = try msg("tree").json["outputs"] as? [[String: Any]] ?? []
        return outputs.flatMap { $0["toplevels"] as? [[String: Any]] ?? [] }
    }

    /// Polls until `condition` holds; the deadline only keeps a broken session from hanging the run.
    func wait(for what: String, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if try condition() { return }
            usleep(50_000)
        }
        Issue.record("timed out waiting for \(what)")
    }

    /// Runs a misbehaving client (`arguments`) beside wev, with a finger down on wev
    /// throughout. The client must exit 0 having printed `pattern`; then the finger's
    /// motion and up, and a key, must reach wev, and nothing of the other client may be
    /// left in the tree or among the touches.
    static func besideWev(_ arguments: [String], expecting pattern: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let wevLog = session.file("wev.log")
        _ = try session.client(["wev"], output: wevLog)
        try session.wait(for: "wev to map") { try session.toplevels().count == 1 }
        #expect(try session.msg("inject", "touch", "down", "5", "100", "100").status == 0, sourceLocation: sourceLocation)

        let log = session.file("other.log")
        let other = try session.client(arguments, output: log, environment: ["TOUCH_ROUTER_SOCKET": session.controlSocket])
        other.waitUntilExit()
        let said = RunningSession.text(of: log)
        #expect(other.terminationStatus == 0, "\(said)", sourceLocation: sourceLocation)
        #expect(said.range(of: pattern, options: .regularExpression) != nil, "\(said)", sourceLocation: sourceLocation)

        try session.inject(["touch motion 5 120 110", "touch up 5", "touch frame", "key press KEY_B", "key release KEY_B"], sourceLocation: sourceLocation)
        try session.wait(for: "wev to get the key after the other client") {
            RunningSession.text(of: wevLog).contains("key: 56; state: 0 (released)")
        }
        #expect(RunningSession.text(of: wevLog).contains("wl_touch] up: "), "the touch that was down ends for wev", sourceLocation: sourceLocation)
        try session.wait(for: "the other client's surfaces to leave the tree") { try session.toplevels().count == 1 }
        let touches = try session.msg("focus").json["touches"] as? [Any]
        #expect(touches?.isEmpty == true, "no touch is left down", sourceLocation: sourceLocation)
    }

    /// Ends the clients still running, then the session.
    /// Waits (15 s at most) for the session to end by itself; false if it did not.
    func waitForExit() -> Bool {
        let deadline = Date().addingTimeInterval(15)
        while process.isRunning, Date() < deadline { usleep(50_000) }
        if process.isRunning { return false }
        process.waitUntilExit()
        return true
    }

    func terminate() -> Int32 {
        for client in clients {
            if client.isRunning { kill(client.processIdentifier, SIGKILL) }
            client.waitUntilExit()
        }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: runtimeDirectory)
        return process.terminationStatus
    }
}

@Suite("A real session with real clients (Debian's wayland-info, wev, weston-simple-touch, foot, zenity and Qt 5)", .serialized)
struct SessionTests {
    /// Runs `body` with XDG_RUNTIME_DIR set to a fresh private directory, removed afterwards.
    private func withRuntimeDirectory(_ name: String, _ body: (String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("touch-router-xdg-\(name)-\(getpid())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        setenv("XDG_RUNTIME_DIR", directory, 1)
        try body(directory)
    }

    @Test("wayland-info, run as the session's command, lists every global at its version; the session ends with it")
    func waylandInfo() throws {
        try withRuntimeDirectory("info") { _ in
            let run = try ToolRun(["run", "--output", "1280x800@75", "--output", "800x600", "--", "wayland-info"])
            #expect(run.status == 0, "\(run.errors)")
            for (interface, version) in [("wl_compositor", 5), ("wl_subcompositor", 1), ("wl_shm", 1), ("xdg_wm_base", 5), ("wl_seat", 8), ("wl_data_device_manager", 3), ("wl_output", 4), ("zwp_input_timestamps_manager_v1", 1), ("zxdg_output_manager_v1", 3),
                                        ("zwp_idle_inhibit_manager_v1", 1),
                                        ("wp_fractional_scale_manager_v1", 1), ("xdg_activation_v1", 1), ("wp_viewporter", 1), ("wp_single_pixel_buffer_manager_v1", 1), ("wp_presentation", 1), ("org_kde_kwin_idle", 1), ("ext_idle_notifier_v1", 1)] {
                #expect(run.output.range(of: "interface: '\(interface)',\\s+version:\\s+\(version),", options: .regularExpression) != nil, "\(interface) v\(version) in:\n\(run.output)")
            }
            #expect(run.output.contains("name: HEADLESS-1"))
            #expect(run.output.contains("width: 1280 px, height: 800 px, refresh: 75.000 Hz"))
            #expect(run.output.contains("x: 1280, y: 0"), "the second output sits right of the first")
            #expect(run.output.contains("name: 'HEADLESS-2'\n\t\tdescription: 'TouchRouter virtual HEADLESS-2 (800x600@60.0)'\n\t\tlogical_x: 1280, logical_y: 0\n\t\tlogical_width: 800, logical_height: 600"),
                    "xdg_output gives the second output's name, description and place in the layout: \(run.output)")
            #expect(run.output.contains("capabilities: pointer keyboard touch"))
        }
    }

    @Test("an input device libinput cannot open is named in a clear error, and nothing runs")
    func badInputDevice() throws {
        try withRuntimeDirectory("input") { directory in
            let run = try ToolRun(["run", "--input-device", "/etc/hostname", "--", "true"])
            #expect(run.status == 1)
            #expect(run.errors.contains("touch-router run: libinput cannot open /etc/hostname: it must be a readable evdev node"), "\(run.errors)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).allSatisfy { !$0.hasSuffix(".sock") }, "no control socket is left behind")
        }
    }

    @Test("wev receives injected touch, key and pointer events at surface-local coordinates; a client killed mid-touch leaves the session healthy")
    func wevReceivesInjectedInput() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        #expect(session.waylandDisplay.hasPrefix("wayland-"))
        let mode = try FileManager.default.attributesOfItem(atPath: session.controlSocket)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        // The first client dies with a touch down on it.
        let firstLog = session.file("wev-1.log")
        let first = try session.client(["wev"], output: firstLog)
        try session.wait(for: "the first wev to map") { try session.toplevels().count == 1 }
        #expect(try session.msg("inject", "touch", "down", "3", "300", "300").status == 0)
        #expect((try session.msg("focus").json["touches"] as? [Any])?.count == 1)
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        try session.wait(for: "the dead client's window to leave the tree") { try session.toplevels().isEmpty }
        #expect((try session.msg("focus").json["touches"] as? [[String: Any]])?.first?["surface"] is NSNull, "the touch lost its surface")
        #expect(try session.msg("inject", "touch", "up", "3").status == 0)

        // The next client gets everything, at its own coordinates.
        let log = session.file("wev-2.log")
        _ = try session.client(["wev"], output: log)
        try session.wait(for: "the second wev to map") { try session.toplevels().count == 1 }
        let window = try session.toplevels()[0]
        let position = window["position"] as? [Int] ?? [0, 0]
        try session.inject(["touch down 0 100 200", "touch frame", "touch motion 0 110.5 210.25", "touch frame", "touch up 0", "touch frame",
                            "key press KEY_A", "key release KEY_A", "pointer motion 150 160", "pointer button press BTN_LEFT", "pointer button release BTN_LEFT"])
        let expected = [
            "wl_touch] down: serial: \\d+; time: \\d+; surface: \\d+; id: 0; x, y: \(100 - position[0]).000000, \(200 - position[1]).000000",
            "wl_touch] motion: time: \\d+; id: 0; x, y: \(110 - position[0]).500000, \(210 - position[1]).250000",
            "wl_touch] up: serial: \\d+; time: \\d+; id: 0",
            "wl_touch] frame",
            // wev prints the XKB keycode: evdev's KEY_A (30) plus 8.
            "wl_keyboard] key: serial: \\d+; time: \\d+; key: 38; state: 1 \\(pressed\\)",
            "wl_keyboard] key: serial: \\d+; time: \\d+; key: 38; state: 0 \\(released\\)",
            "wl_pointer] enter: serial: \\d+; surface: \\d+, x, y: \(150 - position[0]).000000, \(160 - position[1]).000000",
            "wl_pointer] button: serial: \\d+; time: \\d+; button: 272 \\(left\\), state: 1 \\(pressed\\)",
        ]
        var text = ""
        try session.wait(for: "wev to print the pointer button") {
            text = RunningSession.text(of: log)
            return text.contains("state: 0 (released)") && text.contains("button: 272")
        }
        for pattern in expected {
            #expect(text.range(of: pattern, options: .regularExpression) != nil, "\(pattern) in:\n\(text)")
        }
    }

    @Test("weston-simple-touch draws each finger where it was touched, in that finger's colour; msg pixel reads what it drew")
    func westonSimpleTouchDraws() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let log = session.file("simple-touch.log")
        _ = try session.client(["weston-simple-touch"], output: log)
        try session.wait(for: "weston-simple-touch to map") { try session.toplevels().first?["mapped"] as? Bool == true }
        let window = try session.toplevels()[0]
        let origin = window["position"] as? [Int] ?? [0, 0]
        func pixel(_ x: Int, _ y: Int) throws -> String? {
            let reply = try session.msg("pixel", String(origin[0] + x), String(origin[1] + y)).json
            return reply["argb"] as? String
        }
        // It paints its work area grey, then a 5-px cross per touch point: red for id 0, yellow for id 1.
        let grey = "0x40404040", red = "0xffff0000", yellow = "0xffffff00"
        try session.wait(for: "the first frame") { try pixel(100, 100) == grey }
        try session.inject(["touch down 0 \(origin[0] + 100) \(origin[1] + 100)", "touch frame",
                            "touch down 1 \(origin[0] + 300) \(origin[1] + 200)", "touch frame",
                            "touch motion 0 \(origin[0] + 150) \(origin[1] + 120)", "touch frame",
                            "touch up 0", "touch up 1", "touch frame"])
        try session.wait(for: "the motion's cross") { try pixel(150, 120) == red }
        #expect(try pixel(100, 100) == red, "the down's cross, at its surface-local point")
        #expect(try pixel(102, 100) == red && pixel(100, 102) == red, "the cross's arms")
        #expect(try pixel(103, 100) == grey && pixel(101, 102) == grey, "nothing past the arms")
        #expect(try pixel(300, 200) == yellow, "the second finger, in its own colour")
        #expect(try pixel(400, 400) == grey)
        #expect((try session.msg("focus").json["touches"] as? [Any])?.isEmpty == true, "both touches ended")
    }

    @Test("foot: typed keys, Shift included, reach the shell in it; a click on its close button (a subsurface of a subsurface) ends it")
    func footTypesAndCloses() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let typed = session.file("typed.txt")
        let log = session.file("foot.log")
        let foot = try session.client(["foot", "sh", "-c", "read line; echo \"got:$line\" > \(typed.path); sleep 60"], output: log)
        try session.wait(for: "foot to map and take keyboard focus") {
            try session.toplevels().first?["mapped"] as? Bool == true && session.msg("focus").json["keyboard"] as? Int != nil
        }
        try session.inject(["press KEY_LEFTSHIFT", "press KEY_H", "release KEY_H", "release KEY_LEFTSHIFT", "press KEY_I", "release KEY_I",
                            "press KEY_ENTER", "release KEY_ENTER"].map { "key " + $0 })
        var text = ""
        try session.wait(for: "the shell to write what it read") {
            text = RunningSession.text(of: typed)
            return text.hasSuffix("\n")
        }
        #expect(text == "got:Hi\n", "foot's log:\n\(RunningSession.text(of: log))")

        // foot draws its own title bar above the window geometry, its buttons as subsurfaces
        // of it; the window's geometry is placed on the output, so the bar is on screen.
        let window = try session.toplevels()[0]
        let position = window["position"] as? [Int] ?? [0, 0], size = window["size"] as? [Int] ?? [0, 0]
        #expect(position[1] > 0, "the title bar, above the buffer's origin, lies on the output")
        let close = (x: position[0] + size[0] - 10, y: position[1] - 10)
        let pick = try session.msg("pick", String(close.x), String(close.y)).json
        let chain = pick["chain"] as? [String] ?? []
        #expect(chain.count == 7, "close button, title bar, main surface, its toplevel, output, shell, delegate: \(chain)")
        try session.inject(["pointer motion \(close.x) \(close.y)", "pointer button press BTN_LEFT", "pointer button release BTN_LEFT"])
        try session.wait(for: "foot to close") { !foot.isRunning }
        #expect(!foot.isRunning && foot.terminationReason == .exit, "foot exits by itself, not by a signal")
        try session.wait(for: "foot's window to leave the tree") { try session.toplevels().isEmpty }
    }

    @Test("a GTK 3 client (zenity) starts, takes keyboard focus, and answers Enter with Yes and Escape with No", arguments: [("KEY_ENTER", Int32(0)), ("KEY_ESC", 1)])
    func gtkClient(key: String, status: Int32) throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let log = session.file("zenity.log")
        let zenity = try session.client(["zenity", "--question", "--text=Proceed?"], output: log, environment: ["GDK_BACKEND": "wayland"])
        try session.wait(for: "zenity to map and take keyboard focus") {
            try session.toplevels().first?["mapped"] as? Bool == true && session.msg("focus").json["keyboard"] as? Int != nil
        }
        #expect((try session.toplevels().first?["label"] as? String)?.hasPrefix("zenity") == true)
        #expect(try session.msg("inject", "key", "press", key).status == 0)
        #expect(try session.msg("inject", "key", "release", key).status == 0)
        try session.wait(for: "zenity to answer") { !zenity.isRunning }
        #expect(!zenity.isRunning && zenity.terminationReason == .exit && zenity.terminationStatus == status,
                "zenity's log:\n\(RunningSession.text(of: log))")
        try session.wait(for: "zenity's window to leave the tree") { try session.toplevels().isEmpty }
    }

    @Test("a Qt 5 client (PyQt5 on qtwayland5) takes a touch tap on its button and typed keys in its line edit")
    func qtClient() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let log = session.file("qt.log")
        let form = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/qt-form.py").path
        // Debian's python3, which has PyQt5; Qt's own title bar off, so the window is its widgets.
        let qt = try session.client(["/usr/bin/python3", form], output: log,
                                    environment: ["QT_QPA_PLATFORM": "wayland", "QT_WAYLAND_DISABLE_WINDOWDECORATION": "1"])
        var button: [Int] = []
        try session.wait(for: "the Qt window to map and say where its button is") {
            button = RunningSession.text(of: log).split(separator: "\n").first { $0.hasPrefix("button ") }?.split(separator: " ").dropFirst().compactMap { Int($0) } ?? []
            return try button.count == 2 && session.toplevels().first?["mapped"] as? Bool == true
        }
        let position = try session.toplevels()[0]["position"] as? [Int] ?? [0, 0]
        let x = position[0] + button[0], y = position[1] + button[1]
        try session.inject(["touch down 0 \(x) \(y)", "touch frame", "touch up 0", "touch frame"])
        try session.wait(for: "the button to be tapped") { RunningSession.text(of: log).contains("tapped") }
        // Qt 5 on xdg-shell reads its window's activation from the configure's activated state
        // and drops keys until it has (QWaylandXdgSurface handles the active state). Under load
        // it read that configure after the keys once (a loaded .ci/run, 2026-11-26: tapped, no
        // "typed" within 15 s), so the keys wait for Qt to say its window is active.
        try session.wait(for: "Qt to make its window active") { RunningSession.text(of: log).split(separator: "\n").contains("active") }
        try session.inject(["key press KEY_Q", "key release KEY_Q", "key press KEY_T", "key release KEY_T", "key press KEY_ENTER", "key release KEY_ENTER"])
        // What Qt printed is the proof; its exit after quit() is Qt's and Python's teardown,
        // which in a loaded .ci/run (2026-11-27) took past 15 s once after "typed:qt".
        try session.wait(for: "Qt to say what was typed") { RunningSession.text(of: log).contains("typed:") }
        #expect(RunningSession.text(of: log).contains("typed:qt\n"),
                "Qt's log: \(RunningSession.text(of: log)); focus: \((try? session.msg("focus").json) ?? [:])")
        _ = qt
    }

    /// The wire-protocol client in Clients/, for what no toolkit client does on purpose.
    static let rawClient = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/raw-client.py").path

    @Test("a client that breaks the protocol is ended with an error naming the object and the request; wev, beside it, goes on receiving",
          arguments: [
              ("protocol-error", "error object \\d+ code 3: wl_surface@\\d+\\.attach: x and y must be 0 from version 5"),
              ("truncated-pool", "error object \\d+ code 2: wl_buffer@\\d+: its pool's file is shorter than the pool \\(40000 bytes\\)"),
              ("stride", "error object \\d+ code 1: wl_shm_pool@\\d+\\.create_buffer: 100x100 pixels of 4 bytes, 100 bytes a row"),
              ("parent-cycle", "error object \\d+ code 1: xdg_toplevel@\\d+\\.set_parent: xdg_toplevel@\\d+ is this toplevel or one of its descendants"),
              ("min-over-max", "error object \\d+ code 2: xdg_toplevel@\\d+: the maximum size 100x300 is smaller than the minimum 200x200"),
              ("unconfigured-buffer", "error object \\d+ code 3: xdg_surface@\\d+: wl_surface@\\d+\\.attach before the first configure"),
          ])
    func protocolErrorLeavesOthers(mode: String, error: String) throws {
        try RunningSession.besideWev(["python3", Self.rawClient, mode], expecting: error)
    }

    @Test("set_maximized is answered with the output's size and the maximized state; the committed window fills the output from its corner")
    func maximizeFillsOutput() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let log = session.file("raw.log")
        let raw = try session.client(["python3", Self.rawClient, "maximize"], output: log)
        try session.wait(for: "the window to be maximized") { RunningSession.text(of: log).contains("maximized ") || !raw.isRunning }
        let said = RunningSession.text(of: log)
        let match = said.firstMatch(of: /maximized (\d+)x(\d+) states ([\d ]+)/)
        #expect(match != nil, "\(said)")
        guard let match, let width = Int(match.1), let height = Int(match.2) else { return }
        #expect(match.3 == "1 4", "maximized and activated, nothing else: \(said)")
        let outputs = try session.msg("tree").json["outputs"] as? [[String: Any]] ?? []
        #expect(outputs.first?["rect"] as? [Int] == [0, 0, width, height], "the configure asks for the whole output")
        // Each output's frame clock: its margin, at least the floor of 1 ms, and no late frame yet.
        #expect((outputs.first?["frame_margin_us"] as? Int ?? 0) >= 1000 && outputs.first?["late_compositions"] as? Int == 0, "\(String(describing: outputs.first))")
        // The second window cascaded to (32, 32) when it mapped; maximized, it moves to the corner.
        try session.wait(for: "the maximized window to fill the output") {
            try session.toplevels().contains { $0["size"] as? [Int] == [width, height] && $0["position"] as? [Int] == [0, 0] }
        }
        #expect(try session.toplevels().count == 2)
    }

    @Test("--kiosk configures a toplevel to fill the output, fullscreen, tiled on all four edges, and activated once mapped; without it, 0x0 and no tiling")
    func kioskConfigure() throws {
        for kiosk in [true, false] {
            let session = try RunningSession(arguments: kiosk ? ["--kiosk", "--output", "1024x600"] : ["--output", "1024x600"])
            defer { _ = session.terminate() }
            let log = session.file("raw.log")
            _ = try session.client(["python3", Self.rawClient, "configure"], output: log)
            try session.wait(for: "the window to map and be activated") { RunningSession.text(of: log).components(separatedBy: "configure ").count == 3 }
            let lines = RunningSession.text(of: log).split(separator: "\n").map(String.init)
            #expect(lines == (kiosk ? ["configure 1024x600 2 5 6 7 8", "configure 1024x600 2 4 5 6 7 8"] : ["configure 0x0", "configure 0x0 4"]), "kiosk \(kiosk): \(lines)")
            try session.wait(for: "the window in the tree") { try session.toplevels().count == 1 }
            #expect(try session.toplevels().first?["size"] as? [Int] == (kiosk ? [1024, 600] : [200, 200]))
        }
    }

    @Test("xdg_toplevel.move with a touch down's serial: the client gets wl_touch.cancel and nothing more of that touch, and the window follows the finger exactly; the next touch reaches the client again")
    func touchStartedMove() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let log = session.file("raw.log")
        _ = try session.client(["python3", Self.rawClient, "move"], output: log)
        try session.wait(for: "the window to map") { try RunningSession.text(of: log).contains("mapped") && session.toplevels().count == 1 }
        let start = try session.toplevels()[0]["position"] as? [Int] ?? [-1, -1]
        let (x, y) = (start[0] + 50, start[1] + 60)
        try session.inject(["touch down 3 \(x) \(y)", "touch frame"])
        try session.wait(for: "the client to ask for the move") { RunningSession.text(of: log).contains("moving") }
        try session.wait(for: "the client's touch to be cancelled") { RunningSession.text(of: log).contains("touch cancel") }
        try session.inject(["touch motion 3 \(x + 70) \(y + 30)", "touch frame", "touch motion 3 \(x + 120) \(y + 45)", "touch frame"])
        try session.wait(for: "the window to follow the finger") { try session.toplevels().first?["position"] as? [Int] == [start[0] + 120, start[1] + 45] }
        try session.inject(["touch up 3", "touch frame"])
        let afterCancel = RunningSession.text(of: log).components(separatedBy: "touch cancel\n").dropFirst().joined()
        #expect(!afterCancel.contains("touch motion") && !afterCancel.contains("touch up"), "nothing more of the moving touch reaches the client: \(RunningSession.text(of: log))")
        // The grab ended with the finger: a new touch on the moved window is the client's again.
        try session.inject(["touch down 4 \(x + 130) \(y + 50)", "touch frame", "touch up 4", "touch frame"])
        try session.wait(for: "the next touch to reach the client") { RunningSession.text(of: log).components(separatedBy: "touch down\n").count == 3 }
        #expect(try session.toplevels().first?["position"] as? [Int] == [start[0] + 120, start[1] + 45], "a second touch does not move it")
    }

    @Test("xdg_toplevel.resize with a touch down's serial (top left): the client gets wl_touch.cancel and nothing more of that touch; each motion asks for the size the finger's travel gives, with the resizing state, and keeps the bottom right corner put; the finger up ends it")
    func touchStartedResize() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let log = session.file("raw.log")
        _ = try session.client(["python3", Self.rawClient, "resize", "5"], output: log)
        try session.wait(for: "the window to map") { try RunningSession.text(of: log).contains("mapped") && session.toplevels().count == 1 }
        let start = try session.toplevels()[0]["position"] as? [Int] ?? [-1, -1]
        #expect(try session.toplevels()[0]["size"] as? [Int] == [200, 200])
        let (x, y) = (start[0] + 20, start[1] + 20)
        try session.inject(["touch down 3 \(x) \(y)", "touch frame"])
        try session.wait(for: "the client to ask for the resize") { RunningSession.text(of: log).contains("resizing") }
        try session.wait(for: "the client's touch to be cancelled") { RunningSession.text(of: log).contains("touch cancel") }
        try session.inject(["touch motion 3 \(x - 40) \(y - 30)", "touch frame"])
        try session.wait(for: "the window to grow up and left") {
            let window = try session.toplevels().first
            return window?["size"] as? [Int] == [240, 230] && window?["position"] as? [Int] == [start[0] - 40, start[1] - 30]
        }
        #expect(RunningSession.text(of: log).contains("configure 240x230 3 4"), "resizing (3) and activated (4): \(RunningSession.text(of: log))")
        try session.inject(["touch motion 3 \(x + 50) \(y + 20)", "touch frame"])
        try session.wait(for: "the window to shrink from the top left") {
            let window = try session.toplevels().first
            return window?["size"] as? [Int] == [150, 180] && window?["position"] as? [Int] == [start[0] + 50, start[1] + 20]
        }
        try session.inject(["touch up 3", "touch frame"])
        try session.wait(for: "a last configure without the resizing state") { RunningSession.text(of: log).hasSuffix("configure 0x0 4\n") }
        let afterCancel = RunningSession.text(of: log).components(separatedBy: "touch cancel\n").dropFirst().joined()
        #expect(!afterCancel.contains("touch motion") && !afterCancel.contains("touch up"), "nothing more of the resizing touch reaches the client: \(RunningSession.text(of: log))")
        // The grab ended with the finger: a motion of a new touch resizes nothing.
        try session.inject(["touch down 4 \(x + 60) \(y + 30)", "touch frame", "touch motion 4 \(x + 90) \(y + 60)", "touch frame", "touch up 4", "touch frame"])
        try session.wait(for: "the next touch to reach the client") { RunningSession.text(of: log).components(separatedBy: "touch down\n").count == 3 }
        #expect(try session.toplevels().first?["size"] as? [Int] == [150, 180])
    }

    @Test("xdg_toplevel.set_parent keeps a child above its parent: a touch that raises the parent raises its child over it; a window given a parent it lies below is raised over it")
    func childAboveParent() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let log = session.file("raw.log")
        _ = try session.client(["python3", Self.rawClient, "parent"], output: log)
        try session.wait(for: "the three windows to map") { try RunningSession.text(of: log).contains("mapped") && session.toplevels().count == 3 }
        func order() throws -> [String] { try session.toplevels().compactMap { $0["label"] as? String } }
        #expect(try order() == ["parent", "child", "later"], "bottom first, as they mapped")
        // A point of the parent that neither smaller window covers.
        let windows = try session.toplevels()
        func rect(_ label: String) -> (x: Int, y: Int, w: Int, h: Int) {
            let w = windows.first { $0["label"] as? String == label }
            let p = w?["position"] as? [Int] ?? [0, 0], s = w?["size"] as? [Int] ?? [0, 0]
            return (p[0], p[1], s[0], s[1])
        }
        let parent = rect("parent"), others = [rect("child"), rect("later")]
        let point = [(parent.x + 5, parent.y + 5), (parent.x + parent.w - 5, parent.y + 5), (parent.x + 5, parent.y + parent.h - 5)].first { p in
            !others.contains { p.0 >= $0.x && p.0 < $0.x + $0.w && p.1 >= $0.y && p.1 < $0.y + $0.h }
        }
        let (x, y) = try #require(point, "a point of the parent alone: \(windows)")
        try session.inject(["touch down 1 \(x) \(y)", "touch frame"])
        try session.wait(for: "the parent raised with its child over it") { try order() == ["later", "parent", "child"] }
        try session.inject(["touch up 1", "touch frame"])
        try session.wait(for: "the later window to be adopted") { RunningSession.text(of: log).contains("adopted") }
        try session.wait(for: "the adopted window raised over its parent") { try order() == ["parent", "child", "later"] }
        // Another touch on the parent keeps both children above it, in their order.
        try session.inject(["touch down 2 \(x) \(y)", "touch frame", "touch up 2", "touch frame"])
        usleep(200_000)
        #expect(try order() == ["parent", "child", "later"])
    }

    @Test("xdg_toplevel.move with a button press's serial: the pointer leaves the client and the window follows it until the button is up; then the pointer enters again")
    func pointerStartedMove() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let log = session.file("raw.log")
        _ = try session.client(["python3", Self.rawClient, "move"], output: log)
        try session.wait(for: "the window to map") { try RunningSession.text(of: log).contains("mapped") && session.toplevels().count == 1 }
        let start = try session.toplevels()[0]["position"] as? [Int] ?? [-1, -1]
        let (x, y) = (start[0] + 50, start[1] + 60)
        try session.inject(["pointer motion \(x) \(y)", "pointer button press BTN_LEFT"])
        try session.wait(for: "the pointer to leave the moving window") { RunningSession.text(of: log).contains("moving\npointer leave\n") }
        try session.inject(["pointer motion \(x + 70) \(y + 30)", "pointer motion \(x + 90) \(y + 10)"])
        try session.wait(for: "the window to follow the pointer") { try session.toplevels().first?["position"] as? [Int] == [start[0] + 90, start[1] + 10] }
        try session.inject(["pointer button release BTN_LEFT", "pointer motion \(x + 95) \(y + 12)"])
        try session.wait(for: "the pointer to enter the moved window again") { RunningSession.text(of: log).contains("pointer leave\npointer enter\n") }
        let afterLeave = RunningSession.text(of: log).components(separatedBy: "pointer leave\n").dropFirst().joined()
        #expect(afterLeave.hasPrefix("pointer enter\n"), "nothing of the move's motion or release reaches the client: \(RunningSession.text(of: log))")
        #expect(try session.toplevels().first?["position"] as? [Int] == [start[0] + 90, start[1] + 10], "after the release the pointer no longer moves it")
    }

    @Test("a client that dies holding a popup grab leaves no grab behind: the pointer enters the window beside it again, clicks and keys reach it")
    func deathMidGrab() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let wevLog = session.file("wev.log")
        _ = try session.client(["wev"], output: wevLog)
        try session.wait(for: "wev to map") { try session.toplevels().count == 1 }
        let wevWindow = try session.toplevels()[0]
        let size = wevWindow["size"] as? [Int] ?? [0, 0], position = wevWindow["position"] as? [Int] ?? [0, 0]
        // Clear of the grabbing client's 200×200 window, which cascades 32 px in.
        let inside = (x: position[0] + size[0] - 20, y: position[1] + size[1] - 20)

        let log = session.file("raw.log")
        let raw = try session.client(["python3", Self.rawClient, "grab"], output: log)
        try session.wait(for: "the grabbing popup to map") { RunningSession.text(of: log).contains("grabbed") }
        let grabbing = try session.toplevels().first { ($0["children"] as? [[String: Any]])?.first?["role"] as? String == "popup" }
        let popup = (grabbing?["children"] as? [[String: Any]])?.first?["id"] as? Int
        #expect(popup != nil)
        #expect(try session.msg("focus").json["keyboard"] as? Int == popup, "the grabbed popup takes keyboard focus")

        func enters() -> Int { RunningSession.text(of: wevLog).components(separatedBy: "wl_pointer] enter").count - 1 }
        let entersBefore = enters()
        #expect(try session.msg("inject", "pointer", "motion", String(inside.x), String(inside.y)).status == 0)
        #expect(try session.msg("focus").json["keyboard"] as? Int == popup)
        usleep(200_000)
        #expect(enters() == entersBefore, "while the grab holds, the pointer does not enter another client's window")

        kill(raw.processIdentifier, SIGKILL)
        raw.waitUntilExit()
        try session.wait(for: "the dead client's windows to leave") { try session.toplevels().count == 1 }
        #expect(try session.msg("inject", "pointer", "motion", String(inside.x + 1), String(inside.y)).status == 0)
        try session.inject(["pointer button press BTN_LEFT", "pointer button release BTN_LEFT", "key press KEY_C", "key release KEY_C"])
        try session.wait(for: "wev to get the key") { RunningSession.text(of: wevLog).contains("key: 54; state: 0 (released)") }
        let text = RunningSession.text(of: wevLog)
        #expect(enters() == entersBefore + 1, "the pointer enters wev once the grab is gone")
        #expect(text.contains("button: 272 (left), state: 1 (pressed)"), "the click reaches wev")
    }

    @Test("a malformed control request gets an error reply and the session keeps running; SIGTERM ends it cleanly")
    func malformedRequests() throws {
        let session = try RunningSession()
        for words in [["bogus"], ["pick", "x", "1"], ["inject", "touch", "down", "zero", "1", "2"], ["ignore-interaction", "maybe"]] {
            let run = try ToolRun(["msg", "--socket", session.controlSocket] + words)
            #expect(run.status == 1)
            #expect(run.output.hasPrefix("{\"ok\":false,\"error\":"), "\(words): \(run.output)")
        }
        #expect(try session.msg("tree").json["ok"] as? Bool == true)
        #expect(try session.msg("ignore-interaction", "on").status == 0)
        #expect(try session.msg("ignore-interaction", "off").status == 0)
        #expect(session.terminate() == 0)
    }
}
