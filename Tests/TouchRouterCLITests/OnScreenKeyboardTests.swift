import Foundation
import Testing

/// An on-screen keyboard beside a GTK text field: Debian's wvkbd (layer shell and virtual
/// keyboard; 0.12 speaks no input method) types into zenity's entry, which speaks
/// text-input-v3, and the wire-protocol client's input method commits a string there.
@Suite("On-screen keyboard: wvkbd and an input method typing into zenity's entry", .serialized)
struct OnScreenKeyboardTests {
    static let wvkbd = "/usr/bin/wvkbd-mobintl"
    static let height = 200

    /// wvkbd gets the layer shell, the virtual keyboard and the input method; the Python
    /// running the raw client gets the input method.
    static func configuration() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("touch-router-osk-\(getpid())-\(UUID().uuidString.prefix(8)).toml").path
        let python = URL(fileURLWithPath: "/usr/bin/python3").resolvingSymlinksInPath().path
        try """
            [privileges]
            layer-shell = ["wvkbd-mobintl"]
            virtual-input = ["wvkbd-mobintl"]
            input-method = ["wvkbd-mobintl", "\(python)"]

            """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("zenity --entry has the focus; the input method is activated by its text field and commits \"hi\" into it; a tap on a key of wvkbd types that key there and leaves the focus on the entry; Enter ends zenity with the text")
    func typesIntoEntry() throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.wvkbd), "wvkbd is not installed: .ci/setup installs it (apt-get install wvkbd)")
        let session = try RunningSession(arguments: ["--output", "1280x720", "--config", try Self.configuration()])
        defer { _ = session.terminate() }
        let zenityLog = session.file("zenity.log")
        let zenity = try session.client(["zenity", "--entry", "--text=Name"], output: zenityLog, environment: ["GDK_BACKEND": "wayland"])
        var entryFocus: Int?
        try session.wait(for: "zenity to map and take keyboard focus") {
            entryFocus = try session.msg("focus").json["keyboard"] as? Int
            return try session.toplevels().first?["mapped"] as? Bool == true && entryFocus != nil
        }

        // The input method: activated by the entry's enabled text input, it commits "hi".
        let imLog = session.file("im.log")
        let im = try session.client(["/usr/bin/python3", SessionTests.rawClient, "input-method"], output: imLog)
        try session.wait(for: "the input method to be activated and commit") { RunningSession.text(of: imLog).contains("committed\n") }
        #expect(RunningSession.text(of: imLog).hasPrefix("activate\n"), "\(RunningSession.text(of: imLog))")

        let keyboardLog = session.file("wvkbd.log")
        _ = try session.client([Self.wvkbd, "-o", "-H", String(Self.height), "-L", String(Self.height)], output: keyboardLog)
        var keyboard: [String: Any] = [:]
        try session.wait(for: "wvkbd's layer surface to map along the bottom") {
            guard let found = try session.toplevels().first(where: { ($0["position"] as? [Int])?[1] == 720 - Self.height && $0["mapped"] as? Bool == true }) else { return false }
            keyboard = found
            return true
        }
        #expect(keyboard["size"] as? [Int] == [1280, Self.height], "\(keyboard)")
        #expect(try session.msg("focus").json["keyboard"] as? Int == entryFocus, "wvkbd does not take the focus as it maps")

        // A key in the middle of the keyboard's second row.
        let y = 720 - Self.height + Self.height * 3 / 10
        try session.inject(["touch down 0 420 \(y)", "touch frame"])
        usleep(100_000)
        try session.inject(["touch up 0", "touch frame"])
        func pressedKeys() -> [String] { Self.pressedKeys(keyboardLog) }
        try session.wait(for: "wvkbd to say which key it pressed") { !pressedKeys().isEmpty }
        let pressed = pressedKeys().first ?? ""
        #expect(pressedKeys().count == 1, "one key: \(RunningSession.text(of: keyboardLog))")
        #expect(try session.msg("focus").json["keyboard"] as? Int == entryFocus, "the tap on wvkbd leaves the focus on the entry")

        try session.inject(["key press KEY_ENTER", "key release KEY_ENTER"])
        try session.wait(for: "zenity to answer") { !zenity.isRunning }
        let typed = RunningSession.text(of: zenityLog)
        #expect(!zenity.isRunning && zenity.terminationReason == .exit && zenity.terminationStatus == 0, "zenity's log:\n\(typed)")
        #expect(typed.hasPrefix("hi"), "the input method's string: \(typed)")
        #expect(typed.lowercased() == "hi\(pressed.lowercased())\n", "wvkbd pressed \(pressed); zenity says \(typed)")

        // The entry's window is gone: the input method is deactivated and exits 0.
        try session.wait(for: "the input method to be deactivated") { !im.isRunning }
        #expect(!im.isRunning && im.terminationStatus == 0, "\(RunningSession.text(of: imLog))")
    }

    /// The keys wvkbd pressed, in order: with -o it prints each on a line of its own, among its
    /// diagnostics ("Initializing keyboard", "Found 50 layouts", "Resize 1280x200 1, 51 layouts").
    static func pressedKeys(_ log: URL) -> [String] {
        RunningSession.text(of: log).split(separator: "\n").map(String.init).filter { line in
            !["Initializing ", "Found ", "Resize "].contains { line.hasPrefix($0) }
        }
    }

    /// wvkbd's layer surface in `msg tree`: Debian's wvkbd 0.12 gives its layer surface the namespace "wlroots".
    static func keyboardSurface(_ session: RunningSession) throws -> [String: Any]? {
        try session.toplevels().first { $0["label"] as? String == "wlroots" && $0["mapped"] as? Bool == true }
    }

    @Test("[keyboard] osk-namespace = \"wlroots\", wvkbd 0.12's namespace: wvkbd starts hidden (not drawn, a tap on it reaches nothing and presses no key); zenity's focused entry enables its text input and wvkbd shows, a tap on a key types into the entry; zenity closes and wvkbd hides again")
    func showsWithFocusedTextInput() throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.wvkbd), "wvkbd is not installed: .ci/setup installs it (apt-get install wvkbd)")
        let config = try Self.configuration()
        try (try String(contentsOfFile: config, encoding: .utf8) + "[keyboard]\nosk-namespace = \"wlroots\"\n").write(toFile: config, atomically: true, encoding: .utf8)
        let session = try RunningSession(arguments: ["--output", "1280x720", "--config", config])
        defer { _ = session.terminate() }

        let keyboardLog = session.file("wvkbd.log")
        _ = try session.client([Self.wvkbd, "-o", "-H", String(Self.height), "-L", String(Self.height)], output: keyboardLog)
        var keyboard: [String: Any] = [:]
        try session.wait(for: "wvkbd's layer surface to map along the bottom") {
            guard let found = try Self.keyboardSurface(session), (found["position"] as? [Int])?[1] == 720 - Self.height else { return false }
            keyboard = found
            return true
        }
        let keyboardID = keyboard["id"] as? Int
        #expect(keyboard["hidden"] as? Bool == true, "no text field has the focus: \(keyboard)")
        func pressedKeys() -> [String] { Self.pressedKeys(keyboardLog) }
        func tap(_ x: Int, _ y: Int) throws {
            try session.inject(["touch down 0 \(x) \(y)", "touch frame"])
            usleep(100_000)
            try session.inject(["touch up 0", "touch frame"])
        }
        func colours(_ name: String, _ points: [(Int, Int)]) throws -> [String] {
            let shot = try ScreenshotTests().screenshot(session, name)
            #expect(shot.status == 0, "\(shot.reply)")
            return try DecodedPNG(shot.path, points: points).colours
        }
        // A key in the middle of the keyboard's second row, and a corner nothing covers.
        let key = (420, 720 - Self.height + Self.height * 3 / 10), corner = (5, 5)

        // Hidden: not drawn, and a tap where it is reaches nothing.
        let hiddenShot = try colours("hidden.png", [key, corner])
        #expect(hiddenShot[0] == hiddenShot[1], "the session's background where the hidden keyboard is: \(hiddenShot)")
        #expect(try session.msg("pixel", String(key.0), String(key.1)).json["surface"] is NSNull, "no surface takes a touch on the hidden keyboard")
        try tap(key.0, key.1)
        usleep(300_000)
        #expect(pressedKeys().isEmpty, "the hidden keyboard pressed no key: \(RunningSession.text(of: keyboardLog))")

        // zenity's entry takes the focus and enables its text input: the keyboard shows.
        let zenityLog = session.file("zenity.log")
        let zenity = try session.client(["zenity", "--entry", "--text=Name"], output: zenityLog, environment: ["GDK_BACKEND": "wayland"])
        var entryFocus: Int?
        try session.wait(for: "zenity to map and take the focus, and wvkbd to show") {
            entryFocus = try session.msg("focus").json["keyboard"] as? Int
            let shown = try Self.keyboardSurface(session)?["hidden"] as? Bool == false
            return entryFocus != nil && entryFocus != keyboardID && shown
        }
        let picked = try session.msg("pixel", String(key.0), String(key.1)).json
        #expect((picked["surface"] as? [String: Any])?["id"] as? Int == keyboardID, "a touch there reaches the shown keyboard: \(picked)")
        // wvkbd's pixels are translucent (0xe1272727): drawn, they are no longer the background.
        try session.wait(for: "the shown keyboard drawn on the screen") { try colours("shown.png", [key]) != [hiddenShot[0]] }
        try tap(key.0, key.1)
        try session.wait(for: "wvkbd to say which key it pressed") { !pressedKeys().isEmpty }
        let pressed = pressedKeys().first ?? ""
        #expect(pressedKeys().count == 1, "one key: \(RunningSession.text(of: keyboardLog))")
        #expect(try session.msg("focus").json["keyboard"] as? Int == entryFocus, "the tap on wvkbd leaves the focus on the entry")

        // Enter ends zenity with the key typed; the focus leaves with its window, and the keyboard hides.
        try session.inject(["key press KEY_ENTER", "key release KEY_ENTER"])
        try session.wait(for: "zenity to answer") { !zenity.isRunning }
        let typed = RunningSession.text(of: zenityLog)
        #expect(zenity.terminationStatus == 0 && typed.lowercased() == "\(pressed.lowercased())\n", "wvkbd pressed \(pressed); zenity says \(typed)")
        try session.wait(for: "wvkbd to hide again") { try Self.keyboardSurface(session)?["hidden"] as? Bool == true }
        #expect(try session.msg("pixel", String(key.0), String(key.1)).json["surface"] is NSNull, "no surface takes a touch on the hidden keyboard")
        try session.wait(for: "the hidden keyboard gone from the screen") {
            let shot = try colours("hidden-again.png", [key, corner])
            return shot[0] == shot[1]
        }
        try tap(key.0, key.1)
        usleep(300_000)
        #expect(pressedKeys().count == 1, "the hidden keyboard pressed no more keys: \(RunningSession.text(of: keyboardLog))")
    }

    @Test("a finger held on an exclusive-touch app (zenity, [app] exclusive-touch) does not lock wvkbd out: a tap on a key types into the entry while it is held")
    func exclusiveTouchDoesNotBlockKeyboard() throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.wvkbd), "wvkbd is not installed: .ci/setup installs it (apt-get install wvkbd)")
        let config = try Self.configuration()
        try (try String(contentsOfFile: config, encoding: .utf8) + "[keyboard]\nosk-namespace = \"wlroots\"\n\n[app.\"zenity\"]\nexclusive-touch = true\n")
            .write(toFile: config, atomically: true, encoding: .utf8)
        let session = try RunningSession(arguments: ["--output", "1280x720", "--config", config])
        defer { _ = session.terminate() }
        let keyboardLog = session.file("wvkbd.log")
        _ = try session.client([Self.wvkbd, "-o", "-H", String(Self.height), "-L", String(Self.height)], output: keyboardLog)
        try session.wait(for: "wvkbd's layer surface to map") { try Self.keyboardSurface(session) != nil }
        let zenityLog = session.file("zenity.log")
        let zenity = try session.client(["zenity", "--entry", "--text=Name"], output: zenityLog, environment: ["GDK_BACKEND": "wayland"])
        var window: [String: Any] = [:]
        try session.wait(for: "zenity to map and take the focus, and wvkbd to show") {
            window = try session.toplevels().first { ($0["label"] as? String)?.hasPrefix("zenity") == true && $0["mapped"] as? Bool == true } ?? [:]
            let shown = try Self.keyboardSurface(session)?["hidden"] as? Bool == false
            let focus = try session.msg("focus").json["keyboard"] as? Int
            return !window.isEmpty && shown && focus != nil
        }
        func pressedKeys() -> [String] { Self.pressedKeys(keyboardLog) }
        // A finger down in the middle of zenity's window (its entry), held: zenity is exclusive-touch.
        let position = window["position"] as? [Int] ?? [0, 0], size = window["size"] as? [Int] ?? [0, 0]
        let held = (position[0] + size[0] / 2, position[1] + size[1] / 2)
        #expect(held.1 < 720 - Self.height, "zenity's middle is above the keyboard: \(window)")
        let trace = try session.startTrace()
        try session.inject(["touch down 1 \(held.0) \(held.1)", "touch frame"])
        let key = (420, 720 - Self.height + Self.height * 3 / 10)
        try session.inject(["touch down 0 \(key.0) \(key.1)", "touch frame"])
        usleep(100_000)
        try session.inject(["touch up 0", "touch frame"])
        try session.wait(for: "wvkbd to press the key while zenity's finger is held") { !pressedKeys().isEmpty }
        #expect(!RunningSession.text(of: trace).contains("exclusive"), "nothing blocked by the exclusive-touch rule: \(RunningSession.text(of: trace))")
        try session.inject(["touch up 1", "touch frame"])
        let pressed = pressedKeys().first ?? ""
        try session.inject(["key press KEY_ENTER", "key release KEY_ENTER"])
        try session.wait(for: "zenity to answer") { !zenity.isRunning }
        let typed = RunningSession.text(of: zenityLog)
        #expect(zenity.terminationStatus == 0 && typed.lowercased() == "\(pressed.lowercased())\n", "wvkbd pressed \(pressed); zenity says \(typed)")
    }

    @Test("without [privileges] input-method the input method manager is not listed")
    func hidden() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let log = session.file("raw.log")
        let raw = try session.client(["/usr/bin/python3", SessionTests.rawClient, "input-method"], output: log)
        raw.waitUntilExit()
        #expect(raw.terminationStatus != 0)
        #expect(RunningSession.text(of: log).contains("KeyError: 'zwp_input_method_manager_v2'"), "\(RunningSession.text(of: log))")
    }

    @Test("an input method's keyboard grab gets the keyboard's keymap, repeat rate, keys and modifiers instead of the focused wev; what it types through its own virtual keyboard reaches wev and is not grabbed; released, keys reach wev again")
    func keyboardGrab() throws {
        let python = URL(fileURLWithPath: "/usr/bin/python3").resolvingSymlinksInPath().path
        let config = try ConfigurationSessionTests.ConfigFile("[privileges]\nvirtual-input = [\"\(python)\"]\ninput-method = [\"\(python)\"]\n")
        let session = try RunningSession(arguments: ["--config", config.path])
        defer { _ = session.terminate() }
        let (wevLog, _) = try StatsSessionTests.startWev(session)
        let log = session.file("im.log")
        _ = try session.client(["/usr/bin/python3", SessionTests.rawClient, "input-method-grab"], output: log)
        try session.wait(for: "the grab's keymap, repeat rate and modifiers") {
            let text = RunningSession.text(of: log)
            return text.contains("grab keymap\n") && text.contains("grab repeat 25 600\n") && text.contains("grab modifiers 0 0 0 0\n")
        }
        func wevKeys() -> [String] {
            RunningSession.text(of: wevLog).split(separator: "\n").filter { $0.contains("wl_keyboard] key:") }.map { line in
                String(line[line.range(of: "key: ", options: .backwards)!.lowerBound...])
            }
        }
        try session.inject(["key press KEY_A", "key release KEY_A"])
        try session.wait(for: "the grab to get KEY_A") { RunningSession.text(of: log).contains("grab key 30 1\ngrab key 30 0\n") }
        try session.wait(for: "wev to get the input method's KEY_B") { wevKeys().count == 2 }
        #expect(wevKeys() == ["key: 56; state: 1 (pressed)", "key: 56; state: 0 (released)"], "KEY_B (48 + 8), never KEY_A: \(wevKeys())")
        #expect(!RunningSession.text(of: log).contains("grab key 48"), "the input method's own typing is not grabbed")

        try session.inject(["key press KEY_LEFTSHIFT", "key release KEY_LEFTSHIFT"])
        try session.wait(for: "the grab to get Shift and its modifiers") {
            RunningSession.text(of: log).contains("grab key 42 1\ngrab modifiers 1 0 0 0\ngrab key 42 0\ngrab modifiers 0 0 0 0\n")
        }
        #expect(wevKeys().count == 2, "Shift went to the grab only: \(wevKeys())")

        try session.inject(["key press KEY_Q", "key release KEY_Q"])
        try session.wait(for: "the input method to let the keyboard go") { RunningSession.text(of: log).contains("released\n") }
        try session.inject(["key press KEY_A", "key release KEY_A"])
        try session.wait(for: "wev to get KEY_A itself") { wevKeys().count == 4 }
        #expect(Array(wevKeys().suffix(2)) == ["key: 38; state: 1 (pressed)", "key: 38; state: 0 (released)"], "\(wevKeys())")
        #expect(RunningSession.text(of: log).components(separatedBy: "grab key 30 1").count == 2, "the released grab got no more keys")
    }
}
