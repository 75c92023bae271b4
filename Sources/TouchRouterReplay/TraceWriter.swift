import TouchRouterCore

public enum TraceFormat: String, Sendable, CaseIterable {
    case text
    /// One JSON object per line.
    case json
}

/// Writes routing decisions for people (text) or machines (JSON lines), naming
/// surfaces, clients and outputs by their scene names.
public final class TraceWriter: RoutingTraceSink {
    public let format: TraceFormat
    private let names: NameBook
    private let write: (String) -> Void

    public init(format: TraceFormat, names: NameBook, write: @escaping (String) -> Void) {
        self.format = format
        self.names = names
        self.write = write
    }

    public func routed(_ record: RouteRecord) {
        switch format {
        case .text:
            write("\(milliseconds(record.event.time)) #\(record.sequence) \(EventSyntax.format(record.event)) → \(describe(record.outcome))")
            for delivery in record.deliveries { write("    \(describe(delivery))") }
        case .json:
            var fields: [(String, String)] = [
                ("seq", String(record.sequence)),
                ("time_ms", jsonNumber(Double(record.event.time.nanoseconds) / 1e6)),
                ("event", jsonString(EventSyntax.format(record.event))),
            ]
            fields += outcomeFields(record.outcome)
            // arrival, dequeued, decided and delivered are always there (decided is delivered
            // when nothing was decided); device, arena, encoded and flushed where they apply.
            var stages: [(String, String)] = [("device", String(record.stamps.device)),
                ("arrival", String(record.arrival.nanoseconds)), ("dequeued", String(record.dequeued.nanoseconds))]
            if record.stamps.has(.arena) { stages.append(("arena", String(record.stamps.arena))) }
            stages.append(("decided", String(record.decided.nanoseconds)))
            if record.stamps.has(.encoded) { stages.append(("encoded", String(record.stamps.encoded))) }
            stages.append(("delivered", String(record.delivered.nanoseconds)))
            if record.stamps.has(.flushed) { stages.append(("flushed", String(record.stamps.flushed))) }
            fields.append(("stages_ns", object(stages)))
            fields.append(("deliveries", "[" + record.deliveries.map(deliveryJSON).joined(separator: ",") + "]"))
            write(object(fields))
        }
    }

    public func focusChanged(_ record: FocusChangeRecord) {
        let from = record.from.map { "\"\(names.name(of: $0))\"" } ?? "nobody"
        let to = record.to.map { "\"\(names.name(of: $0))\"" } ?? "nobody"
        switch format {
        case .text:
            write("    \(record.kind.rawValue) focus \(from) → \(to) (\(record.cause.rawValue))")
            for delivery in record.deliveries { write("      \(describe(delivery))") }
        case .json:
            write(object([
                ("focus", jsonString(record.kind.rawValue)),
                ("from", record.from.map { jsonString(names.name(of: $0)) } ?? "null"),
                ("to", record.to.map { jsonString(names.name(of: $0)) } ?? "null"),
                ("cause", jsonString(record.cause.rawValue)),
                ("deliveries", "[" + record.deliveries.map(deliveryJSON).joined(separator: ",") + "]"),
            ]))
        }
    }

    public func interactionIgnoringChanged(depth: Int, cancelled: [DeliveryRecord]) {
        switch format {
        case .text:
            write("    ignoring interaction: depth \(depth)")
            for delivery in cancelled { write("      \(describe(delivery))") }
        case .json:
            write(object([("ignore_interaction_depth", String(depth)), ("deliveries", "[" + cancelled.map(deliveryJSON).joined(separator: ",") + "]")]))
        }
    }

    public func arenaDecided(_ record: ArenaRecord) {
        switch format {
        case .text:
            let who = record.recognizer.map { "\"\($0)\" " } ?? ""
            let touches = record.touches.isEmpty ? "" : " touch\(record.touches.count == 1 ? "" : "es") \(record.touches.map(\.description).joined(separator: ","))"
            let client = record.client.map { " client \"\(names.name(of: $0))\"" } ?? ""
            write("    arena: \(who)\(record.decision.rawValue)\(touches)\(client): \(record.detail)")
        case .json:
            write(object([
                ("time_ms", jsonNumber(Double(record.time.nanoseconds) / 1e6)),
                ("arena", jsonString(record.decision.rawValue)),
                ("recognizer", record.recognizer.map(jsonString) ?? "null"),
                ("touches", "[" + record.touches.map { String($0.raw) }.joined(separator: ",") + "]"),
                ("client", record.client.map { jsonString(names.name(of: $0)) } ?? "null"),
                ("detail", jsonString(record.detail)),
            ]))
        }
    }

    /// A client's receipt report (touch_router_input_manager_v1.received): the events it
    /// gave the received stage, by their `seq`, newest first. It comes after their lines.
    public func received(client: ClientID, eventTime: Int64, receipt: Int64, sequences: [UInt64]) {
        switch format {
        case .text:
            let events = sequences.isEmpty ? "no event" : sequences.reversed().map { "#\($0)" }.joined(separator: " ")
            write("    client \"\(names.name(of: client))\" received up to device time \(eventTime) ns at \(receipt) ns: \(events)")
        case .json:
            write(object([
                ("received_ns", String(receipt)),
                ("client", jsonString(names.name(of: client))),
                ("event_time_ns", String(eventTime)),
                ("seqs", "[" + sequences.map(String.init).joined(separator: ",") + "]"),
            ]))
        }
    }

    /// A script line that acts as the compositor, printed before its effects.
    public func action(_ line: Script.Line) {
        switch format {
        case .text:
            write("\(milliseconds(line.time)) \(line.text)")
        case .json:
            write(object([("time_ms", jsonNumber(Double(line.time.nanoseconds) / 1e6)), ("action", jsonString(line.text))]))
        }
    }

    public func refused(_ line: Script.Line, reason: String) {
        switch format {
        case .text:
            write("    refused: \(reason)")
        case .json:
            write(object([("time_ms", jsonNumber(Double(line.time.nanoseconds) / 1e6)), ("action", jsonString(line.text)), ("refused", jsonString(reason))]))
        }
    }

    // MARK: Text

    private func milliseconds(_ time: RouterTime) -> String {
        let ms = Double(time.nanoseconds) / 1e6
        let whole = Int64(ms.rounded(.down))
        let thousandths = Int64(((ms - Double(whole)) * 1000).rounded())
        let fraction = String(thousandths)
        return "\(whole).\(String(repeating: "0", count: max(0, 3 - fraction.count)))\(fraction)ms"
    }

    public func describe(_ outcome: RouteOutcome) -> String {
        switch outcome {
        case .delivered(let reason): "delivered (\(reason.rawValue))"
        case .handled(let link, let declined): "handled by \(names.name(of: link))" + (declined > 0 ? " after \(declined) link\(declined == 1 ? "" : "s") passed it on" : "")
        case .dropped(let reason): "dropped: \(describe(reason))"
        case .discarded(let declined): "discarded: all \(declined) links of the fallback chain passed it on"
        case .recorded: "recorded"
        case .held: "held while the gesture arena decides"
        }
    }

    public func describe(_ reason: DropReason) -> String {
        switch reason {
        case .blockedByExclusiveTouch(let exclusive, let tracking) where exclusive == tracking:
            "blocked: exclusive-touch \"\(names.name(of: exclusive))\" is tracking a touch"
        case .blockedByExclusiveTouch(let exclusive, let tracking):
            "blocked: \"\(names.name(of: exclusive))\" is exclusive-touch and \"\(names.name(of: tracking))\" is tracking a touch"
        case .multipleTouchDisabled(let surface): "multiple touch is off on \"\(names.name(of: surface))\", which already has a touch"
        default: reason.description
        }
    }

    private func describe(_ delivery: DeliveryRecord) -> String {
        let whom = delivery.surface.map { "\"\(names.name(of: $0))\" [\(names.name(of: delivery.client))]" } ?? "client \(names.name(of: delivery.client))"
        let at = delivery.local.map { " at (\($0.x.formatted), \($0.y.formatted))" } ?? ""
        return "\(delivery.kind.rawValue) → \(whom)\(at) (\(delivery.reason.rawValue))"
    }

    // MARK: JSON

    private func outcomeFields(_ outcome: RouteOutcome) -> [(String, String)] {
        switch outcome {
        case .delivered(let reason): [("outcome", jsonString("delivered")), ("reason", jsonString(reason.rawValue))]
        case .handled(let link, let declined): [("outcome", jsonString("handled")), ("link", jsonString(names.name(of: link))), ("declined", String(declined))]
        case .dropped(let reason): [("outcome", jsonString("dropped")), ("reason", jsonString(describe(reason)))]
        case .discarded(let declined): [("outcome", jsonString("discarded")), ("declined", String(declined))]
        case .recorded: [("outcome", jsonString("recorded"))]
        case .held: [("outcome", jsonString("held"))]
        }
    }

    private func deliveryJSON(_ delivery: DeliveryRecord) -> String {
        var fields: [(String, String)] = [("kind", jsonString(delivery.kind.rawValue))]
        if let surface = delivery.surface { fields.append(("surface", jsonString(names.name(of: surface)))) }
        fields.append(("client", jsonString(names.name(of: delivery.client))))
        if let local = delivery.local { fields += [("x", jsonNumber(local.x)), ("y", jsonNumber(local.y))] }
        fields.append(("reason", jsonString(delivery.reason.rawValue)))
        return object(fields)
    }
}

func object(_ fields: [(String, String)]) -> String {
    "{" + fields.map { "\(jsonString($0.0)):\($0.1)" }.joined(separator: ",") + "}"
}

/// A JSON number: whole numbers without a fraction. The trace and the session's control socket share it.
public func jsonNumber(_ number: Double) -> String { number.formatted }

/// A JSON string literal, with quotes, backslashes and control characters escaped.
public func jsonString(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        default:
            if scalar.value < 0x20 {
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
    return out + "\""
}
