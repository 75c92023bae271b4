/// Where something stands in a text file; lines and columns count from 1.
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int
    public var description: String { "\(file):\(line):\(column)" }
}

/// An error in an input file, naming the file, the line and what was expected there.
public struct InputFileError: Error, Equatable, CustomStringConvertible {
    public var location: SourceLocation
    public var message: String

    public init(_ location: SourceLocation, _ message: String) {
        self.location = location
        self.message = message
    }

    public var description: String { "\(location): error: \(message)" }
}

/// A JSON value that remembers where it was read, so a scene error can point at its line.
struct JSONMember {
    var key: String
    var keyLocation: SourceLocation
    var value: LocatedJSON
}

enum LocatedJSON {
    case object([JSONMember], SourceLocation)
    case array([LocatedJSON], SourceLocation)
    case string(String, SourceLocation)
    case number(Double, SourceLocation)
    case bool(Bool, SourceLocation)
    case null(SourceLocation)

    var location: SourceLocation {
        switch self {
        case .object(_, let l), .array(_, let l), .string(_, let l), .number(_, let l), .bool(_, let l), .null(let l): l
        }
    }

    var kindName: String {
        switch self {
        case .object: "an object"
        case .array: "an array"
        case .string(let s, _): "the string \"\(s)\""
        case .number(let n, _): "the number \(n.formatted)"
        case .bool(let b, _): "\(b)"
        case .null: "null"
        }
    }

    static func parse(_ text: String, file: String) throws(InputFileError) -> LocatedJSON {
        var parser = JSONParser(bytes: Array(text.utf8), file: file)
        parser.skipSpace()
        let value = try parser.value()
        parser.skipSpace()
        guard parser.atEnd else { throw InputFileError(parser.location, "expected the end of the file after the top-level value") }
        return value
    }
}

private struct JSONParser {
    let bytes: [UInt8]
    let file: String
    var offset = 0
    var line = 1
    var lineStart = 0

    init(bytes: [UInt8], file: String) {
        self.bytes = bytes
        self.file = file
    }

    var atEnd: Bool { offset >= bytes.count }
    var location: SourceLocation {
        // Columns count characters, not bytes.
        let column = String(decoding: bytes[lineStart..<min(offset, bytes.count)], as: UTF8.self).count + 1
        return SourceLocation(file: file, line: line, column: column)
    }

    mutating func skipSpace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case UInt8(ascii: "\n"):
                offset += 1
                line += 1
                lineStart = offset
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                offset += 1
            default:
                return
            }
        }
    }

    func describeNext() -> String {
        guard offset < bytes.count else { return "the end of the file" }
        let scalar = String(decoding: bytes[offset..<min(offset + 12, bytes.count)], as: UTF8.self)
        return "\"\(scalar.prefix { $0 != "\n" })\""
    }

    mutating func value() throws(InputFileError) -> LocatedJSON {
        let at = location
        guard offset < bytes.count else { throw InputFileError(at, "expected a value, found the end of the file") }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string(), at)
        case UInt8(ascii: "t"): try literal("true"); return .bool(true, at)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false, at)
        case UInt8(ascii: "n"): try literal("null"); return .null(at)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number(), at)
        default: throw InputFileError(at, "expected a JSON value, found \(describeNext())")
        }
    }

    mutating func literal(_ word: String) throws(InputFileError) {
        let at = location
        for byte in word.utf8 {
            guard offset < bytes.count, bytes[offset] == byte else { throw InputFileError(at, "expected \(word), found \(describeNext())") }
            offset += 1
        }
    }

    mutating func number() throws(InputFileError) -> Double {
        let at = location
        let start = offset
        while offset < bytes.count, "+-0123456789.eE".utf8.contains(bytes[offset]) { offset += 1 }
        let text = String(decoding: bytes[start..<offset], as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw InputFileError(at, "expected a number, found \"\(text)\"") }
        return value
    }

    mutating func string() throws(InputFileError) -> String {
        let at = location
        offset += 1
        var scalars: [UInt8] = []
        while true {
            guard offset < bytes.count else { throw InputFileError(at, "this string is not closed") }
            let byte = bytes[offset]
            offset += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: scalars, as: UTF8.self)
            case UInt8(ascii: "\n"):
                throw InputFileError(at, "this string runs past the end of its line")
            case UInt8(ascii: "\\"):
                guard offset < bytes.count else { throw InputFileError(at, "this string is not closed") }
                let escaped = bytes[offset]
                offset += 1
                switch escaped {
                case UInt8(ascii: "\""): scalars.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): scalars.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "/"): scalars.append(UInt8(ascii: "/"))
                case UInt8(ascii: "n"): scalars.append(UInt8(ascii: "\n"))
                case UInt8(ascii: "t"): scalars.append(UInt8(ascii: "\t"))
                case UInt8(ascii: "r"): scalars.append(UInt8(ascii: "\r"))
                case UInt8(ascii: "b"): scalars.append(8)
                case UInt8(ascii: "f"): scalars.append(12)
                case UInt8(ascii: "u"):
                    guard offset + 4 <= bytes.count,
                          let code = UInt32(String(decoding: bytes[offset..<offset + 4], as: UTF8.self), radix: 16),
                          let scalar = Unicode.Scalar(code) else {
                        throw InputFileError(location, "expected four hex digits after \\u")
                    }
                    offset += 4
                    scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
                default:
                    throw InputFileError(location, "unknown escape \\\(Character(Unicode.Scalar(escaped)))")
                }
            default:
                scalars.append(byte)
            }
        }
    }

    mutating func array() throws(InputFileError) -> LocatedJSON {
        let at = location
        offset += 1
        var items: [LocatedJSON] = []
        skipSpace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
            offset += 1
            return .array(items, at)
        }
        while true {
            skipSpace()
            items.append(try value())
            skipSpace()
            guard offset < bytes.count else { throw InputFileError(at, "this array is not closed") }
            if bytes[offset] == UInt8(ascii: ",") { offset += 1; continue }
            if bytes[offset] == UInt8(ascii: "]") { offset += 1; return .array(items, at) }
            throw InputFileError(location, "expected \",\" or \"]\" in the array, found \(describeNext())")
        }
    }

    mutating func object() throws(InputFileError) -> LocatedJSON {
        let at = location
        offset += 1
        var members: [JSONMember] = []
        skipSpace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
            offset += 1
            return .object(members, at)
        }
        while true {
            skipSpace()
            let keyAt = location
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else {
                throw InputFileError(keyAt, "expected a quoted key, found \(describeNext())")
            }
            let key = try string()
            if members.contains(where: { $0.key == key }) { throw InputFileError(keyAt, "the key \"\(key)\" appears twice in this object") }
            skipSpace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else {
                throw InputFileError(location, "expected \":\" after the key \"\(key)\", found \(describeNext())")
            }
            offset += 1
            skipSpace()
            members.append(JSONMember(key: key, keyLocation: keyAt, value: try value()))
            skipSpace()
            guard offset < bytes.count else { throw InputFileError(at, "this object is not closed") }
            if bytes[offset] == UInt8(ascii: ",") { offset += 1; continue }
            if bytes[offset] == UInt8(ascii: "}") { offset += 1; return .object(members, at) }
            throw InputFileError(location, "expected \",\" or \"}\" in the object, found \(describeNext())")
        }
    }
}

extension Double {
    /// Whole numbers without a fraction, others as Swift prints them.
    var formatted: String {
        if self == rounded(), abs(self) < 1e15 { return String(Int64(self)) }
        return String(self)
    }
}
