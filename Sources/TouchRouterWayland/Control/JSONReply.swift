import TouchRouterReplay

/// One JSON value of what the control socket writes, and its one encoder: compact (no
/// spaces), object members in the order given, strings escaped as the trace escapes them
/// (`jsonString`), numbers as the trace prints them (`jsonNumber`), so that replies read the
/// same as when they were written by hand.
///
/// A Swift `String` holds only Unicode scalars (a request's bytes that are not UTF-8 were
/// read as U+FFFD), so whatever is encoded is UTF-8 and needs no more than the escapes.
package enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    /// Whole numbers below 10^15 without a fraction, others as Swift prints them; a number
    /// that is not finite, which JSON cannot say, is `null`.
    case double(Double)
    case string(String)
    case array([JSONValue])
    /// Members in this order; the keys are escaped as strings are.
    case object([Member])
    /// JSON made elsewhere (the statistics' reports, the host's devices), copied as it is.
    case verbatim(String)

    package struct Member: Sendable, Equatable {
        package var key: String
        package var value: JSONValue
        package init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// Any integer (identifiers, sizes, counts); one past Int64 would trap.
    package static func number(_ value: some BinaryInteger) -> JSONValue { .int(Int64(value)) }
    package static func number(_ value: Double) -> JSONValue { .double(value) }
    /// The value, or `null` when there is none.
    package static func optional<T>(_ value: T?, _ encode: (T) -> JSONValue) -> JSONValue { value.map(encode) ?? .null }
    /// A point or a pair: `[x,y]`.
    package static func pair(_ x: Double, _ y: Double) -> JSONValue { .array([.double(x), .double(y)]) }

    /// The value's text.
    package var json: String {
        var out = ""
        out.reserveCapacity(64)
        write(to: &out)
        return out
    }

    package func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .double(let value): out += value.isFinite ? jsonNumber(value) : "null"
        case .string(let text): Self.write(string: text, to: &out)
        case .verbatim(let text): out += text
        case .array(let elements):
            out += "["
            for (i, element) in elements.enumerated() {
                if i > 0 { out += "," }
                element.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            Self.write(members: members, to: &out)
            out += "}"
        }
    }

    /// `"key":value` for each member, separated by commas.
    package static func write(members: [Member], to out: inout String) {
        for (i, member) in members.enumerated() {
            if i > 0 { out += "," }
            write(string: member.key, to: &out)
            out += ":"
            member.value.write(to: &out)
        }
    }

    /// A string literal: quotes, backslashes and U+0000–U+001F escaped (`\n`, `\r`, `\t`, and
    /// `\u00XX` for the rest), everything else as it is. A string that needs no escape, as
    /// nearly all do, is copied whole.
    package static func write(string text: String, to out: inout String) {
        out += "\""
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out += text
        } else {
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case "\u{0}"..."\u{1F}":
                    out += scalar.value < 0x10 ? "\\u000" : "\\u001"
                    let low = UInt8(scalar.value & 0xF)
                    out.unicodeScalars.append(Unicode.Scalar(low < 10 ? UInt8(ascii: "0") + low : UInt8(ascii: "a") + low - 10))
                default: out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    package init(nilLiteral: ()) { self = .null }
    package init(booleanLiteral value: Bool) { self = .bool(value) }
    package init(integerLiteral value: Int64) { self = .int(value) }
    package init(floatLiteral value: Double) { self = .double(value) }
    package init(stringLiteral value: String) { self = .string(value) }
    package init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// Members in the order written.
    package init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(elements.map { Member(key: $0.0, value: $0.1) }) }
}

/// The control socket's reply lines, without their newline: `{"ok":true,...}` or
/// `{"ok":false,"error":"..."}` (docs/man/touch-router-msg.7.scd).
package enum JSONReply {
    /// `{"ok":true}` and the members, in the order written.
    package static func ok(_ members: KeyValuePairs<String, JSONValue> = [:]) -> String {
        var out = "{\"ok\":true"
        out.reserveCapacity(64)
        for (key, value) in members {
            out += ","
            JSONValue.write(string: key, to: &out)
            out += ":"
            value.write(to: &out)
        }
        return out + "}"
    }

    /// `{"ok":true}` and the members of an object written elsewhere (`stats`), which must
    /// begin with `{`.
    package static func ok(merging object: String) -> String {
        assert(object.hasPrefix("{"), "not a JSON object: \(object.prefix(32))")
        let rest = object.dropFirst()
        var out = "{\"ok\":true"
        out.reserveCapacity(object.utf8.count + 10)
        if !rest.hasPrefix("}") { out += "," }
        out += rest
        return out
    }

    /// `{"ok":true}` and these members (a reply made in parts, as `play`'s).
    package static func ok(members: [JSONValue.Member]) -> String {
        var out = "{\"ok\":true"
        out.reserveCapacity(64)
        if !members.isEmpty { out += "," }
        JSONValue.write(members: members, to: &out)
        return out + "}"
    }

    package static func failure(_ message: String) -> String {
        var out = "{\"ok\":false,\"error\":"
        out.reserveCapacity(message.utf8.count + 24)
        JSONValue.write(string: message, to: &out)
        return out + "}"
    }
}
