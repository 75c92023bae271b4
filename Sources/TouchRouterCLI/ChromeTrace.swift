import Foundation
import TouchRouterReplay
import TouchRouterCore
import TouchRouterStats

/// `route --trace-out FILE.json`: every routed event's timeline, kept as the replay routes
/// it and stamped `flushed` after each line (as the session's loop flushes its clients).
final class TimelineCollector: TimelineObserver {
    private(set) var timelines: [EventTimeline] = []
    private var pending: [Int] = []

    func routed(_ timeline: EventTimeline) {
        if timeline.stamps.has(.encoded) { pending.append(timelines.count) }
        timelines.append(timeline)
    }

    func flushed(at time: RouterTime) {
        for i in pending { timelines[i].stamps.flushed = max(time.nanoseconds, timelines[i].stamps.encoded) }
        pending.removeAll(keepingCapacity: true)
    }
}

/// The Chrome trace event format (the JSON object form), which Perfetto and chrome://tracing
/// open: one complete event ("ph":"X", "ts" and "dur" in µs) per event on the "event" track,
/// from arrival to its last stage, and one per interval between its consecutive stages on
/// that interval's own track; "name" is the event's kind, "args" its stamps in ns.
enum ChromeTrace {
    static func json(_ timelines: [EventTimeline]) -> String {
        var tracks: [String: Int] = ["event (arrival → last stage)": 1]
        var order = ["event (arrival → last stage)"]
        func track(_ name: String) -> Int {
            if let tid = tracks[name] { return tid }
            order.append(name)
            tracks[name] = order.count
            return order.count
        }
        func micro(_ ns: Int64) -> String { String(format: Double(ns) / 1000, digits: 3) }
        var events: [String] = []
        let routerStages: [EventStage] = [.arrival, .dequeued, .arena, .decided, .encoded, .flushed]
        for timeline in timelines {
            let s = timeline.stamps
            let present = routerStages.filter { s.has($0) }
            guard let first = present.first, let last = present.last else { continue }
            let stamps = EventStage.allCases.filter { s.has($0) }.map { "\"\($0.name)_ns\":\(s[$0])" }
            let args = "{\"seq\":\(timeline.sequence),\"client\":\(timeline.client.map { String($0.raw) } ?? "null")," + stamps.joined(separator: ",") + "}"
            let name = jsonString(timeline.kind.name)
            events.append("{\"name\":\(name),\"cat\":\"event\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":\(micro(s[first])),\"dur\":\(micro(max(0, s[last] - s[first]))),\"args\":\(args)}")
            for (from, to) in zip(present, present.dropFirst()) {
                let tid = track("\(from.name) → \(to.name)")
                events.append("{\"name\":\(name),\"cat\":\"stage\",\"ph\":\"X\",\"pid\":1,\"tid\":\(tid),\"ts\":\(micro(s[from])),\"dur\":\(micro(max(0, s[to] - s[from]))),\"args\":{\"seq\":\(timeline.sequence)}}")
            }
        }
        var metadata = ["{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"touch-router route\"}}"]
        for (index, name) in order.enumerated() {
            metadata.append("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":\(index + 1),\"args\":{\"name\":\(jsonString(name))}}")
            metadata.append("{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":\(index + 1),\"args\":{\"sort_index\":\(index + 1)}}")
        }
        return "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n" + (metadata + events).joined(separator: ",\n") + "\n]}\n"
    }

    private static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
