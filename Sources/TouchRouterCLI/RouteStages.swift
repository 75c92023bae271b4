import Foundation
import TouchRouterBench
import TouchRouterCore
import TouchRouterStats
import TouchRouterWayland

/// `bench route`'s per-stage figures: the multi-finger workload run once more with every
/// event's timeline recorded into `msg stats`'s HDR histograms (`LatencyStats`) on the
/// session's real monotonic clock, the clients "flushed" after each report as the session's
/// loop flushes them. In-process, with a delivery that discards: no socket is written, so
/// `encoded` and `flushed` are the router's side of the boundary only.
struct RouteStages {
    /// The intervals reported, in the order they happen; `arrival_to_flushed` is the router's share.
    static let intervals: [StageInterval] = [.arrivalToDequeued, .dequeuedToDecided, .decidedToEncoded, .encodedToFlushed, .arrivalToFlushed]
    /// The issue's target for the router's share at 10 fingers, 1 kHz, 10,000 surfaces: p99 ≤ 2 µs.
    static let targetP99Nanoseconds: UInt64 = 2_000

    var leaves: Int
    var fingers: Int
    var rateHz: Int
    var reports: Int
    /// Events recorded (every motion and every frame).
    var events: UInt64
    var summaries: [StageInterval: IntervalSummary]
    /// Each interval's HDR percentile series: (percentile 0..<100, ns).
    var series: [StageInterval: [(percentile: Double, nanoseconds: UInt64)]]

    static func measure(leaves: Int, fingers: Int, rateHz: Int, seed: UInt64, reports: Int = 20_000) -> RouteStages {
        let clock = CounterClock()
        let stats = LatencyStats()
        var setup = MultiFingerBenchmark.setUp(leaves: leaves, fingers: fingers, rateHz: rateHz, seed: seed, liveClock: clock)
        setup.router.timelineObserver = stats
        _ = setup.routeLive(reports: 512) { stats.flushed(at: clock.now()) }
        stats.reset()
        _ = setup.routeLive(reports: reports) { stats.flushed(at: clock.now()) }
        setup.router.timelineObserver = nil
        var summaries: [StageInterval: IntervalSummary] = [:]
        var series: [StageInterval: [(percentile: Double, nanoseconds: UInt64)]] = [:]
        // HDR plot points: 1/(1-p) from 1 to the sample's size, ten a decade.
        let count = Double(stats.recordedEvents)
        var percentiles: [Double] = []
        var k = 0.0
        while true {
            let inverse = pow(10, k / 10)
            if inverse > count || k > 70 { break }
            percentiles.append(100 * (1 - 1 / inverse))
            k += 1
        }
        for interval in intervals {
            summaries[interval] = stats.summary(interval)
            let values = stats.values(interval, atPercentiles: percentiles)
            series[interval] = zip(percentiles, values).map { ($0, $1) }
        }
        return RouteStages(leaves: leaves, fingers: fingers, rateHz: rateHz, reports: reports, events: stats.recordedEvents,
                           summaries: summaries, series: series)
    }

    var routerShare: IntervalSummary { summaries[.arrivalToFlushed]! }
    /// The issue's configuration: the target applies to it alone.
    var isTargetWorkload: Bool { leaves == 10_000 && fingers == 10 && rateHz == 1000 }
    var meetsTarget: Bool { routerShare.p99 <= Self.targetP99Nanoseconds }

    static func label(_ interval: StageInterval) -> String {
        switch interval {
        case .deviceToArrival: "device → arrival"
        case .arrivalToDequeued: "arrival → dequeued"
        case .dequeuedToDecided: "dequeued → decided"
        case .decidedToEncoded: "decided → encoded"
        case .encodedToFlushed: "encoded → flushed"
        case .arrivalToFlushed: "arrival → flushed (router's share)"
        case .flushedToReceived: "flushed → received"
        case .arrivalToReceived: "arrival → received"
        case .committedToPresented: "committed → presented"
        case .deviceToPresented: "device → presented"
        }
    }

    /// `"stages":{...}` in `bench route --json`.
    var json: String {
        let entries = Self.intervals.map { interval in
            let s = summaries[interval]!
            return "\"\(interval.name)\":{\"count\":\(s.count),\"p50_ns\":\(s.p50),\"p99_ns\":\(s.p99),\"p99_9_ns\":\(s.p999),\"max_ns\":\(s.max)}"
        }
        return "\"stages\":{\"clock\":\"monotonic\",\"delivery\":\"discarding\",\"fingers\":\(fingers),\"rate_hz\":\(rateHz),\"reports\":\(reports),\"events\":\(events),"
            + entries.joined(separator: ",")
            + (isTargetWorkload ? ",\"router_share_target_p99_ns\":\(Self.targetP99Nanoseconds),\"router_share_target_met\":\(meetsTarget)" : "") + "}"
    }

    /// The table's lines.
    var lines: [String] {
        var lines = ["  per stage, \(fingers) fingers at \(rateHz) Hz, \(events) events, monotonic clock, flushed after each report (in-process, discarding delivery):"]
        for interval in Self.intervals {
            let s = summaries[interval]!
            if s.count == 0 {
                lines.append("    \(Self.label(interval).padding(to: 38)) no events (no finger is on a client's surface)")
                continue
            }
            lines.append("    \(Self.label(interval).padding(to: 38)) p50 \(String(s.p50).leftPadded(to: 6)) ns   p99 \(String(s.p99).leftPadded(to: 6)) ns   p99.9 \(String(s.p999).leftPadded(to: 7)) ns")
        }
        if isTargetWorkload {
            lines.append("    router share p99 ≤ 2 µs at 10 fingers, 1 kHz, 10,000 surfaces (issue 13): \(meetsTarget ? "met" : "NOT met") (\(routerShare.p99) ns; in-process, no socket)")
        }
        return lines
    }

    /// The series for tools/plot-latency.py.
    var plotJSON: String {
        let entries = Self.intervals.map { interval in
            "\"\(interval.name)\":[" + series[interval]!.map { "[\($0.percentile),\($0.nanoseconds)]" }.joined(separator: ",") + "]"
        }
        return "{\"title\":\"touch-router bench route: \(leaves) leaves, \(fingers) fingers at \(rateHz) Hz, \(events) events\",\"unit\":\"ns\",\"series\":{"
            + entries.joined(separator: ",") + "}}"
    }
}

extension String {
    func leftPadded(to width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
