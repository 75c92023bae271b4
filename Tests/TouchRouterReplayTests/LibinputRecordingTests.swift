import Foundation
import Testing
import TouchRouterCore
import TouchRouterReplay

/// Recordings made by Debian's `libinput record` in the kernel-input VM
/// (Tests/KernelInputVM/guest/record.sh), with the live session's trace of the same frames.
enum Recordings {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Recordings")
    static var recordingPath: String { directory.appendingPathComponent("vm-touch-keyboard.yml").path }
    static var tracePath: String { directory.appendingPathComponent("vm-touch-keyboard.trace.jsonl").path }
    /// The VM session's output, which its touchscreen drove.
    static let area = Rect<GlobalSpace>(x: 0, y: 0, width: 1920, height: 1080)

    static func decode(_ path: String = recordingPath, area: Rect<GlobalSpace> = area) throws -> LibinputRecording {
        try LibinputRecording.parse(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), file: path, area: area)
    }
}

/// A device description as `libinput record` writes it, with the frames given.
private func device(name: String, codes: [String], absinfo: [String] = [], properties: String = "[]", udev: [String], frames: [[String]]) -> String {
    var lines = ["- node: /dev/input/event9", "  evdev:", "    # Name: \(name)", "    name: \"\(name)\"", "    id: [6, 29810, 1, 0]", "    codes:"]
    lines += codes.map { "      \($0)" }
    if !absinfo.isEmpty { lines += ["    absinfo:"] + absinfo.map { "      \($0)" } }
    lines += ["    properties: \(properties)", "  hid: []", "  udev:", "    properties:"] + udev.map { "    - \($0)" }
    lines += ["  events:"]
    for frame in frames {
        lines += ["  - evdev:"] + frame.map { "    - \($0)" }
    }
    return lines.joined(separator: "\n")
}

private func recording(_ devices: [String]) -> String {
    (["version: 1", "ndevices: \(devices.count)", "libinput:", "  version: \"1.22.1\"", "system:", "  os: \"debian:12\"", "devices:"] + devices)
        .joined(separator: "\n") + "\n"
}

private let touchscreenCodes = ["0: [0, 1, 3] # EV_SYN", "1: [330] # EV_KEY", "3: [0, 1, 47, 53, 54, 57] # EV_ABS"]
private func touchscreenAbsinfo(fuzz: Int = 0) -> [String] {
    ["0: [0, 4095, 0, 0, 16]", "1: [0, 4095, 0, 0, 16]", "47: [0, 9, 0, 0, 0]", "53: [0, 4095, \(fuzz), 0, 16]", "54: [0, 4095, \(fuzz), 0, 16]", "57: [0, 65535, 0, 0, 0]"]
}
private func touchscreen(_ frames: [[String]], fuzz: Int = 0, name: String = "touchscreen") -> String {
    device(name: name, codes: touchscreenCodes, absinfo: touchscreenAbsinfo(fuzz: fuzz), properties: "[1]",
           udev: ["ID_INPUT=1", "ID_INPUT_TOUCHSCREEN=1"], frames: frames)
}

/// `[sec, usec, type, code, value]` frames, a SYN_REPORT closing each.
private func frame(_ usec: Int, _ events: [(Int, Int, Int)]) -> [String] {
    (events + [(0, 0, 0)]).map { "[  0, \(usec), \($0.0), \($0.1), \($0.2)]" }
}

private func decodeText(_ text: String, area: Rect<GlobalSpace> = Rect(x: 0, y: 0, width: 4096, height: 4096)) throws(InputFileError) -> LibinputRecording {
    try LibinputRecording.parse(text, file: "r.yml", area: area)
}

private func lines(_ recording: LibinputRecording) -> [String] {
    recording.events.map { "\($0.time.nanoseconds / 1000) \($0.device.raw) " + EventSyntax.format($0) }
}

@Suite("libinput record recordings")
struct LibinputRecordingTests {
    @Test("the VM's recording decodes into the gesture, the tap and the typing, with libinput's seat slots")
    func vmRecording() throws {
        let decoded = try Recordings.decode()
        #expect(decoded.devices.map(\.name) == ["TouchRouter test touchscreen", "TouchRouter test keyboard"])
        #expect(decoded.devices.map(\.capabilities) == [[.touch], [.keyboard]])
        #expect(decoded.notes.isEmpty)
        let text = decoded.events.map(EventSyntax.format)
        // Device slot 1 first: libinput gives it seat slot 0, the lowest free; slot 0 then gets 1.
        // (1000, 2000) of 4096 on 1920x1080 is (468.75, 527.34375).
        #expect(Array(text.prefix(6)) == ["device add 1000 touch", "device add 1001 keyboard",
                                          "touch down 0 468.75 527.34375", "touch frame",
                                          "touch down 1 1406.25 527.34375", "touch frame"])
        let motions = text.filter { $0.hasPrefix("touch motion") }
        #expect(motions.count == 8)
        #expect(motions.first == "touch motion 0 562.5 527.34375")
        #expect(motions.last == "touch motion 1 1031.25 519.43359375")
        #expect(Array(text.suffix(12)) == ["touch up 0", "touch frame", "touch up 1", "touch frame",
                                           "touch down 0 960 270", "touch frame", "touch up 0", "touch frame",
                                           "key press KEY_H", "key release KEY_H", "key press KEY_I", "key release KEY_I"])
        #expect(text.count == 2 + 32)
        // Times are the frames' own, from the recording's start, and never go back.
        let times = decoded.events.map(\.time)
        #expect(times == times.sorted())
        #expect(times.last! > RouterTime.milliseconds(400))
    }

    @Test("the decoder gives the same events as the live libinput backend gave for the same kernel frames")
    func sameAsLiveBackend() throws {
        let decoded = try Recordings.decode()
        let live = try String(contentsOfFile: Recordings.tracePath, encoding: .utf8).split(separator: "\n").compactMap { line -> String? in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            return object["event"] as? String
        }.filter { $0.hasPrefix("touch ") || $0.hasPrefix("key ") }
        let mine = decoded.events.map(EventSyntax.format).filter { $0.hasPrefix("touch ") || $0.hasPrefix("key ") }
        #expect(live.count == 32, "the trace holds the whole gesture, tap and typing")
        #expect(mine.count == live.count)
        for (a, b) in zip(mine, live) {
            let wordsA = a.split(separator: " "), wordsB = b.split(separator: " ")
            #expect(wordsA.count == wordsB.count && wordsA.prefix(3) == wordsB.prefix(3), "\(a) against the live \(b)")
            for (x, y) in zip(wordsA.dropFirst(3), wordsB.dropFirst(3)) {
                #expect(abs(Double(x)! - Double(y)!) < 1e-6, "\(a) against the live \(b)")
            }
        }
    }

    @Test("a mouse: relative motion summed per frame and unaccelerated, buttons at the frame's end, the wheel in 15° clicks")
    func mouse() throws {
        let mouse = device(name: "mouse", codes: ["0: [0, 1, 2] # EV_SYN", "1: [272, 273, 274] # EV_KEY", "2: [0, 1, 6, 8] # EV_REL"],
                           udev: ["ID_INPUT=1", "ID_INPUT_MOUSE=1"],
                           frames: [frame(1000, [(2, 0, 3), (2, 1, -2), (2, 0, 1)]),
                                    frame(2000, [(1, 272, 1), (2, 0, 5)]),
                                    frame(3000, [(1, 272, 2), (1, 272, 0), (1, 273, 0)]),
                                    frame(4000, [(2, 8, 1)]),
                                    frame(5000, [(2, 8, -2), (2, 6, 1)])])
        let decoded = try decodeText(recording([mouse]))
        #expect(lines(decoded) == [
            "0 1000 device add 1000 pointer",
            "1000 1000 pointer relative 4 -2",
            "2000 1000 pointer relative 5 0",
            "2000 1000 pointer button press BTN_LEFT",
            "3000 1000 pointer button release BTN_LEFT",
            "4000 1000 pointer axis vertical -15 discrete -1 source wheel",
            "5000 1000 pointer axis vertical 30 discrete 2 source wheel",
            "5000 1000 pointer axis horizontal 15 discrete 1 source wheel",
        ])
    }

    @Test("keys: repeats, presses of keys down, releases of keys up and BTN_TOUCH are dropped; keys come before the frame's touches")
    func keys() throws {
        let keyboard = device(name: "kbd", codes: ["0: [0, 1] # EV_SYN", "1: [30, 31, 330] # EV_KEY"], udev: ["ID_INPUT=1", "ID_INPUT_KEYBOARD=1"],
                              frames: [frame(10, [(1, 31, 0), (1, 30, 1)]), frame(20, [(1, 30, 2), (1, 30, 1), (1, 330, 1)]), frame(30, [(1, 30, 0)])])
        #expect(lines(try decodeText(recording([keyboard]))) == ["0 1000 device add 1000 keyboard", "10 1000 key press KEY_A", "30 1000 key release KEY_A"])
    }

    @Test("two touchscreens share the seat's slots; each device gets its own id and its add first")
    func twoDevices() throws {
        let first = touchscreen([frame(100, [(3, 47, 0), (3, 57, 5), (3, 53, 0), (3, 54, 0)]), frame(300, [(3, 57, -1)])], name: "one")
        let second = touchscreen([frame(200, [(3, 47, 0), (3, 57, 9), (3, 53, 4095), (3, 54, 2048)]), frame(400, [(3, 57, -1)])], name: "two")
        let decoded = try decodeText(recording([first, second]))
        #expect(decoded.devices.map(\.id) == [DeviceID(1000), DeviceID(1001)])
        #expect(lines(decoded) == [
            "0 1000 device add 1000 touch", "0 1001 device add 1001 touch",
            "100 1000 touch down 0 0 0", "100 1000 touch frame",
            "200 1001 touch down 1 4095 2048", "200 1001 touch frame",
            "300 1000 touch up 0", "300 1000 touch frame",
            "400 1001 touch up 1", "400 1001 touch frame",
        ])
    }

    @Test("libinput's rules: a palm is cancelled, a second begin keeps the touch, hysteresis swallows small moves, a slot past the count is the last")
    func libinputRules() throws {
        let palmCodes = ["0: [0, 1, 3] # EV_SYN", "1: [330] # EV_KEY", "3: [0, 1, 47, 53, 54, 55, 57] # EV_ABS"]
        let palm = device(name: "palm", codes: palmCodes, absinfo: touchscreenAbsinfo() + ["55: [0, 2, 0, 0, 0]"], properties: "[1]",
                          udev: ["ID_INPUT=1", "ID_INPUT_TOUCHSCREEN=1"],
                          frames: [frame(1, [(3, 57, 1), (3, 53, 10), (3, 54, 10)]),
                                   frame(2, [(3, 55, 2)]),
                                   frame(3, [(3, 53, 20)]),
                                   frame(4, [(3, 57, -1)])])
        #expect(lines(try decodeText(recording([palm]))) == ["0 1000 device add 1000 touch", "1 1000 touch down 0 10 10", "1 1000 touch frame",
                                                            "2 1000 touch cancel 0", "2 1000 touch frame"])
        // Fuzz 8: a margin of 4. A move of 2 is swallowed (no motion, so no frame); a move
        // of 10 is sent at the raw position. A second tracking id without -1 keeps the touch.
        let fuzzy = touchscreen([frame(1, [(3, 57, 1), (3, 53, 100), (3, 54, 100)]),
                                 frame(2, [(3, 53, 102)]),
                                 frame(3, [(3, 53, 112)]),
                                 frame(4, [(3, 57, 2)]),
                                 frame(5, [(3, 47, 50), (3, 57, 3), (3, 53, 7), (3, 54, 7)]),
                                 frame(6, [(3, 47, 0), (3, 57, -1)])], fuzz: 8)
        #expect(lines(try decodeText(recording([fuzzy]))) == ["0 1000 device add 1000 touch", "1 1000 touch down 0 100 100", "1 1000 touch frame",
                                                             "3 1000 touch motion 0 112 100", "3 1000 touch frame",
                                                             "5 1000 touch down 1 7 7", "5 1000 touch frame",
                                                             "6 1000 touch up 0", "6 1000 touch frame"])
    }

    @Test("positions go through the caller's rectangle, and udev's calibration matrix when the recording has it")
    func mapping() throws {
        let frames = [frame(1, [(3, 57, 1), (3, 53, 1024), (3, 54, 3072)])]
        let plain = try decodeText(recording([touchscreen(frames)]), area: Rect(x: 100, y: 200, width: 800, height: 600))
        #expect(EventSyntax.format(plain.events[1]) == "touch down 0 300 650")
        let calibrated = device(name: "c", codes: touchscreenCodes, absinfo: touchscreenAbsinfo(), properties: "[1]",
                                udev: ["ID_INPUT=1", "ID_INPUT_TOUCHSCREEN=1", "LIBINPUT_CALIBRATION_MATRIX=0 1 0 1 0 0"], frames: frames)
        let swapped = try decodeText(recording([calibrated]), area: Rect(x: 100, y: 200, width: 800, height: 600))
        #expect(EventSyntax.format(swapped.events[1]) == "touch down 0 700 350")
    }

    @Test("a touchpad is added but not decoded, and said so with its line")
    func touchpadNoted() throws {
        let pad = device(name: "pad", codes: touchscreenCodes, absinfo: touchscreenAbsinfo(), udev: ["ID_INPUT=1", "ID_INPUT_TOUCHPAD=1"],
                         frames: [frame(1, [(3, 57, 1), (3, 53, 10), (3, 54, 10)])])
        let decoded = try decodeText(recording([pad]))
        #expect(lines(decoded) == ["0 1000 device add 1000 pointer,gesture"])
        #expect(decoded.notes == ["r.yml:8:3: device \"pad\" is a touchpad: libinput's touchpad handling is not emulated, and its events are not decoded"])
    }

    /// The recording with one line replaced, or cut after a number of bytes.
    static let good = recording([touchscreen([frame(1, [(3, 57, 1), (3, 53, 10), (3, 54, 10)]), frame(2, [(3, 57, -1)])])])

    static func replacing(_ old: String, with new: String) -> String {
        precondition(good.contains(old))
        return good.replacingOccurrences(of: old, with: new)
    }

    @Test("malformed recordings are errors naming the file, line and what was expected", arguments: [
        // Bad structure: a key indented wrongly, a list where a mapping belongs, no devices.
        (replacing("    id: [6, 29810, 1, 0]", with: "     id: [6, 29810, 1, 0]"), "r.yml:12:6: error: expected a key at column 5 (the mapping's indentation), found \"id: [6, 29810, 1, 0]\" indented to column 6"),
        (replacing("  evdev:\n", with: "  evdev:\n    - 1\n"), "r.yml:10:5: error: expected the device's evdev description (KEY: VALUE lines), found a list item \"- 1\""),
        ("version: 1\ndevices:\n", "r.yml:2:1: error: expected at least one device in \"devices:\""),
        ("version: 1\nsystem:\n  os: x\n", "r.yml:3:1: error: expected a \"devices:\" list, but the file ends without one"),
        ("version: 2\ndevices:\n", "r.yml:1:10: error: expected version 1 (the only format libinput record writes), found \"2\""),
        (replacing("  events:", with: "  events:\n  - [0, 1]"), "r.yml:31:5: error: expected an event entry (\"- evdev:\" and its frames), found \"[0, 1]\""),
        (replacing("  udev:", with: "\tudev:"), "r.yml:26:1: error: expected spaces for indentation, found a tab (YAML does not indent with tabs)"),
        // A frame with the wrong number of fields.
        (replacing("[  0, 1, 3, 57, 1]", with: "[  0, 1, 3, 57]"), "r.yml:32:7: error: expected 5 numbers in an evdev frame [sec, usec, type, code, value], found 4"),
        (replacing("[  0, 1, 3, 57, 1]", with: "[  0, 1, 3, 57, 1, 0]"), "r.yml:32:7: error: expected 5 numbers in an evdev frame [sec, usec, type, code, value], found 6"),
        (replacing("      47: [0, 9, 0, 0, 0]", with: "      47: [0, 9, 0, 0]"), "r.yml:20:11: error: expected 5 numbers [min, max, fuzz, flat, resolution] for absinfo 47, found 4"),
        // Numbers out of range, and not numbers.
        (replacing("[  0, 1, 3, 57, 1]", with: "[  0, 1, 3, 57, 4294967296]"), "r.yml:32:23: error: an evdev frame [sec, usec, type, code, value]: 4294967296 is out of range: expected -2147483648 to 4294967295"),
        (replacing("[  0, 1, 3, 57, 1]", with: "[  0, 1, 3, 57, 3000000000]"), "r.yml:32:7: error: the frame's value 3000000000 is out of range: expected -2147483648 to 2147483647"),
        (replacing("[  0, 1, 3, 57, 1]", with: "[  2000000000, 1, 3, 57, 1]"), "r.yml:32:7: error: the frame's seconds 2000000000 is out of range: expected 0 to 1000000000"),
        (replacing("[  0, 1, 3, 57, 1]", with: "[  0, 1000000, 3, 57, 1]"), "r.yml:32:7: error: the frame's microseconds 1000000 is out of range: expected 0 to 999999"),
        (replacing("[  0, 1, 3, 57, 1]", with: "[  0, 1, 3, 768, 1]"), "r.yml:32:7: error: the frame's event code 768 is out of range: expected 0 to 767"),
        (replacing("[  0, 1, 3, 57, 1]", with: "[  0, 1, 3, 5x7, 1]"), "r.yml:32:19: error: expected a whole number in an evdev frame [sec, usec, type, code, value], found \"5x7\""),
        (replacing("      47: [0, 9, 0, 0, 0]", with: "      47: [0, 99999, 0, 0, 0]"), "r.yml:8:3: error: absinfo 47 (ABS_MT_SLOT): expected slots 0 to at most 255 (InputLimits.liveTouches), found 0 to 99999"),
        (replacing("      53: [0, 4095, 0, 0, 16]", with: "      53: [4095, 0, 0, 0, 16]"), "r.yml:21:11: error: absinfo 53: expected a minimum no greater than the maximum, found [4095, 0]"),
        // An unknown event type.
        (replacing("[  0, 1, 3, 57, 1]", with: "[  0, 1, 9, 57, 1]"), "r.yml:32:7: error: unknown event type 9: expected one of linux/input-event-codes.h's EV_ types (EV_SYN 0, EV_KEY 1, EV_REL 2, EV_ABS 3, EV_MSC 4, EV_SW 5, …)"),
        // Time going back.
        (replacing("[  0, 2, 3, 57, -1]", with: "[  0, 0, 3, 57, -1]"), "r.yml:37:1: error: the frame's time 0 µs goes back before the device's previous one, 1 µs; a device's frames must be in time order"),
    ])
    func malformed(text: String, error: String) {
        #expect(throws: InputFileError.self) { try decodeText(text) }
        #expect(errorText(text) == error)
    }

    @Test("a recording cut short anywhere is an error or decodes what it holds, and never traps")
    func truncated() throws {
        // Cut in the middle of a frame: the list is not closed on its line.
        let cut = String(Self.good.prefix(upTo: Self.good.range(of: "[  0, 2, 3, 57, -1]")!.lowerBound)) + "[  0, 2, 3,"
        #expect(errorText(cut) == "r.yml:37:18: error: expected \"]\" to close the list of an evdev frame [sec, usec, type, code, value] on the same line")
        // Cut before the events: the device has no description yet.
        let early = String(Self.good.prefix(upTo: Self.good.range(of: "  evdev:")!.lowerBound))
        #expect(errorText(early) == "r.yml:8:3: error: expected an \"evdev:\" description in this device (name, codes, absinfo)")
        // Every cut decodes or fails with a located error.
        let bytes = Array(Self.good.utf8)
        for end in stride(from: 0, through: bytes.count, by: 7) {
            do {
                _ = try decodeText(String(decoding: bytes[..<end], as: UTF8.self))
            } catch {
                #expect(error.location.file == "r.yml" && error.location.line >= 1)
            }
        }
    }

    @Test("the decoded recording replays through a scene as a script does")
    func replays() throws {
        let decoded = try Recordings.decode()
        let scene = try Scene.parse("""
            {"outputs": [{"name": "HEADLESS-1", "x": 0, "y": 0, "width": 1920, "height": 1080,
              "toplevels": [{"name": "left", "client": "a", "x": 0, "y": 0, "width": 960, "height": 1080},
                            {"name": "right", "client": "b", "x": 960, "y": 0, "width": 960, "height": 1080}]}],
             "keyboardFocus": "right"}
            """, file: "s.json").load()
        var trace: [String] = []
        Replay(scene: scene).run(decoded.script, trace: TraceWriter(format: .text, names: scene.names) { trace.append($0) })
        let text = trace.joined()
        #expect(text.contains("touch down 0 468.75 527.34375 → delivered (hit)"))
        #expect(text.contains("touch down → \"left\" [a] at (468.75, 527.34375)"))
        #expect(text.contains("touch down → \"right\" [b] at (446.25, 527.34375)"))
        #expect(text.contains("key press KEY_H → delivered"))
    }
}

private func errorText(_ text: String) -> String? {
    do {
        _ = try decodeText(text)
        return nil
    } catch {
        return error.description
    }
}
