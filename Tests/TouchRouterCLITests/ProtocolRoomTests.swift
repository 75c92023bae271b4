import Foundation
import Testing

/// The protocols with rooms of their own (Sources/TouchRouterProtocols/), driven at
/// the wire by Clients/protocol-rooms.py in a running session.
@Suite("Protocol rooms: decorations, fractional scale, activation and idle inhibitors at the wire", .serialized)
struct ProtocolRoomTests {
    static let client = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/protocol-rooms.py").path

    /// Runs a mode to its end; its output.
    private func run(_ mode: String, kiosk: Bool = false) throws -> (status: Int32, output: String) {
        let session = try RunningSession(arguments: kiosk ? ["--kiosk"] : [])
        defer { _ = session.terminate() }
        let log = session.file("\(mode).log")
        let client = try session.client(["python3", Self.client, mode], output: log)
        client.waitUntilExit()
        return (client.terminationStatus, RunningSession.text(of: log))
    }

    @Test("decorations in kiosk mode: xdg-decoration server-side whatever the client asks, each configure followed by xdg_surface's; KDE's server-side at first, then the mode the client requests (GTK 3 asks again at each other answer); a second xdg-decoration object for one toplevel is already_constructed")
    func decorationInKiosk() throws {
        let (status, output) = try run("decoration", kiosk: true)
        #expect(status == 0, "\(output)")
        #expect(output.contains("kde default_mode 2\n") && output.contains("kde mode 2\nkde mode 1\n"), "\(output)")
        #expect(output.contains("xdg-decoration configure 2\nxdg_surface configure\nxdg-decoration configure 2\nxdg_surface configure\n"), "\(output)")
        #expect(output.contains("get_toplevel_decoration: xdg_toplevel@") && output.contains("has one already"), "\(output)")
    }

    @Test("without --kiosk neither decoration global is offered: clients decorate their windows themselves")
    func noDecorationOutsideKiosk() throws {
        let (status, output) = try run("decoration")
        #expect(status == 0 && output == "decoration globals offered: none\n", "\(output)")
    }

    @Test("fractional scale: 120 (scale 1) at once; a second object for a surface while one lives is fractional_scale_exists")
    func fractionalScale() throws {
        let (status, output) = try run("fractional-scale")
        #expect(status == 0, "\(output)")
        #expect(output.components(separatedBy: "preferred_scale 120\n").count == 3, "one for each object made: \(output)")
        #expect(output.contains("get_fractional_scale: wl_surface@") && output.contains("has one already"), "\(output)")
    }

    @Test("activation: a token from the focused client activates the window once; used again, unknown, or from a client without the focus, it activates nothing")
    func activation() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let log = session.file("activation.log")
        let go = session.file("go")
        let client = try session.client(["python3", Self.client, "activation"], output: log, environment: ["GO_FILE": go.path])
        try session.wait(for: "the client to wait") { RunningSession.text(of: log).contains("waiting") }
        let said = RunningSession.text(of: log)
        #expect(said.contains("active B\ntoken length 32\nafter a focused client's token: active A\nafter the same token again: active A\nafter an unknown token: active A\n"), "\(said)")
        _ = try session.client(["wev"], output: session.file("wev.log"))
        try session.wait(for: "wev to map and take the focus") { try session.toplevels().count == 3 }
        _ = FileManager.default.createFile(atPath: go.path, contents: nil)
        client.waitUntilExit()
        #expect(client.terminationStatus == 0)
        #expect(RunningSession.text(of: log).contains("after an unfocused client's token: active \n"), "\(RunningSession.text(of: log))")
    }

    @Test("viewporter with a single-pixel buffer: a red 1x1 buffer shown at 300x200 makes a 300x200 window, red to its far corner; a second viewport, a 0x5 destination, and a source outside the buffer are the protocol's errors",
          arguments: ["exists", "bad-value", "out-of-buffer"])
    func viewport(error: String) throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let log = session.file("viewport.log")
        let go = session.file("go")
        let client = try session.client(["python3", Self.client, "viewport"], output: log, environment: ["GO_FILE": go.path, "VIEWPORT_ERROR": error])
        try session.wait(for: "the window") { RunningSession.text(of: log).contains("waiting") }
        let window = try #require(try session.toplevels().first)
        #expect(window["size"] as? [Int] == [300, 200], "\(window)")
        let position = window["position"] as? [Int] ?? [0, 0]
        for (x, y) in [(0, 0), (150, 100), (299, 199)] {
            let argb = try session.msg("pixel", String(position[0] + x), String(position[1] + y)).json["argb"] as? String
            #expect(argb == "0xffff0000", "(\(x), \(y)) of the window: \(argb ?? "none")")
        }
        _ = FileManager.default.createFile(atPath: go.path, contents: nil)
        client.waitUntilExit()
        let said = RunningSession.text(of: log)
        #expect(client.terminationStatus == 0, "\(said)")
        let message = ["exists": "get_viewport: wl_surface@", "bad-value": "set_destination: 0x5", "out-of-buffer": "reaches outside the 1x1 buffer"][error]!
        #expect(said.contains(message), "\(said)")
    }

    @Test("presentation time on a headless output: CLOCK_MONOTONIC; a commit is presented between its commit and its receipt, at the 60 Hz refresh, as vsync; a commit superseded in the same frame, and one on a surface not shown, are discarded")
    func presentation() throws {
        let (status, output) = try run("presentation")
        #expect(status == 0, "\(output)")
        #expect(output == "clock 1\npresented within True refresh 16666666 flags 1\nsuperseded discarded, latest presented\nunshown discarded\n", "\(output)")
    }

    @Test("KDE's idle protocol (Chromium's idle detection): idle after the timeout without input, resumed by a touch, idle again, resumed by simulate_user_activity")
    func kdeIdle() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let log = session.file("kde-idle.log")
        let go = session.file("go")
        let client = try session.client(["python3", Self.client, "kde-idle"], output: log, environment: ["GO_FILE": go.path])
        try session.wait(for: "the timeout to go idle") { RunningSession.text(of: log).contains("waiting") }
        try session.inject(["touch down 0 500 500", "touch frame", "touch up 0", "touch frame"])
        _ = FileManager.default.createFile(atPath: go.path, contents: nil)
        client.waitUntilExit()
        #expect(client.terminationStatus == 0)
        #expect(RunningSession.text(of: log) == "idle after at least 300 ms: True\nwaiting\nresumed\nidle\nresumed\n", "\(RunningSession.text(of: log))")
    }

    @Test("weston-scaler (Weston's viewporter demo) takes the size its viewport says in each mode, and shows what its help says: -b a blue box, -d a squashed red one with the blue inside, -s -b's box small",
          arguments: [("-b", [220, 308], [(110, 150, "0xff0000ff")]), ("-d", [220, 308], [(110, 250, "0xffff0000"), (25, 50, "0xff0000ff")]),
                      ("-s", [55, 77], [(27, 38, "0xff0000ff")])] as [(String, [Int], [(Int, Int, String)])])
    func westonScaler(mode: String, size: [Int], pixels: [(Int, Int, String)]) throws {
        let session = try RunningSession(arguments: ["--output", "640x480"])
        defer { _ = session.terminate() }
        _ = try session.client(["weston-scaler", mode], output: session.file("scaler.log"))
        try session.wait(for: "weston-scaler at its viewport's size") { try session.toplevels().first?["size"] as? [Int] == size }
        let position = try session.toplevels().first?["position"] as? [Int] ?? [0, 0]
        for (x, y, argb) in pixels {
            try session.wait(for: "\(argb) at (\(x), \(y)) of the window") {
                try session.msg("pixel", String(position[0] + x), String(position[1] + y)).json["argb"] as? String == argb
            }
        }
    }

    @Test("idle inhibitors: msg tree lists each with its surface while it lives, shown or not")
    func idleInhibit() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let log = session.file("idle.log")
        let go = session.file("go")
        _ = try session.client(["python3", Self.client, "idle-inhibit"], output: log, environment: ["GO_FILE": go.path])
        try session.wait(for: "the inhibitor") { RunningSession.text(of: log).contains("waiting") }
        let inhibitors = try session.msg("tree").json["idle_inhibitors"] as? [[String: Any]] ?? []
        let surface = try session.toplevels().first?["id"] as? Int
        #expect(inhibitors.count == 1 && inhibitors.first?["surface"] as? Int == surface && inhibitors.first?["shown"] as? Bool == true, "\(inhibitors)")
        _ = FileManager.default.createFile(atPath: go.path, contents: nil)
        try session.wait(for: "the inhibitor to go") { RunningSession.text(of: log).contains("released") }
        try session.wait(for: "msg tree to list none") { (try session.msg("tree").json["idle_inhibitors"] as? [Any])?.isEmpty == true }
    }
}
