#if canImport(Glibc)
import Glibc
#endif

/// What the configuration reader checks before TOMLKit sees a file or its text, so that a
/// hostile file costs the session a bounded amount of time, memory and stack.
enum BoundedInput {
    /// The deepest dotted key or table header read: toml++ follows a dotted key's parts
    /// recursively, and a key a million parts deep overflowed the session's stack.
    static let maximumKeyDepth = 64

    /// The file's bytes, read only if it is a regular file of at most `limit` bytes: a FIFO
    /// would block the session's loop, and a huge (or sparse) file would be read whole first.
    static func read(path: String, limit: Int) throws(ConfigurationError) -> [UInt8] {
        let start = SourcePosition(line: 1, column: 1)
        func failure(_ message: String) -> ConfigurationError { ConfigurationError(file: path, position: start, message: message) }
        // O_NONBLOCK: opening a FIFO with no writer returns at once, and fstat then names it.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw failure("cannot read the configuration file: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw failure("cannot read the configuration file: \(String(cString: strerror(errno)))") }
        guard status.st_mode & S_IFMT == S_IFREG else { throw failure("not a regular file: expected a TOML file") }
        guard status.st_size <= limit else { throw failure("the file holds \(status.st_size) bytes: expected at most \(limit)") }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        var filled = 0
        while filled < bytes.count {
            let got = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw failure("cannot read the configuration file: \(String(cString: strerror(errno)))") }
            if got == 0 { break }
            filled += got
        }
        return Array(bytes.prefix(filled))
    }

    /// What TOMLKit's toml++ must not be handed, found before it is.
    enum Problem: Equatable {
        /// A dotted key or table header deeper than `maximumKeyDepth`, where it starts.
        case tooDeep(SourcePosition)
        /// A table header whose name does not start with a key (`[[.0]]`): toml++ asserts
        /// that it does, and aborted the session.
        case headerWithoutKey(SourcePosition)
    }

    /// The first problem in `text`; nil when there is none. A line is cut into runs at the
    /// characters no key holds (`= , [ ] { }`), outside strings and comments; a run's dots
    /// outside strings are its depth less one. A float or a date has one dot, so values are
    /// never mistaken. A `[` that starts a line outside a value starts a table header.
    static func problem(in text: String) -> Problem? {
        var line = 1, column = 0
        var dots = 0, runStart = SourcePosition(line: 1, column: 1)
        enum Quote { case none, basic, literal, multiBasic, multiLiteral }
        var quote = Quote.none, escaped = false, comment = false
        // Whether the line so far is blank, and whether a value (after `=`) is open, with
        // the arrays and inline tables open in it.
        var lineStart = true, inValue = false, valueDepth = 0
        let scalars = Array(text.unicodeScalars)
        var index = 0
        func peek(_ offset: Int) -> Unicode.Scalar? { index + offset < scalars.count ? scalars[index + offset] : nil }
        while index < scalars.count {
            let c = scalars[index]
            column += 1
            defer { index += 1 }
            if c == "\n" {
                line += 1
                column = 0
                comment = false
                if quote == .basic || quote == .literal { quote = .none }
                if quote == .none { dots = 0; runStart = SourcePosition(line: line, column: 1) }
                lineStart = true
                if valueDepth == 0 { inValue = false }
                continue
            }
            if comment { continue }
            switch quote {
            case .basic:
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { quote = .none }
                continue
            case .literal:
                if c == "'" { quote = .none }
                continue
            case .multiBasic:
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"", peek(1) == "\"", peek(2) == "\"" { quote = .none; index += 2; column += 2 }
                continue
            case .multiLiteral:
                if c == "'", peek(1) == "'", peek(2) == "'" { quote = .none; index += 2; column += 2 }
                continue
            case .none:
                break
            }
            let startsLine = lineStart
            if c != " ", c != "\t" { lineStart = false }
            if c == "[", startsLine, !inValue {
                // The header's name: after `[`, spaces, another `[` and spaces, as toml++ reads it.
                var ahead = index + 1
                while ahead < scalars.count, scalars[ahead] == " " || scalars[ahead] == "\t" { ahead += 1 }
                if ahead < scalars.count, scalars[ahead] == "[" { ahead += 1 }
                while ahead < scalars.count, scalars[ahead] == " " || scalars[ahead] == "\t" { ahead += 1 }
                guard ahead < scalars.count, isKeyStart(scalars[ahead]) else { return .headerWithoutKey(SourcePosition(line: line, column: column)) }
            }
            if inValue {
                if c == "[" || c == "{" { valueDepth += 1 } else if (c == "]" || c == "}") && valueDepth > 0 { valueDepth -= 1 }
            } else if c == "=" {
                inValue = true
            }
            switch c {
            case "#": comment = true
            case "\"":
                if peek(1) == "\"", peek(2) == "\"" { quote = .multiBasic; index += 2; column += 2 } else { quote = .basic }
            case "'":
                if peek(1) == "'", peek(2) == "'" { quote = .multiLiteral; index += 2; column += 2 } else { quote = .literal }
            case "=", ",", "[", "]", "{", "}":
                dots = 0
                runStart = SourcePosition(line: line, column: column + 1)
            case ".":
                dots += 1
                if dots + 1 > maximumKeyDepth { return .tooDeep(runStart) }
            default: break
            }
        }
        return nil
    }

    /// What may start a table header's name: a bare key's character, a quote, or the `]`
    /// toml++ names as a blank key itself.
    private static func isKeyStart(_ c: Unicode.Scalar) -> Bool {
        c == "\"" || c == "'" || c == "]" || c == "_" || c == "-" || ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c)
    }
}
