import Foundation
import Histogram

/// What `bench e2e` makes of the benchmark clients' records (docs/benchmarks.md, "End to end").
enum EndToEndAnalysis {
    /// One event a benchmark client received (its record file's line).
    struct Received {
        var kind: Substring
        var receipt: Int64
        /// The input timestamp, or -1.
        var timestamp: Int64
        var id: Int32
        var x: Double
        var value: Double
    }

    /// Percentiles of a latency, in ns, from an HDR histogram (3 significant digits).
    struct Summary {
        var count: Int
        var p50: UInt64
        var p99: UInt64
        var p999: UInt64
        var max: UInt64
        var negative: Int

        init(_ values: [Int64]) {
            var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
            var negative = 0
            for value in values {
                if value < 0 { negative += 1 }
                _ = histogram.record(UInt64(Swift.min(Swift.max(value, 0), 60_000_000_000)))
            }
            count = values.count
            self.negative = negative
            p50 = values.isEmpty ? 0 : histogram.valueAtPercentile(50)
            p99 = values.isEmpty ? 0 : histogram.valueAtPercentile(99)
            p999 = values.isEmpty ? 0 : histogram.valueAtPercentile(99.9)
            max = values.isEmpty ? 0 : histogram.max
        }

        var json: String { "{\"count\":\(count),\"p50\":\(p50),\"p99\":\(p99),\"p99_9\":\(p999),\"max\":\(max),\"negative\":\(negative)}" }
    }

    /// A client's record file: its events, in the order received.
    static func records(_ url: URL) throws -> (events: [Received], dropped: Int, timestamps: Bool) {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            throw Failure(description: "\(url.path): error: the benchmark client wrote no records (did it crash? see its error log)")
        }
        var events: [Received] = []
        var dropped = 0, timestamps = false
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: true).enumerated() {
            // --present's commit lines (PresentAnalysis) follow the events.
            if line.hasPrefix("commit ") { continue }
            if line.hasPrefix("#") {
                for word in line.split(separator: " ") {
                    if word.hasPrefix("dropped=") { dropped = Int(word.dropFirst(8)) ?? 0 }
                    if word == "timestamps=1" { timestamps = true }
                }
                continue
            }
            let f = line.split(separator: " ")
            guard f.count == 8, let receipt = Int64(f[1]), let stamp = Int64(f[2]), let id = Int32(f[4]), let x = Double(f[5]), let value = Double(f[7]) else {
                throw Failure(description: "\(url.path):\(number + 1): error: expected 'KIND RECEIPT_NS TIMESTAMP_NS TIME_MS ID X Y VALUE'")
            }
            events.append(Received(kind: f[0], receipt: receipt, timestamp: stamp, id: id, x: x, value: value))
        }
        return (events, dropped, timestamps)
    }

    /// What a side of the run sent: per key (a touch id, or 0 for a pointer), each event's send time, in order.
    struct Sent {
        var times: [Int32: [Int64]] = [:]
        var count = 0
        mutating func add(_ key: Int32, _ time: Int64) {
            times[key, default: []].append(time)
            count += 1
        }

        /// Another round's sends after these.
        mutating func append(_ other: Sent) {
            for (key, later) in other.times { times[key, default: []] += later }
            count += other.count
        }
    }

    /// The session's played log (WorkloadPlayer): what it sent to toplevels, and the floor's
    /// workload made of it (surface-local, toplevels as client indices, nothing that hit no toplevel).
    static func playedLog(_ url: URL) throws -> (sent: Sent, floorWorkload: String, frames: Int) {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            throw Failure(description: "\(url.path): error: the session wrote no played log")
        }
        var sent = Sent()
        var workload = "# touch-router-bench-workload 1\n"
        var frames = 0
        for (number, line) in text.split(separator: "\n").enumerated() where !line.hasPrefix("#") {
            let f = line.split(separator: " ")
            func bad() -> Failure { Failure(description: "\(url.path):\(number + 1): error: not a played log line: \(line.prefix(100))") }
            switch f.first {
            case "F":
                guard f.count == 3 else { throw bad() }
                workload += "F \(f[1])\n"
                frames += 1
            case "D", "M":
                guard f.count == 6, let target = Int(f[1]), let id = Int32(f[2]), let time = Int64(f[5]) else { throw bad() }
                guard target >= 0 else { continue }
                sent.add(id, time)
                workload += "\(f[0]) \(target) \(id) \(f[3]) \(f[4])\n"
            case "U":
                guard f.count == 4, let target = Int(f[1]), let id = Int32(f[2]), let time = Int64(f[3]) else { throw bad() }
                guard target >= 0 else { continue }
                sent.add(id, time)
                workload += "U \(target) \(id)\n"
            default: throw bad()
            }
        }
        return (sent, workload, frames)
    }

    static let touchKinds: Set<Substring> = ["touch-down", "touch-motion", "touch-up"]

    /// Latencies of the touch events the clients received: receipt − input timestamp where
    /// the compositor sent one, else receipt − the send time of the event in the same place of
    /// the same touch's sequence (`sent`, matched by order).
    static func touchLatencies(_ clients: [[Received]], sent: Sent?) -> (latencies: [Int64], received: Int, matchedBy: String, unmatched: Int) {
        let touches = clients.flatMap { $0.filter { touchKinds.contains($0.kind) } }
        if !touches.isEmpty, touches.allSatisfy({ $0.timestamp >= 0 }) {
            return (touches.map { $0.receipt - $0.timestamp }, touches.count, "input timestamps", 0)
        }
        guard let sent else { return ([], touches.count, "none", touches.count) }
        var next: [Int32: Int] = [:]
        var latencies: [Int64] = []
        latencies.reserveCapacity(touches.count)
        var unmatched = 0
        for event in touches.sorted(by: { $0.receipt < $1.receipt }) {
            let k = next[event.id, default: 0]
            next[event.id] = k + 1
            guard let times = sent.times[event.id], k < times.count else {
                unmatched += 1
                continue
            }
            latencies.append(event.receipt - times[k])
        }
        return (latencies, touches.count, "order", unmatched)
    }
}
