import Foundation
import Testing

/// X11 apps through Xwayland (Debian's xwayland 22.1) in a live session: xterm, xinput and
/// wev beside them. There are no WLCS tests for Xwayland; these are what prove it.
@Suite("Xwayland: xterm types and takes taps, XI 2.2 touch at root coordinates, kills of an app and of Xwayland, kiosk rules", .serialized)
struct XWaylandTests {
    typealias ConfigFile = ConfigurationSessionTests.ConfigFile
    static let report = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/x11/xterm-report.py").path

    private func session(_ config: String = "", arguments: [String] = []) throws -> (RunningSession, ConfigFile) {
        #expect(FileManager.default.isExecutableFile(atPath: "/usr/bin/Xwayland"), "Xwayland is missing: .ci/setup installs it (apt-get install xwayland)")
        #expect(FileManager.default.isExecutableFile(atPath: "/usr/bin/xterm"), "xterm is missing: .ci/setup installs it")
        let file = try ConfigFile("[xwayland]\nenable = true\n" + config)
        let session = try RunningSession(arguments: ["--output", "1280x720", "--config", file.path] + arguments, keepingErrors: true, x11: true)
        try #require(session.x11Display.hasPrefix(":"), "the session prints DISPLAY=:N third")
        return (session, file)
    }

    /// xterm at (x, y) running the report script; waits until it is mapped and says ready.
    private func startXterm(_ session: RunningSession, at x: Int = 100, _ y: Int = 50, log name: String = "xterm.log") throws -> (Process, URL) {
        let log = session.file(name)
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let xterm = try session.client(["xterm", "-geometry", "80x24+\(x)+\(y)", "-fa", "Monospace", "-fs", "10", "-e", Self.report, log.path],
                                       output: session.file("\(name).stderr"))
        try session.wait(for: "xterm to map and be ready") {
            let mapped = try session.toplevels().contains { ($0["label"] as? String ?? "").hasPrefix("x11:XTerm") }
            return mapped && RunningSession.text(of: log).contains("ready")
        }
        return (xterm, log)
    }

    /// wev, then xterm at (700, 300) beside it: wev's log and xterm.
    private func startWevAndXterm(_ session: RunningSession) throws -> (URL, Process) {
        let wevLog = session.file("wev.log")
        _ = try session.client(["wev"], output: wevLog)
        try session.wait(for: "wev to map") { try session.toplevels().count == 1 }
        let (xterm, _) = try startXterm(session, at: 700, 300)
        return (wevLog, xterm)
    }

    private func tap(_ session: RunningSession, _ x: Int, _ y: Int, id: Int = 0) throws {
        try session.inject(["touch down \(id) \(x) \(y)", "touch frame", "touch up \(id)", "touch frame"])
    }

    private func presses(_ log: URL) -> [[Int]] {
        RunningSession.text(of: log).split(separator: "\n").filter { $0.hasPrefix("press ") }.map { $0.split(separator: " ").dropFirst().prefix(2).compactMap { Int($0) } }
    }

    private func type(_ session: RunningSession, _ keys: [String]) throws {
        try session.inject(keys.flatMap { ["key press \($0)", "key release \($0)"] })
    }

    @Test("xterm maps where it asked, labelled by its WM_CLASS; a tap reaches it as a press in the cell under the finger, and typed keys reach it")
    func xtermTypesAndTakesTaps() throws {
        let (session, _) = try session()
        defer { _ = session.terminate() }
        let (_, log) = try startXterm(session)
        let window = try #require(session.toplevels().first)
        #expect(window.position == [100, 50], "\(window)")
        #expect((window["label"] as? String)?.hasPrefix("x11:XTerm: ") == true, "the label is x11:CLASS: title: \(window)")
        try tap(session, 100 + 55, 50 + 30)
        try tap(session, 100 + 455, 50 + 230)
        try session.wait(for: "two presses") { presses(log).count == 2 }
        let (first, second) = (presses(log)[0], presses(log)[1])
        #expect(first[0] >= 5 && first[0] <= 8 && first[1] == 2, "the first tap, 55 px right and 30 px down, is in column 6 or so of row 2: \(first)")
        #expect(second[0] > first[0] + 30 && second[1] > first[1] + 8, "the second, 400 px right and 200 px down, lands far right and below it: \(second)")
        try type(session, ["KEY_H", "KEY_I", "KEY_ENTER"])
        try session.wait(for: "xterm to get the typed line") { RunningSession.text(of: log).contains("typed hi") }
    }

    @Test("GTK 3 with GDK_BACKEND=x11: a tap clicks its button, a tap opens its menu, an override-redirect window that maps as a popup of the window, and a tap on the menu's item activates it")
    func gtkButtonAndMenu() throws {
        let (session, _) = try session()
        defer { _ = session.terminate() }
        let log = session.file("gtk.log")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/x11/gtk-menu.py").path
        _ = try session.client(["/usr/bin/python3", script], output: log, environment: ["GDK_BACKEND": "x11"])
        func geometry(_ prefix: String) -> [Int] {
            RunningSession.text(of: log).split(separator: "\n").first { $0.hasPrefix(prefix + " ") }?.split(separator: " ").compactMap { Int($0) } ?? []
        }
        try session.wait(for: "GTK to map and say where its buttons are") { geometry("button Menu").count == 4 }
        let window = try #require(session.toplevels().first)
        #expect(window.position == [100, 80] && (window["label"] as? String)?.hasPrefix("x11:Gtk-menu.py: x11-menu") == true, "\(window)")
        let press = geometry("button Press"), menu = geometry("button Menu")
        try tap(session, press[0] + press[2] / 2, press[1] + press[3] / 2)
        try session.wait(for: "the button's click") { RunningSession.text(of: log).contains("clicked") }
        try tap(session, menu[0] + menu[2] / 2, menu[1] + menu[3] / 2)
        try session.wait(for: "the menu to show") { geometry("item Second").count == 4 }
        let children = try session.toplevels().first?["children"] as? [[String: Any]] ?? []
        let shown = geometry("menu")
        #expect(children.count == 1 && children[0]["role"] as? String == "popup", "the menu is a popup of the window: \(children)")
        #expect(children.first?.position == [shown[0] - 100, shown[1] - 80], "placed where X11 put it, relative to the window: \(children) \(shown)")
        let second = geometry("item Second")
        try tap(session, second[0] + second[2] / 2, second[1] + second[3] / 2)
        try session.wait(for: "the item to be activated") { RunningSession.text(of: log).contains("activated Second") }
        try session.wait(for: "the menu to leave the tree") { (try session.toplevels().first?["children"] as? [Any])?.isEmpty == true }
        #expect(!RunningSession.text(of: log).contains("activated First"))
    }

    @Test("xinput test-xi2 --root sees XI 2.2 TouchBegin, TouchUpdate and TouchEnd for an injected touch, at the injected root coordinates")
    func xinputSeesTouch() throws {
        #expect(FileManager.default.isExecutableFile(atPath: "/usr/bin/xinput"), "xinput is missing: .ci/setup installs it")
        let (session, _) = try session()
        defer { _ = session.terminate() }
        _ = try startXterm(session)
        let log = session.file("xinput.log")
        _ = try session.client(["xinput", "test-xi2", "--root"], output: log)
        // xinput prints nothing until an event: the pointer moves over xterm until it reports a motion.
        var x = 150
        try session.wait(for: "xinput to listen") {
            x += 1
            try session.inject(["pointer motion \(x) 100"])
            return RunningSession.text(of: log).contains("(Motion)")
        }
        try session.inject(["touch down 0 300 200", "touch frame", "touch motion 0 320 230", "touch frame", "touch up 0", "touch frame"])
        try session.wait(for: "TouchEnd") { RunningSession.text(of: log).contains("(TouchEnd)") }
        let events = RunningSession.text(of: log).components(separatedBy: "EVENT type ").dropFirst()
        func root(of kind: String) -> String? {
            events.first { $0.contains("(\(kind))") }?.split(separator: "\n").first { $0.contains("root:") }.map { $0.trimmingCharacters(in: .whitespaces) }
        }
        #expect(root(of: "TouchBegin") == "root: 300.00/200.00", "\(events)")
        #expect(root(of: "TouchUpdate") == "root: 320.00/230.00", "\(events)")
        #expect(root(of: "TouchEnd") == "root: 320.00/230.00", "\(events)")
    }

    @Test("[app.\"x11:XTerm\"] applies to xterm by its WM_CLASS: interaction = false keeps taps from it, and keys still reach it")
    func policyByClass() throws {
        let (session, _) = try session("[app.\"x11:XTerm\"]\ninteraction = false\n")
        defer { _ = session.terminate() }
        let (_, log) = try startXterm(session)
        try tap(session, 200, 150)
        try type(session, ["KEY_O", "KEY_K", "KEY_ENTER"])
        try session.wait(for: "the typed line") { RunningSession.text(of: log).contains("typed ok") }
        #expect(presses(log).isEmpty, "no tap reaches a window whose app says interaction = false: \(RunningSession.text(of: log))")
    }

    @Test("copy and paste both ways between xterm and foot: a word xterm selects is pasted in foot with Ctrl+Shift+V, and one foot copies with Ctrl+Shift+C is pasted in xterm")
    func xtermAndFootClipboard() throws {
        let (session, _) = try session()
        defer { _ = session.terminate() }
        // xterm to foot: xterm's selection goes to CLIPBOARD (selectToClipboard).
        let xterm = try session.client(["xterm", "-geometry", "40x5+0+0", "-fa", "Monospace", "-fs", "10", "-xrm", "XTerm*selectToClipboard: true",
                                        "-e", "sh", "-c", "echo xtermtext; sleep 60"], output: session.file("xterm-source.log"))
        try session.wait(for: "xterm to map") { try session.toplevels().count == 1 }
        usleep(500_000)
        let doubleClick = Array(repeating: ["pointer button press BTN_LEFT", "pointer button release BTN_LEFT"], count: 2).flatMap { $0 }
        try session.inject(["pointer motion 12 8"] + doubleClick)
        try ClipboardTests.waitForPaste(session, "xtermtext")
        let typed = session.file("typed.txt")
        _ = try session.client(["foot", "sh", "-c", "read x; echo \"got:$x\" > \(typed.path); sleep 60"], output: session.file("foot-sink.log"))
        try session.wait(for: "foot to map and take the keyboard") {
            let keyboard = try session.msg("focus").json["keyboard"] as? Int
            let windows = try session.toplevels()
            return windows.count == 2 && windows.contains { $0["id"] as? Int == keyboard && !(($0["label"] as? String ?? "").hasPrefix("x11:")) }
        }
        usleep(300_000)
        try session.inject(["key press KEY_LEFTCTRL", "key press KEY_LEFTSHIFT", "key press KEY_V", "key release KEY_V", "key release KEY_LEFTSHIFT", "key release KEY_LEFTCTRL"])
        usleep(300_000)
        try type(session, ["KEY_ENTER"])
        try session.wait(for: "foot's shell to read the paste") { RunningSession.text(of: typed).hasSuffix("\n") }
        #expect(RunningSession.text(of: typed) == "got:xtermtext\n")
        kill(xterm.processIdentifier, SIGKILL)
        try session.wait(for: "xterm to leave") { try session.toplevels().count == 1 }
        let sink = try session.toplevels().first?["id"] as? Int

        // foot to xterm: a word foot selects, Ctrl+Shift+C; Shift+Insert in xterm pastes CLIPBOARD.
        _ = try session.client(["foot", "sh", "-c", "echo foottext; sleep 60"], output: session.file("foot-source.log"))
        var foot: [String: Any] = [:]
        try session.wait(for: "the second foot to map") {
            foot = try session.toplevels().first { $0["id"] as? Int != sink } ?? [:]
            return try session.toplevels().count == 2 && foot["mapped"] as? Bool == true
        }
        usleep(500_000)
        try session.inject(["pointer motion \(foot.position[0] + 3) \(foot.position[1] + 5)"] + doubleClick)
        try session.inject(["key press KEY_LEFTCTRL", "key press KEY_LEFTSHIFT", "key press KEY_C", "key release KEY_C", "key release KEY_LEFTSHIFT", "key release KEY_LEFTCTRL"])
        try ClipboardTests.waitForPaste(session, "foottext")
        let log = session.file("xterm-sink.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        _ = try session.client(["xterm", "-geometry", "80x24+600+300", "-fa", "Monospace", "-fs", "10",
                                "-xrm", "XTerm*VT100.translations: #override Shift<Key>Insert: insert-selection(CLIPBOARD)",
                                "-e", Self.report, log.path], output: session.file("xterm-sink.stderr"))
        try session.wait(for: "the second xterm to be ready") { RunningSession.text(of: log).contains("ready") }
        usleep(300_000)
        try session.inject(["key press KEY_LEFTSHIFT", "key press KEY_INSERT", "key release KEY_INSERT", "key release KEY_LEFTSHIFT"])
        usleep(300_000)
        try type(session, ["KEY_ENTER"])
        try session.wait(for: "xterm to read the paste") { RunningSession.text(of: log).contains("typed ") }
        #expect(RunningSession.text(of: log).contains("typed foottext"), "\(RunningSession.text(of: log))")
    }

    @Test("the primary selection both ways: xclip's PRIMARY is what wl-paste --primary prints, and wl-copy --primary's is what xclip reads")
    func primarySelection() throws {
        #expect(FileManager.default.isExecutableFile(atPath: "/usr/bin/xclip"), "xclip is missing: .ci/setup installs it")
        let (session, _) = try session()
        defer { _ = session.terminate() }
        let input = session.file("primary.txt")
        try "from x11".write(to: input, atomically: true, encoding: .utf8)
        _ = try session.client(["xclip", "-selection", "primary", "-i", input.path], output: session.file("xclip-in.log"))
        try ClipboardTests.waitForPaste(session, "from x11", ["--primary"])
        #expect(try ClipboardTests.paste(session, log: "clipboard.log").status != 0, "the clipboard is apart from the primary selection, and empty")
        _ = try session.client([ClipboardTests.copy, "--foreground", "--primary", "from wayland"], output: session.file("wl-copy.log"))
        var read = ""
        try session.wait(for: "xclip to read the Wayland primary selection") {
            let log = session.file("xclip-out.log")
            let reader = try session.client(["xclip", "-selection", "primary", "-o"], output: log)
            reader.waitUntilExit()
            read = RunningSession.text(of: log)
            return read == "from wayland"
        }
    }

    @Test("Chromium on X11: `touch-router run --kiosk -- chromium --ozone-platform=x11 --kiosk URL`, all as nobody, maps through Xwayland filling the output, labelled by its WM_CLASS, and its page gets touchstart within a pixel of the tapped point")
    func chromiumOnX11() throws {
        let run = BrowserTests.KioskCommand()
        defer { run.stop() }
        try FileManager.default.createDirectory(at: run.directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o711])
        let configuration = run.directory.appendingPathComponent("xwayland.toml")
        try "[xwayland]\nenable = true\n".write(to: configuration, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: configuration.path)
        try run.start(options: ["--config", configuration.path], flags: ["--ozone-platform=x11"])
        var window: [String: Any] = [:]
        let deadline = Date().addingTimeInterval(BrowserTests.browserStart)
        // Settled: the window fills the output, has the keyboard, the page's last size is the
        // output's, and no event came for a second. A tap while Chromium still applied its
        // fullscreen state (a resize after ready) reached the page only as mouse events once.
        var quietSince = Date(), seen = -1
        while Date() < deadline, run.session.isRunning {
            window = try run.toplevels().first ?? [:]
            let events = run.events()
            if events.count != seen { (seen, quietSince) = (events.count, Date()) }
            let viewport = events.last { ["ready", "resize"].contains($0["type"] as? String) }
            if window.size == [BrowserTests.width, BrowserTests.height], events.contains(where: { $0["type"] as? String == "ready" }),
               BrowserTests.number(viewport?["innerWidth"]) == Double(BrowserTests.width), BrowserTests.number(viewport?["innerHeight"]) == Double(BrowserTests.height),
               try run.msg(["focus"]).json["keyboard"] as? Int == window["id"] as? Int, Date().timeIntervalSince(quietSince) > 1 { break }
            usleep(200_000)
        }
        #expect((window["label"] as? String)?.hasPrefix("x11:Chromium") == true, "Chromium's X11 window: \(window); its log:\n\(run.logTail())")
        #expect(window.position == [0, 0] && window.size == [BrowserTests.width, BrowserTests.height], "\(window)")
        let tapEvents = try run.tap(213, 157)
        let starts = tapEvents.filter { $0["type"] as? String == "touchstart" }
        let touch = (starts.first?["changed"] as? [[String: Any]])?.first
        // Within a pixel: Xwayland scales a touch through its device's 0–65535 axis and back, and
        // Chromium truncates what returns (212.99 for 213); xinput shows the same root point to 0.01.
        let (x, y) = (BrowserTests.number(touch?["x"]) ?? -9, BrowserTests.number(touch?["y"]) ?? -9)
        #expect(starts.count == 1 && abs(x - 213) <= 1 && abs(y - 157) <= 1, "one touchstart at (213, 157): \(tapEvents)")
    }

    @Test("an X11 app killed with a finger on it leaves nothing: its window leaves the tree, the touch ends, and wev beside it gets the next touch and key")
    func appKilledMidTouch() throws {
        let (session, _) = try session()
        defer { _ = session.terminate() }
        let (wevLog, xterm) = try startWevAndXterm(session)
        try session.inject(["touch down 3 800 400", "touch frame"])
        kill(xterm.processIdentifier, SIGKILL)
        try session.wait(for: "xterm's window to leave the tree") { try session.toplevels().count == 1 }
        try session.inject(["touch motion 3 810 410", "touch frame", "touch up 3", "touch frame"])
        try session.wait(for: "no touch to be left") { (try session.msg("focus").json["touches"] as? [Any])?.isEmpty == true }
        let wev = try session.toplevels()[0]
        try tap(session, wev.position[0] + 20, wev.position[1] + 20, id: 4)
        try type(session, ["KEY_B"])
        try session.wait(for: "wev to get the tap and the key") {
            RunningSession.text(of: wevLog).contains("key: 56; state: 0 (released)") && RunningSession.text(of: wevLog).contains("wl_touch] up")
        }
    }

    @Test("Xwayland killed: its X11 clients go with it, wev and the session stay, and Xwayland starts again for the next X11 app")
    func xwaylandKilled() throws {
        let (session, _) = try session()
        defer { _ = session.terminate() }
        let (_, xterm) = try startWevAndXterm(session)
        let errors = try #require(session.errors)
        let pid = try #require(RunningSession.text(of: errors).components(separatedBy: "xwayland: started (process ").dropFirst().first?.prefix { $0.isNumber })
        kill(Int32(pid)!, SIGKILL)
        try session.wait(for: "xterm to die with its display") { !xterm.isRunning }
        try session.wait(for: "only wev to be left in the tree") { try session.toplevels().count == 1 }
        try session.wait(for: "Xwayland to start again") { RunningSession.text(of: errors).components(separatedBy: "window manager running").count == 3 }
        let (_, again) = try startXterm(session, at: 700, 300, log: "xterm-again.log")
        try tap(session, 760, 340)
        try session.wait(for: "the new xterm to take a tap") { presses(again).count == 1 }
        try type(session, ["KEY_B"])
        #expect(try session.toplevels().count == 2)
        #expect(session.process.isRunning)
    }

    @Test("lazy: Xwayland starts only when the first X11 client connects, and that client is served")
    func lazyStart() throws {
        let file = try ConfigFile("[xwayland]\nenable = \"lazy\"\n")
        let session = try RunningSession(arguments: ["--config", file.path], keepingErrors: true, x11: true)
        defer { _ = session.terminate() }
        let errors = try #require(session.errors)
        usleep(500_000)
        #expect(!RunningSession.text(of: errors).contains("xwayland: started"), "nothing started before a client: \(RunningSession.text(of: errors))")
        _ = try startXterm(session)
        #expect(RunningSession.text(of: errors).components(separatedBy: "xwayland: started").count == 2)
    }

    @Test("kiosk: xterm as `run --kiosk -- xterm` fills the output; a hidden edge swipe in a hold-back zone and a five-finger tap never reach it, a tap does")
    func kioskApp() throws {
        let file = try ConfigFile("""
            [xwayland]
            enable = true
            [gestures]
            finger-limit = 5
            [hold]
            limit-ms = 3000
            [[hold.zone]]
            edges = ["left"]
            width = 40
            [[recognizer]]
            name = "admin-swipe"
            kind = "screen-edge-pan"
            edges = ["left"]
            zone-width = 40
            [[recognizer]]
            name = "secret"
            kind = "tap"
            touches = 5
            maximum-press-ms = 5000
            [[bind]]
            gesture = "admin-swipe"
            action = "emit"
            event = "admin"
            [[bind]]
            gesture = "secret"
            action = "emit"
            event = "secret-tap"
            """)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("touch-router-xdg-kiosk-\(getpid())-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let log = URL(fileURLWithPath: directory).appendingPathComponent("xterm.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = ToolRun.executable
        process.arguments = ["run", "--kiosk", "--output", "1280x720", "--config", file.path, "--", "xterm", "-e", "sh", "-c",
                             "echo socket $TOUCH_ROUTER_SOCKET >> \(log.path); exec \(Self.report) \(log.path)"]
        var environment = ProcessInfo.processInfo.environment
        environment["WAYLAND_DISPLAY"] = nil
        environment["DISPLAY"] = nil
        process.environment = environment.merging(["XDG_RUNTIME_DIR": directory, "XDG_CONFIG_HOME": directory]) { $1 }
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() }; process.waitUntilExit() }
        let deadline = Date().addingTimeInterval(15)
        while !RunningSession.text(of: log).contains("ready"), Date() < deadline { usleep(50_000) }
        let socket = try #require(RunningSession.text(of: log).split(separator: "\n").first { $0.hasPrefix("socket ") }?.dropFirst(7))
        func msg(_ words: [String]) throws -> [String: Any] {
            let run = try ToolRun(["msg", "--socket", String(socket)] + words)
            return (try? JSONSerialization.jsonObject(with: Data(run.output.utf8))) as? [String: Any] ?? [:]
        }
        func toplevels() throws -> [[String: Any]] {
            (try msg(["tree"])["outputs"] as? [[String: Any]] ?? []).flatMap { $0["toplevels"] as? [[String: Any]] ?? [] }
        }
        var filled = false
        for _ in 0..<300 where !filled {
            filled = try toplevels().first.map { $0.position == [0, 0] && $0.size == [1280, 720] } ?? false
            if !filled { usleep(50_000) }
        }
        let tree = try toplevels()
        #expect(filled, "xterm fills the 1280x720 output from its corner: \(tree)")
        let subscriber = URL(fileURLWithPath: directory).appendingPathComponent("events.log")
        let subscribe = Process()
        subscribe.executableURL = ToolRun.executable
        subscribe.arguments = ["msg", "--socket", String(socket), "subscribe", "emit"]
        _ = FileManager.default.createFile(atPath: subscriber.path, contents: nil)
        subscribe.standardOutput = try FileHandle(forWritingTo: subscriber)
        try subscribe.run()
        defer { subscribe.terminate() }
        usleep(300_000)
        func inject(_ steps: [String]) throws { for step in steps { _ = try ToolRun(["msg", "--socket", String(socket), "inject"] + step.split(separator: " ").map(String.init)) } }
        var swipe = ["touch down 0 5 400", "touch frame"]
        for x in stride(from: 30, through: 330, by: 25) { swipe += ["touch motion 0 \(x) 400", "touch frame"] }
        try inject(swipe + ["touch up 0", "touch frame"])
        try inject((1...5).map { "touch down \($0) \(200 * $0) 300" } + ["touch frame"] + (1...5).map { "touch up \($0)" } + ["touch frame"])
        let waitUntil = Date().addingTimeInterval(15)
        while !(RunningSession.text(of: subscriber).contains("admin") && RunningSession.text(of: subscriber).contains("secret-tap")), Date() < waitUntil { usleep(50_000) }
        #expect(RunningSession.text(of: subscriber).contains("\"admin\""), "the edge swipe is recognized: \(RunningSession.text(of: subscriber))")
        #expect(RunningSession.text(of: subscriber).contains("secret-tap"), "the five-finger tap is recognized: \(RunningSession.text(of: subscriber))")
        usleep(300_000)
        #expect(presses(log).isEmpty, "neither reached xterm: \(RunningSession.text(of: log))")
        try inject(["touch down 9 640 360", "touch frame", "touch up 9", "touch frame"])
        let tapDeadline = Date().addingTimeInterval(15)
        while presses(log).isEmpty, Date() < tapDeadline { usleep(50_000) }
        #expect(presses(log).count == 1, "a plain tap reaches it: \(RunningSession.text(of: log))")
    }
}
