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

    /// Reads one JSON document without recursion: open arrays and objects are kept on a
    /// stack of at most `InputLimits.jsonDepth`, so no nesting can overflow the call stack.
    static func parse(_ text: String, file: String) throws(InputFileError) -> LocatedJSON {
        var parser = JSONParser(bytes: Array(text.utf8), file: file)
        parser.skipSpace()
        let value = try parser.document()
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
    /// The column of `columnOffset` on the current line, so that each location counts
    /// only the characters since the previous one: a long line costs its length once.
    private var columnOffset = 0
    private var column = 1

    init(bytes: [UInt8], file: String) {
        self.bytes = bytes
        self.file = file
    }

    var atEnd: Bool { offset >= bytes.count }

    /// Columns count Unicode scalars (bytes that do not continue a UTF-8 sequence).
    var location: SourceLocation {
        mutating get {
            let end = min(offset, bytes.count)
            if columnOffset < lineStart || columnOffset > end {
                columnOffset = lineStart
                column = 1
            }
            while columnOffset < end {
                if bytes[columnOffset] & 0xC0 != 0x80 { column += 1 }
                columnOffset += 1
            }
            return SourceLocation(file: file, line: line, column: column)
        }
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

    /// An array or object still open, with what it has read so far.
    private struct Open {
        var isObject: Bool
        var location: SourceLocation
        var items: [LocatedJSON] = []
        var members: [JSONMember] = []
        var keys: Set<String> = []
        /// The key whose value is being read.
        var key = ""
        var keyLocation: SourceLocation
    }

    /// One value with everything nested in it, read with a loop and an explicit stack.
    mutating func document() throws(InputFileError) -> LocatedJSON {
        var stack: [Open] = []
        while true {
            // Read a value, or open an array or object and go on to its first value.
            var done: LocatedJSON
            let at = location
            guard offset < bytes.count else { throw InputFileError(at, "expected a value, found the end of the file") }
            switch bytes[offset] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = bytes[offset] == UInt8(ascii: "{")
                guard stack.count < InputLimits.jsonDepth else {
                    throw InputFileError(at, "arrays and objects are nested more than \(InputLimits.jsonDepth) deep here, past the limit of a scene file (InputLimits.jsonDepth)")
                }
                offset += 1
                skipSpace()
                if offset < bytes.count, bytes[offset] == UInt8(ascii: isObject ? "}" : "]") {
                    offset += 1
                    done = isObject ? .object([], at) : .array([], at)
                } else {
                    var open = Open(isObject: isObject, location: at, keyLocation: at)
                    if isObject { try readKey(into: &open) }
                    stack.append(open)
                    continue
                }
            case UInt8(ascii: "\""): done = .string(try string(), at)
            case UInt8(ascii: "t"): try literal("true"); done = .bool(true, at)
            case UInt8(ascii: "f"): try literal("false"); done = .bool(false, at)
            case UInt8(ascii: "n"): try literal("null"); done = .null(at)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): done = .number(try number(), at)
            default: throw InputFileError(at, "expected a JSON value, found \(describeNext())")
            }
            // Hand the value to the innermost open array or object; close those that end here.
            while true {
                guard var open = stack.popLast() else { return done }
                if open.isObject {
                    open.members.append(JSONMember(key: open.key, keyLocation: open.keyLocation, value: done))
                } else {
                    open.items.append(done)
                }
                skipSpace()
                guard offset < bytes.count else {
                    throw InputFileError(open.location, "this \(open.isObject ? "object" : "array") is not closed")
                }
                if bytes[offset] == UInt8(ascii: ",") {
                    offset += 1
                    skipSpace()
                    if open.isObject { try readKey(into: &open) }
                    stack.append(open)
                    break
                }
                if bytes[offset] == UInt8(ascii: open.isObject ? "}" : "]") {
                    offset += 1
                    done = open.isObject ? .object(open.members, open.location) : .array(open.items, open.location)
                    continue
                }
                throw InputFileError(location, open.isObject
                    ? "expected \",\" or \"}\" in the object, found \(describeNext())"
                    : "expected \",\" or \"]\" in the array, found \(describeNext())")
            }
            skipSpace()
        }
    }

    /// `"key":` and the space after it; a key seen before in the same object is an error.
    private mutating func readKey(into open: inout Open) throws(InputFileError) {
        let keyAt = location
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else {
            throw InputFileError(keyAt, "expected a quoted key, found \(describeNext())")
        }
        let key = try string()
        guard open.keys.insert(key).inserted else { throw InputFileError(keyAt, "the key \"\(key)\" appears twice in this object") }
        skipSpace()
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else {
            throw InputFileError(location, "expected \":\" after the key \"\(key)\", found \(describeNext())")
        }
        offset += 1
        skipSpace()
        open.key = key
        open.keyLocation = keyAt
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
        guard let value = Double(text), value.isFinite else {
            throw InputFileError(at, "expected a number, found \"\(text.count > 40 ? text.prefix(40) + "…" : text)\"")
        }
        return value
    }

    /// Four hex digits after `\u`, or nil.
    private func hex4(at i: Int) -> UInt32? {
        guard i + 4 <= bytes.count else { return nil }
        var code: UInt32 = 0
        for byte in bytes[i..<i + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            code = code << 4 | UInt32(digit)
        }
        return code
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
                    guard var code = hex4(at: offset) else {
                        throw InputFileError(location, "expected four hex digits after \\u")
                    }
                    offset += 4
                    // A UTF-16 surrogate pair: \uD83D\uDE00.
                    if (0xD800...0xDBFF).contains(code), offset + 6 <= bytes.count,
                       bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u"),
                       let low = hex4(at: offset + 2), (0xDC00...0xDFFF).contains(low) {
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        offset += 6
                    }
                    guard let scalar = Unicode.Scalar(code) else {
                        throw InputFileError(location, "\\u\(String(code, radix: 16, uppercase: true)) is half of a UTF-16 surrogate pair without its other half")
                    }
                    scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
                default:
                    throw InputFileError(location, "unknown escape \\\(Character(Unicode.Scalar(escaped)))")
                }
            default:
                scalars.append(byte)
            }
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
