import Foundation
import TouchRouterReplay

/// What `bench e2e --present` makes of the benchmark clients' commit records
/// (touch-router-bench-client --present; docs/benchmarks.md, "Touch to present").
enum PresentAnalysis {
    /// One commit of an answer: `presented` is the feedback's time, -1 discarded, -2 never told;
    /// it answers the client's events `first...last` (indices among its event records).
    struct Commit {
        var committed: Int64
        var presented: Int64
        var refresh: Int64
        var first: Int
        var last: Int
    }

    /// The commit lines of a client's record file, in commit order.
    static func commits(_ url: URL) throws -> [Commit] {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            throw Failure(description: "\(url.path): error: the benchmark client wrote no records (did it crash? see its error log)")
        }
        var commits: [Commit] = []
        for (number, line) in text.split(separator: "\n").enumerated() where line.hasPrefix("commit ") {
            let f = line.split(separator: " ")
            guard f.count == 8, let committed = Int64(f[2]), let presented = Int64(f[3]), let refresh = Int64(f[4]),
                  let first = Int(f[6]), let last = Int(f[7]), first >= 0, last >= first - 1 else {
                throw Failure(description: "\(url.path):\(number + 1): error: expected 'commit INDEX COMMIT_NS PRESENTED_NS REFRESH_NS FLAGS FIRST LAST'")
            }
            commits.append(Commit(committed: committed, presented: presented, refresh: refresh, first: first, last: last))
        }
        return commits
    }

    /// When each answered event's answer reached the screen: its commit's presentation, or,
    /// for a commit discarded (superseded before its frame), the next presented commit's,
    /// which shows it too. `missed`: presented more than a refresh (and a millisecond of
    /// slack) after its own commit, so past the first vblank after it. `committed`: when its
    /// own commit, the first to carry its answer, was made.
    struct Shown {
        var presented: Int64
        var committed: Int64
        var missed: Bool
    }

    static func shown(_ commits: [Commit]) -> [Int: Shown] {
        var result: [Int: Shown] = [:]
        var carried: [(index: Int, committed: Int64)] = []
        for commit in commits {
            guard commit.last >= commit.first else { continue }
            for index in commit.first...commit.last { carried.append((index, commit.committed)) }
            guard commit.presented >= 0 else { continue }
            let refresh = commit.refresh > 0 ? commit.refresh : 16_666_667
            for answer in carried {
                result[answer.index] = Shown(presented: commit.presented, committed: answer.committed, missed: commit.presented - answer.committed > refresh + 1_000_000)
            }
            carried.removeAll(keepingCapacity: true)
        }
        return result
    }

    /// Touch to present over every client, and the frames missed.
    struct Summary {
        var answered = 0
        var unanswered = 0
        var missed = 0
        var commits = 0
        var discarded = 0
        var latencies: [Int64] = []
        /// The client's own part of each measured answer: from reading the event to the
        /// commit that first carried its answer, both on the client's clock.
        var drawings: [Int64] = []
        /// The refresh period the presented commits' feedback gave (ns), the longest seen.
        var refresh: Int64 = 0

        var latency: EndToEndAnalysis.Summary { EndToEndAnalysis.Summary(latencies) }
        var drawing: EndToEndAnalysis.Summary { EndToEndAnalysis.Summary(drawings) }

        /// Issue 27's target: the p50 within half a refresh plus the client's own drawing
        /// (its p50), whatever the compositor adds past that being delivery and composition.
        var withinHalfRefreshAndDrawing: Bool? {
            guard refresh > 0, !latencies.isEmpty else { return nil }
            return Int64(latency.p50) <= refresh / 2 + Int64(drawing.p50)
        }

        var json: String {
            "{\"answered\":\(answered),\"unanswered\":\(unanswered),\"commits\":\(commits),\"discarded\":\(discarded),\"missed_frames\":\(missed),\"latency_ns\":\(latency.json),"
                + "\"drawing_ns\":\(drawing.json),\"refresh_ns\":\(refresh),\"p50_within_half_refresh_and_drawing\":\(withinHalfRefreshAndDrawing.map(String.init) ?? "null")}"
        }

        /// One line: the client's drawing, and how far the p50 is past half a refresh plus it.
        var drawingLine: String {
            guard !latencies.isEmpty else { return "the client's drawing: no answer was presented" }
            let drawn = "the client's drawing (reading the event → the commit answering it): p50 \(EndToEndReport.micro(drawing.p50)) µs, p99 \(EndToEndReport.micro(drawing.p99)) µs"
            guard let within = withinHalfRefreshAndDrawing else { return drawn + "; no presented commit gave a refresh" }
            let over = Int64(latency.p50) - refresh / 2 - Int64(drawing.p50)
            return drawn + "; p50 past half a refresh (\(EndToEndReport.micro(UInt64(refresh / 2))) µs) plus the drawing's p50: "
                + "\(over > 0 ? "+" : "")\(String(format: Double(over) / 1000, digits: 1)) µs (issue 27's target, within it: \(within ? "met" : "not met"))"
        }

        /// HDR plot points: percentiles at 1/(1-p) from 1 to the sample's size, ten a decade.
        var plotPoints: [(percentile: Double, nanoseconds: Int64)] {
            let sorted = latencies.sorted()
            guard !sorted.isEmpty else { return [] }
            var points: [(Double, Int64)] = []
            var step = 0.0
            while true {
                let percentile = 100 * (1 - 1 / pow(10, step / 10))
                let index = min(sorted.count - 1, Int((percentile / 100 * Double(sorted.count)).rounded(.down)))
                points.append((percentile, sorted[index]))
                if pow(10, step / 10) >= Double(sorted.count) { break }
                step += 1
            }
            return points
        }

        /// Adds one client's events: those `start(index, event)` gives a start time for are
        /// measured from it to their answer's presentation.
        mutating func add(events: [EndToEndAnalysis.Received], commits: [Commit], start: (Int, EndToEndAnalysis.Received) -> Int64?) {
            let shown = PresentAnalysis.shown(commits)
            self.commits += commits.count
            discarded += commits.filter { $0.presented == -1 }.count
            refresh = max(refresh, commits.lazy.filter { $0.presented >= 0 }.map(\.refresh).max() ?? 0)
            for (index, event) in events.enumerated() {
                guard let from = start(index, event) else { continue }
                guard let answer = shown[index] else {
                    unanswered += 1
                    continue
                }
                answered += 1
                if answer.missed { missed += 1 }
                latencies.append(answer.presented - from)
                drawings.append(answer.committed - event.receipt)
            }
        }
    }

    /// An HDR plot of touch to present, one line per compositor (tools/plot-latency.py).
    static func plot(_ sides: [(name: String, summary: Summary)], title: String, to output: String) throws {
        let entries = sides.filter { !$0.summary.latencies.isEmpty }.map { side in
            jsonString(side.name) + ":[" + side.summary.plotPoints.map { "[\($0.percentile),\($0.nanoseconds)]" }.joined(separator: ",") + "]"
        }
        try LatencyPlot.write(seriesJSON: "{\"title\":\(jsonString(title)),\"unit\":\"ns\",\"series\":{\(entries.joined(separator: ","))}}", to: output)
    }
}
