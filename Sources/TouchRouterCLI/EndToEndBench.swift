import ArgumentParser
import Foundation
import TouchRouterReplay

/// `touch-router bench e2e` (docs/benchmarks.md, "End to end"): routing latency end to end, from a
/// touch event's device time to its receipt by real client processes, through a real
/// `touch-router run` session and through the raw libwayland floor, in one run.
struct EndToEndBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "e2e",
        abstract: "End-to-end latency to real client processes: TouchRouter against the raw libwayland floor (and sway with --peer sway).",
        discussion: """
            Starts `touch-router run` headless with --clients benchmark clients (touch-router-bench-client), \
            plays --fingers fingers on each client's toplevel at --rate reports a second for --seconds (or a \
            libinput recording, --recording) through `msg play`, as a touchscreen would feed the session, and \
            collects every receipt; then the raw libwayland floor (touch-router-bench-floor) sends the same \
            touch frames at the same times straight to the same clients. Prints arrival-to-receipt p50, p99 \
            and p99.9 for both, their ratios, the events sent and received, and the router's own share \
            (arrival to flushed, from msg stats).
            """)

    @Option(help: "Benchmark clients, 1 to 100.")
    var clients: Int = 2

    @Option(help: "Fingers on each client's toplevel, 1 to 10 (clients × fingers at most 256).")
    var fingers: Int = 2

    @Option(help: "Reports a second, 1 to 1000.")
    var rate: Int = 1000

    @Option(help: "Seconds of motion, 0.1 to 600.")
    var seconds: Double = 2

    @Option(help: ArgumentHelp("Play a `libinput record` recording's touch frames instead of the generator (at its own pace).", valueName: "file.yml"))
    var recording: String?

    @Option(help: ArgumentHelp("Each client's buffer size.", valueName: "WxH"))
    var size: String = "200x150"

    @Option(help: ArgumentHelp("Also drive the same client with injected pointer motion and keys through a peer compositor and through TouchRouter: only 'sway' (Debian's sway 1.7, headless, as an unprivileged user).", valueName: "sway"))
    var peer: String?

    @Option(help: "Rounds to play the workload in, each side's rounds between the other's (at most one a 0.1 s of --seconds; a recording plays in one).")
    var rounds: Int = 10

    @Option(help: ArgumentHelp("Keep every log, record and workload file in this directory (made if missing) instead of a temporary one.", valueName: "dir"))
    var keep: String?

    @Flag(help: "Have the session's benchmark clients report when they read each frame (touch_router_input_manager_v1.received), so that msg stats gains the received stage; printed beside the harness's own figure. Off by default: the reports are traffic the floor's clients do not make.")
    var reportReceipts = false

    @Flag(help: "Touch to present: the session's benchmark clients answer each touch frame with a 16×16 dot at the touch point (damage only the dot), committed with wp_presentation feedback and touch_router_surface_input_v1.answer; prints device time → presentation and the frames missed, with msg stats's touch_to_present. With --peer sway, sway's and TouchRouter's 1920×1080 clients answer the injector's pointer motion the same way.")
    var present = false

    @Option(help: ArgumentHelp("With --present: an HDR percentile plot (SVG) of touch to present, one line per compositor, drawn by tools/plot-latency.py (matplotlib).", valueName: "file.svg"))
    var plot: String?

    @Option(help: ArgumentHelp("The refresh of TouchRouter's headless output, in Hz (default 60). sway's headless output, asked for 60 Hz, draws every 16 ms: --refresh 62.5 compares the two at one frame rate.", valueName: "Hz"))
    var refresh: Double?

    @Option(help: ArgumentHelp("Run the whole benchmark on this one CPU: the session, the floor, sway and every client inherit it, so that both sides run with the same placement (docs/benchmarks.md, \"Where the processes run\").", valueName: "n"))
    var cpu: Int?

    @Flag(help: "Print JSON for machines instead of a table.")
    var json = false

    @OptionGroup var progressOptions: ProgressOptions

    @Option(parsing: .upToNextOption, help: ArgumentHelp("Compare two --json outputs of this command, before and after: every figure in both, with its ratio B/A. Runs nothing.", valueName: "A.json B.json"))
    var compare: [String] = []

    func validate() throws {
        guard compare.isEmpty || compare.count == 2 else { throw ValidationError("--compare takes two files, A.json B.json") }
        guard (1...100).contains(clients) else { throw ValidationError("--clients takes 1 to 100, not \(clients)") }
        guard (1...10).contains(fingers) else { throw ValidationError("--fingers takes 1 to 10, not \(fingers)") }
        guard clients * fingers <= 256 else { throw ValidationError("--clients × --fingers is at most 256 touches at once (the router's limit), not \(clients * fingers)") }
        guard (1...1000).contains(rate) else { throw ValidationError("--rate takes 1 to 1000 reports a second, not \(rate)") }
        guard seconds.isFinite, (0.1...600).contains(seconds) else { throw ValidationError("--seconds takes 0.1 to 600") }
        guard (1...1000).contains(rounds) else { throw ValidationError("--rounds takes 1 to 1000, not \(rounds)") }
        guard (try? Self.parseSize(size)) != nil else { throw ValidationError("--size takes WxH, each 1 to 8192, not '\(size)'") }
        if let peer, peer != "sway" { throw ValidationError("--peer takes only 'sway', not '\(peer)'") }
        if let recording, !FileManager.default.isReadableFile(atPath: recording) { throw ValidationError("--recording: cannot read \(recording)") }
        if plot != nil && !present { throw ValidationError("--plot draws touch to present: it needs --present") }
        if let refresh, !(refresh.isFinite && (1...1000).contains(refresh)) { throw ValidationError("--refresh takes 1 to 1000 Hz, not \(refresh)") }
        if let cpu {
            let online = sysconf(Int32(_SC_NPROCESSORS_ONLN))
            guard cpu >= 0, cpu < online else { throw ValidationError("--cpu takes 0 to \(online - 1) on this machine, not \(cpu)") }
        }
    }

    static func parseSize(_ text: String) throws -> (Int, Int) {
        let parts = text.split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (1...8192).contains(w), (1...8192).contains(h) else { throw ValidationError("size") }
        return (w, h)
    }

    func run() throws {
        try reportingFailures {
            if compare.count == 2 {
                print(try BenchComparison.table(compare[0], compare[1], command: .e2e))
                return
            }
            let tools = try EndToEndTools()
            let work: URL
            if let keep {
                work = URL(fileURLWithPath: keep).standardizedFileURL
            } else {
                work = FileManager.default.temporaryDirectory.appendingPathComponent("touch-router-e2e-\(getpid())")
            }
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            defer { if keep == nil { try? FileManager.default.removeItem(at: work) } }
            // Before any child starts: each inherits the mask of the thread that starts it.
            if let cpu { try CPUPinning.pinProcess(to: cpu) }
            let recordingPath = recording.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
            let run = EndToEndRun(tools: tools, work: work, clients: clients, fingers: fingers, rate: rate, seconds: seconds,
                                  recording: recordingPath, size: size, reportReceipts: reportReceipts, present: present, refresh: refresh, progress: progressOptions.shown)
            // A write to a child that has gone ends with an error, not with the signal.
            signal(SIGPIPE, SIG_IGN)
            let (touchRouter, floor, playedRounds) = try run.interleaved(rounds: rounds)
            var peerReport: String?
            var peerTable: String?
            var plotSides: [(name: String, summary: PresentAnalysis.Summary)] = []
            if let shown = touchRouter.present { plotSides.append(("TouchRouter, touch (device time)", shown)) }
            if peer == "sway" {
                let comparison = try PeerBench(tools: tools, work: work, clients: clients, rate: rate, seconds: seconds, size: size, rounds: rounds,
                                               present: present, refresh: refresh, progress: progressOptions.shown).run()
                peerReport = comparison.json
                peerTable = comparison.table
                plotSides += comparison.present
            }
            if let plot {
                try PresentAnalysis.plot(plotSides, title: "touch-router bench e2e --present: \(workloadDescription), input to presentation", to: plot)
            }
            let report = EndToEndReport(workload: workloadJSON(rounds: playedRounds), touchRouter: touchRouter, floor: floor, peerJSON: peerReport)
            if json {
                print(report.json)
            } else {
                print(report.table(title: "bench e2e: \(workloadDescription), \(playedRounds) round\(playedRounds == 1 ? "" : "s") a side, interleaved"))
                if let peerTable { print("\n" + peerTable) }
                if keep != nil { print("\nlogs, records and workloads: \(work.path)") }
            }
        }
    }

    var workloadDescription: String {
        if let recording { return "\(clients) client\(clients == 1 ? "" : "s"), recording \(recording)" }
        return "\(clients) client\(clients == 1 ? "" : "s"), \(fingers) finger\(fingers == 1 ? "" : "s") each, \(rate) Hz, \(seconds) s"
            + (refresh.map { ", output at \($0) Hz" } ?? "") + (cpu.map { ", all on CPU \($0)" } ?? "")
    }

    func workloadJSON(rounds: Int) -> String {
        let (w, h) = (try? Self.parseSize(size)) ?? (0, 0)
        return "{\"clients\":\(clients),\"fingers\":\(recording == nil ? String(fingers) : "null"),\"rate\":\(recording == nil ? String(rate) : "null"),"
            + "\"seconds\":\(recording == nil ? String(seconds) : "null"),\"recording\":\(recording.map { jsonString($0) } ?? "null"),\"size\":[\(w),\(h)],\"rounds\":\(rounds),\"refresh_hz\":\(refresh.map { String($0) } ?? "60"),"
            + "\"cpu\":\(cpu.map(String.init) ?? "null"),\"cpus_allowed\":\(jsonString(CPUPinning.allowedList() ?? ""))}"
    }
}


/// The programs a run starts: this launcher (`touch-router run`) and the C programs beside it.
struct EndToEndTools {
    let launcher: String
    let client: String
    let floor: String
    let injector: String
    /// Preloaded into sway for --present (Sources/Benchmarks/sway-present-fix).
    let swayPresentFix: String

    init() throws {
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let directory = URL(fileURLWithPath: me).deletingLastPathComponent()
        launcher = directory.appendingPathComponent("touch-router").path
        client = directory.appendingPathComponent("touch-router-bench-client").path
        floor = directory.appendingPathComponent("touch-router-bench-floor").path
        injector = directory.appendingPathComponent("touch-router-bench-injector").path
        swayPresentFix = directory.appendingPathComponent("libtouch-router-sway-present-fix.so").path
        for path in [launcher, client, floor] where !FileManager.default.isExecutableFile(atPath: path) {
            throw Failure(description: "touch-router bench e2e: \(path) is missing: build the package (swift build), which builds it beside touch-router")
        }
    }
}

/// What one compositor's side of a run gave.
struct SideReport {
    var sent: Int
    var received: Int
    var frames: Int
    var matchedBy: String
    var unmatched: Int
    var dropped: Int
    var latency: EndToEndAnalysis.Summary
    /// Extra JSON fields (with a leading comma), the router share for TouchRouter.
    var extraJSON = ""
    var floorWorkload = ""
    var routerShare: EndToEndAnalysis.Summary?
    /// Arrival to received as the session's statistics have it from the clients' own reports.
    var receivedStage: EndToEndAnalysis.Summary?
    /// --present: device time to the presentation of the answer, from the clients' feedback.
    var present: PresentAnalysis.Summary?
    /// --present: touch_to_present and commit_to_present from msg stats.
    var presentStage: EndToEndAnalysis.Summary?
    var commitToPresent: EndToEndAnalysis.Summary?

    var countsMatch: Bool { sent == received && unmatched == 0 && dropped == 0 }

    var json: String {
        "{\"sent\":\(sent),\"received\":\(received),\"counts_match\":\(countsMatch),\"frames\":\(frames),\"matched_by\":\(jsonString(matchedBy)),"
            + "\"unmatched\":\(unmatched),\"dropped\":\(dropped),\"latency_ns\":\(latency.json)\(extraJSON)"
            + (present.map { ",\"touch_to_present\":\($0.json)" } ?? "") + "}"
    }
}

/// One `bench e2e` run's steps, each its own compositor with its own XDG_RUNTIME_DIR.
struct EndToEndRun {
    let tools: EndToEndTools
    let work: URL
    let clients: Int
    let fingers: Int
    let rate: Int
    let seconds: Double
    let recording: String?
    let size: String
    let reportReceipts: Bool
    let present: Bool
    /// TouchRouter's headless output refresh (Hz); nil for the session's default, 60.
    let refresh: Double?
    let progress: Bool

    static func environment(runtime: URL, extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for key in ["WAYLAND_DISPLAY", "DISPLAY", "TOUCH_ROUTER_SOCKET", "WAYLAND_DEBUG", "SWAYSOCK"] { environment[key] = nil }
        environment["XDG_RUNTIME_DIR"] = runtime.path
        environment["XDG_CONFIG_HOME"] = runtime.path
        return environment.merging(extra) { $1 }
    }

    static func directory(_ url: URL, owner: BenchUser? = nil) throws -> URL {
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        if let owner { chown(url.path, owner.uid, owner.gid) }
        return url
    }

    /// Starts the benchmark clients one after the other, each once the one before has mapped.
    static func startClients(_ count: Int, tools: EndToEndTools, display: String, runtime: URL, size: String, user: BenchUser? = nil,
                             environment: [String: String]? = nil, extraArguments: [String] = []) throws -> [BenchChild] {
        var started: [BenchChild] = []
        do {
            for i in 0..<count {
                let env = (environment ?? Self.environment(runtime: runtime)).merging(["WAYLAND_DISPLAY": display]) { $1 }
                let client = try BenchChild("client \(i)", executable: tools.client,
                                            arguments: ["--out", runtime.appendingPathComponent("client-\(i).txt").path, "--size", size, "--title", "bench-client-\(i)"] + extraArguments,
                                            environment: env, errorLog: runtime.appendingPathComponent("client-\(i).err"), user: user)
                started.append(client)
                guard let line = try client.output.line(within: 20, what: "benchmark client \(i) to map"), line.hasPrefix("mapped") else {
                    throw Failure(description: "touch-router bench e2e: benchmark client \(i) ended before it mapped: \(client.errors)")
                }
            }
        } catch {
            for client in started { client.terminate() }
            for client in started { client.waitForExit(within: 5) }
            throw error
        }
        return started
    }

    /// Each client's records; with `from`, those of events stamped before it (a warm-up's) left out.
    static func records(of clients: [BenchChild], runtime: URL, from: Int64? = nil) throws -> (events: [[EndToEndAnalysis.Received]], dropped: Int) {
        var all: [[EndToEndAnalysis.Received]] = []
        var dropped = 0
        for i in clients.indices {
            let file = try EndToEndAnalysis.records(runtime.appendingPathComponent("client-\(i).txt"))
            all.append(from.map { from in file.events.filter { $0.timestamp < 0 || $0.timestamp >= from } } ?? file.events)
            dropped += file.dropped
        }
        return (all, dropped)
    }
}

/// The run's table and JSON.
struct EndToEndReport {
    var workload: String
    var touchRouter: SideReport
    var floor: SideReport
    var peerJSON: String?

    static let p50Target = 1.2
    static let p99Target = 1.5
    /// Fewer touch frames than this behind a p99.9 and the report says it rests on too few.
    static let tailFramesWanted = 10

    /// The fewest touch frames (reports) the slowest 0.1% of a side's events can come from. A
    /// frame's events are late together (a CPU taken for a few milliseconds delays all of them),
    /// so a p99.9 resting on one or two frames is one slow moment's figure, not a tail.
    static func tailFrames(_ side: SideReport) -> Int? {
        guard side.received > 0, side.frames > 0 else { return nil }
        let tail = (side.received + 999) / 1000
        return max(1, Int((Double(tail) * Double(side.frames) / Double(side.received)).rounded(.up)))
    }

    var tailFrames: Int? { [Self.tailFrames(touchRouter), Self.tailFrames(floor)].compactMap { $0 }.min() }

    func ratio(_ a: UInt64, _ b: UInt64) -> Double? { b == 0 ? nil : Double(a) / Double(b) }
    func ratioJSON(_ value: Double?) -> String { value.map { String(format: $0, digits: 3) } ?? "null" }

    var json: String {
        let r50 = ratio(touchRouter.latency.p50, floor.latency.p50), r99 = ratio(touchRouter.latency.p99, floor.latency.p99)
        let r999 = ratio(touchRouter.latency.p999, floor.latency.p999)
        return "{\"bench\":\"e2e\",\"unit\":\"ns\",\"workload\":\(workload),\"touchrouter\":\(touchRouter.json),\"floor\":\(floor.json),"
            + "\"ratios\":{\"p50\":\(ratioJSON(r50)),\"p99\":\(ratioJSON(r99)),\"p99_9\":\(ratioJSON(r999))},"
            + "\"target\":{\"p50_ratio_at_most\":\(Self.p50Target),\"p99_ratio_at_most\":\(Self.p99Target),"
            + "\"p50_met\":\(r50.map { $0 <= Self.p50Target } ?? false),\"p99_met\":\(r99.map { $0 <= Self.p99Target } ?? false)},"
            + "\"p99_9_tail_frames\":\(tailFrames.map(String.init) ?? "null"),\"peer\":\(peerJSON ?? "null")}"
    }

    static func micro(_ ns: UInt64) -> String { String(format: Double(ns) / 1000, digits: 1) }

    func table(title: String) -> String {
        var rows: [[String]] = [["", "sent", "received", "matched by", "p50 µs", "p99 µs", "p99.9 µs", "max µs"]]
        for (name, side) in [("TouchRouter", touchRouter), ("raw libwayland floor", floor)] {
            rows.append([name, "\(side.sent)", "\(side.received)", side.matchedBy, Self.micro(side.latency.p50), Self.micro(side.latency.p99), Self.micro(side.latency.p999), Self.micro(side.latency.max)])
        }
        func r(_ a: UInt64, _ b: UInt64) -> String { ratio(a, b).map { String(format: $0, digits: 2) + "×" } ?? "-" }
        rows.append(["TouchRouter / floor", "", "", "", r(touchRouter.latency.p50, floor.latency.p50), r(touchRouter.latency.p99, floor.latency.p99),
                     r(touchRouter.latency.p999, floor.latency.p999), r(touchRouter.latency.max, floor.latency.max)])
        var lines = [title, "device time (arrival) → receipt by the client, touch down/motion/up events:"] + alignedRows(rows)
        if let share = touchRouter.routerShare {
            lines.append("router share (arrival → flushed, msg stats, \(share.count) events): p50 \(Self.micro(share.p50)) µs, p99 \(Self.micro(share.p99)) µs, p99.9 \(Self.micro(share.p999)) µs")
        }
        if let shown = touchRouter.present {
            let l = shown.latency
            lines.append("touch to present (device time → the answer's presentation, \(shown.answered) events answered in \(shown.commits) commits, \(shown.discarded) superseded): "
                + "p50 \(Self.micro(l.p50)) µs, p99 \(Self.micro(l.p99)) µs, p99.9 \(Self.micro(l.p999)) µs, max \(Self.micro(l.max)) µs; frames missed \(shown.missed), unanswered \(shown.unanswered)")
            lines.append(shown.drawingLine)
            if let stage = touchRouter.presentStage, let commit = touchRouter.commitToPresent {
                lines.append("present stage (msg stats): touch_to_present \(stage.count) events, p50 \(Self.micro(stage.p50)) µs, p99 \(Self.micro(stage.p99)) µs; commit_to_present \(commit.count) commits, p50 \(Self.micro(commit.p50)) µs, p99 \(Self.micro(commit.p99)) µs")
            }
        }
        if let received = touchRouter.receivedStage {
            lines.append("received stage (arrival → received, the clients' reports in msg stats, \(received.count) events): p50 \(Self.micro(received.p50)) µs, p99 \(Self.micro(received.p99)) µs, p99.9 \(Self.micro(received.p999)) µs")
        }
        for (name, side) in [("TouchRouter", touchRouter), ("floor", floor)] where !side.countsMatch {
            lines.append("WARNING: \(name): \(side.sent) events sent, \(side.received) received, \(side.unmatched) unmatched, \(side.dropped) dropped by the clients: the counts do not match")
        }
        if let frames = tailFrames, frames < Self.tailFramesWanted {
            let longer = (Self.tailFramesWanted + frames - 1) / frames
            lines.append("p99.9: the slowest 0.1% of a side's events can all come from \(frames) touch frame\(frames == 1 ? "" : "s"), so one slow moment sets it; a run \(longer)× as long gives it at least \(Self.tailFramesWanted).")
        }
        let r50 = ratio(touchRouter.latency.p50, floor.latency.p50), r99 = ratio(touchRouter.latency.p99, floor.latency.p99)
        lines.append("target (issue 13): p50 ≤ \(Self.p50Target)× floor: \(r50.map { $0 <= Self.p50Target ? "met" : "not met" } ?? "-"); p99 ≤ \(Self.p99Target)× floor: \(r99.map { $0 <= Self.p99Target ? "met" : "not met" } ?? "-")")
        return lines.joined(separator: "\n")
    }
}

func alignedRows(_ rows: [[String]]) -> [String] {
    let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max() ?? 0 }
    return rows.map { row in
        row.enumerated().map { i, cell in i == 0 || i == 3 ? cell.padding(to: widths[i]) : cell.leftPadded(to: widths[i]) }.joined(separator: "  ")
    }
}
