import Foundation
import Testing

/// The timeline in a live session (docs/benchmarks.md, "The timeline and `msg stats`"): Debian's wev gets
/// touch, key and pointer events injected through the control socket, and `msg stats`,
/// `msg stats slow` and `msg trace` show every stage of each.
@Suite("msg stats: the per-event timeline of a live session with wev", .serialized)
struct StatsSessionTests {
    static let kinds = ["touch down", "touch motion", "touch up", "touch frame", "key", "pointer motion", "pointer button", "pointer axis"]
    static let events = ["touch down 1 100 100", "touch frame", "touch motion 1 110 105", "touch frame", "touch up 1", "touch frame",
                         "key press KEY_A", "key release KEY_A", "pointer motion 120 120", "pointer button press BTN_LEFT",
                         "pointer button release BTN_LEFT", "pointer axis vertical 10 discrete 1"]

    /// The stages present, in order, strictly where the session's clock was read apart.
    static func ordered(_ stages: [String: Int], sourceLocation: SourceLocation = #_sourceLocation) {
        let names = ["arrival", "dequeued", "decided", "encoded", "flushed"]
        for name in ["device"] + names { #expect(stages[name] != nil, "\(name) in \(stages)", sourceLocation: sourceLocation) }
        let times = names.compactMap { stages[$0] }
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 }, "\(stages)", sourceLocation: sourceLocation)
        // An injected event's device time is the session's clock when the request was read.
        if let device = stages["device"], let arrival = stages["arrival"] { #expect(device <= arrival, "\(stages)", sourceLocation: sourceLocation) }
    }

    static func startWev(_ session: RunningSession) throws -> (URL, Process) {
        let log = session.file("wev.log")
        let wev = try session.client(["wev"], output: log)
        try session.wait(for: "wev to map") { try session.toplevels().first?["mapped"] as? Bool == true }
        try session.wait(for: "wev to take the keyboard focus") { try session.msg("focus").json["keyboard"] as? Int != nil }
        return (log, wev)
    }

    @Test("slow-ms = 0: every kind has every stage in msg stats, stats slow and the trace, per kind and for wev; reset empties; a reload to 10 s keeps none")
    func everyStage() throws {
        let config = try ConfigurationSessionTests.ConfigFile("[stats]\nslow-ms = 0\n")
        let session = try RunningSession(arguments: ["--config", config.path])
        defer { _ = session.terminate() }
        let (wevLog, wev) = try Self.startWev(session)
        let trace = try session.startTrace()
        #expect(try session.msg("stats", "reset").json["reset"] as? Bool == true)
        try session.inject(Self.events)
        try session.wait(for: "wev to get the scroll") { RunningSession.text(of: wevLog).contains("wl_pointer] axis") }
        var stats: [String: Any] = [:]
        try session.wait(for: "the axis event in msg stats") {
            stats = try session.msg("stats").json
            return ((stats["kinds"] as? [String: Any])?["pointer axis"] as? [String: Any])?["events"] as? Int == 1
        }
        #expect(stats["ok"] as? Bool == true && stats["unit"] as? String == "ns")
        #expect(stats["slow_threshold_ns"] as? Int == 0)
        let kinds = try #require(stats["kinds"] as? [String: [String: Any]])
        for kind in Self.kinds {
            let entry = try #require(kinds[kind], "\(kind) in \(kinds.keys.sorted())")
            let stages = try #require(entry["stages"] as? [String: [String: Int]])
            for interval in ["arrival_to_dequeued", "dequeued_to_decided", "decided_to_encoded", "encoded_to_flushed", "arrival_to_flushed", "device_to_arrival"] {
                let s = try #require(stages[interval], "\(kind): \(interval)")
                #expect((s["count"] ?? 0) >= 1, "\(kind): \(interval) \(s)")
                let values = ["p50", "p90", "p99", "p99_9", "max"].compactMap { s[$0] }
                #expect(values.count == 5 && zip(values, values.dropFirst()).allSatisfy { $0 <= $1 }, "\(kind): \(interval) \(s)")
            }
        }
        let clients = try #require(stats["clients"] as? [[String: Any]])
        let wevStats = try #require(clients.first { $0["pid"] as? Int == Int(wev.processIdentifier) }, "\(clients)")
        #expect((wevStats["events"] as? Int ?? 0) >= Self.events.count, "\(wevStats)")
        #expect(wevStats["connected"] as? Bool == true)

        // Everything that reached wev was slower than 0 ms: kept, with its breakdown.
        let slow = try session.msg("stats", "slow").json
        let kept = try #require(slow["events"] as? [[String: Any]])
        for kind in Self.kinds {
            let ofKind = kept.filter { $0["kind"] as? String == kind }
            #expect(!ofKind.isEmpty, "\(kind) among the slow events")
            for event in ofKind {
                Self.ordered(try #require(event["stages_ns"] as? [String: Int]))
                #expect((event["intervals_ns"] as? [String: Int])?["arrival_to_flushed"] != nil)
            }
        }

        // The trace carries the same stamps, flushed included.
        try session.wait(for: "the trace to show the axis event") { RunningSession.text(of: trace).contains("pointer axis vertical") }
        let routed = RunningSession.objects(of: trace).filter { ($0["deliveries"] as? [Any])?.isEmpty == false && $0["stages_ns"] != nil }
        #expect(routed.count >= Self.events.count)
        for record in routed { Self.ordered(try #require(record["stages_ns"] as? [String: Int])) }

        #expect(try session.msg("stats", "reset").status == 0)
        let empty = try session.msg("stats").json
        #expect(empty["events"] as? Int == 0)
        #expect((empty["kinds"] as? [String: Any])?.isEmpty == true)
        #expect((try session.msg("stats", "slow").json["events"] as? [Any])?.isEmpty == true)

        // A threshold no event reaches: counted, none kept.
        try config.write("[stats]\nslow-ms = 10000\n")
        #expect(try session.msg("reload").status == 0)
        try session.inject(["touch down 2 100 100", "touch frame", "touch up 2", "touch frame", "key press KEY_B", "key release KEY_B"])
        try session.wait(for: "the events in msg stats") { (try session.msg("stats").json["kinds"] as? [String: Any])?["key"] != nil }
        let none = try session.msg("stats", "slow").json
        #expect(none["slow_threshold_ns"] as? Int == 10_000_000_000)
        #expect((none["events"] as? [Any])?.isEmpty == true, "\(none)")
        #expect(try session.msg("stats", "bogus").status == 1)
    }

    @Test("a client that reports receipts (touch-router-bench-client --report-receipts): msg trace says which events each report covered, by seq, after their lines; stats slow gives them the received stage")
    func receivedStage() throws {
        let config = try ConfigurationSessionTests.ConfigFile("[stats]\nslow-ms = 0\n")
        let session = try RunningSession(arguments: ["--config", config.path])
        defer { _ = session.terminate() }
        let log = session.file("bench-client.log")
        _ = try session.client([EndToEndBenchTests.client, "--out", session.file("bench-client.txt").path, "--size", "400x300", "--report-receipts"], output: log)
        try session.wait(for: "the benchmark client to map") { try session.toplevels().first?["mapped"] as? Bool == true }
        let trace = try session.startTrace()
        #expect(try session.msg("stats", "reset").status == 0)
        try session.inject(["touch down 1 100 100", "touch frame", "touch motion 1 110 105", "touch frame", "touch up 1", "touch frame"])

        // The touch up's report covers everything before it; only the last frame waits for a next report.
        var routed: [[String: Any]] = [], receipts: [[String: Any]] = []
        try session.wait(for: "a report covering the touch up") {
            let objects = RunningSession.objects(of: trace)
            routed = objects.filter { ($0["event"] as? String)?.hasPrefix("touch") == true && ($0["deliveries"] as? [Any])?.isEmpty == false }
            receipts = objects.filter { $0["received_ns"] != nil }
            guard let up = routed.first(where: { ($0["event"] as? String)?.hasPrefix("touch up") == true })?["seq"] as? Int else { return false }
            return receipts.contains { ($0["seqs"] as? [Int])?.contains(up) == true }
        }
        let objects = RunningSession.objects(of: trace)
        let covered = receipts.flatMap { $0["seqs"] as? [Int] ?? [] }
        #expect(Set(covered).count == covered.count, "no event received twice: \(receipts)")
        let expected = routed.dropLast().compactMap { $0["seq"] as? Int }
        #expect(expected.count == 5 && Set(expected).isSubset(of: Set(covered)), "routed \(expected), covered \(covered)")
        for receipt in receipts {
            // A report's line comes after the line of every event it names.
            let at = objects.firstIndex { ($0["received_ns"] as? Int) == (receipt["received_ns"] as? Int) && ($0["seqs"] as? [Int]) == (receipt["seqs"] as? [Int]) } ?? -1
            for seq in receipt["seqs"] as? [Int] ?? [] {
                let line = objects.firstIndex { $0["seq"] as? Int == seq } ?? Int.max
                #expect(line < at, "seq \(seq) at line \(line), its report at \(at)")
                // Not after `flushed`: that stamp is read once every client is written, and a
                // client on the other core may have read its events by then.
                let encoded = (objects[min(line, objects.count - 1)]["stages_ns"] as? [String: Int])?["encoded"] ?? .max
                #expect(encoded <= receipt["received_ns"] as? Int ?? 0, "received after it was encoded: \(receipt)")
            }
            #expect((receipt["client"] as? String)?.isEmpty == false && receipt["event_time_ns"] as? Int != nil)
        }

        let slow = try #require(try session.msg("stats", "slow").json["events"] as? [[String: Any]])
        for seq in expected {
            let event = try #require(slow.first { $0["seq"] as? Int == seq }, "seq \(seq) among the slow events")
            let stages = try #require(event["stages_ns"] as? [String: Int])
            #expect((stages["received"] ?? 0) >= (stages["encoded"] ?? .max), "\(event)")
            #expect(((event["intervals_ns"] as? [String: Int])?["arrival_to_received"] ?? -1) > 0, "\(event)")
        }
        let stats = try session.msg("stats").json
        #expect((stats["receipt_reports"] as? Int ?? 0) >= 1 && stats["unmatched_receipt_reports"] as? Int == 0, "\(stats)")
    }
}
