import TouchRouterCore

// The received stage (docs/benchmarks.md, "Received by the client"): clients that bind
// touch_router_input_manager_v1 at version 2 report when they read their input, after the
// event was recorded. Each client slot keeps a ring of its latest recorded timelines for
// those reports to find; a timeline that gains the stage may become slow only then.

extension LatencyStats {
    func remember(_ timeline: EventTimeline, slot: Int) {
        let next = recording.pointee.recentNext[slot]
        recording.pointee.recent[slot * Self.recentPerClient + next] = timeline
        recording.pointee.recentNext[slot] = next + 1 == Self.recentPerClient ? 0 : next + 1
    }

    static let emptyTimeline = EventTimeline(sequence: 0, kind: .device, client: nil, stamps: EventStamps())

    func clearRecent(_ slot: Int) {
        for i in 0..<Self.recentPerClient { recording.pointee.recent[slot * Self.recentPerClient + i] = Self.emptyTimeline }
        recording.pointee.recentNext[slot] = 0
    }

    /// A client reports that by `receipt` (its CLOCK_MONOTONIC reading, ns) it had read the
    /// event that carried the time `eventTime` (ns, as its input timestamps said) and, since
    /// a socket keeps its order, everything sent to it before that event. The newest of the
    /// client's latest recorded events with that time, and every older one not yet received,
    /// gain the `received` stage; flushed to received and arrival to received are recorded,
    /// and each such timeline is handed to `matched`, newest first. Returns how many; a
    /// report matching none (too old, a time never sent, or one already reported) is
    /// counted, not an error.
    @discardableResult
    public func received(client: ClientID, eventTime: Int64, receipt: Int64, matched: (EventTimeline) -> Void = { _ in }) -> Int {
        recording.pointee.receipts &+= 1
        guard let slot = slotOfClient[client] else {
            recording.pointee.unmatchedReceipts &+= 1
            return 0
        }
        let clientSlice = 1 + Self.kinds + slot
        var count = 0
        var place = recording.pointee.recentNext[slot]
        // Newest first: past the reported event, the scan ends at the first event already
        // received (an earlier report covered it and all before it) or at an empty place.
        for _ in 0..<Self.recentPerClient {
            place = place == 0 ? Self.recentPerClient - 1 : place - 1
            let index = slot * Self.recentPerClient + place
            var timeline = recording.pointee.recent[index]
            if timeline.stamps.received != EventStamps.absent || timeline.stamps.arrival == EventStamps.absent { break }
            if count == 0 && timeline.stamps.device != eventTime { continue }
            timeline.stamps.received = receipt
            recording.pointee.recent[index] = timeline
            count += 1
            let kindSlice = 1 + timeline.kind.rawValue
            recordInterval(.flushedToReceived, of: timeline, kindSlice: kindSlice, clientSlice: clientSlice)
            recordInterval(.arrivalToReceived, of: timeline, kindSlice: kindSlice, clientSlice: clientSlice)
            keepSlowOnReceipt(timeline)
            matched(timeline)
        }
        if count == 0 { recording.pointee.unmatchedReceipts &+= 1 }
        return count
    }

    /// An event kept as slow when it was flushed gains the stage in the ring too, if it is
    /// still there; one that was not slow then, but is by its receipt, is kept now.
    private func keepSlowOnReceipt(_ timeline: EventTimeline) {
        let threshold = slowThreshold
        if let flushed = timeline.stamps.interval(from: .arrival, to: .flushed), flushed > threshold {
            if let kept = slow.firstIndex(where: { $0.sequence == timeline.sequence }) { slow[kept].stamps.received = timeline.stamps.received }
        } else if let received = timeline.stamps.interval(from: .arrival, to: .received), received > threshold {
            keepSlow(timeline)
        }
    }

    /// Receipt reports since the last reset, and those that matched no recorded event.
    public var receipts: (reports: UInt64, unmatched: UInt64) { (recording.pointee.receipts, recording.pointee.unmatchedReceipts) }
}
