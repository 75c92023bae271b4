import Foundation
import Testing

/// Debian's Chromium and Firefox ESR in a live session, each in kiosk mode on a local page
/// (`Clients/browser/page.html`), served on 127.0.0.1 by `Clients/browser/server.py`, to which
/// the page posts every event the tests look at (touches, mouse events, clicks, a `<select>`'s
/// change, a text field's input, scrolling, the window's focus and blur), one JSON line each.
///
/// Each browser runs as the user nobody (`setpriv`), with its own HOME and XDG_RUNTIME_DIR and
/// its sandbox on, as it would in a real session: Chromium's sandbox refuses to run as root
/// without `--no-sandbox`, and Firefox's needs nothing more. The session's Wayland socket is
/// made reachable for nobody (see `Run.start`); nothing else of the session's is.
///
/// What these browsers make of the session (Chromium 156, Firefox ESR 153, 1280×720 output):
/// - Both fill the output in kiosk mode, at (0, 0), at a device pixel ratio of 1, so a CSS
///   pixel is a layout pixel.
/// - A `<select>`'s dropdown is, in Chromium, an `xdg_popup` of the toplevel, placed under the
///   select, and taken without a grab; in Firefox it is a *subsurface* of the toplevel (with a
///   subsurface of its own, the same size), placed under the select with 4 px of shadow on
///   each side. A press on either used to move the keyboard focus off the toplevel and the
///   dropdown closed without a choice; since d2ad0e1 a press there focuses the toplevel that
///   owns it, which `selectThirdOption` checks.
/// - Both enable text-input-v3 on a focused text field (Chromium without `--enable-wayland-ime`),
///   so `[keyboard] osk-namespace` shows wvkbd when the field is tapped.
@Suite("Browsers: Debian's Chromium and Firefox ESR in kiosk mode, driven by touch, pointer and wvkbd, their page's events posted back", .serialized)
struct BrowserTests {
    enum Browser: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case chromium, firefox

        var testDescription: String { self == .chromium ? "Chromium" : "Firefox ESR" }
        var executable: String { self == .chromium ? "/usr/bin/chromium" : "/usr/bin/firefox-esr" }
        var package: String { self == .chromium ? "chromium" : "firefox-esr" }
    }

    enum Input: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case touch, pointer
        var testDescription: String { rawValue }
    }

    static let clients = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/browser")
    static let width = 1280, height = 720
    /// Browsers start slowly on a loaded 2-core VM: Firefox took 20 s here with nothing else running.
    static let browserStart: TimeInterval = 90

    /// A number from the page's JSON.
    static func number(_ value: Any?) -> Double? { (value as? NSNumber)?.doubleValue }

    /// One session, the page's server and one browser on the page; `stop` ends all three.
    /// What every browser run needs first: the tools (else a clear failure naming the package),
    /// nobody's own home and runtime directories in `directory`, and the page's server (root's: it
    /// only reads the page and appends to `eventLog`). Returns nobody's entry and the server's port.
    static func prepare(tools: [(String, String)], directory: URL, owned: [URL], eventLog: URL, server: Process,
                        sourceLocation: SourceLocation) throws -> (nobody: passwd, port: Int) {
        for (path, package) in tools + [("/usr/bin/setpriv", "util-linux"), ("/usr/bin/python3", "python3")] {
            try #require(FileManager.default.isExecutableFile(atPath: path), "\(path) is not installed: .ci/setup installs it (apt-get install \(package))", sourceLocation: sourceLocation)
        }
        let nobody = try #require(getpwnam("nobody")?.pointee, "no user nobody", sourceLocation: sourceLocation)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o711])
        for directory in owned {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            try FileManager.default.setAttributes([.ownerAccountID: nobody.pw_uid, .groupOwnerAccountID: nobody.pw_gid], ofItemAtPath: directory.path)
        }
        _ = FileManager.default.createFile(atPath: eventLog.path, contents: nil)
        server.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        server.arguments = [clients.appendingPathComponent("server.py").path, eventLog.path]
        let serverOutput = Pipe()
        server.standardOutput = serverOutput
        try server.run()
        var said = ""
        while !said.contains("\n") {
            let data = serverOutput.fileHandleForReading.availableData
            if data.isEmpty { break }
            said += String(decoding: data, as: UTF8.self)
        }
        let port = try #require(said.firstMatch(of: /port (\d+)/).flatMap { Int($0.1) }, "server.py said no port: \(said)", sourceLocation: sourceLocation)
        return (nobody, port)
    }

    final class Run {
        let browser: Browser
        private let sessionArguments: [String]
        /// The page's query: `?consume` makes #pinch take its touchstart, as a drawing app does.
        private let query: String
        /// Root's, mode 0711; `home` and `runtime` in it are nobody's, mode 0700.
        let directory: URL
        let home: URL
        let runtime: URL
        let eventLog: URL
        let browserLog: URL
        private(set) var session: RunningSession?
        private let server = Process()
        private(set) var process: Process?
        /// The browser's toplevel in `msg tree`, as it was once the page was ready.
        private(set) var window: [String: Any] = [:]
        /// The page's "ready" event: the window's inner size and where its elements are, in CSS pixels.
        private(set) var ready: [String: Any] = [:]

        init(_ browser: Browser, sessionArguments: [String] = [], query: String = "") {
            self.browser = browser
            self.sessionArguments = sessionArguments
            self.query = query
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("touch-router-browser-\(getpid())-\(UUID().uuidString.prefix(8))")
            home = directory.appendingPathComponent("home")
            runtime = directory.appendingPathComponent("runtime")
            eventLog = directory.appendingPathComponent("events.log")
            browserLog = directory.appendingPathComponent("\(browser.rawValue).log")
        }

        var sessionOrFail: RunningSession { session! }
        var windowID: Int? { window["id"] as? Int }
        var origin: (x: Int, y: Int) {
            let position = window["position"] as? [Int] ?? [0, 0]
            return (position[0], position[1])
        }

        /// The session (with `before` run in it first, e.g. to start an on-screen keyboard), the
        /// server and the browser; returns once the page is loaded in a window that fills the
        /// output and has the keyboard focus.
        func start(before: (RunningSession) throws -> Void = { _ in }, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let (nobody, port) = try BrowserTests.prepare(tools: [(browser.executable, browser.package)], directory: directory, owned: [home, runtime],
                                                          eventLog: eventLog, server: server, sourceLocation: sourceLocation)

            let session = try RunningSession(arguments: ["--output", "\(BrowserTests.width)x\(BrowserTests.height)"] + sessionArguments)
            self.session = session
            // nobody reaches the Wayland socket, and nothing else, through the session's runtime
            // directory: that directory becomes searchable (0711, nothing in it can be listed)
            // and the socket nobody's. The control socket stays root's, 0600.
            let socket = URL(fileURLWithPath: session.runtimeDirectory).appendingPathComponent(session.waylandDisplay).path
            try FileManager.default.setAttributes([.posixPermissions: 0o711], ofItemAtPath: session.runtimeDirectory)
            try FileManager.default.setAttributes([.ownerAccountID: nobody.pw_uid], ofItemAtPath: socket)
            let probe = Process()
            probe.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            probe.arguments = ["--reuid=nobody", "--regid=nogroup", "--clear-groups", "--", "/usr/bin/test", "-w", socket]
            try probe.run()
            probe.waitUntilExit()
            try #require(probe.terminationStatus == 0, "nobody cannot write to the session's socket \(socket): is a directory above it closed to others?", sourceLocation: sourceLocation)

            try before(session)

            // A clean environment: only what the browser needs, the Wayland socket by its path.
            var environment = ["PATH=/usr/bin:/bin", "HOME=\(home.path)", "XDG_RUNTIME_DIR=\(runtime.path)", "WAYLAND_DISPLAY=\(socket)",
                               "XDG_SESSION_TYPE=wayland", "LANG=C.UTF-8"]
            // Set BROWSER_TESTS_WAYLAND_DEBUG=1 to get the browser's side of the protocol in its log.
            if ProcessInfo.processInfo.environment["BROWSER_TESTS_WAYLAND_DEBUG"] != nil { environment.append("WAYLAND_DEBUG=1") }
            let url = "http://127.0.0.1:\(port)/" + query
            var command: [String]
            switch browser {
            case .chromium:
                command = [browser.executable, "--ozone-platform=wayland", "--user-data-dir=\(home.path)/chromium", "--no-first-run",
                           "--no-default-browser-check", "--password-store=basic", "--disable-sync", "--disable-component-update",
                           "--disable-background-networking", "--disable-features=Translate,MediaRouter", "--kiosk", url]
            case .firefox:
                environment.append("MOZ_ENABLE_WAYLAND=1")
                let profile = home.appendingPathComponent("profile")
                try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: false)
                try FileManager.default.copyItem(at: BrowserTests.clients.appendingPathComponent("firefox-user.js"), to: profile.appendingPathComponent("user.js"))
                for path in [profile.path, profile.appendingPathComponent("user.js").path] {
                    try FileManager.default.setAttributes([.ownerAccountID: nobody.pw_uid, .groupOwnerAccountID: nobody.pw_gid], ofItemAtPath: path)
                }
                command = [browser.executable, "--profile", profile.path, "--no-remote", "--kiosk", url]
            }
            process = try session.client(["/usr/bin/env", "-i"] + environment + ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"] + command,
                                         output: browserLog)

            let loaded = wait(for: "\(browser) to load the page in a window filling the output, with the keyboard focus", timeout: BrowserTests.browserStart, sourceLocation: sourceLocation) {
                guard self.process?.isRunning == true else { return true }
                guard let found = try self.browserWindow(), found["mapped"] as? Bool == true,
                      found["size"] as? [Int] == [BrowserTests.width, BrowserTests.height] else { return false }
                guard let page = self.events().last(where: { $0["type"] as? String == "ready" }) else { return false }
                let viewport = self.events().last { ["ready", "resize"].contains($0["type"] as? String) }
                guard BrowserTests.number(viewport?["innerWidth"]) == Double(BrowserTests.width),
                      BrowserTests.number(viewport?["innerHeight"]) == Double(BrowserTests.height),
                      try session.msg("focus").json["keyboard"] as? Int == found["id"] as? Int else { return false }
                self.window = found
                self.ready = page
                return true
            }
            try #require(loaded && process?.isRunning == true && !window.isEmpty,
                         "\(browser) did not come up: tree \(String(describing: try? session.msg("tree").json)); events \(events()); its log:\n\(logTail())",
                         sourceLocation: sourceLocation)
        }

        /// The browser's toplevel: the session's only toplevel that is not wvkbd's layer surface.
        func browserWindow() throws -> [String: Any]? {
            try session?.toplevels().first { $0["role"] as? String == "toplevel" && $0["label"] as? String != "wlroots" }
        }

        /// The page's events so far, in the order it posted them.
        func events() -> [[String: Any]] {
            RunningSession.text(of: eventLog).split(separator: "\n").compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            }
        }

        /// The page's events of `type` from index `from` on.
        func events(_ type: String, from: Int = 0) -> [[String: Any]] {
            events().dropFirst(from).filter { $0["type"] as? String == type }
        }

        func logTail() -> String { String(RunningSession.text(of: browserLog).suffix(3000)) }

        func keyboardFocus() throws -> Int? { try session?.msg("focus").json["keyboard"] as? Int }

        func inject(_ requests: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
            try sessionOrFail.inject(requests, sourceLocation: sourceLocation)
        }

        func tap(_ x: Int, _ y: Int, id: Int = 0, sourceLocation: SourceLocation = #_sourceLocation) throws {
            try inject(["touch down \(id) \(x) \(y)", "touch frame"], sourceLocation: sourceLocation)
            usleep(80_000)
            try inject(["touch up \(id)", "touch frame"], sourceLocation: sourceLocation)
        }

        /// Polls `condition` until it holds; records an issue naming `what` and returns false at the timeout.
        @discardableResult
        func wait(for what: String, timeout: TimeInterval = 20, sourceLocation: SourceLocation = #_sourceLocation, _ condition: () throws -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if (try? condition()) == true { return true }
                usleep(100_000)
            }
            Issue.record("timed out after \(Int(timeout)) s waiting for \(what); the page's last events: \(events().suffix(8))", sourceLocation: sourceLocation)
            return false
        }

        /// Ends the browser's processes (its process group, and any that left it but carry its
        /// HOME: crash handlers run in groups of their own), the server, and the session.
        /// SIGKILL: a child of the test process starts with SIGTERM blocked (the signal mask of
        /// the thread that spawned it), and the browsers keep it so.
        func stop() {
            if let process {
                let group = process.processIdentifier
                let deadline = Date().addingTimeInterval(10)
                repeat {
                    kill(-group, SIGKILL)
                    for pid in Self.processes(group: group, home: home.path) { kill(pid, SIGKILL) }
                    usleep(100_000)
                } while !Self.processes(group: group, home: home.path).isEmpty && Date() < deadline
            }
            if server.isRunning {
                kill(server.processIdentifier, SIGKILL)
                server.waitUntilExit()
            }
            _ = session?.terminate()
            try? FileManager.default.removeItem(at: directory)
        }

        /// The live (not zombie) processes in process group `group` or with HOME=`home` in their environment.
        static func processes(group: Int32, home: String) -> [Int32] {
            let marker = Data("\0HOME=\(home)\0".utf8)
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            return entries.compactMap(Int32.init).filter { pid in
                guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                      let close = stat.range(of: ")", options: .backwards) else { return false }
                let fields = stat[close.upperBound...].split(separator: " ")
                guard fields.count > 2, fields[0] != "Z" else { return false }
                if Int32(fields[2]) == group { return true }
                guard let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ").map({ Data([0]) + $0 }) else { return false }
                return environ.range(of: marker) != nil
            }
        }
    }

    /// The issue's command line, whole, as nobody: `touch-router run --kiosk --output 1280x720 --
    /// chromium --kiosk URL`, under `env -i` with only HOME, XDG_RUNTIME_DIR (both nobody's,
    /// 0700), PATH and LANG (and `extra`): no DISPLAY, no XDG_SESSION_TYPE, no Chromium flag but
    /// `--kiosk`. Whatever makes Chromium pick Wayland comes from the session (ChildEnvironment).
    /// Debian's `/usr/bin/chromium` wrapper adds its own flags from /etc/chromium.d (none of them
    /// about the platform). Chromium 156 here, with a fresh profile, shows no first-run UI and no
    /// keyring prompt (there is no D-Bus bus at all): its only window is the page.
    final class KioskCommand {
        /// Root's, mode 0711; `home` and `runtime` in it are nobody's, mode 0700.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("touch-router-kiosk-command-\(getpid())-\(UUID().uuidString.prefix(8))")
        var home: URL { directory.appendingPathComponent("home") }
        var runtime: URL { directory.appendingPathComponent("runtime") }
        var eventLog: URL { directory.appendingPathComponent("events.log") }
        /// The session's standard output and error, Chromium's with them.
        var log: URL { directory.appendingPathComponent("session.log") }
        let server = Process()
        /// `env`, which becomes `setpriv`, which becomes `touch-router`: one pid throughout.
        let session = Process()
        var url = ""

        /// Runs `arguments` as nobody and waits for it; its status and what it printed.
        @discardableResult
        static func asNobody(_ arguments: [String]) throws -> (status: Int32, output: String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"] + arguments
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }

        /// The directories, the page's server, and the session with `extra` in its environment,
        /// `options` among its own (before `--`), and `flags` for Chromium before `--kiosk`.
        func start(extra: [String] = [], options: [String] = [], flags: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) throws {
            let (_, port) = try BrowserTests.prepare(tools: [("/usr/bin/chromium", "chromium")], directory: directory, owned: [home, runtime],
                                                          eventLog: eventLog, server: server, sourceLocation: sourceLocation)
            // The session runs as nobody: nobody must reach the binary built beside the tests and its library.
            let binary = ToolRun.executable.path
            let library = ToolRun.executable.deletingLastPathComponent().appendingPathComponent("libTouchRouterCLI.so").path
            let reach = try Self.asNobody(["/bin/sh", "-c", "test -x \"$0\" && test -r \"$0\" && test -r \"$1\"", binary, library])
            try #require(reach.status == 0, "nobody cannot execute \(binary) or read \(library): a directory above them, or they, are closed to others (namei -l \(binary)); this test does not change their modes", sourceLocation: sourceLocation)
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            url = "http://127.0.0.1:\(port)/page.html"

            session.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            session.arguments = ["-i", "HOME=\(home.path)", "XDG_RUNTIME_DIR=\(runtime.path)", "PATH=/usr/bin:/bin", "LANG=C.UTF-8"] + extra
                + ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--",
                   binary, "run", "--kiosk", "--output", "\(BrowserTests.width)x\(BrowserTests.height)"] + options + ["--", "chromium"] + flags + ["--kiosk", url]
            let handle = try FileHandle(forWritingTo: log)
            session.standardOutput = handle
            session.standardError = handle
            try session.run()
        }

        /// The session's control socket in nobody's runtime directory (run prints it only without a command).
        func controlSocket() -> String? {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: runtime.path)) ?? []
            return names.first { $0.hasPrefix("touch-router.") && $0.hasSuffix(".sock") }.map { runtime.appendingPathComponent($0).path }
        }

        /// `msg` as nobody: the control socket answers only its session's own user.
        func msg(_ words: [String]) throws -> (status: Int32, json: [String: Any]) {
            guard let socket = controlSocket() else { return (-1, [:]) }
            let run = try Self.asNobody([ToolRun.executable.path, "msg", "--socket", socket] + words)
            return (run.status, (try? JSONSerialization.jsonObject(with: Data(run.output.utf8))) as? [String: Any] ?? [:])
        }

        /// A tap at (x, y) through the control socket, each request expected to be taken; the
        /// page's events from then until its touchend (20 s at most).
        func tap(_ x: Int, _ y: Int, sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String: Any]] {
            let mark = events().count
            for request in ["touch down 0 \(x) \(y)", "touch frame", "touch up 0", "touch frame"] {
                #expect(try msg(["inject"] + request.split(separator: " ").map(String.init)).status == 0, "inject \(request)", sourceLocation: sourceLocation)
                usleep(40_000)
            }
            let tapped = Date().addingTimeInterval(20)
            while Date() < tapped, !events().dropFirst(mark).contains(where: { $0["type"] as? String == "touchend" }) { usleep(100_000) }
            return Array(events().dropFirst(mark))
        }

        func toplevels() throws -> [[String: Any]] {
            let outputs = try msg(["tree"]).json["outputs"] as? [[String: Any]] ?? []
            return outputs.flatMap { $0["toplevels"] as? [[String: Any]] ?? [] }
        }

        func events() -> [[String: Any]] {
            RunningSession.text(of: eventLog).split(separator: "\n").compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            }
        }

        /// The session and everything Chromium started: the live processes in the session's
        /// process group (Chromium's helpers overwrite their environment with their titles) or
        /// with nobody's HOME (the crash handlers leave the group).
        var leftovers: [Int32] { Run.processes(group: session.processIdentifier, home: home.path) }

        func logTail() -> String { String(RunningSession.text(of: log).suffix(3000)) }

        /// Whatever still runs is killed, the server too; the directory goes.
        func stop() {
            let deadline = Date().addingTimeInterval(10)
            while session.isRunning || !leftovers.isEmpty, Date() < deadline {
                if session.isRunning { kill(session.processIdentifier, SIGKILL) }
                for pid in leftovers { kill(pid, SIGKILL) }
                usleep(100_000)
            }
            if server.isRunning {
                kill(server.processIdentifier, SIGKILL)
                server.waitUntilExit()
            }
            try? FileManager.default.removeItem(at: directory)
        }
    }

    @Test("the issue's command, with no flags: `touch-router run --kiosk -- chromium --kiosk URL`, the whole session as nobody with no DISPLAY and no XDG_SESSION_TYPE, loads the page in a Wayland toplevel filling the output; a tap reaches it; SIGTERM to the session ends Chromium with it")
    func kioskCommandWithNoFlags() throws {
        let run = KioskCommand()
        defer { run.stop() }
        try run.start()
        var window: [String: Any] = [:]
        let deadline = Date().addingTimeInterval(Self.browserStart)
        var loaded = false
        while Date() < deadline, run.session.isRunning {
            if let found = try run.toplevels().first(where: { $0["role"] as? String == "toplevel" }),
               found["mapped"] as? Bool == true, found["position"] as? [Int] == [0, 0], found["size"] as? [Int] == [Self.width, Self.height],
               run.events().contains(where: { $0["type"] as? String == "ready" }),
               // The page may be ready before the window is fullscreen: its last resize then says the size.
               let viewport = run.events().last(where: { ["ready", "resize"].contains($0["type"] as? String) }),
               Self.number(viewport["innerWidth"]) == Double(Self.width), Self.number(viewport["innerHeight"]) == Double(Self.height) {
                window = found
                loaded = true
                break
            }
            usleep(200_000)
        }
        try #require(loaded, "the page did not load in a window filling the output within \(Int(Self.browserStart)) s (session running: \(run.session.isRunning)); tree: \(String(describing: try? run.msg(["tree"]).json)); events: \(run.events()); the session's log:\n\(run.logTail())")
        #expect((window["label"] as? String)?.hasPrefix("chromium") == true, "Chromium's window, titled by the page: \(window)")
        let toplevels = try run.toplevels()
        #expect(toplevels.count == 1, "no first-run or keyring dialog beside the page: \(toplevels)")

        // Chromium chose Wayland itself: the session gave it XDG_SESSION_TYPE=wayland, and it
        // handed --ozone-platform=wayland on to its GPU process. No DISPLAY anywhere (where an
        // environment can be read: Chromium's helpers write their title over theirs, and their
        // command line becomes that title, its words joined by spaces).
        let processes = run.leftovers.map { pid in
            (pid: pid,
             command: (FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") ?? Data()).split(separator: 0).map { String(decoding: $0, as: UTF8.self) }.joined(separator: " "),
             environment: (FileManager.default.contents(atPath: "/proc/\(pid)/environ") ?? Data()).split(separator: 0).map { String(decoding: $0, as: UTF8.self) })
        }
        let browser = processes.first { $0.command.hasPrefix("/usr/lib/chromium/chromium ") && !$0.command.contains(" --type=") }
        #expect(browser?.environment.contains("XDG_SESSION_TYPE=wayland") == true, "the session set XDG_SESSION_TYPE for Chromium: \(String(describing: browser?.environment))")
        #expect(processes.allSatisfy { !$0.environment.contains { $0.hasPrefix("DISPLAY=") } }, "no process of the session has a DISPLAY")
        let gpu = processes.first { $0.command.contains(" --type=gpu-process ") }
        #expect(gpu?.command.contains(" --ozone-platform=wayland") == true, "Chromium's GPU process runs on Wayland: \(String(describing: gpu?.command))")
        let user = try #require(getpwnam("nobody")?.pointee.pw_uid)
        // Real and effective uids from status (a sandboxed process's /proc entry is root's).
        let owners = Set(processes.compactMap { process in
            (try? String(contentsOfFile: "/proc/\(process.pid)/status", encoding: .utf8))?.split(separator: "\n")
                .first { $0.hasPrefix("Uid:") }.map { $0.split(whereSeparator: \.isWhitespace).dropFirst().prefix(2).compactMap { UInt32($0) } }
        }.joined())
        #expect(!processes.isEmpty && owners == [user], "the session and Chromium all run as nobody (\(user)): \(owners)")

        // A tap, through the session's control socket, reaches the page at its point.
        let tapEvents = try run.tap(213, 157)
        let start = tapEvents.first { $0["type"] as? String == "touchstart" }
        let touch = (start?["changed"] as? [[String: Any]])?.first
        #expect(Self.number(touch?["x"]) == 213 && Self.number(touch?["y"]) == 157, "the tap's touchstart at (213, 157): \(tapEvents)")

        // SIGTERM to the session: it sends Chromium SIGTERM, waits for it, and exits; nothing is left.
        let ended = Date()
        kill(run.session.processIdentifier, SIGTERM)
        let exited = Date().addingTimeInterval(30)
        while run.session.isRunning, Date() < exited { usleep(100_000) }
        #expect(!run.session.isRunning, "the session ends within 30 s of SIGTERM; its log:\n\(run.logTail())")
        if !run.session.isRunning {
            #expect(run.session.terminationReason == .exit, "the session exits by itself, status \(run.session.terminationStatus) (Chromium's)")
        }
        let quiet = Date().addingTimeInterval(10)
        while !run.leftovers.isEmpty, Date() < quiet { usleep(100_000) }
        #expect(run.leftovers.isEmpty, "nothing of Chromium's outlives the session: \(run.leftovers)")
        print("kiosk command: the session ended \(String(format: "%.1f", Date().timeIntervalSince(ended))) s after SIGTERM, status \(run.session.terminationStatus)")
    }

    @Test("the control: the same command with XDG_SESSION_TYPE set empty, so that the session's default does not apply, finds no X server; Chromium exits without the page and the session ends with it")
    func kioskCommandWithoutSessionType() throws {
        let run = KioskCommand()
        defer { run.stop() }
        try run.start(extra: ["XDG_SESSION_TYPE="])
        let deadline = Date().addingTimeInterval(Self.browserStart)
        while run.session.isRunning, Date() < deadline { usleep(200_000) }
        #expect(!run.session.isRunning, "Chromium, on X11 with no X server, exits and the session with it; its log:\n\(run.logTail())")
        #expect(!run.events().contains { $0["type"] as? String == "ready" }, "the page never loaded: \(run.events())")
        #expect(RunningSession.text(of: run.log).contains("Missing X server or $DISPLAY"), "Chromium tried X11: \(run.logTail())")
    }

    /// The centre of an element of the page, from the ready event's [left, top, width, height], on the output.
    static func centre(_ run: Run, _ element: String) -> (x: Int, y: Int) {
        let rect = (run.ready[element] as? [Any] ?? []).compactMap(number)
        guard rect.count == 4 else { return (-1, -1) }
        return (run.origin.x + Int(rect[0] + rect[2] / 2), run.origin.y + Int(rect[1] + rect[3] / 2))
    }

    @Test("kiosk mode fills the output; a tap reaches the page's touchstart at the exact CSS pixel (the injected point less the window's origin), then its click", arguments: Browser.allCases)
    func tapAtExactPixel(browser: Browser) throws {
        let run = Run(browser)
        defer { run.stop() }
        try run.start()
        #expect(run.window["position"] as? [Int] == [0, 0] && run.window["size"] as? [Int] == [Self.width, Self.height], "kiosk: the window is the output: \(run.window)")
        #expect(Self.number(run.ready["dpr"]) == 1, "\(run.ready)")
        let (x, y) = (213, 157)
        let mark = run.events().count
        try run.tap(run.origin.x + x, run.origin.y + y)
        run.wait(for: "the tap's click") { !run.events("click", from: mark).isEmpty }
        let start = run.events("touchstart", from: mark)
        #expect(start.count == 1, "one touchstart: \(run.events().dropFirst(mark))")
        let touch = (start.first?["changed"] as? [[String: Any]])?.first
        #expect(Self.number(touch?["x"]) == Double(x) && Self.number(touch?["y"]) == Double(y), "touchstart at (\(x), \(y)): \(start)")
        #expect(Self.number(start.first?["touches"]) == 1)
        let end = run.events("touchend", from: mark)
        #expect(end.count == 1 && Self.number(end.first?["touches"]) == 0, "\(end)")
        let click = run.events("click", from: mark).first
        #expect(Self.number(click?["x"]) == Double(x) && Self.number(click?["y"]) == Double(y), "the click at the tap's point: \(String(describing: click))")
    }

    /// `msg play` reads its touches as a device does, in rounds of input alone, most of which
    /// skip the session's settling (LoopRounds.swift): the browser must still get all of them.
    /// Blink holds back a single finger's touchmoves until it is past the touch slop (30 px
    /// here: twice its 15, since Wayland gives no touch size) unless the page takes the
    /// touchstart, and the played circle stays within 24 px of where it went down: Chromium's
    /// page takes it (`?consume`), Firefox's does not.
    @Test("a finger played through msg play (read as a device's, its motions settling nothing) reaches the page: one touchstart, its touchmoves, a touchend with no touches left, nothing cancelled; the keyboard focus stays",
          arguments: Browser.allCases)
    func playedFingerReachesPage(browser: Browser) throws {
        let run = Run(browser, query: browser == .chromium ? "?consume" : "")
        defer { run.stop() }
        try run.start()
        // msg play puts the finger down in the window's middle, on the touch-action: none
        // area, so that neither browser takes the circle for a pan.
        let (px, py) = Self.centre(run, "pinch")
        let rect = (run.ready["pinch"] as? [Any] ?? []).compactMap(Self.number)
        try #require(rect.count == 4 && Double(Self.width / 2) > rect[0] + 12 && Double(Self.width / 2) < rect[0] + rect[2] - 12
                     && Double(Self.height / 2) > rect[1] + 12 && Double(Self.height / 2) < rect[1] + rect[3] - 12, "the pinch area \(rect) (centre \(px), \(py)) holds the output's middle and the circle round it")
        let focus = try run.keyboardFocus()
        let mark = run.events().count
        let played = try #require(run.session).msg("play", "touch", "1", "60", "2")
        #expect(played.status == 0, "play: \(played.json)")
        run.wait(for: "the played finger to lift") { run.events("touchend", from: mark).contains { Self.number($0["touches"]) == 0 } }
        #expect(run.events("touchstart", from: mark).count == 1, "\(run.events().dropFirst(mark))")
        // 120 motions are played; a browser may coalesce those that come between its frames.
        #expect(run.events("touchmove", from: mark).count >= 20, "the circling finger's motions: \(run.events().dropFirst(mark))")
        #expect(run.events("touchcancel", from: mark).isEmpty, "nothing cancelled: \(run.events().dropFirst(mark))")
        #expect(run.events("touchstart", from: mark).allSatisfy { $0["target"] as? String == "pinch" }, "\(run.events().dropFirst(mark))")
        #expect(try run.keyboardFocus() == focus)
    }

    @Test("a pinch on a touch-action: none element: two fingers down and moving apart reach the page as two touches, at their exact points", arguments: Browser.allCases)
    func pinchIsTwoTouches(browser: Browser) throws {
        let run = Run(browser)
        defer { run.stop() }
        try run.start()
        let (cx, cy) = Self.centre(run, "pinch")
        let mark = run.events().count
        try run.inject(["touch down 0 \(cx - 50) \(cy)", "touch down 1 \(cx + 50) \(cy)", "touch frame"])
        for step in 1...6 {
            usleep(40_000)
            try run.inject(["touch motion 0 \(cx - 50 - 10 * step) \(cy)", "touch motion 1 \(cx + 50 + 10 * step) \(cy)", "touch frame"])
        }
        usleep(40_000)
        try run.inject(["touch up 0", "touch up 1", "touch frame"])
        run.wait(for: "both touches to end") { run.events("touchend", from: mark).contains { Self.number($0["touches"]) == 0 } }
        let moves = run.events("touchmove", from: mark)
        #expect(moves.contains { Self.number($0["touches"]) == 2 }, "a touchmove with touches.length == 2: \(moves)")
        #expect(moves.allSatisfy { Self.number($0["touches"]) == 2 }, "every touchmove has both fingers: \(moves)")
        #expect(moves.allSatisfy { $0["target"] as? String == "pinch" }, "\(moves)")
        let last = (moves.last?["all"] as? [[String: Any]] ?? []).compactMap { Self.number($0["x"]) }.sorted()
        let origin = Double(run.origin.x)
        #expect(last == [Double(cx - 110) - origin, Double(cx + 110) - origin], "the fingers' last points, 220 px apart: \(String(describing: moves.last))")
        #expect(run.events("touchcancel", from: mark).isEmpty, "nothing cancelled: \(run.events().dropFirst(mark))")
    }

    @Test("a one-finger drag upward on a page taller than the screen scrolls it: window.scrollY grows by about the drag", arguments: Browser.allCases)
    func dragScrolls(browser: Browser) throws {
        let run = Run(browser)
        defer { run.stop() }
        try run.start()
        #expect(Self.number(run.ready["scrollY"]) == 0)
        // Clear of the select, the text field and the pinch area.
        let x = run.origin.x + 560, from = run.origin.y + 620
        let mark = run.events().count
        try run.inject(["touch down 0 \(x) \(from)", "touch frame"])
        for step in 1...10 {
            usleep(30_000)
            try run.inject(["touch motion 0 \(x) \(from - 40 * step)", "touch frame"])
        }
        usleep(100_000)
        try run.inject(["touch up 0", "touch frame"])
        run.wait(for: "the page to scroll by 200 px or more") {
            run.events("scroll", from: mark).contains { (Self.number($0["scrollY"]) ?? 0) >= 200 }
        }
        let scrolls = run.events("scroll", from: mark).compactMap { Self.number($0["scrollY"]) }
        #expect(!scrolls.isEmpty && scrolls == scrolls.sorted(), "scrollY only grows during the drag: \(scrolls)")
        #expect(run.events("touchstart", from: mark).first?["target"] as? String == "body", "\(run.events().dropFirst(mark))")
    }

    @Test("a <select>'s dropdown: tapped or clicked open, its third option tapped or clicked, the page gets change with the third value; the browser window keeps the keyboard focus throughout and the page never blurs",
          arguments: Browser.allCases, Input.allCases)
    func selectThirdOption(browser: Browser, input: Input) throws {
        let run = Run(browser)
        defer { run.stop() }
        try run.start()
        let windowID = try #require(run.windowID)
        let before = Set((run.window["children"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int })
        let (x, y) = Self.centre(run, "choice")
        // Every move of the keyboard focus from here on, as the session reports it.
        let focusMoves = try run.sessionOrFail.subscribe(["focus"])
        let mark = run.events().count
        switch input {
        case .touch: try run.tap(x, y)
        case .pointer: try run.inject(["pointer motion \(x) \(y)", "pointer button press BTN_LEFT", "pointer button release BTN_LEFT"])
        }
        // The dropdown: a new child of the browser's toplevel, under the select.
        var dropdown: [String: Any] = [:]
        let opened = run.wait(for: "the dropdown to open") {
            let children = try run.browserWindow()?["children"] as? [[String: Any]] ?? []
            dropdown = children.first { child in
                guard let id = child["id"] as? Int, !before.contains(id), child["mapped"] as? Bool == true,
                      let size = child["size"] as? [Int], size.count == 2 else { return false }
                return size[1] > 100 && size[0] < Self.width
            } ?? [:]
            return !dropdown.isEmpty
        }
        try #require(opened, "no dropdown: \(String(describing: try? run.browserWindow()))")
        let role = dropdown["role"] as? String ?? "?"
        #expect(try run.keyboardFocus() == windowID, "the open dropdown (a \(role)) leaves the keyboard focus on the browser window")
        // Five options of one height: the middle of the dropdown is the third. A child's
        // position is its parent's plus its own (the window is at the output's corner anyway).
        let position = dropdown["position"] as? [Int] ?? [0, 0], size = dropdown["size"] as? [Int] ?? [0, 0]
        let option = (x: run.origin.x + position[0] + size[0] / 2, y: run.origin.y + position[1] + size[1] / 2)
        // Mapped is not drawn: on a loaded machine Chromium maps the dropdown before it has
        // painted its options, and a tap then is lost. Wait for the option's pixels. (Firefox
        // draws its dropdown through a viewport that `msg pixel` does not read.)
        if browser == .chromium { _ = run.wait(for: "the dropdown to draw its options") {
            let pixel = try run.sessionOrFail.msg("pixel", String(option.x), String(option.y)).json
            let surface = (pixel["surface"] as? [String: Any])?["id"] as? Int
            let argb = (pixel["argb"] as? String).flatMap { UInt32($0.dropFirst(2), radix: 16) } ?? 0
            // The dropdown's surface, or one of its own (Firefox draws into a subsurface).
            return surface != nil && surface != windowID && argb >> 24 != 0
        } }
        var focusWhilePressed: Int?
        switch input {
        case .touch:
            try run.inject(["touch down 1 \(option.x) \(option.y)", "touch frame"])
            usleep(80_000)
            focusWhilePressed = try run.keyboardFocus()
            try run.inject(["touch up 1", "touch frame"])
        case .pointer:
            try run.inject(["pointer motion \(option.x) \(option.y - 5)", "pointer motion \(option.x) \(option.y)", "pointer button press BTN_LEFT"])
            usleep(80_000)
            focusWhilePressed = try run.keyboardFocus()
            try run.inject(["pointer button release BTN_LEFT"])
        }
        #expect(focusWhilePressed == windowID, "a press on the dropdown (a \(role) at \(position) \(size)) leaves the keyboard focus on the browser window (\(windowID)), got \(String(describing: focusWhilePressed))")
        run.wait(for: "the page's change event") { !run.events("change", from: mark).isEmpty }
        let change = run.events("change", from: mark)
        #expect(change.count == 1 && change.first?["value"] as? String == "three" && Self.number(change.first?["index"]) == 2,
                "the third option chosen: \(change); the page's events: \(run.events().dropFirst(mark))")
        run.wait(for: "the dropdown to close") {
            let children = try run.browserWindow()?["children"] as? [[String: Any]] ?? []
            return !children.contains { $0["id"] as? Int == dropdown["id"] as? Int }
        }
        #expect(try run.keyboardFocus() == windowID, "the browser window has the keyboard focus after the choice")
        #expect(run.events("window-blur", from: mark).isEmpty, "the page never lost the focus: \(run.events().dropFirst(mark))")
        let moves = RunningSession.objects(of: focusMoves).filter { $0["type"] as? String == "focus" }
        #expect(moves.isEmpty, "the keyboard focus never left the browser window (\(windowID)): msg subscribe focus said \(moves)")
    }

    @Test("wvkbd ([keyboard] osk-namespace) starts hidden; a tap on the page's text field focuses it and shows wvkbd; taps on two of its keys type them into the field, and the browser keeps the keyboard focus", arguments: Browser.allCases)
    func typesWithOnScreenKeyboard(browser: Browser) throws {
        try #require(FileManager.default.isExecutableFile(atPath: OnScreenKeyboardTests.wvkbd), "wvkbd is not installed: .ci/setup installs it (apt-get install wvkbd)")
        let keyboardHeight = 200
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("touch-router-browser-osk-\(getpid())-\(UUID().uuidString.prefix(8)).toml")
        defer { try? FileManager.default.removeItem(at: config) }
        try """
            [privileges]
            layer-shell = ["wvkbd-mobintl"]
            virtual-input = ["wvkbd-mobintl"]

            [keyboard]
            osk-namespace = "wlroots"

            """.write(to: config, atomically: true, encoding: .utf8)
        let run = Run(browser, sessionArguments: ["--config", config.path])
        defer { run.stop() }
        let wvkbdLog = run.directory.appendingPathComponent("wvkbd.log")
        try run.start(before: { session in
            _ = try session.client([OnScreenKeyboardTests.wvkbd, "-o", "-H", String(keyboardHeight), "-L", String(keyboardHeight)], output: wvkbdLog)
            try session.wait(for: "wvkbd's layer surface to map") { try OnScreenKeyboardTests.keyboardSurface(session) != nil }
        })
        let session = run.sessionOrFail
        let windowID = try #require(run.windowID)
        let keyboard = try #require(try OnScreenKeyboardTests.keyboardSurface(session))
        #expect(keyboard["hidden"] as? Bool == true, "no text field has the focus yet: \(keyboard)")

        let (x, y) = Self.centre(run, "field")
        let focusMoves = try session.subscribe(["focus"])
        let mark = run.events().count
        try run.tap(x, y)
        run.wait(for: "the field to take the focus and wvkbd to show") {
            try !run.events("focus", from: mark).isEmpty && OnScreenKeyboardTests.keyboardSurface(session)?["hidden"] as? Bool == false
        }
        #expect(try run.keyboardFocus() == windowID, "the browser window keeps the keyboard focus as wvkbd shows")

        // Two keys of wvkbd's third row (q w e r t y u i o p in its 1280-px layout): h and i there.
        let shown = try #require(try OnScreenKeyboardTests.keyboardSurface(session))
        let place = shown["position"] as? [Int] ?? [0, 0], size = shown["size"] as? [Int] ?? [0, 0]
        let row = place[1] + size[1] * 5 / 12
        for (count, fraction) in [(1, 0.62), (2, 0.7625)] {
            try run.tap(place[0] + Int(Double(size[0]) * fraction), row)
            run.wait(for: "wvkbd's key \(count) to reach the field") {
                run.events("input", from: mark).count >= count
            }
        }
        let pressed = OnScreenKeyboardTests.pressedKeys(wvkbdLog).joined()
        let value = run.events("input", from: mark).last?["value"] as? String
        #expect(pressed.count == 2, "wvkbd pressed two keys: \(RunningSession.text(of: wvkbdLog))")
        #expect(value == pressed && value?.isEmpty == false, "the field holds what wvkbd typed (\(pressed)): \(String(describing: value))")
        #expect(try run.keyboardFocus() == windowID, "the taps on wvkbd leave the keyboard focus on the browser window")
        #expect(run.events("window-blur", from: mark).isEmpty, "the page never lost the focus: \(run.events().dropFirst(mark))")
        let moves = RunningSession.objects(of: focusMoves).filter { $0["type"] as? String == "focus" }
        #expect(moves.isEmpty, "the keyboard focus never left the browser window (\(windowID)): msg subscribe focus said \(moves)")
    }
}
