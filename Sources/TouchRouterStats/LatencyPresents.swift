import TouchRouterCore

// The present stage (docs/benchmarks.md, "Touch to present"): a commit the session follows
// (one with presentation feedback, or one answering input) reached the screen. Its
// commit-to-present goes into its client's histograms; each input event it answers, found
// among the client's latest recorded events by its time as `received` finds them, gains the
// committed and presented stages, and its touch-to-present is recorded.

extension LatencyStats {
    /// A commit of `client` made at `committedAt` (ns) was presented at `presentedAt`; it
    /// answers the events with the device times `answers`, each with the time of the commit
    /// that first carried it. An answer also covers the client's events of the same device
    /// class (touch, pointer, keys) no answer covered yet, up to a second before it. Each event found is handed to `matched`, newest first for each answer;
    /// an answer naming no event the client was recently sent is counted, not recorded,
    /// since the client's number is not to be trusted.
    public func presented(client: ClientID, committedAt: Int64, presentedAt: Int64, answers: [(eventTime: Int64, committedAt: Int64)],
                          matched: (EventTimeline) -> Void = { _ in }) {
        recording.pointee.commitsPresented &+= 1
        let slot = slotOfClient[client]
        let clientSlice = slot.map { 1 + Self.kinds + $0 }
        var commit = EventStamps()
        commit.committed = committedAt
        commit.presented = presentedAt
        let timeline = EventTimeline(sequence: 0, kind: .device, client: client, stamps: commit)
        if let value = timeline.stamps.interval(from: .committed, to: .presented), value >= 0 {
            recordClientInterval(.committedToPresented, value, clientSlice: clientSlice)
        }
        for answer in answers {
            recording.pointee.answers &+= 1
            guard let slot, let newest = newestRecorded(eventTime: answer.eventTime, slot: slot) else {
                recording.pointee.unmatchedAnswers &+= 1
                continue
            }
            // Like a receipt, an answer covers the events of the same device class sent before
            // the one it names that no earlier answer covered: a frame of ten fingers is
            // answered by naming its last. Only within a second before it: the first answer
            // after a quiet spell must not claim old events.
            let named = recording.pointee.recent[slot * Self.recentPerClient + newest]
            let oldest = named.stamps.device &- 1_000_000_000
            var place = newest
            for _ in 0..<Self.recentPerClient {
                let index = slot * Self.recentPerClient + place
                var answered = recording.pointee.recent[index]
                if answered.stamps.arrival == EventStamps.absent || answered.stamps.device < oldest { break }
                if answered.kind.deviceClass == named.kind.deviceClass {
                    if answered.stamps.presented != EventStamps.absent { break }
                    answered.stamps.committed = answer.committedAt
                    answered.stamps.presented = presentedAt
                    recording.pointee.recent[index] = answered
                    // A frame carries no input of its own: its events' answers are its answer.
                    if answered.kind != .touchFrame {
                        recordInterval(.deviceToPresented, of: answered, kindSlice: 1 + answered.kind.rawValue, clientSlice: clientSlice)
                        matched(answered)
                    }
                }
                place = place == 0 ? Self.recentPerClient - 1 : place - 1
            }
        }
    }

    /// The ring place of the newest of the slot's recorded events with this device time.
    private func newestRecorded(eventTime: Int64, slot: Int) -> Int? {
        var place = recording.pointee.recentNext[slot]
        for _ in 0..<Self.recentPerClient {
            place = place == 0 ? Self.recentPerClient - 1 : place - 1
            let timeline = recording.pointee.recent[slot * Self.recentPerClient + place]
            if timeline.stamps.arrival == EventStamps.absent { return nil }
            if timeline.stamps.device == eventTime && timeline.kind != .touchFrame { return place }
        }
        return nil
    }

    /// An interval with no event kind: into all events' histogram and the client's.
    private func recordClientInterval(_ interval: StageInterval, _ value: Int64, clientSlice: Int?) {
        recordValue(interval, value, kindSlice: nil, clientSlice: clientSlice)
    }

    /// Commits presented, answers reported with them, and answers that named no recent event.
    public var presentation: (commits: UInt64, answers: UInt64, unmatched: UInt64) {
        (recording.pointee.commitsPresented, recording.pointee.answers, recording.pointee.unmatchedAnswers)
    }
}

extension LatencyStats {
    /// The device time of the client's newest recorded event that is not a frame: what a
    /// client answering input would name.
    public func latestDeviceTime(of client: ClientID) -> RouterTime? {
        guard let slot = slotOfClient[client] else { return nil }
        var place = recording.pointee.recentNext[slot]
        for _ in 0..<Self.recentPerClient {
            place = place == 0 ? Self.recentPerClient - 1 : place - 1
            let timeline = recording.pointee.recent[slot * Self.recentPerClient + place]
            if timeline.stamps.arrival == EventStamps.absent { return nil }
            if timeline.kind != .touchFrame { return RouterTime(nanoseconds: timeline.stamps.device) }
        }
        return nil
    }
}
