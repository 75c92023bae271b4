import Foundation
import Testing

/// `touch-router run --output WxH,transform=…`: a rotated output's layout and its wl_output,
/// bad transforms, and `[[touchscreen]]` errors at start.
@Suite("Touch mapping in a session: rotated outputs and [[touchscreen]] errors", .serialized)
struct TouchMappingSessionTests {
    @Test("a 90° output lies on its side in the layout, and the next output starts after its new width")
    func rotatedLayout() throws {
        let session = try RunningSession(arguments: ["--output", "800x600,transform=90", "--output", "640x480@30,transform=flipped-180"])
        defer { _ = session.terminate() }
        let tree = try session.msg("tree")
        #expect(tree.status == 0)
        let outputs = tree.json["outputs"] as? [[String: Any]] ?? []
        #expect(outputs.count == 2)
        #expect(outputs.first?["rect"] as? [Int] == [0, 0, 600, 800], "\(outputs)")
        #expect(outputs.last?["rect"] as? [Int] == [600, 0, 640, 480], "\(outputs)")
        let devices = try session.msg("devices")
        #expect(devices.status == 0 && (devices.json["devices"] as? [Any])?.isEmpty == true, "no libinput device, none listed: \(devices.json)")
    }

    @Test("wl_output carries the transform, and its mode stays the panel's own", arguments: [
        ("90", "90°"), ("270", "270°"), ("flipped-90", "flipped 90°"), ("normal", "normal"),
    ])
    func waylandInfo(transform: String, printed: String) throws {
        let session = try RunningSession(arguments: ["--output", "800x600,transform=\(transform)"])
        defer { _ = session.terminate() }
        let log = session.file("wayland-info-\(transform).log")
        let info = try session.client(["wayland-info", "-i", "wl_output"], output: log)
        info.waitUntilExit()
        let text = RunningSession.text(of: log)
        #expect(info.terminationStatus == 0, "\(text)")
        #expect(text.contains("output_transform: \(printed),"), "\(text)")
        #expect(text.contains("width: 800 px, height: 600 px"), "the mode is the panel's: \(text)")
    }

    @Test("a transform that is not one of wl_output's is refused, naming what was expected", arguments: [
        "800x600,transform=45", "800x600,rotate=90", "800x600,transform=90,transform=180", "800x600,", "800x600,transform=",
    ])
    func badTransform(text: String) throws {
        let run = try ToolRun(["run", "--output", text])
        #expect(run.status != 0)
        #expect(run.errors.contains("--output \(text): "), "\(run.errors)")
        #expect(run.errors.contains("expected") && run.errors.contains("90"), "\(run.errors)")
        #expect(run.output.isEmpty)
    }

    @Test("a bad [[touchscreen]] table stops run naming file:line:column")
    func configurationError() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("touch-router-touchmap-\(getpid()).toml").path
        try "[[touchscreen]]\nmatch = \"ELAN\"\noutput = \"HEADLESS-1\"\ncalibration = [1, 0, 0, 0, 1]\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try ToolRun(["run", "--config", path, "--", "true"])
        #expect(run.status != 0)
        #expect(run.errors.contains("\(path):4:15: error: touchscreen[0].calibration: expected six numbers"), "\(run.errors)")
    }
}
