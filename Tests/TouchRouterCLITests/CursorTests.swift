import Foundation
import Testing

@Suite("The compositor's cursor: drawn while a pointer moves, gone at a touch", .serialized)
struct CursorTests {
    func shot(_ session: RunningSession, _ name: String, _ points: [(Int, Int)]) throws -> [String] {
        let path = session.file(name).path
        let run = try ToolRun(["msg", "--socket", session.controlSocket, "screenshot", path])
        #expect(run.status == 0, "\(run.output)")
        return try DecodedPNG(path, points: points).colours
    }

    @Test("No cursor before any pointer input; pointer motion draws the arrow with its tip at the pointer; a touch hides it; pointer motion brings it back elsewhere")
    func showAndHide() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        // The tip (black outline), a pixel inside the arrow (white), one beside it (background).
        let probes = { (x: Int, y: Int) in [(x, y), (x + 1, y + 4), (x + 8, y + 2)] }
        let background = ScreenshotTests.background
        #expect(try shot(session, "none.png", probes(400, 300)) == [background, background, background])
        try session.inject(["pointer motion 400 300"])
        #expect(try shot(session, "moved.png", probes(400, 300)) == ["000000", "ffffff", background])
        try session.inject(["touch down 0 900 700", "touch frame", "touch up 0", "touch frame"])
        #expect(try shot(session, "touched.png", probes(400, 300)) == [background, background, background])
        try session.inject(["pointer motion 100 50"])
        #expect(try shot(session, "again.png", probes(100, 50) + probes(400, 300)) == ["000000", "ffffff", background, background, background, background])
    }
}

@Suite("The cursor hides after [cursor] hide-after-ms without pointer activity", .serialized)
struct CursorIdleTests {
    @Test("With hide-after-ms = 1500: drawn at pointer motion, gone 3 s later with no other input")
    func hidesWhenIdle() throws {
        let configuration = FileManager.default.temporaryDirectory.appendingPathComponent("cursor-\(getpid()).toml")
        try "[cursor]\nhide-after-ms = 1500\n".write(to: configuration, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: configuration) }
        let session = try RunningSession(arguments: ["--config", configuration.path])
        defer { _ = session.terminate() }
        let tests = CursorTests()
        try session.inject(["pointer motion 200 200"])
        #expect(try tests.shot(session, "moved.png", [(200, 200)]) == ["000000"])
        usleep(3_000_000)
        #expect(try tests.shot(session, "idle.png", [(200, 200)]) == [ScreenshotTests.background])
    }
}
