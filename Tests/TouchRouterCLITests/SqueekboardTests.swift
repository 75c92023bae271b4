import Foundation
import Testing

/// Debian's squeekboard 1.21, an on-screen keyboard that speaks input-method-v2, typing into
/// GTK 3's `zenity --entry` (text-input-v3) with touch taps on its layer surface.
///
/// squeekboard runs with what it needs and nothing more: a private D-Bus session bus (it owns
/// `sm.puri.OSK0` there; with no bus at all a thread of it panics) whose configuration lists no
/// service directories, so that nothing is activated (no feedbackd, no accessibility bus);
/// GSettings' keyfile backend with `org.gnome.desktop.a11y.applications screen-keyboard-enabled`
/// true, without which it never shows; and `NO_AT_BRIDGE=1`. `WAYLAND_DEBUG=client` makes it
/// log the requests it sends, which say how each key reached the entry.
@Suite("On-screen keyboard: squeekboard typing into zenity's entry", .serialized)
struct SqueekboardTests {
    static let squeekboard = "/usr/bin/squeekboard"

    /// squeekboard gets the layer shell, the virtual keyboard and the input method.
    static let configuration = """
        [privileges]
        layer-shell = ["\(squeekboard)"]
        virtual-input = ["\(squeekboard)"]
        input-method = ["\(squeekboard)"]

        """

    /// squeekboard's layer surface in `msg tree`: its namespace is "osk".
    static func keyboardSurface(_ session: RunningSession) throws -> [String: Any]? {
        try session.toplevels().first { $0["label"] as? String == "osk" }
    }

    /// Starts a session bus for squeekboard alone and squeekboard on it; returns its log.
    static func startSqueekboard(_ session: RunningSession) throws -> URL {
        let busSocket = session.file("bus").path
        let busConfig = session.file("bus.conf")
        try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(busSocket)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>

            """.write(to: busConfig, atomically: true, encoding: .utf8)
        let busLog = session.file("bus.log")
        _ = try session.client(["dbus-daemon", "--config-file=\(busConfig.path)", "--nofork", "--print-address"], output: busLog)
        try session.wait(for: "the session bus to listen") { RunningSession.text(of: busLog).contains("unix:path=\(busSocket)") }

        let settings = session.file("squeekboard-config/glib-2.0/settings")
        try FileManager.default.createDirectory(at: settings, withIntermediateDirectories: true)
        try "[org/gnome/desktop/a11y/applications]\nscreen-keyboard-enabled=true\n"
            .write(to: settings.appendingPathComponent("keyfile"), atomically: true, encoding: .utf8)
        let log = session.file("squeekboard.log")
        _ = try session.client([squeekboard], output: log, environment: [
            "DBUS_SESSION_BUS_ADDRESS": "unix:path=\(busSocket)",
            "GSETTINGS_BACKEND": "keyfile",
            "XDG_CONFIG_HOME": session.file("squeekboard-config").path,
            // No layouts of the person running the tests (~/.local/share/squeekboard).
            "XDG_DATA_HOME": session.file("squeekboard-data").path,
            "NO_AT_BRIDGE": "1",
            "WAYLAND_DEBUG": "client",
        ])
        return log
    }

    /// The lines of squeekboard's Wayland log naming `what` (a request or an event).
    static func lines(_ log: URL, _ what: String) -> [String] {
        RunningSession.text(of: log).split(separator: "\n").map(String.init).filter { $0.contains(what) }
    }

    @Test("squeekboard stays unmapped until zenity's focused entry activates its input method, then maps along the bottom without taking the focus; taps on h, i and x commit them through the input method, a tap on its backspace goes through its virtual keyboard; the focus stays on the entry; Enter ends zenity with \"hi\"; the entry gone, the input method is deactivated and squeekboard unmaps")
    func typesIntoEntry() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.squeekboard), "squeekboard is not installed: .ci/setup installs it (apt-get install squeekboard)")
        let config = try ConfigurationSessionTests.ConfigFile(Self.configuration)
        let session = try RunningSession(arguments: ["--output", "1280x720", "--config", config.path])
        defer { _ = session.terminate() }

        let log = try Self.startSqueekboard(session)
        try session.wait(for: "squeekboard to take the input method and make its virtual keyboard") {
            !Self.lines(log, "get_input_method(").isEmpty && !Self.lines(log, "create_virtual_keyboard(").isEmpty
        }
        usleep(500_000)
        let before = try session.toplevels()
        #expect(!before.contains { $0["label"] as? String == "osk" }, "no text field wants it yet: \(before)")

        let zenityLog = session.file("zenity.log")
        let zenity = try session.client(["zenity", "--entry", "--text=Name"], output: zenityLog, environment: ["GDK_BACKEND": "wayland"])
        var entryFocus: Int?
        var keyboard: [String: Any] = [:]
        try session.wait(for: "zenity to take the focus and squeekboard to map") {
            entryFocus = try session.msg("focus").json["keyboard"] as? Int
            guard entryFocus != nil, let found = try Self.keyboardSurface(session), found["mapped"] as? Bool == true else { return false }
            keyboard = found
            return true
        }
        #expect(Self.lines(log, "zwp_input_method_v2@").first { !$0.contains("->") }?.hasSuffix(".activate()") == true,
                "the first event of its input method is activate: \(Self.lines(log, "zwp_input_method_v2@"))")
        let position = keyboard["position"] as? [Int] ?? [], size = keyboard["size"] as? [Int] ?? []
        #expect(position.count == 2 && size.count == 2 && position[0] == 0 && size[0] == 1280 && position[1] + size[1] == 720 && size[1] > 0,
                "across the bottom of the output: \(keyboard)")
        #expect(keyboard["hidden"] as? Bool == false, "\(keyboard)")
        #expect(keyboard["id"] as? Int != entryFocus)
        #expect(try session.msg("focus").json["keyboard"] as? Int == entryFocus, "squeekboard does not take the focus as it maps")

        // squeekboard's us_wide layout, which it picks for a 1280-wide output: four rows of
        // equal height ("qwertyuiop", "asdfghjkl", shift "zxcvbnm" backspace, "123" globe
        // space "." enter), keys at fixed places across the 1280 pixels.
        let top = position.count == 2 ? position[1] : 720, height = size.count == 2 ? size[1] : 0
        func row(_ index: Int) -> Int { top + height * (2 * index + 1) / 8 }
        let keys: [(name: String, x: Int, y: Int)] = [("h", 755, row(1)), ("i", 929, row(0)), ("x", 408, row(2))]
        let picked = try session.msg("pixel", String(keys[0].x), String(keys[0].y)).json
        #expect((picked["surface"] as? [String: Any])?["id"] as? Int == keyboard["id"] as? Int, "a touch on a key reaches squeekboard: \(picked)")
        func tap(_ x: Int, _ y: Int) throws {
            try session.inject(["touch down 0 \(x) \(y)", "touch frame"])
            usleep(100_000)
            try session.inject(["touch up 0", "touch frame"])
        }
        let imID = Self.objectID(Self.lines(log, "get_input_method(").first)
        for (index, key) in keys.enumerated() {
            try tap(key.x, key.y)
            try session.wait(for: "squeekboard to commit \(key.name)") { Self.lines(log, ".commit_string(").count == index + 1 }
            #expect(Self.lines(log, ".commit_string(").last?.hasSuffix("zwp_input_method_v2@\(imID).commit_string(\"\(key.name)\")") == true,
                    "\(Self.lines(log, ".commit_string("))")
        }
        try session.wait(for: "GTK to tell the input method the entry holds \"hix\"") { !Self.lines(log, ".surrounding_text(\"hix\"").isEmpty }
        #expect(Self.lines(log, "zwp_virtual_keyboard_v1@").filter { $0.contains(".key(") }.isEmpty, "the letters went through the input method only")

        // Backspace: squeekboard presses it on its virtual keyboard, with its own keymap.
        try tap(1130, row(2))
        try session.wait(for: "squeekboard to press and release backspace on its virtual keyboard") {
            Self.lines(log, "zwp_virtual_keyboard_v1@").filter { $0.contains(".key(") }.count == 2
        }
        let virtualKeys = Self.lines(log, "zwp_virtual_keyboard_v1@")
        #expect(virtualKeys.contains { $0.contains(".keymap(1, fd") }, "its own keymap: \(virtualKeys)")
        let states = virtualKeys.filter { $0.contains(".key(") }.map { $0.hasSuffix(", 1)") ? "pressed" : $0.hasSuffix(", 0)") ? "released" : $0 }
        #expect(states == ["pressed", "released"], "\(virtualKeys)")
        // "hi" was reported once already, after the i: the last report, after "hix", is the one.
        try session.wait(for: "GTK to tell the input method the entry holds \"hi\" again") {
            Self.lines(log, ".surrounding_text(").last?.hasSuffix(".surrounding_text(\"hi\", 2, 2)") == true
        }
        #expect(Self.lines(log, ".commit_string(").count == 3, "the backspace committed no text")
        #expect(try session.msg("focus").json["keyboard"] as? Int == entryFocus, "the taps on squeekboard leave the focus on the entry")

        try session.inject(["key press KEY_ENTER", "key release KEY_ENTER"])
        try session.wait(for: "zenity to answer") { !zenity.isRunning }
        let typed = RunningSession.text(of: zenityLog)
        #expect(zenity.terminationReason == .exit && zenity.terminationStatus == 0, "zenity's log:\n\(typed)")
        #expect(typed.split(separator: "\n").last == "hi", "zenity says \(typed)")

        // The entry's window is gone: the input method is deactivated and squeekboard unmaps.
        try session.wait(for: "the input method to be deactivated") { !Self.lines(log, "zwp_input_method_v2@\(imID).deactivate()").isEmpty }
        try session.wait(for: "squeekboard to unmap its keyboard") { try Self.keyboardSurface(session) == nil }
        #expect(Self.lines(log, "zwlr_layer_surface_v1@").contains { $0.hasSuffix(".destroy()") }, "it destroys its layer surface")
        #expect(try session.msg("pixel", String(keys[0].x), String(keys[0].y)).json["surface"] is NSNull, "nothing is left where the keyboard was")
    }

    @Test("squeekboard asked to show over D-Bus (sm.puri.OSK0 SetVisible) with no text field focused maps its layer surface, which the session keeps hidden since squeekboard holds the input method (not drawn, no touch reaches it); zenity's focused entry shows that same surface; zenity killed, the input method is deactivated and squeekboard unmaps")
    func hiddenUntilTextField() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.squeekboard), "squeekboard is not installed: .ci/setup installs it (apt-get install squeekboard)")
        let config = try ConfigurationSessionTests.ConfigFile(Self.configuration)
        let session = try RunningSession(arguments: ["--output", "1280x720", "--config", config.path])
        defer { _ = session.terminate() }
        let log = try Self.startSqueekboard(session)
        try session.wait(for: "squeekboard to take the input method") { !Self.lines(log, "get_input_method(").isEmpty }

        // Until squeekboard owns sm.puri.OSK0 on its bus, the call fails: tried until it is taken.
        var attempts = 0
        try session.wait(for: "squeekboard to take SetVisible true") {
            attempts += 1
            let call = try session.client(["dbus-send", "--session", "--print-reply", "--dest=sm.puri.OSK0", "/sm/puri/OSK0", "sm.puri.OSK0.SetVisible", "boolean:true"],
                                          output: session.file("dbus-send-\(attempts).log"), environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(session.file("bus").path)"])
            call.waitUntilExit()
            if call.terminationStatus != 0 { usleep(100_000) }
            return call.terminationStatus == 0
        }
        var keyboard: [String: Any] = [:]
        try session.wait(for: "squeekboard to map its layer surface") {
            guard let found = try Self.keyboardSurface(session), found["mapped"] as? Bool == true else { return false }
            keyboard = found
            return true
        }
        #expect(Self.lines(log, ".activate()").isEmpty, "no text field activated its input method")
        // squeekboard may replace its surface once as it settles: the one still there after a moment.
        usleep(500_000)
        keyboard = try Self.keyboardSurface(session) ?? keyboard
        let keyboardID = keyboard["id"] as? Int
        #expect(keyboard["hidden"] as? Bool == true, "no enabled text input has the focus: \(keyboard)")
        let position = keyboard["position"] as? [Int] ?? [0, 720], size = keyboard["size"] as? [Int] ?? [0, 0]
        let key = (640, position[1] + size[1] / 2), corner = (5, 5)
        #expect(try session.msg("pixel", String(key.0), String(key.1)).json["surface"] is NSNull, "no surface takes a touch on the hidden keyboard")
        let shot = try ScreenshotTests().screenshot(session, "hidden.png")
        #expect(shot.status == 0, "\(shot.reply)")
        let colours = try DecodedPNG(shot.path, points: [key, corner]).colours
        #expect(colours[0] == colours[1], "the session's background where the hidden keyboard is: \(colours)")

        let zenityLog = session.file("zenity.log")
        let zenity = try session.client(["zenity", "--entry", "--text=Name"], output: zenityLog, environment: ["GDK_BACKEND": "wayland"])
        try session.wait(for: "zenity to take the focus and squeekboard to show") {
            let focus = try session.msg("focus").json["keyboard"] as? Int
            let shown = try Self.keyboardSurface(session)?["hidden"] as? Bool == false
            return focus != nil && focus != keyboardID && shown
        }
        #expect(try Self.keyboardSurface(session)?["id"] as? Int == keyboardID, "the same surface, shown")
        #expect(!Self.lines(log, ".activate()").isEmpty, "the entry activated squeekboard's input method")
        let picked = try session.msg("pixel", String(key.0), String(key.1)).json
        #expect((picked["surface"] as? [String: Any])?["id"] as? Int == keyboardID, "a touch there reaches the shown keyboard: \(picked)")

        kill(zenity.processIdentifier, SIGKILL)
        try session.wait(for: "the input method to be deactivated and squeekboard to unmap") {
            let gone = try Self.keyboardSurface(session) == nil
            return !Self.lines(log, ".deactivate()").isEmpty && gone
        }
    }

    /// The object id a WAYLAND_DEBUG request line gives its new object ("new id zwp_input_method_v2@23").
    static func objectID(_ line: String?) -> String {
        guard let line, let range = line.range(of: "zwp_input_method_v2@") else { return "?" }
        return String(line[range.upperBound...].prefix { $0.isNumber })
    }
}
