import Foundation
import TouchRouterBench
#if canImport(Glibc)
import Glibc
#endif

/// Both sides of a `bench e2e` run, interleaved: the session and the floor are up together,
/// each with its own benchmark clients, and the workload is played in rounds, a round on one
/// side then a round on the other (which goes first drawn at random). On this VM the floor's
/// own p50 moved between 20 and 34 µs from one run to the next, with load that came and went
/// over seconds; played one after the other, the two sides met different load and their
/// ratio was a coin toss. In rounds of a fraction of a second, both meet the same.
extension EndToEndRun {
    /// Rounds a run is played in: `requested`, fewer when a round would last under 0.1 s,
    /// one for a recording (played whole, at its own pace).
    func roundCount(requested: Int) -> Int {
        guard recording == nil else { return 1 }
        return max(1, min(requested, Int(seconds * 10)))
    }

    func interleaved(rounds requested: Int) throws -> (touchRouter: SideReport, floor: SideReport, rounds: Int) {
        let rounds = roundCount(requested: requested)
        let sessionRuntime = try Self.directory(work.appendingPathComponent("touchrouter"))
        let floorRuntime = try Self.directory(work.appendingPathComponent("floor"))

        let output = refresh.map { ["--output", "1920x1080@\($0)"] } ?? []
        let server = try BenchChild("touch-router run", executable: tools.launcher, arguments: ["run", "--backend", "headless"] + output,
                                     environment: Self.environment(runtime: sessionRuntime), errorLog: sessionRuntime.appendingPathComponent("session.err"))
        defer {
            server.terminate()
            server.waitForExit(within: 10)
        }
        let sessionDisplay = try server.value(after: "WAYLAND_DISPLAY=", within: 30, what: "touch-router run to listen")
        let socket = try server.value(after: "TOUCH_ROUTER_SOCKET=", within: 30, what: "touch-router run's control socket")
        let control = try BenchControl(path: socket)
        let sessionClients = try Self.startClients(clients, tools: tools, display: sessionDisplay, runtime: sessionRuntime, size: size,
                                                   extraArguments: (reportReceipts ? ["--report-receipts"] : []) + (present ? ["--present"] : []))
        defer { for client in sessionClients where client.process.isRunning { client.terminate() } }
        try waitForToplevels(control)

        let floor = try BenchChild("touch-router-bench-floor", executable: tools.floor, arguments: ["--clients", "\(clients)"],
                                   environment: Self.environment(runtime: floorRuntime), errorLog: floorRuntime.appendingPathComponent("floor.err"),
                                   takesCommands: true)
        defer {
            floor.endCommands()
            floor.terminate()
            floor.waitForExit(within: 10)
        }
        let floorDisplay = try floor.value(after: "WAYLAND_DISPLAY=", within: 30, what: "the floor server to listen")
        let floorClients = try Self.startClients(clients, tools: tools, display: floorDisplay, runtime: floorRuntime, size: size)
        defer { for client in floorClients where client.process.isRunning { client.terminate() } }
        _ = try floor.value(after: "ready", within: 30, what: "the floor's clients to map")

        let measuredFrom = try warmUp(rounds: rounds, control: control, floor: floor, runtime: sessionRuntime)
        _ = try control.request("stats reset")
        let bar = TimedProgressBar()
        if progress { bar.start("TouchRouter and the floor, \(rounds) round\(rounds == 1 ? "" : "s") each", seconds: recording == nil ? 2 * seconds : 10) }
        var sessionSide = PlayedSide()
        var floorSide = PlayedSide()
        var workload: URL?
        for round in 0..<rounds {
            // The floor plays what the session played last: the first round has to start with the
            // session. After it, a coin decides: with the order swapping every round, a side's
            // rounds came back every 2.1 s, and this VM's kernel (kdamond, DAMON's pageout) takes
            // a CPU for 1 to 10 ms every 0.5 or 1.02 s, so its bursts fell on one side for a whole run.
            let sessionFirst = round == 0 || Bool.random()
            if sessionFirst { workload = try playSession(round: String(round), rounds: rounds, control: control, runtime: sessionRuntime, into: &sessionSide) }
            guard let workload else { throw Failure(description: "touch-router bench e2e: no workload for the floor") }
            try playFloor(workload, floor: floor, into: &floorSide)
            if !sessionFirst { _ = try playSession(round: String(round), rounds: rounds, control: control, runtime: sessionRuntime, into: &sessionSide) }
        }
        bar.stop()
        // The loop flushes the last frame after the reply; a request later, it has, and the clients have had time to read it.
        var stats = try control.request("stats")
        usleep(200_000)
        // The clients' receipt reports for the last frames come after that flush.
        if reportReceipts || present { stats = try control.request("stats") }
        for client in sessionClients { client.terminate() }
        for client in sessionClients where client.waitForExit(within: 10) != 0 {
            throw Failure(description: "touch-router bench e2e: \(client.name) did not exit cleanly: \(client.errors)")
        }
        // The end of its commands: the floor disconnects its clients, and each writes its records and exits.
        floor.endCommands()
        for client in floorClients where client.waitForExit(within: 10) != 0 {
            throw Failure(description: "touch-router bench e2e: \(client.name) did not exit cleanly at the floor's end: \(client.errors)")
        }

        let (sessionEvents, sessionDropped) = try Self.records(of: sessionClients, runtime: sessionRuntime, from: measuredFrom)
        let matched = EndToEndAnalysis.touchLatencies(sessionEvents, sent: sessionSide.sent)
        var touchRouter = SideReport(sent: sessionSide.sent.count, received: matched.received, frames: sessionSide.frames, matchedBy: matched.matchedBy,
                                     unmatched: matched.unmatched, dropped: sessionDropped, latency: EndToEndAnalysis.Summary(matched.latencies))
        Self.addRouterShare(stats, lateFrames: sessionSide.lateFrames, runtime: sessionRuntime, to: &touchRouter)
        if present {
            var shown = PresentAnalysis.Summary()
            for (i, events) in sessionEvents.enumerated() {
                let commits = try PresentAnalysis.commits(sessionRuntime.appendingPathComponent("client-\(i).txt"))
                shown.add(events: events, commits: commits) { EndToEndAnalysis.touchKinds.contains($1.kind) && $1.timestamp >= 0 ? $1.timestamp : nil }
            }
            touchRouter.present = shown
        }

        let (floorEvents, floorDropped) = try Self.records(of: floorClients, runtime: floorRuntime, from: measuredFrom)
        let floorMatched = EndToEndAnalysis.touchLatencies(floorEvents, sent: nil)
        let floorReport = SideReport(sent: floorSide.sent.count, received: floorMatched.received, frames: floorSide.frames, matchedBy: floorMatched.matchedBy,
                                     unmatched: floorMatched.unmatched, dropped: floorDropped, latency: EndToEndAnalysis.Summary(floorMatched.latencies))
        return (touchRouter, floorReport, rounds)
    }

    /// One round a side before the measured ones, left out of every figure: a side's first
    /// frames pay its cold start (the session's statistics fault their pages in at their first
    /// counts, 0.6 ms in its first frame), which a session running for days pays once. Returns
    /// the monotonic time after it; the clients' records of events stamped before it are
    /// dropped. None for a recording (played once, whole) or `--present` (whose analysis
    /// counts every event a client drew).
    private func warmUp(rounds: Int, control: BenchControl, floor: BenchChild, runtime: URL) throws -> Int64? {
        guard recording == nil, !present else { return nil }
        var unmeasured = PlayedSide()
        let workload = try playSession(round: "warm-up", rounds: rounds, control: control, runtime: runtime, into: &unmeasured)
        try playFloor(workload, floor: floor, into: &unmeasured)
        return Stopwatch.now()
    }

    /// What one side played over all its rounds.
    struct PlayedSide {
        var sent = EndToEndAnalysis.Sent()
        var frames = 0
        var lateFrames = 0
    }

    private func waitForToplevels(_ control: BenchControl) throws {
        let deadline = Date().addingTimeInterval(20)
        while true {
            let tree = try control.request("tree")
            let toplevels = (tree["outputs"] as? [[String: Any]] ?? []).flatMap { $0["toplevels"] as? [[String: Any]] ?? [] }
            if toplevels.filter({ $0["mapped"] as? Bool == true }).count >= clients { return }
            guard Date() < deadline else { throw Failure(description: "touch-router bench e2e: \(clients) toplevels never mapped in the session: \(tree)") }
            usleep(20_000)
        }
    }

    /// One round through the session, as a device's input (`msg play`); the floor's workload for the same frames.
    /// `round` names its files (`played-ROUND.txt`, `workload-ROUND.txt`).
    private func playSession(round: String, rounds: Int, control: BenchControl, runtime: URL, into side: inout PlayedSide) throws -> URL {
        let log = runtime.appendingPathComponent("played-\(round).txt").path
        let request = recording.map { "play recording \($0) log=\(log)" } ?? "play touch \(fingers) \(rate) \(seconds / Double(rounds)) log=\(log)"
        let played = try control.request(request, within: (recording == nil ? seconds : 3600) + 60)
        side.lateFrames += (played["late_frames"] as? Int) ?? 0
        let parsed = try EndToEndAnalysis.playedLog(URL(fileURLWithPath: log))
        side.sent.append(parsed.sent)
        side.frames += parsed.frames
        let workload = work.appendingPathComponent("floor").appendingPathComponent("workload-\(round).txt")
        try parsed.floorWorkload.write(to: workload, atomically: true, encoding: .utf8)
        return workload
    }

    private func playFloor(_ workload: URL, floor: BenchChild, into side: inout PlayedSide) throws {
        try floor.send("play \(workload.path)")
        let done = try floor.value(after: "done ", within: (recording == nil ? seconds : 3600) + 60, what: "the floor server to finish a round")
        var events = 0, frames = 0
        for word in done.split(separator: " ") {
            if word.hasPrefix("events=") { events = Int(word.dropFirst(7)) ?? 0 }
            if word.hasPrefix("frames=") { frames = Int(word.dropFirst(7)) ?? 0 }
        }
        side.sent.count += events
        side.frames += frames
    }

    /// The router's own share and every stage from `msg stats`, and the whole reply beside the records.
    private static func addRouterShare(_ stats: [String: Any], lateFrames: Int, runtime: URL, to report: inout SideReport) {
        let stages = stats["stages"] as? [String: [String: Any]] ?? [:]
        let motion = ((stats["kinds"] as? [String: Any])?["touch motion"] as? [String: Any])?["stages"] as? [String: [String: Any]] ?? [:]
        func share(_ s: [String: Any]?) -> String {
            guard let s else { return "null" }
            return "{" + ["count", "p50", "p90", "p99", "p99_9", "max"].map { "\"\($0)\":\((s[$0] as? Int) ?? 0)" }.joined(separator: ",") + "}"
        }
        let stagesJSON = (try? JSONSerialization.data(withJSONObject: stages, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) } ?? "null"
        if let whole = try? JSONSerialization.data(withJSONObject: stats, options: [.sortedKeys]) { try? whole.write(to: runtime.appendingPathComponent("stats.json")) }
        report.extraJSON = ",\"late_frames\":\(lateFrames),\"router_share_ns\":{\"all\":\(share(stages["arrival_to_flushed"])),\"touch_motion\":\(share(motion["arrival_to_flushed"]))},"
            + "\"received_stage_ns\":\(share(stages["arrival_to_received"])),\"receipt_reports\":\(stats["receipt_reports"] as? Int ?? 0),"
            + "\"unmatched_receipt_reports\":\(stats["unmatched_receipt_reports"] as? Int ?? 0),\"router_stages_ns\":\(stagesJSON)"
        func summary(_ interval: [String: Any]) -> EndToEndAnalysis.Summary {
            var summary = EndToEndAnalysis.Summary([])
            summary.count = interval["count"] as? Int ?? 0
            summary.p50 = UInt64(interval["p50"] as? Int ?? 0)
            summary.p99 = UInt64(interval["p99"] as? Int ?? 0)
            summary.p999 = UInt64(interval["p99_9"] as? Int ?? 0)
            summary.max = UInt64(interval["max"] as? Int ?? 0)
            return summary
        }
        report.routerShare = stages["arrival_to_flushed"].map(summary)
        if let stage = stages["touch_to_present"], (stage["count"] as? Int ?? 0) > 0 { report.presentStage = summary(stage) }
        if let stage = stages["commit_to_present"], (stage["count"] as? Int ?? 0) > 0 { report.commitToPresent = summary(stage) }
        if let received = stages["arrival_to_received"], (received["count"] as? Int ?? 0) > 0 { report.receivedStage = summary(received) }
    }
}
