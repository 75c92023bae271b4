import Foundation
import Testing

/// Clients/virtual-input-client.c, built once per test run with its wayland-scanner code
/// generated from protocols/ (Clients/build-virtual-input-client.sh).
enum VirtualInputClient {
    static let built: Result<String, TouchInputClient.BuildFailure> = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("virtual-input-client-\(getpid())").path
        let build = Process()
        build.executableURL = URL(fileURLWithPath: "/bin/sh")
        build.arguments = [TouchInputClient.clients.appendingPathComponent("build-virtual-input-client.sh").path, directory]
        let output = Pipe()
        build.standardOutput = output
        build.standardError = output
        do { try build.run() } catch { return .failure(.init(text: "\(error)")) }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        build.waitUntilExit()
        guard build.terminationStatus == 0 else { return .failure(.init(text: text)) }
        return .success(directory + "/virtual-input-client")
    }()

    static func path() throws -> String { try built.get() }

    /// A configuration that lets the client (by its executable's name) see the virtual input globals.
    static let allowed = "[privileges]\nvirtual-input = [\"virtual-input-client\"]\n"
}

extension RunningSession {
    /// The client in receive mode, mapped; its log and its toplevel.
    func receiver(_ flags: [String] = [], log name: String = "receiver.log") throws -> (log: URL, window: [String: Any]) {
        let log = file(name)
        _ = try client([try VirtualInputClient.path(), "receive"] + flags, output: log)
        var window: [String: Any] = [:]
        try wait(for: "the receiver to map") {
            window = try toplevels().first { $0["mapped"] as? Bool == true } ?? [:]
            return !window.isEmpty && RunningSession.lines(of: log).contains("mapped")
        }
        return (log, window)
    }

    /// The client as a virtual pointer or keyboard sending `steps`; waits for `until` in its log.
    @discardableResult
    func sender(_ mode: String, _ steps: [String], log name: String, until line: String = "done") throws -> (log: URL, process: Process) {
        let log = file(name)
        let process = try client([try VirtualInputClient.path(), mode] + steps, output: log)
        try wait(for: "'\(line)' in \(name)") { RunningSession.text(of: log).contains(line) }
        return (log, process)
    }
}

/// The session's CLOCK_MONOTONIC, as the router stamps events with it.
private func monotonicNanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

/// input-timestamps, the wlr virtual pointer and the virtual keyboard with a real libwayland
/// client of them (Clients/virtual-input-client.c) in a real `touch-router run`. Absolute
/// motion onto an output and the virtual keyboard's errors are tested in process
/// (TouchRouterWaylandTests' VirtualInputProtocolTests).
@Suite("Input timestamps, virtual pointers and virtual keyboards: real clients, privileges, and a client dying mid-press", .serialized)
struct VirtualInputTests {
    typealias ConfigFile = ConfigurationSessionTests.ConfigFile

    @Test("zwp_input_timestamps_v1: each touch down/motion/up, pointer motion/button/axis and key is preceded by its timestamp, the event's own nanoseconds")
    func inputTimestamps() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let (log, window) = try session.receiver(["--timestamps"])
        let (x, y) = (window.position[0] + 50, window.position[1] + 50)
        let before = monotonicNanoseconds()
        try session.inject(["touch down 0 \(x) \(y)", "touch frame", "touch motion 0 \(x + 10) \(y)", "touch frame", "touch up 0", "touch frame",
                            "pointer motion \(x) \(y)", "pointer button press BTN_LEFT", "pointer button release BTN_LEFT",
                            "pointer axis vertical 15", "key press KEY_A", "key release KEY_A"])
        try session.wait(for: "the last key") { RunningSession.lines(of: log).contains { $0.hasPrefix("key 30 0 ") } }
        let after = monotonicNanoseconds()
        let lines = RunningSession.lines(of: log)
        let stamped = ["touch down", "touch motion", "touch up", "pointer motion", "button", "axis", "key"]
        var seen: Set<String> = [], fractional = 0
        for (index, line) in lines.enumerated() {
            guard let kind = stamped.first(where: { line.hasPrefix($0 + " ") }), !line.hasPrefix("axis stop") else { continue }
            seen.insert(kind)
            let previous = index > 0 ? lines[index - 1].split(separator: " ") : []
            #expect(previous.first == "timestamp", "\(line) comes right after its timestamp: \(lines)")
            guard previous.count == 3, let seconds = UInt64(previous[1]), let nanoseconds = UInt64(previous[2]),
                  let milliseconds = line.split(separator: " ").last.flatMap({ UInt64($0) }) else { continue }
            #expect(nanoseconds < 1_000_000_000)
            let time = seconds * 1_000_000_000 + nanoseconds
            #expect((before...after).contains(time), "\(line): \(time) ns is the event's time, between \(before) and \(after)")
            #expect((time / 1_000_000) & 0xFFFF_FFFF == milliseconds, "\(line): the timestamp is the event's own time in full")
            if nanoseconds % 1_000_000 != 0 { fractional += 1 }
        }
        #expect(seen == Set(stamped), "every kind stamped: \(lines)")
        #expect(fractional > 0, "nanoseconds, not milliseconds padded: \(lines)")
        #expect(!lines.contains { $0.hasPrefix("pointer enter") && lines.firstIndex(of: $0).map { $0 > 0 && lines[$0 - 1].hasPrefix("timestamp") } == true },
                "enter has no timestamp of its own: \(lines)")
    }

    @Test("a client's wl_touch and timestamps objects changing between taps: the next tap reaches exactly the objects it has then, each touch after its own timestamp (the session keeps what it writes touches to ready, TouchSendLists.swift)")
    func touchObjectsChanging() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let log = session.file("raw.log")
        let raw = try session.client(["/usr/bin/python3", SessionTests.rawClient, "touch-devices"], output: log)
        try session.wait(for: "the client to map") { try session.toplevels().first?["mapped"] as? Bool == true || !raw.isRunning }
        let position = try #require(try session.toplevels().first?["position"] as? [Int])
        func tap(_ id: Int, then stage: String) throws -> [String] {
            let start = RunningSession.lines(of: log).count
            try session.inject(["touch down \(id) \(position[0] + 50) \(position[1] + 50)", "touch frame", "touch up \(id)", "touch frame"])
            try session.wait(for: stage) { RunningSession.lines(of: log).contains(stage) || !raw.isRunning }
            return Array(RunningSession.lines(of: log).dropFirst(start).prefix { $0 != stage })
        }
        #expect(try tap(0, then: "stage 2") == ["A down", "A up"], "one wl_touch, no timestamps")
        #expect(try tap(1, then: "stage 3") == ["TA timestamp", "A down", "TB timestamp", "B down", "TA timestamp", "A up", "TB timestamp", "B up"],
                "a timestamps object added to A, and a second wl_touch B with its own, each reached in the next tap")
        try session.inject(["touch down 2 \(position[0] + 50) \(position[1] + 50)", "touch frame", "touch up 2", "touch frame"])
        try session.wait(for: "B's up") { RunningSession.lines(of: log).filter { $0 == "B up" }.count == 2 || !raw.isRunning }
        let last = Array(RunningSession.lines(of: log).drop { $0 != "stage 3" }.dropFirst())
        #expect(last == ["TB timestamp", "B down", "TB timestamp", "B up"], "A released and TA destroyed: nothing written to either")
        #expect(raw.isRunning, "no protocol error: \(RunningSession.lines(of: log))")
    }

    @Test("a virtual pointer moves, clicks and scrolls in a client, each frame at once; msg trace shows its device added, its events and its removal")
    func virtualPointer() throws {
        let config = try ConfigFile(VirtualInputClient.allowed)
        let session = try RunningSession(arguments: ["--config", config.path])
        defer { _ = session.terminate() }
        let trace = try session.startTrace()
        let (log, window) = try session.receiver()
        let (x, y) = (window.position[0] + 20, window.position[1] + 30)
        try session.sender("pointer", ["absolute", "\(x)", "\(y)", "1920", "1080", "frame", "motion", "5", "7", "motion", "1", "1", "frame",
                                       "button", "272", "1", "frame", "button", "272", "0", "button", "273", "1", "frame",
                                       "button", "273", "0", "frame", "axis", "v", "5", "source", "2", "frame"], log: "pointer.log")
        try session.wait(for: "the scroll") { RunningSession.lines(of: log).contains { $0.hasPrefix("axis 0 5.0 ") } }
        let lines = RunningSession.lines(of: log).filter { !$0.hasPrefix("timestamp") }
        #expect(lines.contains { $0.hasPrefix("pointer motion 20.0 30.0 ") }, "absolute onto the whole layout: \(lines)")
        #expect(lines.contains { $0.hasPrefix("pointer motion 26.0 38.0 ") }, "two relative motions in one frame: \(lines)")
        let buttons = lines.filter { $0.hasPrefix("button ") }.map { $0.split(separator: " ").prefix(3).joined(separator: " ") }
        #expect(buttons == ["button 272 1", "button 272 0", "button 273 1", "button 273 0"], "in order: \(lines)")
        try session.wait(for: "the virtual pointer's removal in the trace") { RunningSession.text(of: trace).contains("device remove 1073741824") }
        let events = RunningSession.objects(of: trace).compactMap { $0["event"] as? String }
        #expect(events.contains("device add 1073741824 pointer"), "\(events)")
        #expect(events.contains { $0.hasPrefix("pointer button") && $0.contains("press") }, "\(events)")
        #expect(events.contains { $0.hasPrefix("pointer axis") }, "\(events)")
    }

    @Test("a virtual keyboard with its own keymap types into a client: the keymap comes before its key, and the seat's again before a real keyboard's")
    func virtualKeyboardKeymap() throws {
        let config = try ConfigFile(VirtualInputClient.allowed)
        let session = try RunningSession(arguments: ["--config", config.path])
        defer { _ = session.terminate() }
        let (log, _) = try session.receiver(["--needle", "touch-router-virtual-test"])
        try session.sender("keyboard", ["keymap", "key", "30", "1", "key", "30", "0"], log: "keyboard.log")
        try session.wait(for: "the virtual key") { RunningSession.lines(of: log).contains { $0.hasPrefix("key 30 0 ") } }
        try session.inject(["key press KEY_B", "key release KEY_B"])
        try session.wait(for: "the real key") { RunningSession.lines(of: log).contains { $0.hasPrefix("key 48 0 ") } }
        let lines = RunningSession.lines(of: log)
        let keymaps = lines.enumerated().filter { $0.element.hasPrefix("keymap ") }
        let virtualKey = lines.firstIndex { $0.hasPrefix("key 30 1 ") } ?? -1, realKey = lines.firstIndex { $0.hasPrefix("key 48 1 ") } ?? -1
        #expect(keymaps.first?.element.hasSuffix(" plain") == true, "the seat's keymap at bind: \(lines)")
        let own = keymaps.last { $0.element.hasSuffix(" needle") }?.offset ?? Int.max
        #expect(own < virtualKey, "the virtual keyboard's keymap before its key: \(lines)")
        let back = keymaps.last { $0.element.hasSuffix(" plain") }?.offset ?? -1
        #expect(virtualKey < back && back < realKey, "the seat's keymap again before the real key: \(lines)")
        #expect(keymaps.count == 3, "sent only when the typing keyboard changes: \(lines)")
    }

    @Test("a client not allowed does not see the virtual input globals (wayland-info), nor can it bind them; a reload that allows it shows them to its next run")
    func privilegedGlobals() throws {
        let config = try ConfigFile("[privileges]\nvirtual-input = [\"/usr/bin/not-wayland-info\"]\n")
        let session = try RunningSession(arguments: ["--config", config.path])
        defer { _ = session.terminate() }
        func globals(_ name: String) throws -> String {
            let log = session.file(name)
            let info = try session.client(["wayland-info"], output: log)
            info.waitUntilExit()
            return RunningSession.text(of: log)
        }
        let hidden = try globals("before.log")
        #expect(hidden.contains("zwp_input_timestamps_manager_v1"), "unprivileged globals are listed: \(hidden)")
        #expect(!hidden.contains("zwlr_virtual_pointer_manager_v1") && !hidden.contains("zwp_virtual_keyboard_manager_v1"), "\(hidden)")
        let refused = session.file("refused.log")
        let sender = try session.client([try VirtualInputClient.path(), "pointer", "frame"], output: refused)
        sender.waitUntilExit()
        #expect(sender.terminationStatus == 3 && RunningSession.lines(of: refused) == ["no manager"], "\(RunningSession.text(of: refused))")
        try config.write("[privileges]\nvirtual-input = [\"wayland-info\", \"/usr/bin/../bin/virtual-input-client-elsewhere\"]\n")
        #expect(try session.msg("reload").status == 0)
        let shown = try globals("after.log")
        #expect(shown.contains("zwlr_virtual_pointer_manager_v1") && shown.contains("zwp_virtual_keyboard_manager_v1"), "\(shown)")
    }

    @Test("a virtual device's client killed mid-press: the button and the key it held are released, its devices removed, and the session goes on")
    func clientDiesHolding() throws {
        let config = try ConfigFile(VirtualInputClient.allowed)
        let session = try RunningSession(arguments: ["--config", config.path])
        defer { _ = session.terminate() }
        let trace = try session.startTrace()
        let (log, window) = try session.receiver()
        let (x, y) = (window.position[0] + 40, window.position[1] + 40)
        let (_, pointer) = try session.sender("pointer", ["absolute", "\(x)", "\(y)", "1920", "1080", "frame", "button", "272", "1", "frame", "hold"],
                                              log: "pointer.log", until: "holding")
        let (_, keyboard) = try session.sender("keyboard", ["keymap", "key", "42", "1", "hold"], log: "keyboard.log", until: "holding")
        try session.wait(for: "the press and the key") {
            let lines = RunningSession.lines(of: log)
            return lines.contains { $0.hasPrefix("button 272 1 ") } && lines.contains { $0.hasPrefix("key 42 1 ") }
        }
        kill(pointer.processIdentifier, SIGKILL)
        kill(keyboard.processIdentifier, SIGKILL)
        try session.wait(for: "the release of both") {
            let lines = RunningSession.lines(of: log)
            return lines.contains { $0.hasPrefix("button 272 0 ") } && lines.contains { $0.hasPrefix("key 42 0 ") }
        }
        try session.wait(for: "both devices removed in the trace") {
            let events = RunningSession.objects(of: trace).compactMap { $0["event"] as? String }
            return events.contains("device remove 1073741824") && events.contains("device remove 1073741825")
        }
        #expect(pointer.terminationReason == .uncaughtSignal || !pointer.isRunning)
        try session.inject(["pointer button press BTN_RIGHT", "pointer button release BTN_RIGHT", "key press KEY_D", "key release KEY_D"])
        try session.wait(for: "real input after the deaths") {
            let lines = RunningSession.lines(of: log)
            return lines.contains { $0.hasPrefix("button 273 0 ") } && lines.contains { $0.hasPrefix("key 32 0 ") }
        }
    }
}
