import Foundation
import Testing

/// Runs the `touch-router` built beside this test bundle.
struct ToolRun {
    var status: Int32
    var output: String
    var errors: String

    static let executable: URL = {
        let me = URL(fileURLWithPath: try! FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        return me.deletingLastPathComponent().appendingPathComponent("touch-router")
    }()

    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/TouchRouterCLI/Samples")

    /// `environment` is added to the test's own.
    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        status = process.terminationStatus
        output = String(decoding: outData, as: UTF8.self)
        errors = String(decoding: errData, as: UTF8.self)
    }
}

@Suite("touch-router on the command line")
struct CommandLineTests {
    @Test("help TOPIC shows each man page rendered by scdoc and man; without them, its source; --help lists the topics",
          arguments: [("config", "touch-router(5)", "[privileges]"), ("control", "touch-router-msg(7)", "subscribe"), ("commands", "touch-router(1)", "--kiosk")])
    func manualTopics(topic: String, title: String, mentions: String) throws {
        let rendered = try ToolRun(["help", topic], environment: ["MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "80"])
        #expect(rendered.status == 0, "\(rendered.errors)")
        #expect(rendered.output.hasPrefix(title), "man's header names the page: \(rendered.output.prefix(200))")
        #expect(rendered.output.contains("NAME\n"), "rendered, not the scdoc source")
        #expect(rendered.output.contains(mentions))
        let plain = try ToolRun(["help", topic], environment: ["PATH": "/nonexistent"])
        #expect(plain.status == 0)
        #expect(plain.output.hasPrefix(title + "\n"), "the scdoc source, first line first")
        #expect(plain.output.contains("# NAME"))
        let listed = try ToolRun(["--help"])
        #expect(listed.output.contains("touch-router help \(topic)"))
    }

    @Test("help of a subcommand is still ArgumentParser's")
    func subcommandHelp() throws {
        let run = try ToolRun(["help", "run"])
        #expect(run.status == 0)
        #expect(run.output.contains("USAGE: touch-router run"))
    }

    func temporary(_ name: String, _ text: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("touch-router-test-\(getpid())-\(name)")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    @Test("route plays the sample and prints the trace")
    func routeSample() throws {
        #expect(FileManager.default.isExecutableFile(atPath: ToolRun.executable.path), "built beside the tests: \(ToolRun.executable.path)")
        let run = try ToolRun(["route", "--scene", ToolRun.samples.appendingPathComponent("kiosk-scene.json").path,
                               "--script", ToolRun.samples.appendingPathComponent("demo.script").path])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("0.000ms #1 touch down 0 400 300 → delivered (hit)"))
        #expect(run.errors.isEmpty)
    }

    @Test("route --recording replays a libinput recording through a scene, and a malformed one names its line")
    func routeRecording() throws {
        let recording = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("TouchRouterReplayTests/Recordings/vm-touch-keyboard.yml").path
        let scene = ToolRun.samples.appendingPathComponent("kiosk-scene.json").path
        let run = try ToolRun(["route", "--scene", scene, "--recording", recording])
        #expect(run.status == 0, "\(run.errors)")
        // Device slot 1 at (1000, 2000) of 4096, on the scene's 1920x1080 output, as seat slot 0.
        #expect(run.output.contains("ms #3 touch down 0 468.75 527.34375 → delivered (hit)"), "\(run.output)")
        #expect(run.output.contains("touch down → \"map\" [maps] at (468.75, 527.34375) (hit)"), "\(run.output)")
        #expect(run.output.contains("key press KEY_H →"), "\(run.output)")
        #expect(run.errors.isEmpty)
        let json = try ToolRun(["route", "--scene", scene, "--recording", recording, "--format", "json"])
        #expect(json.output.contains("\"event\":\"device add 1000 touch\""), "\(json.output)")

        let bad = try temporary("bad.yml", "version: 1\ndevices:\n- node: /dev/input/event0\n  evdev:\n    name: x\n  events:\n  - evdev:\n    - [0, 0, 3, 57]\n")
        let failed = try ToolRun(["route", "--scene", scene, "--recording", bad])
        #expect(failed.status != 0)
        #expect(failed.errors.contains("\(bad):8:7: error: expected 5 numbers in an evdev frame [sec, usec, type, code, value], found 4"), "\(failed.errors)")
        #expect(failed.output.isEmpty)

        let both = try ToolRun(["route", "--scene", scene, "--recording", recording, "--script", ToolRun.samples.appendingPathComponent("demo.script").path])
        #expect(both.status != 0)
        #expect(both.errors.contains("give one of --script FILE and --recording FILE.yml"), "\(both.errors)")
    }

    @Test("a malformed scene exits non-zero naming file, line and what was expected")
    func malformedScene() throws {
        let scene = try temporary("bad.json", "{\"outputs\": [\n  {\"name\": \"A\", \"width\": -5, \"height\": 10}]}")
        let script = try temporary("ok.script", "0 touch frame\n")
        let run = try ToolRun(["route", "--scene", scene, "--script", script])
        #expect(run.status != 0)
        #expect(run.errors.contains("\(scene):2:26: error: outputs[0].width: expected a whole number of 1 or more, found the number -5"), "\(run.errors)")
        #expect(run.output.isEmpty)
    }

    @Test("a malformed script exits non-zero naming file, line and what was expected")
    func malformedScript() throws {
        let script = try temporary("bad.script", "0 touch down 0 1 2\n5 pointer button push BTN_LEFT\n")
        let run = try ToolRun(["route", "--scene", ToolRun.samples.appendingPathComponent("kiosk-scene.json").path, "--script", script])
        #expect(run.status != 0)
        #expect(run.errors.contains("\(script):2:18: error: expected press or release, found \"push\""), "\(run.errors)")
    }

    @Test("run refuses an output it cannot make, naming it, before any socket exists", arguments: ["", "@", "x", "0x10", "99999x10", "1920x1080@0", "1920x1080@nan"])
    func malformedOutput(text: String) throws {
        let run = try ToolRun(["run", "--output", text])
        #expect(run.status != 0)
        #expect(run.errors.contains("--output \(text): expected WxH or WxH@Hz"), "\(run.errors)")
    }

    @Test("a script that is not UTF-8 is refused naming the line and column of its first bad byte")
    func notUTF8() throws {
        let script = try temporary("latin1.script", "")
        try Data("0 touch down 0 1 2\n5 touch up 0 ".utf8 + [0xC3, 0x28, 0x0A]).write(to: URL(fileURLWithPath: script))
        let run = try ToolRun(["route", "--scene", ToolRun.samples.appendingPathComponent("kiosk-scene.json").path, "--script", script])
        #expect(run.status != 0)
        #expect(run.errors.contains("\(script):2:"), "\(run.errors)")
        #expect(run.errors.contains("not UTF-8"), "\(run.errors)")
    }

    @Test("a missing file is named")
    func missingFile() throws {
        let run = try ToolRun(["route", "--scene", "/nonexistent/scene.json", "--script", "/nonexistent/x"])
        #expect(run.status != 0)
        #expect(run.errors.contains("/nonexistent/scene.json: error: cannot read the scene file"))
    }

    @Test("bench hit-test prints JSON for machines with per-structure, per-point-set medians")
    func benchJSON() throws {
        let run = try ToolRun(["bench", "hit-test", "--leaves", "100", "--runs", "1", "--json"])
        #expect(run.status == 0, "\(run.errors)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        for structure in ["index", "reference"] {
            let sets = try #require(object[structure] as? [String: [String: Any]])
            #expect(sets["random"]?["median_ns"] is Double || sets["random"]?["median_ns"] is Int)
            #expect(sets["miss"] != nil)
        }
        #expect(object["agreed"] as? Bool == true)
        #expect(object["leaves"] as? Int == 100)
        // The C grid floor ran on the scene's 34 windows, beside the index, on the same points.
        let floor = try #require(object["c_grid"] as? [String: Any], "\(object.keys)")
        #expect(floor["windows"] as? Int == object["toplevels"] as? Int && floor["windows"] as? Int == 34, "\(floor)")
        let floorNanoseconds = (floor["c_grid_random_median_ns"] as? NSNumber)?.doubleValue ?? 0
        let indexNanoseconds = (floor["index_random_median_ns"] as? NSNumber)?.doubleValue ?? 0
        let ratio = (floor["ratio"] as? NSNumber)?.doubleValue ?? 0
        #expect(floorNanoseconds > 0 && indexNanoseconds > 0, "\(floor)")
        // The medians are printed to 0.01 ns and the ratio to 0.001: equal within that rounding.
        #expect(abs(ratio / (indexNanoseconds / floorNanoseconds) - 1) < 0.005, "\(floor)")
    }

    @Test("bench rejects leaf counts outside 100 to 100000")
    func benchRange() throws {
        let run = try ToolRun(["bench", "hit-test", "--leaves", "50"])
        #expect(run.status != 0)
        #expect(run.errors.contains("--leaves takes 100 to 100000, not 50"))
    }
}

@Suite("touch-router run --backend: the choice and its errors")
struct BackendChoiceTests {
    /// This project's machines have no /dev/dri (the VM test drives a real card).
    static var machineHasCards: Bool {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/dev/dri")) ?? []).contains { $0.hasPrefix("card") }
    }

    @Test("--backend drm on a machine without a card ends before any socket, naming /dev/dri and the other backends")
    func drmWithoutCard() throws {
        guard !Self.machineHasCards else {
            Issue.record("this test expects a machine without /dev/dri/card*, as this project's are")
            return
        }
        let run = try ToolRun(["run", "--backend", "drm", "--", "true"])
        #expect(run.status == 1)
        #expect(run.errors.contains("touch-router run: the drm backend found no DRM device in /dev/dri: it needs a GPU with a KMS driver; use --backend headless, or --backend wayland"), "\(run.errors)")
        #expect(!run.output.contains("WAYLAND_DISPLAY="))
    }

    @Test("Without --backend and without WAYLAND_DISPLAY or a card, the session is headless: its output is HEADLESS-1")
    func automaticHeadless() throws {
        guard !Self.machineHasCards else {
            Issue.record("this test expects a machine without /dev/dri/card*, as this project's are")
            return
        }
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let outputs = try session.msg("tree").json["outputs"] as? [[String: Any]] ?? []
        #expect(outputs.map { $0["name"] as? String } == ["HEADLESS-1"])
    }
}

@Suite("touch-router bench route: fingers at a rate, events a second, instructions")
struct RouteBenchmarkCommandTests {
    @Test("--fingers and --rate give a row per routed motion with events a second; --instructions counts them with callgrind")
    func fingersRateInstructions() throws {
        let run = try ToolRun(["bench", "route", "--leaves", "100", "--fingers", "3", "--rate", "120", "--instructions", "--json"])
        #expect(run.status == 0, "\(run.errors)")
        let object = (try? JSONSerialization.jsonObject(with: Data(run.output.utf8))) as? [String: Any] ?? [:]
        let fingers = object["fingers"] as? [String: Any] ?? [:]
        #expect(fingers["fingers"] as? Int == 3 && fingers["rate_hz"] as? Int == 120, "\(run.output)")
        let median = fingers["median_ns"] as? Double ?? 0, perSecond = fingers["events_per_second"] as? Int ?? 0
        #expect(median > 0 && perSecond > 0)
        #expect(abs(Double(perSecond) - 1e9 / median) / Double(max(perSecond, 1)) < 0.01, "events a second is 1e9 / the median")
        // A routed motion is more than a few instructions and far less than a hit test of every leaf.
        let instructions = fingers["instructions_per_motion"] as? Int ?? 0
        #expect((100...200_000).contains(instructions), "\(run.output)")
    }

    @Test("Fingers and rates outside the panel's range are refused, naming the range", arguments: [
        (["--fingers", "11"], "--fingers takes 1 to 10"), (["--fingers", "0"], "--fingers takes 1 to 10"),
        (["--rate", "59"], "--rate takes 60 to 1000"), (["--rate", "5000"], "--rate takes 60 to 1000"),
    ])
    func refused(arguments: [String], expected: String) throws {
        let run = try ToolRun(["bench", "route", "--leaves", "100"] + arguments)
        #expect(run.status != 0)
        #expect(run.errors.contains(expected), "\(run.errors)")
    }
}
