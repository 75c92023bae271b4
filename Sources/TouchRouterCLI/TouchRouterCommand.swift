import ArgumentParser
import Foundation
import TouchRouterBench
import TouchRouterCore
import TouchRouterReplay

/// The CLI's entry, called by the launcher (Sources/TouchRouterLauncher) with its own
/// arguments once it has loaded this library. Returns only when the command succeeded:
/// ArgumentParser exits the process with the command's status otherwise.
@_cdecl("touch_router_cli_main")
public func touchRouterCLIMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    let arguments = (1..<max(1, Int(argc))).map { String(cString: argv[$0]!) }
    if ManualHelp.show(arguments) { return 0 }
    TouchRouterCommand.main(arguments)
    return 0
}

struct TouchRouterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "touch-router",
        abstract: "Routes touch, keyboard and pointer input to Wayland surfaces, as UIKit delivers events.",
        discussion: "The manual, as man pages:\n\(ManualHelp.topicList)",
        subcommands: [Run.self, Msg.self, Route.self, Bench.self])
}

/// A failure to report as it is: the message already names file, line and what was wrong.
struct Failure: Error, CustomStringConvertible {
    var description: String
}

/// Runs `body`; a `Failure` is printed to standard error, unprefixed, and the exit status is 1.
func reportingFailures(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let failure as Failure {
        FileHandle.standardError.write(Data((failure.description + "\n").utf8))
        throw ExitCode.failure
    } catch let error as InputFileError {
        FileHandle.standardError.write(Data((error.description + "\n").utf8))
        throw ExitCode.failure
    }
}

func readFile(_ path: String, what: String) throws -> String {
    guard let data = FileManager.default.contents(atPath: path) else {
        throw Failure(description: "\(path): error: cannot read the \(what) file (no such file, or no permission)")
    }
    // Checked for size and UTF-8 by the replay reader, whose error names the first bad byte's line and column.
    return try InputText.decode([UInt8](data), file: path, what: what)
}

struct Route: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Plays an input script, or a libinput recording, through a scene and prints who got each event, where and why.")

    @Option(help: "The scene file (JSON): outputs and their surface trees.")
    var scene: String

    @Option(help: "The input script: one timed event or action per line.")
    var script: String?

    @Option(help: ArgumentHelp("A `libinput record` recording (YAML) instead of a script: its kernel frames decoded as the libinput backend would, touchscreens mapped onto the scene's first output.", valueName: "file.yml"))
    var recording: String?

    @Option(help: "text for people, json for one JSON object per line.")
    var format: TraceFormat = .text

    @Option(help: ArgumentHelp("Also write every routed event's timeline in the Chrome trace event format (Perfetto, chrome://tracing): one track per stage interval. The replay's clock then steps --trace-step-ns at every read, so stages have widths.", valueName: "file.json"))
    var traceOut: String?

    @Option(help: "With --trace-out: nanoseconds the replay's clock moves at every read (0: the script's times alone).")
    var traceStepNs: Int64 = 1_000

    func validate() throws {
        if (script == nil) == (recording == nil) { throw ValidationError("give one of --script FILE and --recording FILE.yml") }
    }

    func run() throws {
        try reportingFailures {
            let parsedScene = try Scene.parse(try readFile(scene, what: "scene"), file: scene)
            let loaded = try parsedScene.load()
            let parsed: Script
            if let recording {
                let area = parsedScene.outputs.first?.rect ?? Rect(x: 0, y: 0, width: 1, height: 1)
                let decoded = try LibinputRecording.parse(try readFile(recording, what: "recording"), file: recording, area: area)
                for note in decoded.notes { FileHandle.standardError.write(Data("note: \(note)\n".utf8)) }
                parsed = decoded.script
            } else {
                parsed = try Script.parse(try readFile(script ?? "", what: "script"), file: script ?? "")
            }
            let replay = Replay(scene: loaded)
            let collector = traceOut.map { _ in TimelineCollector() }
            if let collector {
                replay.clock.tickPerRead = max(0, traceStepNs)
                replay.router.timelineObserver = collector
                replay.afterLine = { collector.flushed(at: replay.clock.now()) }
            }
            replay.run(parsed, trace: TraceWriter(format: format, names: loaded.names) { print($0) })
            if let traceOut, let collector {
                guard FileManager.default.createFile(atPath: traceOut, contents: Data(ChromeTrace.json(collector.timelines).utf8)) else {
                    throw Failure(description: "\(traceOut): error: cannot write the trace file")
                }
            }
        }
    }
}

extension TraceFormat: ExpressibleByArgument {}

struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Benchmarks.", subcommands: [HitTest.self, RouteEvents.self, ComposeBench.self, TouchMapBench.self, MotionLoop.self, EndToEndBench.self])
}

struct HitTest: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hit-test",
        abstract: "Times the hit-test index against the plain recursive walk on the same scene and points.",
        discussion: """
            Synthetic scenes hold N leaf surfaces: ⌈N/3⌉ windows of 400×300 at seeded random \
            positions on a 3840×2160 output, each with three subsurfaces. Per query: the median \
            over runs, and p50/p99 over batches of \(HitTestBenchmark.batch) queries. On a scene of one \
            output, a C grid floor (each window one rectangle, 128-px cells) is timed on the same \
            windows and random points, a run of each in turn, beside the index.
            """)

    @OptionGroup var synthetic: SyntheticSceneOptions

    @Option(help: "Measure this scene file instead of a synthetic scene.")
    var scene: String?

    @Option(help: "Cell size of the index as a power of two (9, the default, is 512 px).")
    var cellShift: Int = HitTestIndex.defaultCellShift

    @Option(help: "Timed runs over each point set.")
    var runs: Int = 7

    @Flag(help: "Time only the index, not the reference walk (which takes minutes on large scenes).")
    var indexOnly = false

    @OptionGroup var progress: ProgressOptions

    @Flag(help: "Print JSON for machines instead of a table.")
    var json = false

    @Option(parsing: .upToNextOption, help: ArgumentHelp("Compare two --json outputs of this command, before and after: every figure in both, with its ratio B/A. Runs nothing.", valueName: "A.json B.json"))
    var compare: [String] = []

    func validate() throws {
        guard compare.isEmpty || compare.count == 2 else { throw ValidationError("--compare takes two files, A.json B.json") }
        guard HitTestIndex.cellShifts.contains(cellShift) else { throw ValidationError("--cell-shift takes \(HitTestIndex.cellShifts.lowerBound) to \(HitTestIndex.cellShifts.upperBound)") }
        guard runs >= 1 else { throw ValidationError("--runs takes 1 or more") }
    }

    func run() throws {
        if compare.count == 2 { return try reportingFailures { print(try BenchComparison.table(compare[0], compare[1], command: .hitTest)) } }
        var benchmark = HitTestBenchmark()
        benchmark.runs = runs
        benchmark.indexOnly = indexOnly
        var reports: [HitTestBenchmark.Report] = []
        if let scene {
            var loaded: LoadedScene?
            try reportingFailures {
                loaded = try Scene.parse(try readFile(scene, what: "scene"), file: scene).load(cellShift: cellShift)
            }
            guard let loaded else { return }
            let toplevels = loaded.tree.outputs.flatMap(\.toplevels)
            let leafCount = loaded.tree.allSurfaces.filter { loaded.tree.children(of: $0).isEmpty }.count
            reports.append(benchmark.run(label: scene, leaves: leafCount, seed: synthetic.seed) { (loaded.tree, toplevels) })
        } else {
            let bar = progress.bar(steps: synthetic.leaves.count)
            for n in synthetic.leaves {
                reports.append(bar.step("\(n) leaves") {
                    benchmark.run(label: "synthetic", leaves: n, seed: synthetic.seed) {
                        SyntheticScene.build(leaves: n, seed: synthetic.seed, cellShift: cellShift)
                    }
                })
            }
            bar.finish()
        }
        if json {
            print(BenchFormatting.json(reports))
        } else {
            print(BenchFormatting.table(reports))
        }
    }
}

struct RouteEvents: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "route",
        abstract: "Times routing steps (queue, dispatch, focus, delivery to a discarding stand-in) on the synthetic scene.",
        discussion: """
            Each event kind's median and p99 in ns per step; then --fingers fingers moving together at \
            --rate reports a second (each report every finger's motion and a frame), in ns per routed \
            motion and routed motions a second on one core. --instructions counts, with valgrind's \
            callgrind, the instructions per routed motion of that workload: a figure this VM's timing \
            noise does not move.
            """)

    @OptionGroup var synthetic: SyntheticSceneOptions

    @Option(help: "Fingers moving together, 1 to 10.")
    var fingers: Int = 10

    @Option(help: "Reports a second of the touchscreen, 60 to 1000.")
    var rate: Int = 1000

    @Flag(help: "Also count instructions per routed motion with valgrind --tool=callgrind (Debian: valgrind, binutils).")
    var instructions = false

    @Flag(help: "Print JSON for machines instead of a table.")
    var json = false

    @Option(help: ArgumentHelp("Time a `libinput record` recording's decoded events as the workload instead, touchscreens mapped onto the synthetic 3840x2160 output.", valueName: "file.yml"))
    var recording: String?

    @OptionGroup var progress: ProgressOptions

    @Option(help: ArgumentHelp("Write an HDR percentile plot (SVG) of each stage's latency, drawn by tools/plot-latency.py with matplotlib (Debian: python3-matplotlib).", valueName: "file.svg"))
    var plot: String?

    @Option(parsing: .upToNextOption, help: ArgumentHelp("Compare two --json outputs of this command, before and after: every figure in both, with its ratio B/A. Runs nothing.", valueName: "A.json B.json"))
    var compare: [String] = []

    func validate() throws {
        guard compare.isEmpty || compare.count == 2 else { throw ValidationError("--compare takes two files, A.json B.json") }
        guard (1...10).contains(fingers) else { throw ValidationError("--fingers takes 1 to 10, not \(fingers)") }
        guard (60...1000).contains(rate) else { throw ValidationError("--rate takes 60 to 1000 reports a second, not \(rate)") }
    }

    func run() throws {
        if compare.count == 2 { return try reportingFailures { print(try BenchComparison.table(compare[0], compare[1], command: .route)) } }
        if let recording { return try runRecording(recording) }
        let bar = progress.bar(steps: synthetic.leaves.count * (instructions ? 4 : 3))
        let reports = synthetic.leaves.map { n in bar.step("\(n) leaves: each event kind") { RouteBenchmark().run(leaves: n, seed: synthetic.seed) } }
        let multi = synthetic.leaves.map { n in
            bar.step("\(n) leaves: \(fingers) fingers at \(rate) Hz") { MultiFingerBenchmark().run(leaves: n, fingers: fingers, rateHz: rate, seed: synthetic.seed) }
        }
        let counted = try instructions ? synthetic.leaves.map { n in
            try bar.step("\(n) leaves: instructions (callgrind)") { try InstructionCount.perMotion(leaves: n, fingers: fingers, rate: rate, seed: synthetic.seed) }
        } : []
        let stages = synthetic.leaves.map { n in
            bar.step("\(n) leaves: per-stage timelines") { RouteStages.measure(leaves: n, fingers: fingers, rateHz: rate, seed: synthetic.seed) }
        }
        bar.finish()
        if let plot { try reportingFailures { try LatencyPlot.write(stages, to: plot) } }
        if json {
            let rows = zip(reports, multi).enumerated().map { index, pair in
                let (r, m) = pair
                let steps = r.rows.map { "\"\($0.name)\":{\"median_ns\":\(String(format: $0.median, digits: 1)),\"p99_ns\":\(String(format: $0.p99, digits: 1))}" }
                let fingers = "\"fingers\":{\"fingers\":\(m.fingers),\"rate_hz\":\(m.rateHz),\"median_ns\":\(String(format: m.medianNanoseconds, digits: 1)),"
                    + "\"p99_ns\":\(String(format: m.p99Nanoseconds, digits: 1)),\"events_per_second\":\(Int(m.eventsPerSecond))"
                    + (index < counted.count ? ",\"instructions_per_motion\":\(Int(counted[index].rounded()))" : "") + "}"
                return "{\"leaves\":\(r.leaves)," + (steps + [fingers, stages[index].json]).joined(separator: ",") + "}"
            }
            print(rows.count == 1 ? rows[0] : "[" + rows.joined(separator: ",\n") + "]")
        } else {
            for (index, (r, m)) in zip(reports, multi).enumerated() {
                print("\(r.leaves) leaves")
                for row in r.rows {
                    print("  \(row.name.padding(to: 40)) median \(String(format: row.median, digits: 1)) ns/step   p99 \(String(format: row.p99, digits: 1)) ns")
                }
                print("  \("\(m.fingers) fingers at \(m.rateHz) Hz (per motion)".padding(to: 40)) median \(String(format: m.medianNanoseconds, digits: 1)) ns/event  p99 \(String(format: m.p99Nanoseconds, digits: 1)) ns   \(String(format: m.eventsPerSecond / 1e6, digits: 2)) M events/s on one core")
                if index < counted.count {
                    print("  \("instructions per routed motion".padding(to: 40)) \(Int(counted[index].rounded())) (callgrind)")
                }
                stages[index].lines.forEach { print($0) }
            }
        }
    }

    /// A recording's decoded events as the workload, instead of the synthetic steps.
    private func runRecording(_ recording: String) throws {
        try reportingFailures {
            let decoded = try LibinputRecording.parse(try readFile(recording, what: "recording"), file: recording, area: WorkloadBenchmark.outputArea)
            for leaves in synthetic.leaves {
                let timing = WorkloadBenchmark().run(events: decoded.events, leaves: leaves, seed: synthetic.seed)
                if json {
                    print("{\"leaves\":\(leaves),\"recording\":{\"events\":\(decoded.events.count),\"median_ns\":\(String(format: timing.median, digits: 1)),\"worst_run_ns\":\(String(format: timing.worst, digits: 1))}}")
                } else {
                    print("\(leaves) leaves, \(recording) (\(decoded.events.count) events)")
                    print("  \("recorded events, each routed".padding(to: 40)) median \(String(format: timing.median, digits: 1)) ns/event   worst run \(String(format: timing.worst, digits: 1)) ns")
                }
            }
        }
    }
}

/// `bench motion-loop`, run by `bench route --instructions` under callgrind: the multi-finger
/// workload for a given number of reports, and nothing else.
struct MotionLoop: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "motion-loop", abstract: "The multi-finger workload alone, for callgrind.", shouldDisplay: false)

    @Option var leaves: Int = 10_000
    @Option var fingers: Int = 10
    @Option var rate: Int = 1000
    @Option var seed: UInt64 = 1
    @Option var reports: Int = 1000

    func run() throws {
        guard (100...100_000).contains(leaves), (1...10).contains(fingers), (60...1000).contains(rate), (0...10_000_000).contains(reports) else {
            throw ValidationError("motion-loop: --leaves 100 to 100000, --fingers 1 to 10, --rate 60 to 1000, --reports 0 to 10000000")
        }
        var setup = MultiFingerBenchmark.setUp(leaves: leaves, fingers: fingers, rateHz: rate, seed: seed)
        print(setup.route(reports: reports))
    }
}

/// The synthetic scenes both benchmarks measure.
struct SyntheticSceneOptions: ParsableArguments {
    @Option(parsing: .upToNextOption, help: "Leaf surfaces (100 to 100000); several give one result each.")
    var leaves: [Int] = [10_000]

    @Option(help: "Seed of the synthetic scene and of the points.")
    var seed: UInt64 = 1

    func validate() throws {
        for n in leaves where !(100...100_000).contains(n) {
            throw ValidationError("--leaves takes 100 to 100000, not \(n)")
        }
    }
}
