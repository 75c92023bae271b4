import Foundation
import Testing

/// The apps a kiosk runs, in `touch-router run --kiosk` on a 1280x720 output: each fills the
/// output with no title bar of its own (xdg-decoration or KDE's server decoration answered
/// "server-side", and the fullscreen state), takes a tap at its own (640, 360), and a tap
/// where a title bar's close button would be reaches its content instead of closing it.
@Suite("Kiosk apps: GTK 4, Qt 5 Quick and Qt 6 Quick fill the output with no title bar; the EGL demos draw", .serialized)
struct KioskAppTests {
    static let apps = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/kiosk-apps")

    /// Each app prints "ready" once shown and "press X Y …" for each press, in its own coordinates.
    static let toolkits: [(name: String, command: [String])] = [
        ("GTK 4", ["/usr/bin/python3", apps.appendingPathComponent("gtk4-tap-report.py").path]),
        ("Qt 5 Quick", ["/usr/bin/qmlscene", apps.appendingPathComponent("tap-report.qml").path]),
        ("Qt 6 Quick", ["/usr/lib/qt6/bin/qml", apps.appendingPathComponent("tap-report.qml").path]),
    ]

    private func tap(_ session: RunningSession, _ x: Int, _ y: Int) throws {
        try session.inject(["touch down 0 \(x) \(y)", "touch frame", "touch up 0", "touch frame"])
    }

    @Test("in kiosk mode the app fills the output from its corner; a tap at (640, 360) lands at its (640, 360); a tap at the top right corner reaches its content and does not close it",
          arguments: toolkits.map(\.name))
    func kiosk(toolkit: String) throws {
        let command = Self.toolkits.first { $0.name == toolkit }!.command
        #expect(FileManager.default.isExecutableFile(atPath: command[0]), "\(command[0]) is missing: .ci/setup installs it")
        let session = try RunningSession(arguments: ["--kiosk", "--output", "1280x720"])
        defer { _ = session.terminate() }
        let log = session.file("app.log")
        let app = try session.client(command, output: log, environment: ["QT_QPA_PLATFORM": "wayland"])
        try session.wait(for: "\(toolkit) to be ready") { RunningSession.text(of: log).contains("ready") }
        try session.wait(for: "\(toolkit) to fill the output") {
            try session.toplevels().first.map { $0["position"] as? [Int] == [0, 0] && $0["size"] as? [Int] == [1280, 720] } ?? false
        }
        try tap(session, 640, 360)
        try session.wait(for: "the tap at (640, 360)") { RunningSession.text(of: log).contains("press ") }
        #expect(RunningSession.text(of: log).contains("press 640 360"), "\(RunningSession.text(of: log))")
        try tap(session, 1270, 10)
        try session.wait(for: "the tap at the top right corner") { RunningSession.text(of: log).components(separatedBy: "press ").count == 3 }
        #expect(RunningSession.text(of: log).contains("press 1270 10"), "no title bar takes the corner: \(RunningSession.text(of: log))")
        usleep(300_000)
        #expect(app.isRunning, "the app is still running: \(RunningSession.text(of: log))")
        #expect(try session.toplevels().count == 1)
    }

    @Test("a kiosk app configured maximized (kiosk-window) is still told to draw no decoration: Qt 6 shows no title bar, and a tap at the top right corner reaches its content")
    func maximizedKioskWindowHasNoTitleBar() throws {
        let configuration = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("kiosk-maximized-\(getpid()).toml")
        try "[app.\"org.qt-project.qml\"]\nkiosk-window = \"maximized\"\n".write(to: configuration, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: configuration) }
        let session = try RunningSession(arguments: ["--kiosk", "--output", "1280x720", "--config", configuration.path])
        defer { _ = session.terminate() }
        let log = session.file("app.log")
        let app = try session.client(Self.toolkits[2].command, output: log, environment: ["QT_QPA_PLATFORM": "wayland"])
        try session.wait(for: "Qt to fill the output") {
            try session.toplevels().first.map { $0["position"] as? [Int] == [0, 0] && $0["size"] as? [Int] == [1280, 720] } ?? false
        }
        try session.wait(for: "Qt to be ready") { RunningSession.text(of: log).contains("ready") }
        try tap(session, 1270, 10)
        try session.wait(for: "the tap at the top right corner") { RunningSession.text(of: log).contains("press ") }
        #expect(RunningSession.text(of: log).contains("press 1270 10"), "\(RunningSession.text(of: log))")
        usleep(300_000)
        #expect(app.isRunning)
    }

    @Test("without --kiosk, where no decoration global is offered, Qt decorates its window itself: its title bar above its content")
    func qtDecoratesOutsideKiosk() throws {
        let session = try RunningSession(arguments: ["--output", "1280x720"])
        defer { _ = session.terminate() }
        let log = session.file("app.log")
        _ = try session.client(Self.toolkits[2].command, output: log, environment: ["QT_QPA_PLATFORM": "wayland"])
        try session.wait(for: "Qt to be ready") { RunningSession.text(of: log).contains("ready") }
        // The 400x300 window with Qt's frame and title bar around it, once Qt has drawn them.
        try session.wait(for: "Qt's window, larger than its content, in the tree") {
            let size = try session.toplevels().first?["size"] as? [Int] ?? []
            return size.count == 2 && size[0] > 400 && size[1] > 300 + 20
        }
    }

    @Test("the session's command gets the environment sessions set, only where unset; [environment] overrides and adds, and the session's own sockets win")
    func childEnvironment() throws {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("touch-router-env-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = directory.appendingPathComponent("config.toml")
        try "[environment]\nXDG_CURRENT_DESKTOP = \"kiosk\"\nGDK_BACKEND = \"wayland\"\n".write(to: configuration, atomically: true, encoding: .utf8)
        var base = ProcessInfo.processInfo.environment
        for name in ["XDG_SESSION_TYPE", "XDG_CURRENT_DESKTOP", "QT_QPA_PLATFORM", "MOZ_ENABLE_WAYLAND", "ELECTRON_OZONE_PLATFORM_HINT", "SDL_VIDEODRIVER", "GDK_BACKEND", "WAYLAND_DISPLAY"] { base[name] = nil }
        base["SDL_VIDEODRIVER"] = "x11"
        base["XDG_RUNTIME_DIR"] = directory.path
        let process = Process()
        process.executableURL = ToolRun.executable
        process.arguments = ["run", "--config", configuration.path, "--", "/usr/bin/env"]
        process.environment = base
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let variables = Dictionary(output.split(separator: "\n").compactMap { line -> (String, String)? in
            guard let equals = line.firstIndex(of: "=") else { return nil }
            return (String(line[..<equals]), String(line[line.index(after: equals)...]))
        }, uniquingKeysWith: { $1 })
        #expect(variables["XDG_SESSION_TYPE"] == "wayland")
        #expect(variables["QT_QPA_PLATFORM"] == "wayland;xcb")
        #expect(variables["MOZ_ENABLE_WAYLAND"] == "1")
        #expect(variables["ELECTRON_OZONE_PLATFORM_HINT"] == "auto")
        #expect(variables["SDL_VIDEODRIVER"] == "x11", "a variable already set is left as it was")
        #expect(variables["XDG_CURRENT_DESKTOP"] == "kiosk", "[environment] overrides a default")
        #expect(variables["GDK_BACKEND"] == "wayland", "[environment] adds")
        #expect(variables["WAYLAND_DISPLAY"]?.hasPrefix("wayland-") == true)
    }

    @Test("the EGL demos draw frame after frame in kiosk mode", arguments: ["weston-simple-egl", "es2gears_wayland"])
    func eglDemo(program: String) throws {
        let session = try RunningSession(arguments: ["--kiosk", "--output", "640x480"])
        defer { _ = session.terminate() }
        let app = try session.client([program], output: session.file("demo.log"))
        try session.wait(for: "\(program) to map") { try session.toplevels().first?["size"] as? [Int] == [640, 480] }
        // A loaded machine may hold a frame back for a while; the demo has 10 s to draw a
        // picture other than the first one.
        func shot(_ index: Int) throws -> Data {
            let file = session.file("shot\(index).png")
            #expect(try session.msg("screenshot", file.path).status == 0)
            return (try? Data(contentsOf: file)) ?? Data()
        }
        let first = try shot(0)
        #expect(!first.isEmpty, "the first screenshot is written")
        var changed = false
        for index in 1...20 where !changed {
            usleep(500_000)
            changed = try shot(index) != first
        }
        #expect(changed, "a screenshot within 10 s differs from the first: \(program) keeps drawing")
        #expect(app.isRunning, "\(RunningSession.text(of: session.file("demo.log")))")
    }
}
