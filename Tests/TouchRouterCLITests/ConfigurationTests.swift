import Foundation
import Testing

/// `touch-router run` with a configuration file (docs/configuration.md): errors at start
/// and on reload, key chords, app policies, and `msg subscribe`, with Debian's wev.
@Suite("A session's configuration file: errors, reloads, key chords, app policies and subscribers", .serialized)
struct ConfigurationSessionTests {
    /// A configuration file of its own for one test.
    final class ConfigFile {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("touch-router-config-\(getpid())-\(UUID().uuidString.prefix(8)).toml").path
        init(_ text: String) throws { try write(text) }
        func write(_ text: String) throws { try text.write(toFile: path, atomically: true, encoding: .utf8) }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    private func subscribe(_ session: RunningSession, _ topics: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) throws -> URL {
        try session.subscribe(topics, sourceLocation: sourceLocation)
    }

    /// Every line of a subscriber's log after the reply, read as JSON.
    private func events(_ log: URL) -> [[String: Any]] {
        RunningSession.text(of: log).split(separator: "\n").dropFirst().compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }

    private func chord(_ keys: [String]) -> [String] {
        keys.map { "key press \($0)" } + keys.reversed().map { "key release \($0)" }
    }

    /// wev mapped and, unless `focused` is false, holding the keyboard focus.
    private func startWev(_ session: RunningSession, focused: Bool = true) throws -> URL {
        let log = session.file("wev.log")
        _ = try session.client(["wev"], output: log)
        try session.wait(for: "wev to map") { try session.toplevels().first?["mapped"] as? Bool == true }
        if focused { try session.wait(for: "wev to take the keyboard focus") { try session.msg("focus").json["keyboard"] as? Int != nil } }
        return log
    }

    @Test("a bad file stops run before anything starts, naming file:line:column and what was expected; so does a bad default file")
    func badFileAtStart() throws {
        let config = try ConfigFile("[[bind]]\nkeys = \"Ctrl+Alt+BackSpace\"\naction = \"quit\"\nwhen = \"always\"\n")
        let runtime = FileManager.default.temporaryDirectory.appendingPathComponent("touch-router-xdg-badconfig-\(getpid())").path
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: runtime) }
        let run = try ToolRun(["run", "--config", config.path, "--", "true"], environment: ["XDG_RUNTIME_DIR": runtime])
        #expect(run.status == 1)
        #expect(run.errors == "touch-router run: \(config.path):4:1: error: unknown key 'when' in [[bind]] bind[0]: expected gesture, state, keys, switch, background, action, command, event or while-locked\n", "\(run.errors)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: runtime).isEmpty, "no socket was made")

        // Without --config, $XDG_CONFIG_HOME/touch-router/config.toml is read when it exists.
        let home = runtime + "/config"
        try FileManager.default.createDirectory(atPath: home + "/touch-router", withIntermediateDirectories: true)
        try "[hold]\nlimit-ms = 20000\n".write(toFile: home + "/touch-router/config.toml", atomically: true, encoding: .utf8)
        let implicit = try ToolRun(["run", "--", "true"], environment: ["XDG_RUNTIME_DIR": runtime, "XDG_CONFIG_HOME": home])
        #expect(implicit.status == 1)
        #expect(implicit.errors.contains("\(home)/touch-router/config.toml:2:12: error: hold.limit-ms: expected a number from 0 to 10000 ms, found 20000"), "\(implicit.errors)")
        #expect(try ToolRun(["run", "--config", "/nonexistent/touch-router.toml", "--", "true"]).errors.contains("/nonexistent/touch-router.toml:1:1: error: cannot read the configuration file"))
    }

    @Test("an output that the session does not have, named by a recognizer or a hold zone, is an error at its table")
    func unknownOutput() throws {
        let recognizer = try ConfigFile("\n[[recognizer]]\nname = \"edge\"\nkind = \"screen-edge-pan\"\noutput = \"HDMI-A-1\"\n")
        let run = try ToolRun(["run", "--output", "800x600", "--output", "800x600", "--config", recognizer.path, "--", "true"])
        #expect(run.status == 1)
        #expect(run.errors == "touch-router run: \(recognizer.path):2:1: error: recognizer \"edge\": \"HDMI-A-1\" is not an output of this session: expected HEADLESS-1 or HEADLESS-2\n", "\(run.errors)")
        let zone = try ConfigFile("[[hold.zone]]\nwhole-output = true\n\n[[hold.zone]]\noutput = \"DP-1\"\nwhole-output = true\n")
        let zoneRun = try ToolRun(["run", "--config", zone.path, "--", "true"])
        #expect(zoneRun.errors == "touch-router run: \(zone.path):4:1: error: hold.zone[1]: \"DP-1\" is not an output of this session: expected HEADLESS-1\n", "\(zoneRun.errors)")
    }

    @Test("a key chord bound to exec runs the command, and the focused wev never sees the chord's key (it does see the modifiers, and the key after)")
    func chordRunsExec() throws {
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("touch-router-chord-\(getpid())-\(UUID().uuidString.prefix(6))").path
        defer { try? FileManager.default.removeItem(atPath: marker) }
        let config = try ConfigFile("[[bind]]\nkeys = \"Ctrl+Alt+t\"\naction = \"exec\"\ncommand = [\"touch\", \"\(marker)\"]\n")
        let session = try RunningSession(arguments: ["--config", config.path])
        defer { _ = session.terminate() }
        let wev = try startWev(session)
        try session.inject(chord(["KEY_LEFTCTRL", "KEY_LEFTALT", "KEY_T"]) + ["key press KEY_B", "key release KEY_B"])
        try session.wait(for: "the command to run") { FileManager.default.fileExists(atPath: marker) }
        try session.wait(for: "wev to get the key after the chord") { RunningSession.text(of: wev).contains("key: 56; state: 0 (released)") }
        let text = RunningSession.text(of: wev)
        #expect(!text.contains("key: 28;"), "KEY_T (XKB 28) is the chord's: neither its press nor its release reaches wev:\n\(text)")
        #expect(text.contains("key: 37; state: 1 (pressed)"), "the modifiers reach wev, as with sway's bindsym")
        // T alone, or with other modifiers, is no chord.
        try session.inject(chord(["KEY_LEFTCTRL", "KEY_T"]))
        try session.wait(for: "wev to get Ctrl+T") { RunningSession.text(of: wev).contains("key: 28; state: 0 (released)") }
    }

    @Test("msg reload of a broken file answers with its file:line:column and keeps the old configuration, whose chord still works")
    func brokenReload() throws {
        let first = FileManager.default.temporaryDirectory.appendingPathComponent("touch-router-reload-\(getpid())-\(UUID().uuidString.prefix(6))").path
        defer { try? FileManager.default.removeItem(atPath: first) }
        let config = try ConfigFile("[[bind]]\nkeys = \"Ctrl+Alt+r\"\naction = \"exec\"\ncommand = \"touch \(first)\"\n")
        let session = try RunningSession(arguments: ["--config", config.path])
        defer { _ = session.terminate() }
        let log = try subscribe(session, ["reload", "action"])
        try config.write("[[bind]]\nkeys = \"Ctrl+Alt+r\"\naction = \"exec\"\ncommand = \"touch \(first)-new\"\n\n[[recognizer]]\nname = \"x\"\nkind = \"tap\"\ntaps = 0\n")
        let reply = try ToolRun(["msg", "--socket", session.controlSocket, "reload"])
        #expect(reply.status == 1)
        #expect(reply.output.contains("reload failed, the old configuration stays: \(config.path):9:8: error: recognizer[0].taps: expected a whole number from 1 to 10, found 0"), "\(reply.output)")
        try session.inject(chord(["KEY_LEFTCTRL", "KEY_LEFTALT", "KEY_R"]))
        try session.wait(for: "the old binding's command") { FileManager.default.fileExists(atPath: first) }
        #expect(!FileManager.default.fileExists(atPath: first + "-new"))
        try session.wait(for: "the subscriber to hear of the failed reload and the action") { events(log).count >= 2 }
        let said = events(log)
        #expect(said.first?["type"] as? String == "reload" && said.first?["ok"] as? Bool == false, "\(said)")
        #expect((said.first?["error"] as? String)?.hasPrefix("\(config.path):9:8: error:") == true, "\(said)")
        #expect(said.contains { $0["type"] as? String == "action" && $0["trigger"] as? String == "keys Ctrl+Alt+r" }, "\(said)")
    }

    @Test("SIGHUP reloads the file: the chord runs its new command")
    func sighupReloads() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("touch-router-hup-\(getpid())-\(UUID().uuidString.prefix(6))").path
        defer { for suffix in ["-old", "-new"] { try? FileManager.default.removeItem(atPath: base + suffix) } }
        let config = try ConfigFile("[[bind]]\nkeys = \"Super+h\"\naction = \"exec\"\ncommand = \"touch \(base)-old\"\n")
        let session = try RunningSession(arguments: ["--config", config.path])
        defer { _ = session.terminate() }
        let log = try subscribe(session, ["reload"])
        try config.write("[[bind]]\nkeys = \"Super+h\"\naction = \"exec\"\ncommand = \"touch \(base)-new\"\n")
        kill(session.process.processIdentifier, SIGHUP)
        try session.wait(for: "the reload") { events(log).first?["ok"] as? Bool == true }
        #expect(events(log).first?["file"] as? String == config.path)
        try session.inject(chord(["KEY_LEFTMETA", "KEY_H"]))
        try session.wait(for: "the new command") { FileManager.default.fileExists(atPath: base + "-new") }
        #expect(!FileManager.default.fileExists(atPath: base + "-old"))
        #expect(session.process.isRunning, "SIGHUP does not end the session")
    }

    @Test("msg subscribe streams a client's connect and disconnect and the focus changes, one JSON object a line; an unknown type is refused")
    func subscribeClientsAndFocus() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let refused = try ToolRun(["msg", "--socket", session.controlSocket, "subscribe", "focus", "weather"])
        #expect(refused.status == 1)
        #expect(refused.output.contains("subscribe: 'weather' is not an event type: expected any of gesture, action, emit, focus, client, unhandled, reload, idle, lock, app, or none for all"), "\(refused.output)")

        let log = try subscribe(session, ["client", "focus"])
        #expect(RunningSession.text(of: log).hasPrefix("{\"ok\":true,\"subscribed\":[\"focus\",\"client\"]}\n"))
        let wevLog = session.file("wev.log")
        let wev = try session.client(["wev"], output: wevLog)
        try session.wait(for: "wev to take the keyboard focus") { try session.msg("focus").json["keyboard"] as? Int != nil }
        let surface = try session.msg("focus").json["keyboard"] as? Int
        kill(wev.processIdentifier, SIGKILL)
        wev.waitUntilExit()
        try session.wait(for: "the disconnect") { events(log).contains { $0["change"] as? String == "disconnected" } }
        try session.wait(for: "the focus to leave") { events(log).filter { $0["type"] as? String == "focus" }.count >= 2 }
        let said = events(log)
        let connect = said.firstIndex { $0["type"] as? String == "client" && $0["change"] as? String == "connected" }
        let focus = said.firstIndex { $0["type"] as? String == "focus" && $0["to"] as? Int == surface }
        let unfocus = said.firstIndex { $0["type"] as? String == "focus" && $0["to"] is NSNull && $0["from"] as? Int == surface }
        let disconnect = said.firstIndex { $0["type"] as? String == "client" && $0["change"] as? String == "disconnected" }
        #expect(connect != nil && focus != nil && unfocus != nil && disconnect != nil, "\(said)")
        if let connect, let focus, let disconnect {
            #expect(connect < focus && focus < disconnect, "\(said)")
            #expect(said[connect]["pid"] as? Int == Int(wev.processIdentifier), "\(said)")
            #expect(said[focus]["app_id"] as? String == "wev", "\(said)")
        }
        #expect(!said.contains { $0["type"] as? String == "unhandled" }, "only the types asked for: \(said)")
    }

    @Test("chords bound to focus-next, toggle-ignore-interaction and close: the focus goes to the other wev, touches are ignored and then not, and the focused wev is asked to close")
    func windowActions() throws {
        let config = try ConfigFile("""
            [[bind]]
            keys = "Super+n"
            action = "focus-next"
            [[bind]]
            keys = "Super+i"
            action = "toggle-ignore-interaction"
            [[bind]]
            keys = "Super+c"
            action = "close"
            """)
        let session = try RunningSession(arguments: ["--config", config.path])
        defer { _ = session.terminate() }
        let firstLog = session.file("wev-1.log"), secondLog = session.file("wev-2.log")
        let first = try session.client(["wev"], output: firstLog)
        try session.wait(for: "the first wev to map") { try session.toplevels().count == 1 }
        let firstID = try session.toplevels()[0]["id"] as? Int
        _ = try session.client(["wev"], output: secondLog)
        try session.wait(for: "the second wev to map and take the focus") {
            try session.toplevels().count == 2 && session.msg("focus").json["keyboard"] as? Int != firstID
        }
        try session.inject(chord(["KEY_LEFTMETA", "KEY_N"]))
        try session.wait(for: "the focus to go to the first wev") { try session.msg("focus").json["keyboard"] as? Int == firstID }

        try session.inject(chord(["KEY_LEFTMETA", "KEY_I"]) + ["touch down 0 10 10", "touch frame", "touch up 0", "touch frame"])
        try session.inject(chord(["KEY_LEFTMETA", "KEY_I"]) + ["touch down 1 12 12", "touch frame", "touch up 1", "touch frame"])
        try session.wait(for: "the touch after the second toggle") { RunningSession.text(of: firstLog).contains("wl_touch] up") }
        let touched = RunningSession.text(of: firstLog)
        #expect(!touched.contains("id: 0;"), "the touch while interaction was ignored never reached wev")
        #expect(touched.contains("id: 1;"))

        try session.inject(chord(["KEY_LEFTMETA", "KEY_C"]))
        try session.wait(for: "the first wev to close") { !first.isRunning }
        try session.wait(for: "its window to leave") { try session.toplevels().count == 1 }
        #expect(RunningSession.text(of: firstLog).contains("xdg_toplevel] close"))
        #expect(!RunningSession.text(of: secondLog).contains("xdg_toplevel] close"), "only the focused toplevel is asked")
    }

    @Test("switches reach the shell link: lid on and off run their bindings, an unbound tablet-mode switch is reported as unhandled")
    func switches() throws {
        let config = try ConfigFile("""
            [[bind]]
            switch = "lid"
            action = "emit"
            event = "lid-closed"
            [[bind]]
            switch = "lid"
            state = "off"
            action = "emit"
            event = "lid-opened"
            """)
        let session = try RunningSession(arguments: ["--config", config.path])
        defer { _ = session.terminate() }
        let log = try subscribe(session, ["emit", "unhandled"])
        try session.inject(["switch lid on", "switch lid off", "switch tablet-mode on"])
        try session.wait(for: "three events") { events(log).count >= 3 }
        #expect(RunningSession.text(of: log).split(separator: "\n").dropFirst().map(String.init) == [
            "{\"type\":\"emit\",\"event\":\"lid-closed\"}",
            "{\"type\":\"emit\",\"event\":\"lid-opened\"}",
            "{\"type\":\"unhandled\",\"event\":\"switch tablet-mode on\"}",
        ])
    }

    @Test("the keyboard's layout comes from the file, and a reload sends every keyboard the new keymap")
    func keyboardLayout() throws {
        let config = try ConfigFile("[keyboard]\nlayout = \"us\"\n")
        let session = try RunningSession(arguments: ["--config", config.path])
        defer { _ = session.terminate() }
        let wev = try startWev(session)
        try session.inject(["key press KEY_Y", "key release KEY_Y"])
        try session.wait(for: "y under us") { RunningSession.text(of: wev).contains("sym: y ") }
        try config.write("[keyboard]\nlayout = \"de\"\n")
        #expect(try session.msg("reload").status == 0)
        try session.inject(["key press KEY_Y", "key release KEY_Y"])
        try session.wait(for: "z under de, where Y and Z trade places") { RunningSession.text(of: wev).contains("sym: z ") }
    }

    @Test("repeat-rate and repeat-delay reach every keyboard as wl_keyboard.repeat_info, sway's 25/s and 600 ms by default, again on a reload")
    func keyRepeat() throws {
        let config = try ConfigFile("[keyboard]\nrepeat-rate = 40\nrepeat-delay = 250\n")
        let session = try RunningSession(arguments: ["--config", config.path])
        defer { _ = session.terminate() }
        let wev = try startWev(session)
        try session.wait(for: "wev to be told 40/s after 250 ms") { RunningSession.text(of: wev).contains("rate: 40 keys/sec; delay: 250 ms") }
        #expect(!RunningSession.text(of: wev).contains("rate: 25 keys/sec"))
        try config.write("[keyboard]\n")
        #expect(try session.msg("reload").status == 0)
        try session.wait(for: "wev to be told the defaults after the reload") { RunningSession.text(of: wev).contains("rate: 25 keys/sec; delay: 600 ms") }
    }

    @Test("a subscriber that stops reading loses events and is told how many, is never closed as idle, and never stalls the session")
    func slowSubscriber() throws {
        let session = try RunningSession(environment: ["TOUCH_ROUTER_CONTROL_IDLE_SECONDS": "2"])
        defer { _ = session.terminate() }
        let log = session.file("control-slow-subscribe.log")
        let client = try session.client(["python3", ControlSocketTests.controlClient, session.controlSocket, "slow-subscribe"], output: log)
        client.waitUntilExit()
        let said = RunningSession.text(of: log).split(separator: "\n").map(String.init)
        #expect(client.terminationStatus == 0, "\(said)")
        let lost = said.first { $0.hasPrefix("lost line: ") }.map { String($0.dropFirst("lost line: ".count)) } ?? ""
        let count = (try? JSONSerialization.jsonObject(with: Data(lost.utf8)) as? [String: Any])?["lost"] as? Int ?? 0
        #expect(count > 0, "\(said)")
        #expect(said.contains("last: {\"type\":\"unhandled\",\"event\":\"touch down 1 5 5\"}"), "the stream goes on after the count: \(said)")
        #expect(try session.msg("focus").status == 0)
    }

    @Test("an app policy keyboard-focus = false keeps the focus off that app, at map and when touched; its keys go nowhere")
    func keyboardFocusPolicy() throws {
        let config = try ConfigFile("[app.\"wev\"]\nkeyboard-focus = false\n")
        let session = try RunningSession(arguments: ["--config", config.path])
        defer { _ = session.terminate() }
        let wev = try startWev(session, focused: false)
        let position = try session.toplevels()[0]["position"] as? [Int] ?? [0, 0]
        try session.inject(["touch down 0 \(position[0] + 50) \(position[1] + 50)", "touch frame", "touch up 0", "touch frame", "key press KEY_A", "key release KEY_A"])
        try session.wait(for: "wev to get the touch") { RunningSession.text(of: wev).contains("wl_touch] up") }
        #expect(try session.msg("focus").json["keyboard"] is NSNull, "no focus, after the map and after the touch")
        #expect(!RunningSession.text(of: wev).contains("wl_keyboard] enter"))
        #expect(!RunningSession.text(of: wev).contains("key: 38"))
    }

    @Test("an app policy touch = false makes the router treat the app as having no wl_touch: a touch reaches wev as pointer emulation")
    func touchPolicy() throws {
        let config = try ConfigFile("[app.\"wev\"]\ntouch = false\n")
        let session = try RunningSession(arguments: ["--config", config.path])
        defer { _ = session.terminate() }
        let wev = try startWev(session)
        let position = try session.toplevels()[0]["position"] as? [Int] ?? [0, 0]
        try session.inject(["touch down 0 \(position[0] + 50) \(position[1] + 50)", "touch frame", "touch up 0", "touch frame"])
        try session.wait(for: "wev to get the emulated button") { RunningSession.text(of: wev).contains("button: 272 (left), state: 0 (released)") }
        #expect(!RunningSession.text(of: wev).contains("wl_touch]"))
    }

    /// Waits for the lead's arena (RouterGestures.swift is stubs until then): it fails before.
    @Test("an edge swipe from a hold zone, bound to emit, reaches subscribers as gesture states and the emit, and wev under it sees no touch")
    func edgeSwipeEmits() throws {
        let config = try ConfigFile("""
            [[hold.zone]]
            edges = ["left"]
            width = 40
            [[recognizer]]
            name = "admin-swipe"
            kind = "screen-edge-pan"
            edges = ["left"]
            zone-width = 40
            [[bind]]
            gesture = "admin-swipe"
            action = "emit"
            event = "admin"
            """)
        let session = try RunningSession(arguments: ["--kiosk", "--config", config.path])
        defer { _ = session.terminate() }
        let wev = try startWev(session)
        let log = try subscribe(session, ["gesture", "emit"])
        var steps = ["touch down 0 5 500", "touch frame"]
        for x in stride(from: 25, through: 400, by: 25) { steps += ["touch motion 0 \(x) 500", "touch frame"] }
        try session.inject(steps + ["touch up 0", "touch frame", "key press KEY_B", "key release KEY_B"])
        try session.wait(for: "the emit") { events(log).contains { $0["type"] as? String == "emit" && $0["event"] as? String == "admin" } }
        let states = events(log).filter { $0["type"] as? String == "gesture" && $0["name"] as? String == "admin-swipe" }.compactMap { $0["state"] as? String }
        #expect(states.first == "began" && states.last == "ended", "\(states)")
        try session.wait(for: "wev to get the key after the swipe") { RunningSession.text(of: wev).contains("key: 56; state: 0 (released)") }
        #expect(!RunningSession.text(of: wev).contains("wl_touch]"), "the swipe began in a hold zone and was recognized: wev gets nothing of it")
    }
}
