import Foundation
import Histogram
import Testing
import TouchRouterBench
import TouchRouterCore
import TouchRouterReplay
import TouchRouterStats

/// A timeline whose every stage is `step` nanoseconds after the one before, from `start`.
func timeline(_ sequence: UInt64, kind: EventKind = .touchMotion, client: ClientID? = nil, start: Int64 = 1_000, steps: [Int64]) -> EventTimeline {
    var stamps = EventStamps()
    var time = start
    for (stage, step) in zip([EventStage.device, .arrival, .dequeued, .decided, .encoded, .flushed], [0] + steps) {
        time += step
        stamps[stage] = time
    }
    return EventTimeline(sequence: sequence, kind: kind, client: client, stamps: stamps)
}

/// What a brute-force sort says a percentile is: the value at rank ceil(p% of n).
func bruteForce(_ sorted: [UInt64], _ percentile: Double) -> UInt64 {
    let rank = max(1, Int((percentile / 100 * Double(sorted.count)).rounded(.up)))
    return sorted[min(rank, sorted.count) - 1]
}

/// Two significant digits: the histogram's value is within 1% of the exact one.
func close(_ got: UInt64, _ exact: UInt64) -> Bool {
    let difference = got > exact ? got - exact : exact - got
    return difference <= exact / 100 + 1
}

@Suite("The timeline's statistics: HDR percentiles, reset, slow events")
struct LatencyStatsTests {
    @Test("percentiles per stage, per kind and per client match a brute-force sort of a seeded sample, within the histograms' 1%")
    func percentilesMatchSort() {
        let stats = LatencyStats()
        stats.clientConnected(ClientID(7), pid: 70)
        stats.clientConnected(ClientID(8), pid: 80)
        var generator = SeededGenerator(seed: 2024)
        var all: [UInt64] = [], keys: [UInt64] = [], seven: [UInt64] = []
        for i in 0..<20_000 {
            // Log-uniform from 1 ns to about 1 s, as latencies spread.
            let exponent = Double.random(in: 0..<30, using: &generator)
            let value = UInt64(pow(2, exponent).rounded(.down))
            let kind: EventKind = i % 3 == 0 ? .key : .touchMotion
            let client = ClientID(i % 2 == 0 ? 7 : 8)
            stats.routed(timeline(UInt64(i), kind: kind, client: client, steps: [5, Int64(value), 3, 2, 1]))
            stats.flushed(at: RouterTime(nanoseconds: 0))
            all.append(value)
            if kind == .key { keys.append(value) }
            if client == ClientID(7) { seven.append(value) }
        }
        let summaries: [(IntervalSummary?, [UInt64])] = [
            (stats.summary(.arrivalToDequeued), all.sorted()),
            (stats.summary(.arrivalToDequeued, kind: .key), keys.sorted()),
            (stats.summary(.arrivalToDequeued, client: ClientID(7)), seven.sorted()),
        ]
        for (summary, sorted) in summaries {
            let s = try! #require(summary)
            #expect(s.count == UInt64(sorted.count))
            #expect(close(s.p50, bruteForce(sorted, 50)), "p50 \(s.p50) against \(bruteForce(sorted, 50))")
            #expect(close(s.p90, bruteForce(sorted, 90)), "p90 \(s.p90) against \(bruteForce(sorted, 90))")
            #expect(close(s.p99, bruteForce(sorted, 99)), "p99 \(s.p99) against \(bruteForce(sorted, 99))")
            #expect(close(s.p999, bruteForce(sorted, 99.9)), "p99.9 \(s.p999) against \(bruteForce(sorted, 99.9))")
            #expect(s.max == sorted.last!)
        }
        // The other intervals: constant steps, known exactly.
        #expect(stats.summary(.dequeuedToDecided).p99 == 3)
        #expect(stats.summary(.decidedToEncoded).max == 2)
        #expect(stats.summary(.deviceToArrival).p50 == 5)
        #expect(stats.events(of: .key) == UInt64(keys.count))
        #expect(stats.recordedEvents == 20_000)
    }

    @Test("the flat table counts as hdrhistogram-swift does: every percentile equals the library's own histogram's for the same values, the edges of its buckets and a value past 60 s among them")
    func tableMatchesTheLibrary() {
        let stats = LatencyStats()
        var reference = Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: LatencyStats.highestTrackable,
                                          numberOfSignificantValueDigits: LatencyStats.significantDigits)
        var generator = SeededGenerator(seed: 27)
        var values: [UInt64] = [0, 1, 127, 128, 129, 255, 256, 257, 511, 512, 65_535, 65_536, 1 << 32, LatencyStats.highestTrackable]
        for _ in 0..<5_000 { values.append(UInt64(pow(2, Double.random(in: 0..<36, using: &generator)).rounded(.down))) }
        for (i, value) in values.enumerated() {
            stats.routed(timeline(UInt64(i), steps: [5, Int64(value), 3, 2, 1]))
            reference.record(min(value, LatencyStats.highestTrackable))
        }
        stats.routed(timeline(99_999, steps: [5, 70_000_000_000, 3, 2, 1]))
        reference.record(LatencyStats.highestTrackable)
        stats.flushed(at: RouterTime(nanoseconds: 0))
        let summary = stats.summary(.arrivalToDequeued)
        #expect(summary.count == reference.totalCount)
        for (got, percentile) in [(summary.p50, 50.0), (summary.p90, 90), (summary.p99, 99), (summary.p999, 99.9)] {
            #expect(got == reference.valueAtPercentile(percentile), "p\(percentile)")
        }
        #expect(summary.max == LatencyStats.highestTrackable, "70 s counts as 60 s")
        let plotted = stats.values(.arrivalToDequeued, atPercentiles: [0, 12.5, 25, 75, 99.99, 100])
        #expect(plotted == [0, 12.5, 25, 75, 99.99, 100].map { reference.valueAtPercentile($0) })
    }

    @Test("a client gone gives its slot to the next one once every slot is taken; its late events count in no client's figures")
    func slotReused() {
        let stats = LatencyStats()
        stats.clientConnected(ClientID(1), pid: 10)
        stats.routed(timeline(1, client: ClientID(1), steps: [5, 7, 3, 2, 1]))
        stats.flushed(at: RouterTime(nanoseconds: 0))
        #expect(stats.summary(.arrivalToDequeued, client: ClientID(1))?.count == 1)
        stats.clientDisconnected(ClientID(1))
        for client in 2...UInt32(LatencyStats.clientCapacity + 1) { stats.clientConnected(ClientID(client), pid: Int32(client)) }
        #expect(stats.summary(.arrivalToDequeued, client: ClientID(1)) == nil, "its slot went to the last client")
        let heir = ClientID(UInt32(LatencyStats.clientCapacity + 1))
        #expect(stats.summary(.arrivalToDequeued, client: heir)?.count == 0, "the slot starts empty")
        stats.routed(timeline(2, client: ClientID(1), steps: [5, 7, 3, 2, 1]))
        stats.routed(timeline(3, client: heir, steps: [5, 9, 3, 2, 1]))
        stats.flushed(at: RouterTime(nanoseconds: 0))
        #expect(stats.summary(.arrivalToDequeued, client: heir)?.count == 1)
        #expect(stats.summary(.arrivalToDequeued, client: heir)?.max == 9)
        #expect(stats.summary(.arrivalToDequeued).count == 3)
    }

    @Test("flushed is stamped by the flush after encoded, and only timelines that reached a client wait for it")
    func flushStamps() {
        let stats = LatencyStats(slowCapacity: 8)
        stats.slowThreshold = -1
        var delivered = timeline(1, steps: [1, 1, 1, 1])
        delivered.stamps.flushed = EventStamps.absent
        var dropped = timeline(2, steps: [1, 1, 1])
        dropped.stamps.encoded = EventStamps.absent
        dropped.stamps.flushed = EventStamps.absent
        stats.routed(delivered)
        stats.routed(dropped)
        #expect(stats.awaitingFlush)
        #expect(stats.recordedEvents == 1, "the dropped one is recorded at once")
        stats.flushed(at: RouterTime(nanoseconds: 2_000))
        #expect(!stats.awaitingFlush)
        #expect(stats.recordedEvents == 2)
        #expect(stats.summary(.encodedToFlushed).max == UInt64(2_000 - delivered.stamps.encoded))
        #expect(stats.summary(.arrivalToFlushed).count == 1)
        #expect(stats.slowEvents.map(\.sequence) == [1], "only what was flushed can be slow")
    }

    @Test("reset empties every histogram, the kinds, the clients gone and the slow events")
    func resetEmpties() {
        let stats = LatencyStats()
        stats.slowThreshold = 0
        stats.clientConnected(ClientID(3), pid: 30)
        stats.clientConnected(ClientID(4), pid: 40)
        for i in 0..<100 { stats.routed(timeline(UInt64(i), kind: .key, client: ClientID(3 + UInt32(i % 2)), steps: [10, 10, 10, 10, 10])) }
        stats.flushed(at: RouterTime(nanoseconds: 0))
        stats.clientDisconnected(ClientID(4))
        #expect(stats.summary(.arrivalToFlushed).count == 100)
        #expect(stats.slowTotal == 100)
        #expect(stats.json().contains("\"client\":4"))
        stats.reset()
        #expect(stats.recordedEvents == 0)
        for interval in StageInterval.allCases {
            #expect(stats.summary(interval).count == 0)
            #expect(stats.summary(interval, kind: .key).count == 0)
            #expect(stats.summary(interval, client: ClientID(3))?.count == 0)
        }
        #expect(stats.summary(.arrivalToFlushed, client: ClientID(4)) == nil, "a client gone is forgotten at a reset")
        #expect(stats.slowEvents.isEmpty && stats.slowTotal == 0)
        let json = try! #require(try JSONSerialization.jsonObject(with: Data(stats.json().utf8)) as? [String: Any])
        #expect(json["events"] as? Int == 0)
        #expect((json["kinds"] as? [String: Any])?.isEmpty == true)
        #expect((json["clients"] as? [[String: Any]])?.map { $0["client"] as? Int } == [3])
        // What is recorded after a reset is all there is: no count of before is left behind.
        for i in 0..<10 { stats.routed(timeline(UInt64(200 + i), kind: .key, client: ClientID(3), steps: [1_000, 1_000, 1_000, 1_000, 1_000])) }
        stats.flushed(at: RouterTime(nanoseconds: 0))
        for summary in [stats.summary(.arrivalToFlushed), stats.summary(.arrivalToFlushed, kind: .key), stats.summary(.arrivalToFlushed, client: ClientID(3))] {
            #expect(summary?.count == 10)
            #expect(summary?.p50 == 3_000 && summary?.max == 3_000, "arrival to encoded: the flush at 0 is stamped at encoded")
        }
    }

    @Test("a client's receipt report gives its event with that device time, and every earlier one not yet received, the received stage, per kind and client; unknown times and clients, and repeats, count as unmatched; reset forgets")
    func receiptReports() throws {
        let stats = LatencyStats()
        let reporter = ClientID(5), other = ClientID(6)
        stats.clientConnected(reporter, pid: 50)
        stats.clientConnected(other, pid: 60)
        // Three frames of two motions each for the reporter, device times 1,000, 2,000 and 3,000;
        // one frame for the other client with the same time as the second.
        for frame in 0..<3 {
            let device = Int64(frame + 1) * 1_000
            for finger in 0..<2 {
                stats.routed(timeline(UInt64(frame * 2 + finger), kind: .touchMotion, client: reporter, start: device, steps: [10, 10, 10, 10, 60]))
            }
            if frame == 1 { stats.routed(timeline(100, kind: .touchMotion, client: other, start: device, steps: [10, 10, 10, 10, 60])) }
        }
        // The flush at 0 stamps flushed with encoded itself, device + 40; arrival is device + 10.
        stats.flushed(at: RouterTime(nanoseconds: 0))
        #expect(stats.received(client: reporter, eventTime: 2_000, receipt: 2_500) == 4,
                "the second frame's two motions and the first's, read before them; not the third's, nor the other client's")
        #expect(stats.received(client: reporter, eventTime: 3_000, receipt: 3_700) == 2)
        #expect(stats.received(client: reporter, eventTime: 1_000, receipt: 1_300) == 0, "covered by the first report")
        #expect(stats.received(client: reporter, eventTime: 3_000, receipt: 3_900) == 0, "a frame already reported is not counted twice")
        #expect(stats.received(client: reporter, eventTime: 9_000, receipt: 9_100) == 0, "a time never sent")
        #expect(stats.received(client: ClientID(77), eventTime: 1_000, receipt: 1_100) == 0, "an unknown client")
        #expect(stats.receipts == (reports: 6, unmatched: 4))

        // arrival → received: 1,490 twice (the first frame, read by 2,500), 490 twice, 690 twice.
        let arrivalToReceived = stats.summary(.arrivalToReceived)
        #expect(arrivalToReceived.count == 6 && close(arrivalToReceived.p50, 690) && close(arrivalToReceived.max, 1_490), "\(arrivalToReceived)")
        let flushedToReceived = stats.summary(.flushedToReceived)
        #expect(flushedToReceived.count == 6 && close(flushedToReceived.p50, 660) && close(flushedToReceived.max, 1_460), "\(flushedToReceived)")
        #expect(stats.summary(.arrivalToReceived, kind: .touchMotion).count == 6)
        #expect(stats.summary(.arrivalToReceived, client: reporter)?.count == 6)
        #expect(stats.summary(.arrivalToReceived, client: other)?.count == 0)
        #expect(stats.recordedEvents == 7, "reports add no events")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(stats.json().utf8)) as? [String: Any])
        #expect(((json["stages"] as? [String: Any])?["arrival_to_received"] as? [String: Any])?["count"] as? Int == 6)
        #expect(json["receipt_reports"] as? Int == 6 && json["unmatched_receipt_reports"] as? Int == 4)

        stats.reset()
        #expect(stats.summary(.arrivalToReceived).count == 0 && stats.receipts == (reports: 0, unmatched: 0))
        stats.routed(timeline(200, kind: .touchMotion, client: other, start: 4_000, steps: [10, 10, 10, 10, 60]))
        stats.flushed(at: RouterTime(nanoseconds: 0))
        #expect(stats.received(client: other, eventTime: 2_000, receipt: 4_100) == 0, "what was recorded before a reset is forgotten")
        #expect(stats.received(client: other, eventTime: 4_000, receipt: 4_100) == 1)
    }

    @Test("a receipt gives a slow event kept at its flush the received stage in the ring, keeps one that only its receipt makes slow, and leaves a fast one out; matched events come newest first")
    func slowOnReceipt() throws {
        let stats = LatencyStats()
        stats.slowThreshold = 1_000
        let client = ClientID(2)
        stats.clientConnected(client, pid: 20)
        // Flushed at their encoded stamp: the first takes 30 ns from arrival to flushed, the second 2,020.
        stats.routed(timeline(1, client: client, start: 1_000, steps: [10, 10, 10, 10, 0]))
        stats.routed(timeline(2, client: client, start: 2_000, steps: [10, 2_000, 10, 10, 0]))
        stats.flushed(at: RouterTime(nanoseconds: 0))
        #expect(stats.slowEvents.map(\.sequence) == [2] && stats.slowTotal == 1)

        var matched: [UInt64] = []
        #expect(stats.received(client: client, eventTime: 2_000, receipt: 5_000) { matched.append($0.sequence) } == 2)
        #expect(matched == [2, 1])
        let kept = stats.slowEvents
        #expect(kept.map(\.sequence) == [2, 1], "the second kept at its flush, the first at its receipt (3,990 ns from arrival)")
        #expect(kept.allSatisfy { $0.stamps.received == 5_000 }, "\(kept)")
        #expect(stats.slowTotal == 2)
        let slow = try #require(try JSONSerialization.jsonObject(with: Data(stats.slowJSON().utf8)) as? [String: Any])
        let events = try #require(slow["events"] as? [[String: Any]])
        #expect(events.compactMap { ($0["intervals_ns"] as? [String: Int])?["arrival_to_received"] } == [2_990, 3_990])
        #expect(events.compactMap { ($0["stages_ns"] as? [String: Int])?["received"] } == [5_000, 5_000])

        stats.routed(timeline(3, client: client, start: 6_000, steps: [10, 10, 10, 10, 0]))
        stats.flushed(at: RouterTime(nanoseconds: 0))
        #expect(stats.received(client: client, eventTime: 6_000, receipt: 6_100) == 1)
        #expect(stats.slowEvents.map(\.sequence) == [2, 1] && stats.slowTotal == 2, "90 ns from arrival to received is not slow")
    }

    @Test("receipt reports find only the latest recentPerClient events of a client")
    func receiptRing() {
        let stats = LatencyStats()
        let client = ClientID(1)
        stats.clientConnected(client, pid: 10)
        let total = LatencyStats.recentPerClient + 10
        for i in 0..<total { stats.routed(timeline(UInt64(i), client: client, start: Int64(i) * 1_000, steps: [1, 1, 1, 1, 1])) }
        stats.flushed(at: RouterTime(nanoseconds: 0))
        #expect(stats.received(client: client, eventTime: 0, receipt: 10) == 0, "overwritten")
        #expect(stats.received(client: client, eventTime: 9_000, receipt: 9_010) == 0, "overwritten")
        #expect(stats.received(client: client, eventTime: 10_000, receipt: 10_010) == 1, "the oldest kept")
        #expect(stats.received(client: client, eventTime: Int64(total - 1) * 1_000, receipt: Int64(total) * 1_000) == LatencyStats.recentPerClient - 1,
                "the newest, and every one before it down to the one already received")
    }

    @Test("slow events: kept with their breakdown above the threshold, not below; the ring keeps the newest, oldest first")
    func slowEvents() throws {
        let stats = LatencyStats(slowCapacity: 4)
        stats.slowThreshold = 5_000_000
        stats.routed(timeline(1, kind: .touchDown, steps: [1_000, 1_000_000, 1_000, 1_000, 1_000]))
        stats.routed(timeline(2, kind: .key, steps: [1_000, 9_000_000, 1_000, 1_000, 1_000]))
        // A flush stamps no earlier than encoded: here, at encoded.
        stats.flushed(at: RouterTime(nanoseconds: 0))
        #expect(stats.slowEvents.map(\.sequence) == [2])
        let slow = try #require(try JSONSerialization.jsonObject(with: Data(stats.slowJSON().utf8)) as? [String: Any])
        let event = try #require((slow["events"] as? [[String: Any]])?.first)
        #expect(event["kind"] as? String == "key")
        let stages = try #require(event["stages_ns"] as? [String: Int])
        #expect(Set(stages.keys) == ["device", "arrival", "dequeued", "decided", "encoded", "flushed"])
        let intervals = try #require(event["intervals_ns"] as? [String: Int])
        #expect(intervals["arrival_to_dequeued"] == 9_000_000)
        #expect(intervals["arrival_to_flushed"] == 9_002_000)
        for i in 3...9 { stats.routed(timeline(UInt64(i), steps: [0, 6_000_000, 0, 0, 0])) }
        stats.flushed(at: RouterTime(nanoseconds: 0))
        #expect(stats.slowEvents.map(\.sequence) == [6, 7, 8, 9])
        #expect(stats.slowTotal == 8)
    }

    @Test("device times may be anything: intervals saturate, a device clock ahead is counted, not recorded, and nothing traps")
    func wildDeviceTimes() {
        let stats = LatencyStats()
        var stamps = EventStamps()
        stamps.device = .min + 1
        stamps.arrival = .max - 10
        stamps.dequeued = .max
        #expect(stamps.interval(from: .device, to: .arrival) == .max)
        #expect(stamps.interval(from: .arrival, to: .device) == .min)
        #expect(stamps.interval(from: .arrival, to: .decided) == nil)
        stats.routed(EventTimeline(sequence: 1, kind: .touchDown, client: nil, stamps: stamps))
        #expect(stats.summary(.deviceToArrival).max == LatencyStats.highestTrackable, "clamped to the largest interval told apart")
        stamps.device = .max
        stats.routed(EventTimeline(sequence: 2, kind: .touchDown, client: nil, stamps: stamps))
        #expect(stats.negativeIntervals == 1)
        #expect(stats.summary(.deviceToArrival).count == 1)
    }
}

/// Collects every timeline the router reports, and hands it on to the statistics.
final class TimelineLog: TimelineObserver {
    var timelines: [EventTimeline] = []
    func routed(_ timeline: EventTimeline) { timelines.append(timeline) }
}

/// Both: the log sees the stages the router takes, the statistics' slow ring (threshold
/// below zero, so everything) the flushed ones.
final class Tee: TimelineObserver {
    let log = TimelineLog()
    let stats: LatencyStats
    init(_ stats: LatencyStats) { self.stats = stats }
    func routed(_ timeline: EventTimeline) {
        log.routed(timeline)
        stats.routed(timeline)
    }
}

@Suite("Every stage of every kind of event, in replay on a stepping clock")
struct ReplayTimelineTests {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/TouchRouterCLI/Samples")

    /// Plays a sample with a clock that moves 1 µs at every read, flushing after each line as the session does after each round.
    static func play(scene: String, script: String) throws -> (log: TimelineLog, stats: LatencyStats) {
        let loaded = try Scene.parse(try String(contentsOf: samples.appendingPathComponent(scene), encoding: .utf8), file: scene).load()
        let parsed = try Script.parse(try String(contentsOf: samples.appendingPathComponent(script), encoding: .utf8), file: script)
        let replay = Replay(scene: loaded)
        replay.clock.tickPerRead = 1_000
        let stats = LatencyStats(slowCapacity: 4096)
        stats.slowThreshold = -1
        let tee = Tee(stats)
        replay.router.timelineObserver = tee
        replay.afterLine = { stats.flushed(at: replay.clock.now()) }
        replay.run(parsed, trace: nil)
        return (tee.log, stats)
    }

    /// Strictly: each stage is its own read of the stepping clock. An event the arena
    /// itself decided (held, claimed) is decided when its arena stage ends: equal there.
    static func ordered(_ stamps: EventStamps, _ stages: [EventStage], strictly: Bool = true) -> Bool {
        let present = stages.filter { stamps.has($0) }.map { stamps[$0] }
        return zip(present, present.dropFirst()).allSatisfy { strictly ? $0 < $1 : $0 <= $1 }
    }

    @Test("touch, key and pointer events that reach a client have device, arrival, dequeued, decided, encoded and flushed, in that order")
    func kioskSample() throws {
        let (log, stats) = try Self.play(scene: "kiosk-scene.json", script: "demo.script")
        let kinds: [EventKind] = [.touchDown, .touchMotion, .touchUp, .touchFrame, .key, .pointerMotion, .pointerButton, .pointerAxis]
        let flushed = stats.slowEvents
        for kind in kinds {
            let delivered = flushed.filter { $0.kind == kind && $0.client != nil }
            #expect(!delivered.isEmpty, "a \(kind.name) reached a client")
            for timeline in delivered {
                let s = timeline.stamps
                #expect([EventStage.device, .arrival, .dequeued, .decided, .encoded, .flushed].allSatisfy(s.has), "\(kind.name): \(s)")
                #expect(!s.has(.arena), "no recognizers, no arena stage")
                #expect(s.device <= s.arrival, "the replay's device time is its line's time")
                #expect(Self.ordered(s, [.arrival, .dequeued, .decided, .encoded, .flushed]), "\(kind.name): \(s)")
            }
            #expect(stats.summary(.arrivalToFlushed, kind: kind).count == UInt64(delivered.count))
        }
        // Every routed event has its first three stages; none that reached nobody was encoded.
        #expect(log.timelines.count == 59, "as many as the JSON trace routes")
        for timeline in log.timelines {
            #expect([EventStage.device, .arrival, .dequeued].allSatisfy(timeline.stamps.has))
            #expect(timeline.stamps.has(.encoded) == (timeline.client != nil))
            #expect(!timeline.stamps.has(.flushed), "the router does not flush")
            #expect(Self.ordered(timeline.stamps, [.arrival, .dequeued, .decided, .encoded]))
        }
    }

    @Test("with recognizers, touch events have the arena stage between dequeued and decided; held events keep their arrival")
    func gesturesSample() throws {
        let (log, stats) = try Self.play(scene: "gestures-scene.json", script: "gestures.script")
        let touches = log.timelines.filter { [.touchDown, .touchMotion, .touchUp, .touchFrame].contains($0.kind) }
        #expect(!touches.isEmpty)
        let arena = touches.filter { $0.stamps.has(.arena) }
        #expect(arena.count > 10)
        for timeline in arena {
            #expect(timeline.stamps.has(.decided) || timeline.client == nil, "\(timeline.stamps)")
            #expect(Self.ordered(timeline.stamps, [.arrival, .dequeued, .arena]), "\(timeline.stamps)")
            #expect(Self.ordered(timeline.stamps, [.arena, .decided], strictly: false), "\(timeline.stamps)")
            #expect(Self.ordered(timeline.stamps, [.decided, .encoded]), "\(timeline.stamps)")
        }
        // A held event is routed again when released: dequeued then, later than its arrival.
        let released = touches.filter { !$0.stamps.has(.arena) && $0.client != nil }
        #expect(!released.isEmpty, "the tap held by the finger rule is released")
        for timeline in released {
            #expect(Self.ordered(timeline.stamps, [.arrival, .dequeued, .decided, .encoded]))
        }
        #expect(stats.summary(.arrivalToFlushed, kind: .touchDown).count > 0)
    }
}

@Suite("The router's timeline without any trace")
struct RouterTimelineTests {
    @Test("every event is reported with its stamps whether or not anyone traces, and the trace carries the same stamps")
    func observerAlwaysOn() throws {
        let scene = try Scene.parse(#"{"outputs": [{"name": "A", "width": 100, "height": 100, "toplevels": [{"name": "a", "width": 50, "height": 50}]}]}"#, file: "s.json").load()
        let clock = ManualClock(start: RouterTime(nanoseconds: 10_000), tickPerRead: 7)
        let router = scene.makeRouter(delivery: RecordingDelivery(), clock: clock)
        let log = TimelineLog()
        router.timelineObserver = log
        router.enqueue(.touchDown(device: DeviceID(0), time: RouterTime(nanoseconds: 9_000), id: TouchID(1), position: Point(10, 10)))
        router.enqueue(.touchDown(device: DeviceID(0), time: RouterTime(nanoseconds: 9_500), id: TouchID(2), position: Point(90, 90)))
        router.dispatchAll()
        try #require(log.timelines.count == 2)
        let hit = log.timelines[0], miss = log.timelines[1]
        #expect(hit.kind == .touchDown && hit.client != nil)
        #expect(hit.stamps.device == 9_000 && hit.stamps.arrival == 10_000 && hit.stamps.dequeued == 10_014)
        #expect(hit.stamps.has(.decided) && hit.stamps.has(.encoded) && hit.stamps.encoded > hit.stamps.decided)
        #expect(miss.client == nil && !miss.stamps.has(.encoded), "a touch on nothing reached no client")
        var lines: [String] = []
        router.traceSink = TraceWriter(format: .json, names: scene.names) { lines.append($0) }
        router.enqueue(.touchUp(device: DeviceID(0), time: RouterTime(nanoseconds: 20_000), id: TouchID(1)))
        router.dispatchAll()
        let first = try #require(lines.first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        let stages = try #require(object["stages_ns"] as? [String: Int])
        let up = try #require(log.timelines.last)
        #expect(stages["device"] == 20_000 && stages["arrival"] == Int(up.stamps.arrival) && stages["encoded"] == Int(up.stamps.encoded))
        #expect(stages["decided"] == Int(up.stamps.decided) && stages["flushed"] == nil)
    }
}
