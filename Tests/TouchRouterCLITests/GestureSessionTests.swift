import Foundation
import Testing

/// The gesture arena in a live session, with Debian's wev, a Qt 5 application and the
/// touch-router-input-v1 test client: what a client sees when the compositor claims,
/// holds or is handed a touch sequence.
@Suite("Gestures in a real session: claims, holds, the finger rule and rejection, with real clients", .serialized)
struct GestureSessionTests {
    typealias ConfigFile = ConfigurationSessionTests.ConfigFile

    static let edgeSwipe = """
        [[recognizer]]
        name = "admin-swipe"
        kind = "screen-edge-pan"
        edges = ["left"]
        zone-width = 40
        """

    private func startWev(_ session: RunningSession) throws -> URL {
        let log = session.file("wev.log")
        _ = try session.client(["wev"], output: log)
        try session.wait(for: "wev to map") { try session.toplevels().first?["mapped"] as? Bool == true }
        return log
    }

    private func swipe(from x: Int, _ y: Int, id: Int = 0) -> [String] {
        var steps = ["touch down \(id) \(x) \(y)", "touch frame"]
        for step in stride(from: x + 25, through: x + 300, by: 25) { steps += ["touch motion \(id) \(step) \(y)", "touch frame"] }
        return steps + ["touch up \(id)", "touch frame"]
    }

    @Test("an edge swipe with no hold-back zone: wev gets its down at once, then wl_touch.cancel when the swipe is recognized, and nothing more of it")
    func edgeSwipeOutsideZoneCancels() throws {
        let config = try ConfigFile(Self.edgeSwipe)
        let session = try RunningSession(arguments: ["--kiosk", "--config", config.path])
        defer { _ = session.terminate() }
        let wev = try startWev(session)
        try session.inject(swipe(from: 5, 500) + ["key press KEY_B", "key release KEY_B"])
        try session.wait(for: "wev to get the key after the swipe") { RunningSession.text(of: wev).contains("key: 56; state: 0 (released)") }
        let touch = RunningSession.text(of: wev).split(separator: "\n").filter { $0.contains("wl_touch]") }.map { line in
            line.contains("] down") ? "down" : line.contains("] motion") ? "motion" : line.contains("] up") ? "up" : line.contains("] cancel") ? "cancel" : "frame"
        }.filter { $0 != "frame" }
        #expect(touch.first == "down", "\(touch)")
        #expect(touch.contains("cancel"), "the recognized swipe cancels wev's touch: \(touch)")
        #expect(!touch.contains("up"), "nothing after the cancel: \(touch)")
        #expect(touch.last == "cancel", "\(touch)")
    }

    /// The Qt form mapped in a session with `config`; its log and the button's layout position.
    private func startQtForm(_ session: RunningSession) throws -> (log: URL, x: Int, y: Int) {
        let log = session.file("qt.log")
        let form = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/qt-form.py").path
        // WAYLAND_DEBUG puts every event Qt receives in its log, beside what it prints.
        _ = try session.client(["/usr/bin/python3", form], output: log,
                               environment: ["QT_QPA_PLATFORM": "wayland", "QT_WAYLAND_DISABLE_WINDOWDECORATION": "1", "WAYLAND_DEBUG": "client"])
        var button: [Int] = []
        try session.wait(for: "the Qt window to map and say where its button is") {
            button = RunningSession.text(of: log).split(separator: "\n").first { $0.hasPrefix("button ") }?.split(separator: " ").dropFirst().compactMap { Int($0) } ?? []
            return try button.count == 2 && session.toplevels().first?["mapped"] as? Bool == true
        }
        let position = try session.toplevels()[0]["position"] as? [Int] ?? [0, 0]
        return (log, position[0] + button[0], position[1] + button[1])
    }

    private func clicks(_ log: URL) -> Int { RunningSession.lines(of: log).filter { $0 == "tapped" }.count }
    private func touchEvents(_ log: URL) -> [String] {
        RunningSession.lines(of: log).filter { $0.contains("wl_touch@") && !$0.contains("get_touch") && !$0.contains(".frame(") }
    }
    private func drag(_ id: Int, _ x: Int, _ y: Int) -> [String] {
        ["touch down \(id) \(x) \(y)", "touch frame", "touch motion \(id) \(x + 30) \(y)", "touch frame",
         "touch motion \(id) \(x + 40) \(y)", "touch frame", "touch up \(id)", "touch frame"]
    }

    @Test("a GTK 3 application (zenity) whose touch on its Yes button a pan claimed gets wl_touch.cancel and nothing more, does not answer, and its next tap answers Yes")
    func gtkAfterCancel() throws {
        let config = try ConfigFile("[[recognizer]]\nname = \"drag\"\nkind = \"pan\"\nslop = 20\n")
        let session = try RunningSession(arguments: ["--config", config.path])
        defer { _ = session.terminate() }
        let log = session.file("zenity.log")
        let zenity = try session.client(["zenity", "--question", "--text", "Go on?"], output: log, environment: ["GDK_BACKEND": "wayland", "WAYLAND_DEBUG": "client"])
        var window: [String: Any] = [:]
        try session.wait(for: "zenity to map") {
            window = try session.toplevels().first ?? [:]
            return window["mapped"] as? Bool == true
        }
        // Adwaita's client-side shadow is 26 px wide and 23 px high around the window; Yes is
        // the right-hand button of the bottom row.
        let (x, y) = (window.position[0] + window.size[0] - 26 - 48, window.position[1] + window.size[1] - 23 - 23)
        try session.inject(drag(0, x, y))
        try session.wait(for: "zenity to get the cancel") { touchEvents(log).contains { $0.contains(".cancel(") } }
        usleep(300_000)
        let events = touchEvents(log)
        #expect(events.count == 2 && events[0].contains(".down(") && events[1].contains(".cancel("), "down, then cancel, and nothing more: \(events)")
        #expect(zenity.isRunning, "a cancelled touch must not press Yes")
        try session.inject(["touch down 1 \(x) \(y)", "touch frame", "touch up 1", "touch frame"])
        try session.wait(for: "the next tap to answer") { !zenity.isRunning }
        #expect(!zenity.isRunning && zenity.terminationReason == .exit && zenity.terminationStatus == 0, "Yes")
    }

    @Test("in a hold-back zone the same drag never reaches Qt at all, so it cannot click; a tap there reaches it late but whole, and clicks once")
    func qtInHoldZone() throws {
        let config = try ConfigFile("""
            [[hold.zone]]
            rect = [0, 0, 600, 400]
            [[recognizer]]
            name = "drag"
            kind = "pan"
            slop = 20
            """)
        let session = try RunningSession(arguments: ["--config", config.path])
        defer { _ = session.terminate() }
        let (log, x, y) = try startQtForm(session)
        try session.inject(drag(0, x, y))
        try session.wait(for: "the drag to end") { (try session.msg("focus").json["touches"] as? [Any])?.isEmpty == true }
        usleep(300_000)
        #expect(touchEvents(log).isEmpty, "a claimed touch held in a zone reaches Qt not at all: \(touchEvents(log))")
        #expect(clicks(log) == 0)
        try session.inject(["touch down 1 \(x) \(y)", "touch frame", "touch up 1", "touch frame"])
        try session.wait(for: "the tap to click the button") { clicks(log) == 1 }
        let events = touchEvents(log)
        #expect(events.count == 2 && events[0].contains(".down(") && events[1].contains(".up("), "\(events)")
    }

    @Test("the finger rule: four fingers on wev reach it not at all, not even the first three; a tap afterwards reaches it whole")
    func fingerRule() throws {
        let config = try ConfigFile("""
            [gestures]
            finger-limit = 4
            [hold]
            limit-ms = 3000
            [[recognizer]]
            name = "secret"
            kind = "tap"
            touches = 4
            maximum-press-ms = 5000
            [[bind]]
            gesture = "secret"
            action = "emit"
            event = "secret-tap"
            """)
        let session = try RunningSession(arguments: ["--kiosk", "--config", config.path])
        defer { _ = session.terminate() }
        let wev = try startWev(session)
        let subscriber = try session.subscribe(["emit"])
        try session.inject(["touch down 0 100 100", "touch down 1 200 100", "touch down 2 300 100", "touch frame",
                            "touch down 3 400 100", "touch frame", "touch up 0", "touch up 1", "touch up 2", "touch up 3", "touch frame"])
        try session.wait(for: "the secret tap's emit") { RunningSession.text(of: subscriber).contains("secret-tap") }
        try session.inject(["touch down 5 300 300", "touch frame", "touch up 5", "touch frame", "key press KEY_B", "key release KEY_B"])
        try session.wait(for: "wev to get the key") { RunningSession.text(of: wev).contains("key: 56; state: 0 (released)") }
        let touch = RunningSession.text(of: wev).split(separator: "\n").filter { $0.contains("wl_touch]") && !$0.contains("] frame") }
        #expect(touch.count == 2, "only the later tap's down and up: \(touch)")
        #expect(touch.first?.contains("] down") == true && touch.first?.contains("id: 5") == true, "\(touch)")
    }

    @Test("a client of touch-router-input-v1 that rejects a touch gets cancel, and the sequence goes on to the compositor's responders behind it")
    func rejectGoesToResponders() throws {
        let config = try ConfigFile("[[bind]]\nkeys = \"Ctrl+Alt+BackSpace\"\naction = \"quit\"\n")
        let session = try RunningSession(arguments: ["--config", config.path])
        defer { _ = session.terminate() }
        let subscriber = try session.subscribe(["unhandled"])
        let trace = try session.startTrace()
        let (log, window) = try session.touchInputClient(["--reject-first"], log: "client.log")
        let (x, y) = (window.position[0] + 50, window.position[1] + 50)
        try session.inject(["touch down 0 \(x) \(y)", "touch frame"])
        try session.wait(for: "rejected 0", in: log)
        try session.wait(for: "the shell delegate to be handed the rejected touch") {
            RunningSession.text(of: subscriber).contains("\"event\":\"touch down 0 \(x) \(y)\"")
        }
        try session.wait(for: "the rejection in the trace") {
            RunningSession.text(of: trace).split(separator: "\n").contains { $0.contains("\"arena\":\"rejected\"") && $0.contains("every link passed it on") }
        }
        #expect(RunningSession.lines(of: log).contains("cancel"))
    }

    @Test("wl_touch.cancel has no id: a client holding two fingers, one claimed by a recognizer on its subsurface, loses both; the trace names the one that ended with the claim; its next touch is fresh")
    func twoFingersOneClaimed() throws {
        let config = try ConfigFile("[[recognizer]]\nname = \"sub-drag\"\nkind = \"pan\"\nrole = \"subsurface\"\nslop = 10\n")
        let session = try RunningSession(arguments: ["--config", config.path])
        defer { _ = session.terminate() }
        let trace = try session.startTrace()
        let (log, window) = try session.touchInputClient(["--subsurface"], log: "client.log")
        let (x, y) = (window.position[0], window.position[1])
        // Finger 0 on the toplevel, outside the subsurface; finger 1 on the subsurface, where the pan is.
        try session.inject(["touch down 0 \(x + 10) \(y + 10)", "touch frame", "touch down 1 \(x + 100) \(y + 100)", "touch frame",
                            "touch motion 1 \(x + 130) \(y + 100)", "touch frame", "touch motion 0 \(x + 20) \(y + 10)", "touch frame",
                            "touch up 1", "touch up 0", "touch frame", "touch down 2 \(x + 10) \(y + 10)", "touch frame", "touch up 2", "touch frame"])
        try session.wait(for: "up 2", in: log)
        let lines = RunningSession.lines(of: log).filter { $0 != "frame" }
        #expect(lines.contains("down 0 10.0 10.0") && lines.contains("down 1 50.0 50.0 sub"), "\(lines)")
        let afterCancel = Array(lines.drop { $0 != "cancel" })
        #expect(afterCancel.first == "cancel", "the claim cancels the client: \(lines)")
        #expect(afterCancel.dropFirst().filter { $0.hasSuffix(" 0") || $0.contains(" 0 ") || $0.hasSuffix(" 1") || $0.contains(" 1 ") } == [],
                "nothing more of either finger after the cancel: \(lines)")
        #expect(afterCancel.contains("down 2 10.0 10.0") && afterCancel.contains("up 2"), "the next touch starts fresh: \(lines)")
        let cancelled = RunningSession.objects(of: trace).first { $0["arena"] as? String == "cancelled" }
        #expect((cancelled?["detail"] as? String)?.contains("touch 0 ends with it") == true, "\(String(describing: cancelled))")
    }

    @Test("the output's link has a responder: a tap on the background, where no client is, runs its binding; a tap on wev does not")
    func backgroundBinding() throws {
        let config = try ConfigFile("[[bind]]\nbackground = \"HEADLESS-1\"\naction = \"emit\"\nevent = \"background-tap\"\n")
        let session = try RunningSession(arguments: ["--config", config.path])
        defer { _ = session.terminate() }
        let wev = try startWev(session)
        let window = try session.toplevels()[0]
        let subscriber = try session.subscribe(["emit", "unhandled"])
        let (x, y) = (window.position[0] + 20, window.position[1] + 20)
        try session.inject(["touch down 0 \(x) \(y)", "touch frame", "touch up 0", "touch frame"])
        try session.wait(for: "wev to get the tap") { RunningSession.text(of: wev).contains("wl_touch] up") }
        try session.inject(["touch down 1 1900 1060", "touch frame", "touch up 1", "touch frame"])
        try session.wait(for: "the background's emit") { RunningSession.text(of: subscriber).contains("background-tap") }
        #expect(RunningSession.text(of: subscriber).components(separatedBy: "\"type\":\"emit\"").count == 2, "one emit, for the background tap only")
        #expect(!RunningSession.text(of: subscriber).contains("\"type\":\"unhandled\""), "the output's responder took it: it never reached the delegate")
    }

    @Test("a background binding naming an output the session does not have is an error at its [[bind]]")
    func backgroundUnknownOutput() throws {
        let config = try ConfigFile("\n[[bind]]\nbackground = \"HDMI-A-9\"\naction = \"quit\"\n")
        let run = try ToolRun(["run", "--config", config.path, "--", "true"])
        #expect(run.status == 1)
        #expect(run.errors.contains("\(config.path):2:1: error: background HDMI-A-9"), "at its [[bind]]: \(run.errors)")
        #expect(run.errors.contains("\"HDMI-A-9\" is not an output of this session"), "\(run.errors)")
    }

    @Test("a client's gesture deferral keeps the edge swipe out where it asked, and only there: a swipe from its deferred rectangle is the client's, one below it is claimed")
    func deferralInSession() throws {
        let config = try ConfigFile(Self.edgeSwipe)
        let session = try RunningSession(arguments: ["--config", config.path])
        defer { _ = session.terminate() }
        let (log, window) = try session.touchInputClient(["--size", "400x400", "--defer", "0,0,40,200"], log: "client.log")
        #expect(window.position[0] == 0, "the window must touch the output's left edge: \(window)")
        let y = window.position[1]
        try session.inject(swipe(from: 5, y + 100, id: 0))
        try session.wait(for: "up 0", in: log)
        #expect(!RunningSession.lines(of: log).contains("cancel"), "the deferred swipe is the client's: \(RunningSession.lines(of: log))")
        try session.inject(swipe(from: 5, y + 300, id: 1))
        try session.wait(for: "cancel", in: log)
        #expect(!RunningSession.lines(of: log).contains("up 1"), "the swipe below the deferred rectangle is claimed: \(RunningSession.lines(of: log))")
    }
}
