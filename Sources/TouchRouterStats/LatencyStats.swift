import Histogram
import TouchRouterCore
import TouchRouterReplay

/// The intervals between stages that the statistics keep, each in its own HDR histogram.
public enum StageInterval: Int, CaseIterable, Sendable {
    case deviceToArrival, arrivalToDequeued, dequeuedToDecided, decidedToEncoded, encodedToFlushed, arrivalToFlushed
    /// From the clients' own reports (`LatencyStats.received`), recorded when they come.
    case flushedToReceived, arrivalToReceived
    /// From the frames that showed clients' commits (`LatencyStats.presented`): a followed
    /// commit to its frame on the screen, per client only; and an answered event's device
    /// time to the frame that showed its answer.
    case committedToPresented, deviceToPresented

    public var from: EventStage {
        switch self {
        case .deviceToArrival: .device
        case .arrivalToDequeued, .arrivalToFlushed, .arrivalToReceived: .arrival
        case .dequeuedToDecided: .dequeued
        case .decidedToEncoded: .decided
        case .encodedToFlushed: .encoded
        case .flushedToReceived: .flushed
        case .committedToPresented: .committed
        case .deviceToPresented: .device
        }
    }

    public var to: EventStage {
        switch self {
        case .deviceToArrival: .arrival
        case .arrivalToDequeued: .dequeued
        case .dequeuedToDecided: .decided
        case .decidedToEncoded: .encoded
        case .encodedToFlushed, .arrivalToFlushed: .flushed
        case .flushedToReceived, .arrivalToReceived: .received
        case .committedToPresented, .deviceToPresented: .presented
        }
    }

    /// The key in `msg stats`'s JSON; the present stage's two keep the names a kiosk's
    /// figures go by.
    public var name: String {
        switch self {
        case .committedToPresented: "commit_to_present"
        case .deviceToPresented: "touch_to_present"
        default: "\(from.name)_to_\(to.name)"
        }
    }
}

/// What `msg stats` gives for one interval: nanoseconds, within the histograms' precision.
public struct IntervalSummary: Sendable, Equatable {
    public var count: UInt64
    public var p50: UInt64
    public var p90: UInt64
    public var p99: UInt64
    public var p999: UInt64
    public var max: UInt64
}

/// A routed event slower than the threshold, with its whole timeline.
public typealias SlowEvent = EventTimeline

/// Per-event timelines recorded into HDR histograms per stage interval (counted in a flat
/// `LatencyTable`, read through hdrhistogram-swift), for all events, per event kind and per
/// client; the events slower than a threshold (arrival to flushed) kept in a bounded ring.
/// Everything an event touches is allocated ahead: the histograms of every kind and client
/// slot when the statistics are made, the ring and the list of events waiting for their
/// flush.
///
/// The router hands each timeline over (`routed`); those that reached a client wait until
/// the session flushes clients (`flushed(at:)`), which stamps them and records them.
public final class LatencyStats: TimelineObserver {
    /// Two significant digits: a value is known to within 1%. 60 s is the largest interval
    /// told apart; longer ones (and a device clock far from the session's) count as 60 s.
    public static let significantDigits = SignificantDigits.two
    public static let highestTrackable: UInt64 = 60_000_000_000
    /// Events slower than the threshold that are kept, unless `init` says otherwise.
    public static let slowCapacity = 64
    /// Timelines that can wait for one flush; past it they are recorded unflushed.
    public static let pendingCapacity = 4096
    /// Clients whose statistics outlive them, until a reset or until more connect.
    public static let clientCapacity = 32
    /// A client's latest recorded events, kept for its receipt reports to find: at 1 kHz
    /// and ten touches a frame, the last 25 ms or so.
    public static let recentPerClient = 256

    private static let intervals = StageInterval.allCases.count
    static let kinds = EventKind.allCases.count

    /// What every recorded event touches, behind one pointer (`UncheckedState`): as stored
    /// properties of the class, each access paid a dynamic exclusivity check, 18 histogram
    /// records an event, about a fifth of a live session's time at 100 touches a frame.
    struct Recording {
        /// Events recorded per slice.
        var events: ContiguousArray<UInt64> = []
        var slotOfClient: [ClientID: Int] = [:]
        /// The client last looked up and its slot: a frame's events come client by client.
        var lastLookedUp: (client: ClientID, slot: Int?)?
        var pending: ContiguousArray<EventTimeline> = []
        var slow: ContiguousArray<EventTimeline> = []
        var slowNext = 0
        var slowTotal: UInt64 = 0
        var negativeIntervals: UInt64 = 0
        var unflushed: UInt64 = 0
        var slowThreshold: Int64 = 200_000_000
        /// [slot * recentPerClient + i]: each client slot's latest recorded timelines, a ring
        /// whose next place is `recentNext[slot]`.
        var recent: ContiguousArray<EventTimeline> = []
        var recentNext: ContiguousArray<Int> = []
        var receipts: UInt64 = 0
        var unmatchedReceipts: UInt64 = 0
        var commitsPresented: UInt64 = 0
        var answers: UInt64 = 0
        var unmatchedAnswers: UInt64 = 0
    }
    let recording = UncheckedState(Recording())
    /// [slice * intervals + interval]: slice 0 is every event, 1... each kind, then each client slot.
    let table = LatencyTable(histograms: (1 + kinds + clientCapacity) * intervals, highestTrackable: highestTrackable)

    deinit {
        recording.release()
        table.release()
    }

    /// Events whose arrival to flushed, or (for clients that report receipts) arrival to
    /// received, took longer than this (nanoseconds) are kept.
    public var slowThreshold: Int64 {
        get { recording.pointee.slowThreshold }
        set { recording.pointee.slowThreshold = newValue }
    }
    private var events: ContiguousArray<UInt64> {
        _read { yield recording.pointee.events }
        _modify { yield &recording.pointee.events }
    }
    var slotOfClient: [ClientID: Int] {
        _read { yield recording.pointee.slotOfClient }
        _modify {
            recording.pointee.lastLookedUp = nil
            yield &recording.pointee.slotOfClient
        }
    }

    /// `client`'s slot, through the last lookup when it was of the same client.
    private func slot(of client: ClientID) -> Int? {
        if let last = recording.pointee.lastLookedUp, last.client == client { return last.slot }
        let slot = slotOfClient[client]
        recording.pointee.lastLookedUp = (client, slot)
        return slot
    }
    private var pending: ContiguousArray<EventTimeline> {
        _read { yield recording.pointee.pending }
        _modify { yield &recording.pointee.pending }
    }
    var slow: ContiguousArray<EventTimeline> {
        _read { yield recording.pointee.slow }
        _modify { yield &recording.pointee.slow }
    }
    private var slowNext: Int {
        get { recording.pointee.slowNext }
        set { recording.pointee.slowNext = newValue }
    }
    /// Every event found slow since the last reset, kept or not.
    public private(set) var slowTotal: UInt64 {
        get { recording.pointee.slowTotal }
        set { recording.pointee.slowTotal = newValue }
    }
    /// Intervals that came out negative (a device clock ahead of the session's), not recorded.
    public private(set) var negativeIntervals: UInt64 {
        get { recording.pointee.negativeIntervals }
        set { recording.pointee.negativeIntervals = newValue }
    }
    /// Events recorded before their flush because too many waited for one.
    public private(set) var unflushed: UInt64 {
        get { recording.pointee.unflushed }
        set { recording.pointee.unflushed = newValue }
    }
    private var clientSlots: ContiguousArray<ClientSlot> = []

    struct ClientSlot {
        var client: ClientID
        var pid: Int32
        var connected: Bool
        var age: UInt64
    }
    private var slotAge: UInt64 = 0

    public let slowCapacity: Int

    public init(slowCapacity: Int = LatencyStats.slowCapacity) {
        self.slowCapacity = max(1, slowCapacity)
        events = ContiguousArray(repeating: 0, count: 1 + Self.kinds)
        events.reserveCapacity(1 + Self.kinds + Self.clientCapacity)
        pending.reserveCapacity(Self.pendingCapacity)
        slow.reserveCapacity(self.slowCapacity)
        clientSlots.reserveCapacity(Self.clientCapacity)
        slotOfClient.reserveCapacity(Self.clientCapacity * 2)
    }

    // MARK: Clients

    /// Gives a client a slot of histograms; the slot of the client gone longest is reused once
    /// `clientCapacity` are kept.
    public func clientConnected(_ client: ClientID, pid: Int32) {
        slotAge &+= 1
        if let slot = slotOfClient[client] {
            clientSlots[slot].connected = true
            return
        }
        let slot: Int
        if clientSlots.count < Self.clientCapacity {
            slot = clientSlots.count
            clientSlots.append(ClientSlot(client: client, pid: pid, connected: true, age: slotAge))
            events.append(0)
            recording.pointee.recent.append(contentsOf: repeatElement(Self.emptyTimeline, count: Self.recentPerClient))
            recording.pointee.recentNext.append(0)
        } else {
            // Every slot taken: the one gone longest (or, all connected, the oldest) goes.
            let candidates = clientSlots.indices.filter { !clientSlots[$0].connected }
            let pool = candidates.isEmpty ? Array(clientSlots.indices) : candidates
            slot = pool.min { clientSlots[$0].age < clientSlots[$1].age }!
            slotOfClient[clientSlots[slot].client] = nil
            clientSlots[slot] = ClientSlot(client: client, pid: pid, connected: true, age: slotAge)
            clearSlice(1 + Self.kinds + slot)
            clearRecent(slot)
        }
        slotOfClient[client] = slot
    }

    /// The client went; its statistics stay until a reset or until its slot is needed.
    public func clientDisconnected(_ client: ClientID) {
        slotAge &+= 1
        guard let slot = slotOfClient[client] else { return }
        clientSlots[slot].connected = false
        clientSlots[slot].age = slotAge
    }

    // MARK: Recording

    public func routed(_ timeline: EventTimeline) {
        if timeline.stamps.has(.encoded), pending.count < Self.pendingCapacity {
            pending.append(timeline)
        } else {
            if timeline.stamps.has(.encoded) { unflushed &+= 1 }
            record(timeline)
        }
    }

    /// Whether timelines wait for a flush.
    public var awaitingFlush: Bool { !pending.isEmpty }

    /// Clients were flushed at `time`: every timeline that reached a client since the last
    /// flush is stamped and recorded.
    public func flushed(at time: RouterTime) {
        for i in pending.indices {
            var timeline = pending[i]
            timeline.stamps.flushed = max(time.nanoseconds, timeline.stamps.encoded)
            record(timeline)
        }
        pending.removeAll(keepingCapacity: true)
    }

    private func record(_ timeline: EventTimeline) {
        let kindSlice = 1 + timeline.kind.rawValue
        let clientSlice = timeline.client.flatMap { slot(of: $0) }.map { 1 + Self.kinds + $0 }
        events[0] &+= 1
        events[kindSlice] &+= 1
        if let clientSlice {
            events[clientSlice] &+= 1
            remember(timeline, slot: clientSlice - 1 - Self.kinds)
        }
        // The intervals a routed timeline has, one call each rather than a loop over a list,
        // so that each interval's stages are constants and its reads of the stamps two loads.
        recordInterval(.deviceToArrival, of: timeline, kindSlice: kindSlice, clientSlice: clientSlice)
        recordInterval(.arrivalToDequeued, of: timeline, kindSlice: kindSlice, clientSlice: clientSlice)
        recordInterval(.dequeuedToDecided, of: timeline, kindSlice: kindSlice, clientSlice: clientSlice)
        recordInterval(.decidedToEncoded, of: timeline, kindSlice: kindSlice, clientSlice: clientSlice)
        recordInterval(.encodedToFlushed, of: timeline, kindSlice: kindSlice, clientSlice: clientSlice)
        recordInterval(.arrivalToFlushed, of: timeline, kindSlice: kindSlice, clientSlice: clientSlice)
        if let total = timeline.stamps.interval(from: .arrival, to: .flushed), total > slowThreshold { keepSlow(timeline) }
    }

    /// One interval of a timeline, if it has both stages, into the histograms of all events,
    /// of its kind and of its client; a negative one is counted, not recorded.
    @inline(__always)
    func recordInterval(_ interval: StageInterval, of timeline: EventTimeline, kindSlice: Int, clientSlice: Int?) {
        guard let value = timeline.stamps.interval(from: interval.from, to: interval.to) else { return }
        guard value >= 0 else {
            negativeIntervals &+= 1
            return
        }
        let clamped = min(UInt64(value), Self.highestTrackable)
        table.record(clamped, in: interval.rawValue)
        table.record(clamped, in: kindSlice * Self.intervals + interval.rawValue)
        if let clientSlice { table.record(clamped, in: clientSlice * Self.intervals + interval.rawValue) }
    }

    /// A value off the routing path (the present stage's): into all events' histogram, and
    /// its kind's and client's where it has them.
    func recordValue(_ interval: StageInterval, _ value: Int64, kindSlice: Int?, clientSlice: Int?) {
        let clamped = min(UInt64(max(value, 0)), Self.highestTrackable)
        table.record(clamped, in: interval.rawValue)
        if let kindSlice { table.record(clamped, in: kindSlice * Self.intervals + interval.rawValue) }
        if let clientSlice { table.record(clamped, in: clientSlice * Self.intervals + interval.rawValue) }
    }

    func keepSlow(_ timeline: EventTimeline) {
        slowTotal &+= 1
        if slow.count < slowCapacity {
            slow.append(timeline)
        } else {
            slow[slowNext] = timeline
        }
        slowNext = (slowNext + 1) % slowCapacity
    }

    /// Starts every histogram and the slow ring over; clients stay known.
    public func reset() {
        table.reset(0, count: (1 + Self.kinds + clientSlots.count) * Self.intervals)
        for i in events.indices { events[i] = 0 }
        // Clients gone are forgotten now.
        for slot in clientSlots.indices where !clientSlots[slot].connected {
            slotOfClient[clientSlots[slot].client] = nil
        }
        slow.removeAll(keepingCapacity: true)
        slowNext = 0
        slowTotal = 0
        negativeIntervals = 0
        unflushed = 0
        recording.pointee.receipts = 0
        recording.pointee.unmatchedReceipts = 0
        recording.pointee.commitsPresented = 0
        recording.pointee.answers = 0
        recording.pointee.unmatchedAnswers = 0
        for slot in recording.pointee.recentNext.indices { clearRecent(slot) }
    }

    private func clearSlice(_ slice: Int) {
        table.reset(slice * Self.intervals, count: Self.intervals)
        events[slice] = 0
    }

    // MARK: Reading

    /// Every event recorded since the last reset.
    public var recordedEvents: UInt64 { events[0] }

    public func summary(_ interval: StageInterval) -> IntervalSummary { summary(slice: 0, interval) }
    public func summary(_ interval: StageInterval, kind: EventKind) -> IntervalSummary { summary(slice: 1 + kind.rawValue, interval) }
    public func summary(_ interval: StageInterval, client: ClientID) -> IntervalSummary? {
        slotOfClient[client].map { summary(slice: 1 + Self.kinds + $0, interval) }
    }
    public func events(of kind: EventKind) -> UInt64 { events[1 + kind.rawValue] }

    private func summary(slice: Int, _ interval: StageInterval) -> IntervalSummary {
        let index = slice * Self.intervals + interval.rawValue
        guard table.total(of: index) > 0 else { return IntervalSummary(count: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0) }
        let histogram = table.histogram(index, digits: Self.significantDigits)
        return IntervalSummary(
            count: histogram.totalCount, p50: histogram.valueAtPercentile(50), p90: histogram.valueAtPercentile(90),
            p99: histogram.valueAtPercentile(99), p999: histogram.valueAtPercentile(99.9), max: table.maximum(of: index))
    }

    /// The latency at each of `percentiles` (0 to 100) of one interval over all events, in
    /// nanoseconds within the histograms' precision: an HDR percentile plot's series. Empty
    /// when nothing was recorded.
    public func values(_ interval: StageInterval, atPercentiles percentiles: [Double]) -> [UInt64] {
        guard table.total(of: interval.rawValue) > 0 else { return [] }
        let histogram = table.histogram(interval.rawValue, digits: Self.significantDigits)
        return percentiles.map { histogram.valueAtPercentile($0) }
    }

    /// The slow events kept, oldest first.
    public var slowEvents: [SlowEvent] {
        guard slow.count == slowCapacity else { return Array(slow) }
        return Array(slow[slowNext...] + slow[..<slowNext])
    }

    // MARK: JSON

    /// `msg stats`: percentiles per interval, for all events, per kind and per client.
    public func json() -> String {
        var kinds: [String] = []
        for kind in EventKind.allCases where events[1 + kind.rawValue] > 0 {
            kinds.append("\(jsonString(kind.name)):{\"events\":\(events[1 + kind.rawValue]),\"stages\":\(slicesJSON(1 + kind.rawValue))}")
        }
        var clients: [String] = []
        for slot in clientSlots.indices where slotOfClient[clientSlots[slot].client] == slot {
            let entry = clientSlots[slot], slice = 1 + Self.kinds + slot
            clients.append("{\"client\":\(entry.client.raw),\"pid\":\(entry.pid),\"connected\":\(entry.connected),\"events\":\(events[slice]),\"stages\":\(slicesJSON(slice))}")
        }
        return "{\"unit\":\"ns\",\"precision_digits\":\(Self.significantDigits.rawValue),\"events\":\(events[0]),"
            + "\"stages\":\(slicesJSON(0)),\"kinds\":{\(kinds.joined(separator: ","))},\"clients\":[\(clients.joined(separator: ","))],"
            + "\"slow_threshold_ns\":\(slowThreshold),\"slow\":\(slowTotal),\"negative_intervals\":\(negativeIntervals),\"unflushed\":\(unflushed),"
            + "\"receipt_reports\":\(receipts.reports),\"unmatched_receipt_reports\":\(receipts.unmatched),"
            + "\"commits_presented\":\(presentation.commits),\"answers\":\(presentation.answers),\"unmatched_answers\":\(presentation.unmatched)}"
    }

    private func slicesJSON(_ slice: Int) -> String {
        "{" + StageInterval.allCases.map { interval in
            let s = summary(slice: slice, interval)
            return "\(jsonString(interval.name)):{\"count\":\(s.count),\"p50\":\(s.p50),\"p90\":\(s.p90),\"p99\":\(s.p99),\"p99_9\":\(s.p999),\"max\":\(s.max)}"
        }.joined(separator: ",") + "}"
    }

    /// `msg stats slow`: the events kept, oldest first, each with its stages and intervals.
    public func slowJSON() -> String {
        let entries = slowEvents.map { Self.timelineJSON($0) }
        return "{\"slow_threshold_ns\":\(slowThreshold),\"slow\":\(slowTotal),\"kept\":\(entries.count),\"events\":[\(entries.joined(separator: ","))]}"
    }

    /// One timeline: its absent stages left out.
    public static func timelineJSON(_ timeline: EventTimeline) -> String {
        let stages = EventStage.allCases.filter { timeline.stamps.has($0) }.map { "\(jsonString($0.name)):\(timeline.stamps[$0])" }
        let intervals = StageInterval.allCases.compactMap { interval in
            timeline.stamps.interval(from: interval.from, to: interval.to).map { "\(jsonString(interval.name)):\($0)" }
        }
        return "{\"seq\":\(timeline.sequence),\"kind\":\(jsonString(timeline.kind.name)),\"client\":\(timeline.client.map { String($0.raw) } ?? "null"),"
            + "\"stages_ns\":{\(stages.joined(separator: ","))},\"intervals_ns\":{\(intervals.joined(separator: ","))}}"
    }
}
