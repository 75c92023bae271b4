import Foundation
import Testing

/// Issue 13, "For people and machines": per-stage percentiles in `bench route`, `--compare`,
/// `route --trace-out` and `bench route --plot`.
@Suite("touch-router bench route's stages, --compare, --plot and route --trace-out")
struct BenchReportTests {
    static let intervals = ["arrival_to_dequeued", "dequeued_to_decided", "decided_to_encoded", "encoded_to_flushed", "arrival_to_flushed"]

    func temporary(_ name: String, _ text: String? = nil) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("touch-router-report-\(getpid())-\(name)")
        try? FileManager.default.removeItem(at: url)
        if let text { try text.write(to: url, atomically: true, encoding: .utf8) }
        return url.path
    }

    @Test("bench route --json has a stages object: every interval counted, p50 ≤ p99 ≤ p99.9, the router's share the largest")
    func stagesInJSON() throws {
        let run = try ToolRun(["bench", "route", "--leaves", "10000", "--fingers", "2", "--rate", "60", "--json"])
        #expect(run.status == 0, "\(run.errors)")
        let object = (try? JSONSerialization.jsonObject(with: Data(run.output.utf8))) as? [String: Any] ?? [:]
        let stages = try #require(object["stages"] as? [String: Any], "\(run.output)")
        #expect(stages["fingers"] as? Int == 2 && stages["rate_hz"] as? Int == 60)
        #expect(stages["clock"] as? String == "monotonic" && stages["delivery"] as? String == "discarding")
        let events = try #require(stages["events"] as? Int)
        #expect(events > 1000)
        for name in Self.intervals {
            let s = try #require(stages[name] as? [String: Any], "\(name) in \(stages)")
            let p50 = s["p50_ns"] as? Int ?? -1, p99 = s["p99_ns"] as? Int ?? -1, p999 = s["p99_9_ns"] as? Int ?? -1
            #expect(s["count"] as? Int == events, "\(name): every event reached a client and was flushed")
            #expect(p50 >= 0 && p50 <= p99 && p99 <= p999, "\(name): \(s)")
            #expect(p999 <= s["max_ns"] as? Int ?? -1, "\(name): \(s)")
        }
        let share = stages["arrival_to_flushed"] as? [String: Any] ?? [:], queue = stages["arrival_to_dequeued"] as? [String: Any] ?? [:]
        #expect((share["p50_ns"] as? Int ?? 0) >= (queue["p50_ns"] as? Int ?? 1), "arrival to flushed holds arrival to dequeued")
        #expect(share["p50_ns"] as? Int ?? 0 > 0)
        // The issue's target is judged at its own workload only (10 fingers, 1 kHz, 10,000 leaves).
        #expect(stages["router_share_target_met"] == nil)
    }

    @Test("--compare gives each figure both files have, with B/A, by its path, and skips the others")
    func compareRatios() throws {
        let a = try temporary("a.json", #"{"leaves":10000,"fingers":{"median_ns":100.0,"p99_ns":200,"events_per_second":10000000},"stages":{"clock":"monotonic","arrival_to_flushed":{"p99_ns":1000}},"only_a":5}"#)
        let b = try temporary("b.json", #"{"leaves":10000,"fingers":{"median_ns":150.0,"p99_ns":100,"events_per_second":6666666},"stages":{"clock":"monotonic","arrival_to_flushed":{"p99_ns":2500}},"only_b":5}"#)
        let run = try ToolRun(["bench", "route", "--compare", a, b])
        #expect(run.status == 0, "\(run.errors)")
        let lines = run.output.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        func row(_ figure: String) -> [String]? { lines.first { $0.count == 6 && $0[2] == figure }.map { Array($0[3...]) } }
        #expect(row("fingers.median_ns") == ["100", "150", "1.50"], "\(run.output)")
        #expect(row("fingers.p99_ns") == ["200", "100", "0.50"], "\(run.output)")
        #expect(row("fingers.events_per_second") == ["10000000", "6666666", "0.67"], "\(run.output)")
        #expect(row("stages.arrival_to_flushed.p99_ns") == ["1000", "2500", "2.50"], "\(run.output)")
        #expect(!run.output.contains("only_a") && !run.output.contains("only_b") && !run.output.contains("clock"), "\(run.output)")
    }

    @Test("--compare refuses a malformed file, or runs that differ, naming the file and what it expected")
    func compareRefuses() throws {
        let good = try temporary("good.json", #"{"leaves":100,"fingers":{"median_ns":1}}"#)
        let broken = try temporary("broken.json", #"{"leaves":100,"fingers":"#)
        let notRoute = try temporary("hit.json", #"{"scene":"synthetic","leaves":100,"index":{}}"#)
        let other = try temporary("other.json", #"{"leaves":1000,"fingers":{"median_ns":1}}"#)
        let malformed = try ToolRun(["bench", "route", "--compare", good, broken])
        #expect(malformed.status != 0)
        #expect(malformed.errors.contains("\(broken): error: not JSON; expected the output of `touch-router bench route --json`"), "\(malformed.errors)")
        let wrongShape = try ToolRun(["bench", "route", "--compare", notRoute, good])
        #expect(wrongShape.status != 0)
        #expect(wrongShape.errors.contains("\(notRoute): error: run 1 is not a run of `touch-router bench route --json`: expected an object with a number \"leaves\""), "\(wrongShape.errors)")
        let mismatched = try ToolRun(["bench", "route", "--compare", good, other])
        #expect(mismatched.status != 0)
        #expect(mismatched.errors.contains("\(other): error: expected the same runs as \(good) (100 leaves), found 1000 leaves"), "\(mismatched.errors)")
        let one = try ToolRun(["bench", "route", "--compare", good])
        #expect(one.status != 0 && one.errors.contains("--compare takes two files"), "\(one.errors)")
        // hit-test compares its own output, and refuses route's.
        let hit = try ToolRun(["bench", "hit-test", "--compare", notRoute, good])
        #expect(hit.status != 0 && hit.errors.contains("\(good): error: run 1 is not a run of `touch-router bench hit-test --json`"), "\(hit.errors)")
    }

    @Test("route --trace-out writes the Chrome trace format: the script's event kinds, complete events with non-negative durations, some wider than zero")
    func traceOut() throws {
        let out = try temporary("trace.json")
        let run = try ToolRun(["route", "--scene", ToolRun.samples.appendingPathComponent("kiosk-scene.json").path,
                               "--script", ToolRun.samples.appendingPathComponent("demo.script").path, "--trace-out", out])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("#1 touch down 0 400 300 → delivered (hit)"), "the text trace is still printed")
        let data = try #require(FileManager.default.contents(atPath: out))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let events = try #require(object["traceEvents"] as? [[String: Any]])
        let complete = events.filter { $0["ph"] as? String == "X" }
        let kinds = Set(complete.compactMap { $0["name"] as? String })
        for kind in ["touch down", "touch motion", "touch up", "touch frame", "key", "pointer motion", "pointer button", "pointer axis"] {
            #expect(kinds.contains(kind), "\(kind) in \(kinds)")
        }
        for event in complete {
            let ts = event["ts"] as? Double ?? -1, dur = event["dur"] as? Double ?? -1
            #expect(ts >= 0 && dur >= 0, "\(event)")
        }
        #expect(complete.contains { ($0["dur"] as? Double ?? 0) > 0 }, "the stepping clock gives stages a width")
        // Each whole event carries its stamps; the stage tracks are named.
        let whole = complete.filter { $0["tid"] as? Int == 1 }
        #expect(whole.count == 59, "one per routed event, as the JSON trace routes")
        #expect(whole.allSatisfy { (($0["args"] as? [String: Any])?["arrival_ns"]) != nil })
        let trackNames = events.filter { $0["name"] as? String == "thread_name" }.compactMap { ($0["args"] as? [String: Any])?["name"] as? String }
        #expect(trackNames.contains("arrival → dequeued") && trackNames.contains("encoded → flushed"), "\(trackNames)")
    }

    @Test("--progress draws a bar of the run's steps on standard error, leaving standard output to the figures; off the terminal it is off unless asked for")
    func progressBar() throws {
        let shown = try ToolRun(["bench", "hit-test", "--leaves", "100", "200", "--index-only", "--runs", "1", "--json", "--progress"])
        #expect(shown.status == 0)
        #expect(shown.errors.contains("] 0% 100 leaves"), "\(shown.errors)")
        #expect(shown.errors.contains("] 50% 200 leaves"), "\(shown.errors)")
        #expect(shown.errors.hasSuffix("[##############################] 100% done\n"), "\(shown.errors)")
        let rows = try JSONSerialization.jsonObject(with: Data(shown.output.utf8)) as? [[String: Any]]
        #expect(rows?.count == 2, "standard output is the JSON alone: \(shown.output)")
        let quiet = try ToolRun(["bench", "hit-test", "--leaves", "100", "--index-only", "--runs", "1", "--json"])
        #expect(quiet.status == 0)
        #expect(quiet.errors.isEmpty, "\(quiet.errors)")
    }

    @Test("bench route --plot writes an SVG of each interval's HDR percentiles, drawn by tools/plot-latency.py")
    func plot() throws {
        let svg = try temporary("plot.svg")
        let run = try ToolRun(["bench", "route", "--leaves", "10000", "--fingers", "1", "--rate", "60", "--plot", svg])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("arrival → flushed (router's share)"), "the table has the stages: \(run.output)")
        let text = try #require(FileManager.default.contents(atPath: svg).map { String(decoding: $0, as: UTF8.self) }, "\(run.errors)")
        #expect(text.hasPrefix("<?xml") || text.hasPrefix("<svg"))
        for name in Self.intervals { #expect(text.contains(name), "\(name) in the legend") }
        #expect(text.contains("99.9%"), "the percentile axis")
    }
}
