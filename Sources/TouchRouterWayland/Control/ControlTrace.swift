import TouchRouterCore
import TouchRouterReplay

/// `trace`: while any peer reads it, the router's records go to every tracing peer as
/// one JSON line each (TraceWriter's `json` format), after the round's flush.
extension ControlServer {
    package func startTracing(for connection: Connection) {
        connection.tracing = true
        guard traceWriter == nil else { return }
        let writer = TraceWriter(format: .json, names: NameBook()) { [unowned self] line in
            let text = line.hasSuffix("\n") ? String(line.dropLast()) : line
            for (fd, connection) in self.connections where connection.tracing { self.send(fd, text) }
        }
        // Records wait for the round's flush, so that they carry its stamp.
        let held = FlushStampedTrace(writer)
        traceWriter = held
        server.router.traceSink = held
        server.hooks.onFlushed = { [unowned held] time in held.flushed(at: time) }
        server.hooks.onReceipt = { [unowned held] client, eventTime, receipt, sequences in
            held.received(client, eventTime: eventTime, receipt: receipt, sequences: sequences)
        }
    }

    /// Once no peer traces, the router stops reporting.
    package func stopTracingUnlessRead() {
        guard traceWriter != nil, !connections.values.contains(where: \.tracing) else { return }
        server.router.traceSink = nil
        server.hooks.onFlushed = nil
        server.hooks.onReceipt = nil
        traceWriter = nil
    }
}

/// The control socket's trace: what the router reports waits until the session flushes
/// clients, and goes out then, in order, each routed record that reached a client stamped
/// `flushed` with that flush. A round of the loop is short, so the lines are hardly late.
package final class FlushStampedTrace: RoutingTraceSink {
    private enum Item {
        case routed(RouteRecord)
        case focus(FocusChangeRecord)
        case ignoring(Int, [DeliveryRecord])
        case arena(ArenaRecord)
        case received(ClientID, eventTime: Int64, receipt: Int64, sequences: [UInt64])
    }
    private let writer: TraceWriter
    private var items: [Item] = []

    package init(_ writer: TraceWriter) { self.writer = writer }

    package func routed(_ record: RouteRecord) { items.append(.routed(record)) }
    package func focusChanged(_ record: FocusChangeRecord) { items.append(.focus(record)) }
    package func interactionIgnoringChanged(depth: Int, cancelled: [DeliveryRecord]) { items.append(.ignoring(depth, cancelled)) }
    package func arenaDecided(_ record: ArenaRecord) { items.append(.arena(record)) }
    /// Held like the rest, so that it follows the lines of the events it names.
    package func received(_ client: ClientID, eventTime: Int64, receipt: Int64, sequences: [UInt64]) {
        items.append(.received(client, eventTime: eventTime, receipt: receipt, sequences: sequences))
    }

    package func flushed(at time: RouterTime) {
        guard !items.isEmpty else { return }
        let held = items
        items.removeAll(keepingCapacity: true)
        for item in held {
            switch item {
            case .routed(var record):
                if record.stamps.has(.encoded) { record.stamps.flushed = max(time.nanoseconds, record.stamps.encoded) }
                writer.routed(record)
            case .focus(let record): writer.focusChanged(record)
            case .ignoring(let depth, let cancelled): writer.interactionIgnoringChanged(depth: depth, cancelled: cancelled)
            case .arena(let record): writer.arenaDecided(record)
            case .received(let client, let eventTime, let receipt, let sequences):
                writer.received(client: client, eventTime: eventTime, receipt: receipt, sequences: sequences)
            }
        }
    }
}
