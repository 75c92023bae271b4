import Foundation
import Testing

/// Issue 14's proof of a touch-started interactive move, with a real toolkit client: GTK 3's
/// `zenity --info`, whose client-side title bar calls xdg_toplevel.move when a finger drags
/// it. (Debian 12's foot, 1.13, binds no wl_touch at all: it cannot start a move by touch.)
/// The client's own WAYLAND_DEBUG log says what it asked for and what it was sent.
@Suite("A touch-started interactive move with a real toolkit client (zenity, GTK 3)")
struct TouchMoveTests {
    /// One line of the client's WAYLAND_DEBUG log, as `[time] message` or `[time]  -> request`.
    static func messages(_ log: URL) -> [String] {
        RunningSession.text(of: log).split(separator: "\n").map(String.init).filter { $0.hasPrefix("[") }
    }

    @Test("a finger dragging zenity's title bar starts xdg_toplevel.move with its down's serial; the client gets wl_touch.cancel and nothing more of that finger; the window moves by exactly the finger's travel from there; the moved window's OK button takes the next tap")
    func gtkTitleBarDrag() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let log = session.file("zenity.log")
        let zenity = try session.client(["zenity", "--info", "--text=Hi"], output: log, environment: ["GDK_BACKEND": "wayland", "WAYLAND_DEBUG": "1"])
        // The window geometry inside the buffer (GTK's shadow is around it), from the client's own request.
        var geometry: [Int] = []
        try session.wait(for: "zenity to map and set its window geometry") {
            geometry = Self.messages(log).last { $0.contains(".set_window_geometry(") }?
                .firstMatch(of: /set_window_geometry\((-?\d+), (-?\d+), (\d+), (\d+)\)/).map { [Int($0.1)!, Int($0.2)!, Int($0.3)!, Int($0.4)!] } ?? []
            return try geometry.count == 4 && session.toplevels().first?["mapped"] as? Bool == true
        }
        guard geometry.count == 4 else { return }
        let start = try session.toplevels()[0]["position"] as? [Int] ?? [-1, -1]
        let trace = try session.startTrace()

        // The title bar is the window geometry's top 36 pixels or so; the close button is at its right end.
        let down = (x: start[0] + geometry[0] + 50, y: start[1] + geometry[1] + 16)
        try session.inject(["touch down 0 \(down.x) \(down.y)", "touch frame"])
        try session.wait(for: "zenity to get the touch down") { Self.messages(log).contains { $0.contains("wl_touch@") && $0.contains(".down(") } }
        // GTK starts the move once the finger is past its drag threshold (8 pixels).
        let taken = (x: down.x + 12, y: down.y)
        try session.inject(["touch motion 0 \(taken.x) \(taken.y)", "touch frame"])
        try session.wait(for: "zenity to ask for the move and be sent wl_touch.cancel") {
            Self.messages(log).contains { $0.contains(".move(") } && Self.messages(log).contains { $0.contains("wl_touch@") && $0.contains(".cancel()") }
        }
        let messages = Self.messages(log)
        let downSerial = messages.first { $0.contains("wl_touch@") && $0.contains(".down(") }?.firstMatch(of: /\.down\((\d+),/).map { String($0.1) }
        let move = try #require(messages.firstIndex { $0.contains("-> xdg_toplevel@") && $0.contains(".move(") }, "\(messages)")
        #expect(downSerial != nil && messages[move].hasSuffix(", \(downSerial!))"), "the move carries the touch down's serial: \(messages[move]), down serial \(String(describing: downSerial))")
        let cancel = try #require(messages.firstIndex { $0.contains("wl_touch@") && $0.hasSuffix(".cancel()") })
        #expect(cancel > move, "the cancel answers the move")
        #expect(try session.toplevels()[0]["position"] as? [Int] == start, "the threshold's travel, before the move, does not move the window")

        // The finger travels (+120, +80) in steps, a little apart, from where the move took it.
        for step in 1...4 {
            try session.inject(["touch motion 0 \(taken.x + 30 * step) \(taken.y + 20 * step)", "touch frame"])
            usleep(30_000)
        }
        let moved = [start[0] + 120, start[1] + 80]
        try session.wait(for: "the window to follow the finger") { try session.toplevels()[0]["position"] as? [Int] == moved }
        try session.inject(["touch up 0", "touch frame"])
        try session.wait(for: "the move's touch up in the trace") {
            RunningSession.objects(of: trace).contains { $0["event"] as? String == "touch up 0" }
        }
        #expect(try session.toplevels()[0]["position"] as? [Int] == moved, "moved by exactly the finger's travel, (+120, +80)")

        // Nothing more of finger 0 reached the client after the cancel: not its motions, not its up.
        let afterCancel = Self.messages(log).dropFirst(cancel + 1).filter { $0.contains("wl_touch@") }
        #expect(afterCancel.isEmpty, "nothing of the moving finger after wl_touch.cancel: \(afterCancel)")
        // The session's trace agrees: the touch went to the output's move responder, and its motions and up were handled there, delivered to no client.
        let objects = RunningSession.objects(of: trace)
        let rejected = objects.firstIndex { $0["arena"] as? String == "rejected" && $0["touches"] as? [Int] == [0] }
        #expect(rejected != nil && (objects[rejected!]["detail"] as? String)?.contains("compositor's responder") == true, "\(objects)")
        let afterRejection = objects.dropFirst((rejected ?? 0) + 1).filter { ($0["event"] as? String)?.hasPrefix("touch motion 0") == true || $0["event"] as? String == "touch up 0" }
        #expect(afterRejection.count == 5, "four motions and the up: \(afterRejection)")
        #expect(afterRejection.allSatisfy { $0["outcome"] as? String == "handled" && ($0["deliveries"] as? [Any])?.isEmpty == true }, "\(afterRejection)")

        // The session goes on, and the window, where it now is, takes touches: a tap on OK (bottom right of the window geometry) ends zenity with 0.
        #expect(session.process.isRunning)
        #expect(try session.msg("tree").json["ok"] as? Bool == true)
        let ok = (x: geometry[0] + geometry[2] - 50, y: geometry[1] + geometry[3] - 25)
        try session.inject(["touch down 1 \(moved[0] + ok.x) \(moved[1] + ok.y)", "touch frame", "touch up 1", "touch frame"])
        try session.wait(for: "zenity to close from its OK button") { !zenity.isRunning }
        #expect(Self.messages(log).contains { $0.contains(".down(") && $0.hasSuffix(", 1, \(ok.x).00000000, \(ok.y).00000000)") },
                "the tap reached the moved window at its surface-local point: \(Self.messages(log).filter { $0.contains("wl_touch@") })")
        #expect(!zenity.isRunning && zenity.terminationReason == .exit && zenity.terminationStatus == 0)
        try session.wait(for: "zenity's window to leave the tree") { try session.toplevels().isEmpty }
        #expect(session.process.isRunning, "the session outlives its client")
    }
}
