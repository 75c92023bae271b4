/// The record being built for the event in flight, and where records go.
struct TraceState {
    var sink: (any RoutingTraceSink)?
    var deliveries: [DeliveryRecord] = []
    var decidedAt: RouterTime?
}

extension Router {
    public var traceSink: (any RoutingTraceSink)? {
        get { state.pointee.trace.sink }
        set { state.pointee.trace.sink = newValue }
    }
    var tracing: Bool { traceSink != nil }
    var recordDeliveries: [DeliveryRecord] {
        _read { yield state.pointee.trace.deliveries }
        _modify { yield &state.pointee.trace.deliveries }
    }
    var decidedAt: RouterTime? {
        _read { yield state.pointee.trace.decidedAt }
        _modify { yield &state.pointee.trace.decidedAt }
    }

    @inline(__always)
    func markDecided() {
        if decidedAt == nil, tracing { decidedAt = clock.now() }
    }

    @inline(__always)
    func record(_ kind: DeliveryKind, _ surface: SurfaceID?, _ client: ClientID, _ local: Point<SurfaceSpace>?, _ reason: DeliveryReason) {
        if tracing { recordDeliveries.append(DeliveryRecord(kind: kind, surface: surface, client: client, local: local, reason: reason)) }
    }
}
