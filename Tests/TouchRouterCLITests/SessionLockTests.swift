import Foundation
import Testing

/// Debian's swaylock on ext-session-lock-v1, run as a user of its own whose password the test
/// sets (swaylock checks it with PAM, as on a real machine): nothing leaks past the lock, the
/// password typed on a keyboard or on wvkbd unlocks it, and a lock client that dies leaves the
/// session locked.
@Suite("Session lock: swaylock over wev, no input leaking, the password typed on a keyboard and on wvkbd", .serialized)
struct SessionLockTests {
    static let user = "touch-router-lock"
    static let color = "336699"
    static let width = 800, height = 600

    /// The lock's user, made if missing, with `password`.
    static func prepareUser(password: String) throws {
        if getpwnam(user) == nil {
            try #require(try system(["/usr/sbin/useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", user]) == 0, "useradd \(user)")
        }
        try #require(try system(["/bin/sh", "-c", "echo '\(user):\(password)' | /usr/sbin/chpasswd"]) == 0, "chpasswd \(user)")
    }

    static func system(_ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// A session with wev mapped and focused; the Wayland socket open to the lock's user.
    static func session(extra: String = "") throws -> (RunningSession, URL) {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("touch-router-lock-\(getpid())-\(UUID().uuidString.prefix(8)).toml")
        try """
            [privileges]
            session-lock = ["swaylock"]
            \(extra)
            """.write(to: config, atomically: true, encoding: .utf8)
        let session = try RunningSession(arguments: ["--output", "\(width)x\(height)", "--config", config.path])
        let socket = URL(fileURLWithPath: session.runtimeDirectory).appendingPathComponent(session.waylandDisplay).path
        try FileManager.default.setAttributes([.posixPermissions: 0o711], ofItemAtPath: session.runtimeDirectory)
        let account = try #require(getpwnam(user))
        try FileManager.default.setAttributes([.ownerAccountID: account.pointee.pw_uid], ofItemAtPath: socket)
        let wevLog = session.file("wev.log")
        _ = try session.client(["wev"], output: wevLog)
        try session.wait(for: "wev to map and take the keyboard") {
            try session.toplevels().count == 1 && RunningSession.text(of: wevLog).contains("wl_keyboard] enter")
        }
        return (session, wevLog)
    }

    /// swaylock as the lock's user, once its lock surface is up.
    static func lock(_ session: RunningSession, log name: String = "swaylock.log") throws -> (Process, URL) {
        let account = try #require(getpwnam(user))
        let runtime = URL(fileURLWithPath: session.runtimeDirectory).appendingPathComponent("lock-runtime-\(UUID().uuidString.prefix(4))")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try FileManager.default.setAttributes([.ownerAccountID: account.pointee.pw_uid], ofItemAtPath: runtime.path)
        let socket = URL(fileURLWithPath: session.runtimeDirectory).appendingPathComponent(session.waylandDisplay).path
        let log = session.file(name)
        let swaylock = try session.client(["/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "XDG_RUNTIME_DIR=\(runtime.path)", "WAYLAND_DISPLAY=\(socket)",
                                           "/usr/bin/setpriv", "--reuid=\(user)", "--regid=\(user)", "--clear-groups", "--",
                                           "/usr/bin/swaylock", "--debug", "--color", color], output: log)
        try session.wait(for: "swaylock's lock surface") {
            try session.msg("tree").json["locked"] as? Bool == true && session.toplevels().contains { $0["label"] as? String == "lock surface" && $0["mapped"] as? Bool == true }
        }
        return (swaylock, log)
    }

    static func pixel(_ session: RunningSession, _ x: Int, _ y: Int) throws -> String? {
        try session.msg("pixel", String(x), String(y)).json["argb"] as? String
    }

    @Test("swaylock locks: its color fills the screen, wev loses the keyboard, and no tap or key reaches wev; the password typed on the keyboard unlocks, swaylock exits 0, and wev has the keyboard and the next tap")
    func keyboardPassword() throws {
        try Self.prepareUser(password: "4321")
        let (session, wevLog) = try Self.session()
        defer { _ = session.terminate() }
        let (swaylock, log) = try Self.lock(session)
        #expect(try Self.pixel(session, 400, 300) == "0xff\(Self.color)", "swaylock's color over wev")
        try session.wait(for: "wev to lose the keyboard") { RunningSession.text(of: wevLog).contains("wl_keyboard] leave") }
        let before = RunningSession.text(of: wevLog)
        // A stray key, then Escape, which empties swaylock's password (Enter on a wrong one
        // would make it ignore keys while PAM fails slowly).
        try session.inject(["touch down 0 400 300", "touch frame", "touch up 0", "touch frame", "key press KEY_X", "key release KEY_X",
                            "key press KEY_ESC", "key release KEY_ESC"])
        for key in ["KEY_4", "KEY_3", "KEY_2", "KEY_1"] { try session.inject(["key press \(key)", "key release \(key)"]) }
        // Enter is held until the session has unlocked, as a slow finger holds it: wev, given
        // the keyboard back, must hear neither it nor its release.
        try session.inject(["key press KEY_ENTER"])
        try session.wait(for: "swaylock to take the password and exit") { !swaylock.isRunning }
        #expect(!swaylock.isRunning && swaylock.terminationStatus == 0, "\(RunningSession.text(of: log).suffix(2000))")
        #expect(RunningSession.text(of: log).contains("Prepared to authorize user \(Self.user)"))
        try session.wait(for: "the session to unlock") { try session.msg("tree").json["locked"] as? Bool == false }
        try session.wait(for: "wev to get the keyboard back") { RunningSession.text(of: wevLog).components(separatedBy: "wl_keyboard] enter").count == 3 }
        try session.inject(["key release KEY_ENTER"])
        usleep(300_000)
        let during = String(RunningSession.text(of: wevLog).dropFirst(before.count))
        #expect(!during.contains("wl_touch]") && !during.contains("key: ") && !during.contains("sym: Return"),
                "nothing typed or tapped during the lock reached wev, nor Enter held across the unlock: \(during)")
        try session.inject(["touch down 1 400 300", "touch frame", "touch up 1", "touch frame"])
        try session.wait(for: "wev to get the tap after the unlock") { RunningSession.text(of: wevLog).contains("wl_touch] down") }
    }

    @Test("swaylock killed while locked: the session stays locked, wev stays hidden and out of reach; a new swaylock takes over and unlocks")
    func lockClientKilled() throws {
        try Self.prepareUser(password: "4321")
        let (session, wevLog) = try Self.session()
        defer { _ = session.terminate() }
        let (swaylock, _) = try Self.lock(session)
        kill(swaylock.processIdentifier, SIGKILL)
        swaylock.waitUntilExit()
        try session.wait(for: "the lock surface to go") { try !session.toplevels().contains { $0["label"] as? String == "lock surface" } }
        #expect(try session.msg("tree").json["locked"] as? Bool == true, "the session stays locked")
        #expect(try Self.pixel(session, 400, 300) != "0xff\(Self.color)", "swaylock's picture went with it")
        let wevPixel = try session.msg("pick", "400", "300").json["surface"]
        #expect(wevPixel is NSNull, "nothing takes a touch: \(String(describing: wevPixel))")
        try session.inject(["touch down 0 400 300", "touch frame", "touch up 0", "touch frame", "key press KEY_Y", "key release KEY_Y"])
        usleep(300_000)
        #expect(!RunningSession.text(of: wevLog).contains("wl_touch]") && !RunningSession.text(of: wevLog).contains("key: 29"))

        let (second, log) = try Self.lock(session, log: "swaylock-2.log")
        for key in ["KEY_4", "KEY_3", "KEY_2", "KEY_1", "KEY_ENTER"] { try session.inject(["key press \(key)", "key release \(key)"]) }
        try session.wait(for: "the second swaylock to unlock") { !second.isRunning }
        #expect(!second.isRunning && second.terminationStatus == 0, "\(RunningSession.text(of: log).suffix(2000))")
        try session.wait(for: "the session to unlock") { try session.msg("tree").json["locked"] as? Bool == false }
    }

    @Test("wvkbd, granted the input method, is shown above swaylock and takes taps there; the password typed on it unlocks")
    func onScreenKeyboardPassword() throws {
        #expect(FileManager.default.isExecutableFile(atPath: OnScreenKeyboardTests.wvkbd), "wvkbd is not installed: .ci/setup installs it")
        try Self.prepareUser(password: "unknown-yet")
        let (session, _) = try Self.session(extra: """
            layer-shell = ["wvkbd-mobintl"]
            virtual-input = ["wvkbd-mobintl"]
            input-method = ["wvkbd-mobintl"]
            [keyboard]
            osk-namespace = "wlroots"
            """)
        defer { _ = session.terminate() }
        let keyboardHeight = 200
        let keyboardLog = session.file("wvkbd.log")
        _ = try session.client([OnScreenKeyboardTests.wvkbd, "-o", "-H", String(keyboardHeight), "-L", String(keyboardHeight)], output: keyboardLog)
        try session.wait(for: "wvkbd's layer surface") { try session.toplevels().contains { ($0["position"] as? [Int])?[1] == Self.height - keyboardHeight } }
        // A key in the middle of wvkbd's second row; which key it is, wvkbd says when it is
        // tapped. The password is that key twice.
        let keyY = Self.height - keyboardHeight + keyboardHeight * 3 / 10
        let (swaylock, log) = try Self.lock(session)
        let keyboard = try #require(try session.toplevels().first { ($0["position"] as? [Int])?[1] == Self.height - keyboardHeight })
        #expect(keyboard["hidden"] as? Bool == false, "shown while locked")
        #expect(try session.msg("pick", "300", String(keyY)).json["surface"].flatMap { ($0 as? [String: Any])?["id"] as? Int } == keyboard["id"] as? Int,
                "a touch there goes to wvkbd, above the lock surface")
        try session.inject(["touch down 0 300 \(keyY)", "touch frame"])
        usleep(100_000)
        try session.inject(["touch up 0", "touch frame"])
        try session.wait(for: "wvkbd to say which key it pressed") { !OnScreenKeyboardTests.pressedKeys(keyboardLog).isEmpty }
        let key = try #require(OnScreenKeyboardTests.pressedKeys(keyboardLog).first).lowercased()
        try Self.prepareUser(password: key + key)
        try session.inject(["touch down 0 300 \(keyY)", "touch frame"])
        usleep(100_000)
        try session.inject(["touch up 0", "touch frame", "key press KEY_ENTER", "key release KEY_ENTER"])
        try session.wait(for: "swaylock to take \(key + key) from wvkbd and exit") { !swaylock.isRunning }
        #expect(!swaylock.isRunning && swaylock.terminationStatus == 0, "\(RunningSession.text(of: log).suffix(2000))")
        try session.wait(for: "the session to unlock") { try session.msg("tree").json["locked"] as? Bool == false }
    }
}
