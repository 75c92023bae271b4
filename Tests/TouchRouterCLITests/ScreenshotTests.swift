import Foundation
import Testing

/// A PNG's pixels, read by Clients/png-pixel.py (Foundation on Linux decodes no PNG).
struct DecodedPNG {
    static let reader = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/png-pixel.py").path

    var size: String
    /// rrggbb for each point asked, or "outside".
    var colours: [String]

    init(_ file: String, points: [(Int, Int)], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [Self.reader, file] + points.flatMap { [String($0.0), String($0.1)] }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let lines = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n").map(String.init)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "png-pixel.py: \(errors)", sourceLocation: sourceLocation)
        size = lines.first ?? ""
        colours = Array(lines.dropFirst())
    }
}

/// Premultiplied ARGB `top` over the opaque RGB `below`, in rrggbb, as pixman's OVER rounds it.
func over(_ top: UInt32, _ below: UInt32) -> String {
    let alpha = (top >> 24) & 0xff
    let channels = [16, 8, 0].map { shift -> UInt32 in
        let t = (top >> UInt32(shift)) & 0xff, b = (below >> UInt32(shift)) & 0xff
        return min(255, t + (b * (255 - alpha) + 127) / 255)
    }
    return channels.map { String(format: "%02x", $0) }.joined()
}

/// Two rrggbb colours within one step a channel of each other (rounding in pixman's blend).
func close(_ a: String?, _ b: String) -> Bool {
    guard let a, a.count == 6, b.count == 6, let x = UInt32(a, radix: 16), let y = UInt32(b, radix: 16) else { return false }
    return [16, 8, 0].allSatisfy { abs(Int((x >> UInt32($0)) & 0xff) - Int((y >> UInt32($0)) & 0xff)) <= 1 }
}

@Suite("msg screenshot: the output composed in software with pixman, written by libpng, read back", .serialized)
struct ScreenshotTests {
    /// SoftwareComposer.background, as rrggbb.
    static let background = "2e3440"
    static let backgroundWord: UInt32 = 0x2e3440

    func screenshot(_ session: RunningSession, _ name: String, _ extra: String...) throws -> (path: String, reply: [String: Any], status: Int32) {
        let path = session.file(name).path
        let run = try ToolRun(["msg", "--socket", session.controlSocket, "screenshot", path] + extra)
        let reply = (try? JSONSerialization.jsonObject(with: Data(run.output.utf8))) as? [String: Any] ?? [:]
        return (path, reply, run.status)
    }

    /// The ARGB word `msg pixel` reads at a point of the layout.
    func argb(_ session: RunningSession, _ x: Int, _ y: Int) throws -> UInt32? {
        (try session.msg("pixel", String(x), String(y)).json["argb"] as? String).flatMap { UInt32($0.dropFirst(2), radix: 16) }
    }

    @Test("weston-simple-touch's red cross, drawn after a first screenshot, is in the second PNG where msg pixel finds it, its grey blended over the background, the background where nothing is")
    func crossInScreenshot() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        _ = try session.client(["weston-simple-touch"], output: session.file("simple-touch.log"))
        try session.wait(for: "weston-simple-touch to map") { try session.toplevels().first?["mapped"] as? Bool == true }
        let window = try session.toplevels()[0]
        let origin = window["position"] as? [Int] ?? [0, 0]
        let size = window["size"] as? [Int] ?? [0, 0]
        let (x, y) = (origin[0] + 120, origin[1] + 90)
        let grey: UInt32 = 0x4040_4040
        try session.wait(for: "the first frame") { try argb(session, x, y) == grey }
        // A first screenshot, so that the second repaints only the damage of the cross.
        let before = try screenshot(session, "before.png")
        #expect(before.status == 0, "\(before.reply)")
        #expect(close(try DecodedPNG(before.path, points: [(x, y)]).colours.first, over(grey, Self.backgroundWord)), "no cross yet")
        try session.inject(["touch down 0 \(x) \(y)", "touch frame"])
        try session.wait(for: "the cross") { try argb(session, x, y) == 0xffff_0000 }

        let (path, reply, status) = try screenshot(session, "cross.png")
        #expect(status == 0, "\(reply)")
        #expect(reply["ok"] as? Bool == true && reply["file"] as? String == path && reply["output"] as? String == "HEADLESS-1")
        #expect(reply["width"] as? Int == 1920 && reply["height"] as? Int == 1080)
        // Past the window's far corner, where `pick` finds no surface.
        let empty = (origin[0] + size[0] + 50, origin[1] + size[1] + 50)
        #expect(try session.msg("pick", String(empty.0), String(empty.1)).json["surface"] is NSNull)
        let png = try DecodedPNG(path, points: [(x, y), (x + 2, y), (x, y - 2), (x + 3, y), (x + 60, y + 60), empty, (1919, 1079)])
        #expect(png.size == "1920x1080")
        #expect(png.colours.count == 7)
        guard png.colours.count == 7 else { return }
        #expect(png.colours[0] == "ff0000", "the cross's centre")
        #expect(png.colours[1] == "ff0000" && png.colours[2] == "ff0000", "its arms")
        let blended = over(grey, Self.backgroundWord)
        #expect(close(png.colours[3], blended), "past the arms, the window's translucent grey over the background: \(png.colours[3]), not \(blended)")
        #expect(close(png.colours[4], blended), "\(png.colours[4])")
        #expect(png.colours[5] == Self.background && png.colours[6] == Self.background, "the background where nothing is: \(png.colours)")
        try session.inject(["touch up 0", "touch frame"])
    }

    @Test("wev over weston-simple-touch: the overlap shows wev; after a touch raises weston-simple-touch, its grey over wev; after wev goes, the background where it was")
    func overlappingWindowsStack() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        _ = try session.client(["weston-simple-touch"], output: session.file("simple-touch.log"))
        try session.wait(for: "weston-simple-touch to map") { try session.toplevels().first?["mapped"] as? Bool == true }
        let wevProcess = try session.client(["wev"], output: session.file("wev.log"))
        try session.wait(for: "wev to map") { try session.toplevels().count == 2 && session.toplevels()[1]["mapped"] as? Bool == true }
        let windows = try session.toplevels()
        func rect(_ window: [String: Any]) -> (x: Int, y: Int, w: Int, h: Int) {
            let p = window["position"] as? [Int] ?? [0, 0], s = window["size"] as? [Int] ?? [0, 0]
            return (p[0], p[1], s[0], s[1])
        }
        let (touch, wev) = (rect(windows[0]), rect(windows[1]))
        #expect((windows[1]["label"] as? String)?.hasPrefix("wev") == true, "wev is on top")
        // A point of both windows, and one of weston-simple-touch's only.
        let both = (max(touch.x, wev.x) + 40, max(touch.y, wev.y) + 40)
        let touchOnly = (touch.x + 4, touch.y + 4)
        // wev's far corner, past weston-simple-touch.
        let wevOnly = (wev.x + wev.w - 4, wev.y + wev.h - 4)
        #expect(wevOnly.0 >= touch.x + touch.w || wevOnly.1 >= touch.y + touch.h, "\(touch) \(wev)")
        #expect(both.0 < min(touch.x + touch.w, wev.x + wev.w) && both.1 < min(touch.y + touch.h, wev.y + wev.h), "the windows overlap: \(touch) \(wev)")
        #expect(touchOnly.0 < wev.x || touchOnly.1 < wev.y, "the shell cascades the second window: \(touch) \(wev)")
        try session.wait(for: "wev's first frame") { try argb(session, both.0, both.1).map { $0 >> 24 == 0xff } == true }
        guard let wevPixel = try argb(session, both.0, both.1) else { return }

        let first = try screenshot(session, "wev-on-top.png")
        #expect(first.status == 0, "\(first.reply)")
        let before = try DecodedPNG(first.path, points: [both])
        #expect(before.colours.first == String(format: "%06x", wevPixel & 0xff_ffff), "wev's opaque pixel hides the window below: \(before.colours)")

        // A press raises its toplevel (not in kiosk mode).
        try session.inject(["touch down 0 \(touchOnly.0) \(touchOnly.1)", "touch frame", "touch up 0", "touch frame"])
        try session.wait(for: "weston-simple-touch to be raised") { (try session.toplevels().last?["label"] as? String)?.hasPrefix("simple-touch") == true }
        let second = try screenshot(session, "simple-touch-on-top.png")
        #expect(second.status == 0, "\(second.reply)")
        let after = try DecodedPNG(second.path, points: [both, wevOnly])
        let expected = over(0x4040_4040, wevPixel & 0xff_ffff)
        #expect(close(after.colours.first, expected), "weston-simple-touch's translucent grey over wev: \(after.colours), not \(expected)")
        #expect(after.colours.last != Self.background, "wev is still there: \(after.colours)")

        // wev goes: what it covered is repainted, weston-simple-touch's grey over the background.
        kill(wevProcess.processIdentifier, SIGKILL)
        try session.wait(for: "wev to leave the tree") { try session.toplevels().count == 1 }
        let third = try screenshot(session, "wev-gone.png")
        #expect(third.status == 0, "\(third.reply)")
        let gone = try DecodedPNG(third.path, points: [both, wevOnly])
        #expect(close(gone.colours.first, over(0x4040_4040, Self.backgroundWord)) && gone.colours.last == Self.background, "\(gone.colours)")
    }

    @Test("An unknown output, a path that cannot be created, a write that fails and a FIFO: clear errors, and the session keeps running")
    func errors() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        _ = try session.client(["weston-simple-touch"], output: session.file("simple-touch.log"))
        try session.wait(for: "weston-simple-touch to map") { try session.toplevels().first?["mapped"] as? Bool == true }

        let unknown = try screenshot(session, "unknown.png", "HEADLESS-7")
        #expect(unknown.status != 0)
        #expect(unknown.reply["ok"] as? Bool == false)
        #expect(unknown.reply["error"] as? String == "screenshot: no output 'HEADLESS-7': the outputs are HEADLESS-1", "\(unknown.reply)")
        #expect(!FileManager.default.fileExists(atPath: unknown.path), "nothing is written")

        func failure(_ words: String...) throws -> String {
            let run = try ToolRun(["msg", "--socket", session.controlSocket] + words)
            #expect(run.status != 0, "\(run.output)")
            return ((try? JSONSerialization.jsonObject(with: Data(run.output.utf8))) as? [String: Any])?["error"] as? String ?? run.output
        }
        let missing = session.file("no-such-directory/shot.png").path
        #expect(try failure("screenshot", missing) == "screenshot: cannot create \(missing): No such file or directory")
        #expect(try failure("screenshot", session.runtimeDirectory) == "screenshot: cannot create \(session.runtimeDirectory): Is a directory")
        // /dev/full takes the open and refuses every write.
        #expect(try failure("screenshot", "/dev/full") == "screenshot: cannot write /dev/full: No space left on device")
        let fifo = session.file("fifo.png").path
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(try failure("screenshot", fifo).hasPrefix("screenshot: cannot create \(fifo): "), "a FIFO with no reader fails at once: the session's loop never waits")
        #expect(try failure("screenshot", "a", "b", "c") == "screenshot: expected FILE.png [OUTPUT], a path without spaces and an output name")

        // The session answers, and a good request still works, HEADLESS-1 named.
        #expect(try session.toplevels().count == 1)
        let good = try screenshot(session, "good.png", "HEADLESS-1")
        #expect(good.status == 0 && good.reply["output"] as? String == "HEADLESS-1", "\(good.reply)")
        #expect(try DecodedPNG(good.path, points: [(1919, 0)]).colours == [Self.background])
    }

    @Test("The second of two outputs: its own size, its own background, and none of the first output's windows")
    func secondOutput() throws {
        let session = try RunningSession(arguments: ["--output", "800x600", "--output", "640x480"])
        defer { _ = session.terminate() }
        _ = try session.client(["weston-simple-touch"], output: session.file("simple-touch.log"))
        try session.wait(for: "weston-simple-touch to map") { try session.toplevels().first?["mapped"] as? Bool == true }
        let origin = try session.toplevels()[0]["position"] as? [Int] ?? [0, 0]
        try session.wait(for: "the first frame") { try argb(session, origin[0] + 10, origin[1] + 10) == 0x4040_4040 }

        let first = try screenshot(session, "first.png")
        #expect(first.reply["output"] as? String == "HEADLESS-1" && first.reply["width"] as? Int == 800 && first.reply["height"] as? Int == 600, "\(first.reply)")
        let firstPNG = try DecodedPNG(first.path, points: [(origin[0] + 10, origin[1] + 10)])
        #expect(firstPNG.size == "800x600")
        #expect(close(firstPNG.colours.first, over(0x4040_4040, Self.backgroundWord)), "\(firstPNG.colours)")

        let second = try screenshot(session, "second.png", "HEADLESS-2")
        #expect(second.reply["output"] as? String == "HEADLESS-2" && second.reply["width"] as? Int == 640 && second.reply["height"] as? Int == 480, "\(second.reply)")
        let secondPNG = try DecodedPNG(second.path, points: [(origin[0] + 10, origin[1] + 10), (639, 479)])
        #expect(secondPNG.size == "640x480")
        #expect(secondPNG.colours == [Self.background, Self.background], "the window is on the first output only")
    }
}
