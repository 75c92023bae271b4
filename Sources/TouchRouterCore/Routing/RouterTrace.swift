/// Holds the observer in a `let`, so that a call on it needs no retain while the box is held.
final class TimelineObserverBox {
    let observer: any TimelineObserver
    init(_ observer: any TimelineObserver) { self.observer = observer }
}

/// The record being built for the event in flight, and where records go.
struct TraceState {
    var sink: (any RoutingTraceSink)?
    var deliveries: [DeliveryRecord] = []
    var decidedAt: RouterTime?
    /// The first client the event in flight reached (always kept, for the timeline).
    var deliveredTo: ClientID?
    var timelineObserver: TimelineObserverBox?
    /// The same box, unretained: `timelineObserver` keeps it alive. A call through a stored `var`
    /// (or an `unowned(unsafe)` one) pays a retain and a release an event; through this, none.
    var timelineObserverCall: Unmanaged<TimelineObserverBox>?
    /// The last routed event's `encoded` stamp; nil when it reached no client.
    var lastEncoded: RouterTime?
}

extension Router {
    public var traceSink: (any RoutingTraceSink)? {
        _read { yield state.pointee.trace.sink }
        set { state.pointee.trace.sink = newValue }
    }
    var tracing: Bool { state.pointee.trace.sink != nil }
    var recordDeliveries: [DeliveryRecord] {
        _read { yield state.pointee.trace.deliveries }
        _modify { yield &state.pointee.trace.deliveries }
    }
    var lastEncoded: RouterTime? {
        _read { yield state.pointee.trace.lastEncoded }
        _modify { yield &state.pointee.trace.lastEncoded }
    }
    var decidedAt: RouterTime? {
        _read { yield state.pointee.trace.decidedAt }
        _modify { yield &state.pointee.trace.decidedAt }
    }

    var deliveredTo: ClientID? {
        _read { yield state.pointee.trace.deliveredTo }
        _modify { yield &state.pointee.trace.deliveredTo }
    }
    /// Hears every routed event's stage times (Timeline.swift), whether or not anyone traces.
    /// It is called without being retained: it must not be replaced from inside its `routed`.
    public var timelineObserver: (any TimelineObserver)? {
        get { state.pointee.trace.timelineObserver?.observer }
        set {
            let box = newValue.map(TimelineObserverBox.init)
            state.pointee.trace.timelineObserver = box
            state.pointee.trace.timelineObserverCall = box.map { Unmanaged.passUnretained($0) }
        }
    }

    /// Stamps the `decided` stage, once per event: always, since the timeline is always on.
    @inline(__always)
    func markDecided() {
        if decidedAt == nil { decidedAt = clock.now() }
    }

    @inline(__always)
    func record(_ kind: DeliveryKind, _ surface: SurfaceID?, _ client: ClientID, _ local: Point<SurfaceSpace>?, _ reason: DeliveryReason) {
        if deliveredTo == nil { deliveredTo = client }
        if tracing { recordDeliveries.append(DeliveryRecord(kind: kind, surface: surface, client: client, local: local, reason: reason)) }
    }

    /// The stages the router itself takes; `encoded` is read now when the event reached a client.
    @inline(__always)
    func stamps(_ event: InputEvent, arrival: RouterTime, dequeued: RouterTime, arena: RouterTime?) -> EventStamps {
        var stamps = EventStamps()
        stamps.device = event.time.nanoseconds
        stamps.arrival = arrival.nanoseconds
        stamps.dequeued = dequeued.nanoseconds
        if let arena { stamps.arena = arena.nanoseconds }
        if let decidedAt { stamps.decided = decidedAt.nanoseconds }
        if deliveredTo != nil { stamps.encoded = clock.now().nanoseconds }
        return stamps
    }

    /// Hands the event's timeline to the observer and its record to the trace.
    @inline(__always)
    func finishRoute(_ event: InputEvent, kind: EventKind, sequence: UInt64, arrival: RouterTime, dequeued: RouterTime, arena: RouterTime?, outcome: RouteOutcome) {
        let stamps = stamps(event, arrival: arrival, dequeued: dequeued, arena: arena)
        lastEncoded = stamps.has(.encoded) ? RouterTime(nanoseconds: stamps.encoded) : nil
        if let box = state.pointee.trace.timelineObserverCall {
            let timeline = EventTimeline(sequence: sequence, kind: kind, client: deliveredTo, stamps: stamps)
            box._withUnsafeGuaranteedRef { $0.observer.routed(timeline) }
        }
        if let sink = traceSink {
            let delivered = stamps.has(.encoded) ? RouterTime(nanoseconds: stamps.encoded) : clock.now()
            sink.routed(RouteRecord(
                sequence: sequence, event: event, arrival: arrival, dequeued: dequeued,
                decided: decidedAt ?? delivered, delivered: delivered, outcome: outcome, deliveries: recordDeliveries, stamps: stamps))
        }
    }
}
