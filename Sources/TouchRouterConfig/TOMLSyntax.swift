/// TOML 1.0's syntax, checked before TOMLKit's toml++ parses the text. toml++ asserts
/// (aborting the session, in release builds too) on some malformed input it does not check
/// first: a table header whose name starts with no key (`[[.0]]`), an array closed by `}`
/// (`a = [ }`), and more that libFuzzer finds (FuzzConfiguration). So only text that is TOML
/// by the grammar of toml.io v1.0.0 reaches it. What the grammar allows but TOML forbids by
/// meaning (a key defined twice, a table redefined) is left to toml++, which names it.
/// Nesting of arrays and inline tables, and a dotted key's parts, are bounded: toml++
/// follows them recursively.
struct TOMLSyntax {
    struct Failure: Error, Equatable {
        var line: Int
        var column: Int
        var message: String
    }

    static let maximumNesting = 64
    static let maximumKeyParts = 64

    /// The first place `text` is not TOML, or nil.
    static func check(_ text: String) -> Failure? {
        var syntax = TOMLSyntax(Array(text.unicodeScalars))
        do { try syntax.document() } catch { return error }
        return nil
    }

    private let scalars: [Unicode.Scalar]
    private var index = 0
    private var line = 1
    private var lineStart = 0

    private init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

    // MARK: Reading

    private var atEnd: Bool { index >= scalars.count }
    private func peek(_ offset: Int = 0) -> Unicode.Scalar? { index + offset < scalars.count ? scalars[index + offset] : nil }

    private mutating func advance() {
        if scalars[index] == "\n" {
            line += 1
            lineStart = index + 1
        }
        index += 1
    }

    private func failure(_ message: String) -> Failure {
        Failure(line: line, column: index - lineStart + 1, message: message)
    }

    private func saw() -> String {
        guard let c = peek() else { return "the end of the file" }
        if c == "\n" || c == "\r" { return "the end of the line" }
        if Self.isControl(c) { return "a control character (U+\(String(c.value, radix: 16, uppercase: true)))" }
        return "'\(Character(c))'"
    }

    private mutating func expect(_ c: Unicode.Scalar, _ what: String) throws(Failure) {
        guard peek() == c else { throw failure("expected \(what), saw \(saw())") }
        advance()
    }

    private static func isControl(_ c: Unicode.Scalar) -> Bool { c.value < 0x20 && c != "\t" || c.value == 0x7F }
    private static func isBareKey(_ c: Unicode.Scalar) -> Bool {
        c == "_" || c == "-" || ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c)
    }

    private mutating func skipSpaces() {
        while let c = peek(), c == " " || c == "\t" { advance() }
    }

    /// A newline: LF or CRLF; a CR alone is not one.
    private mutating func newline() throws(Failure) -> Bool {
        if peek() == "\n" { advance(); return true }
        if peek() == "\r" {
            guard peek(1) == "\n" else { throw failure("a carriage return not followed by a line feed") }
            advance(); advance()
            return true
        }
        return false
    }

    private mutating func comment() throws(Failure) {
        guard peek() == "#" else { return }
        advance()
        while let c = peek(), c != "\n", c != "\r" {
            guard !Self.isControl(c) else { throw failure("\(saw()) in a comment") }
            advance()
        }
    }

    /// Spaces, comments and newlines, as arrays allow between their values.
    private mutating func skipBlank() throws(Failure) {
        while true {
            skipSpaces()
            if peek() == "#" { try comment() }
            if try !newline() { return }
        }
    }

    // MARK: The document

    private mutating func document() throws(Failure) {
        while !atEnd {
            skipSpaces()
            if peek() == "[" {
                try tableHeader()
            } else if let c = peek(), c != "#", c != "\n", c != "\r" {
                try keyValue(nesting: 0)
            }
            skipSpaces()
            try comment()
            guard try newline() || atEnd else { throw failure("expected the end of the line, saw \(saw())") }
        }
    }

    private mutating func tableHeader() throws(Failure) {
        let start = failure("")
        advance()
        let array = peek() == "["
        if array { advance() }
        skipSpaces()
        guard let c = peek(), Self.isBareKey(c) || c == "\"" || c == "'" else {
            throw Failure(line: start.line, column: start.column, message: "a table header without a name: expected [name] or [[name]], the name a bare or quoted key")
        }
        try key()
        skipSpaces()
        try expect("]", array ? "']]' to close the array of tables' header" : "']' to close the table header")
        if array { try expect("]", "']]' to close the array of tables' header") }
    }

    private mutating func key() throws(Failure) {
        let start = failure("")
        var parts = 1
        try simpleKey()
        while true {
            skipSpaces()
            guard peek() == "." else { return }
            advance()
            skipSpaces()
            parts += 1
            guard parts <= Self.maximumKeyParts else {
                throw Failure(line: start.line, column: start.column, message: "a dotted key or table name of more than \(Self.maximumKeyParts) parts: expected at most \(Self.maximumKeyParts)")
            }
            try simpleKey()
        }
    }

    private mutating func simpleKey() throws(Failure) {
        guard let c = peek() else { throw failure("expected a key, saw \(saw())") }
        if Self.isBareKey(c) {
            while let next = peek(), Self.isBareKey(next) { advance() }
        } else if c == "\"" || c == "'" {
            guard !(peek(1) == c && peek(2) == c) else { throw failure("a multi-line string as a key: expected a bare or one-line quoted key") }
            try c == "\"" ? basicString() : literalString()
        } else {
            throw failure("expected a key, saw \(saw())")
        }
    }

    private mutating func keyValue(nesting: Int) throws(Failure) {
        try key()
        skipSpaces()
        try expect("=", "'=' after the key")
        skipSpaces()
        try value(nesting: nesting)
    }

    // MARK: Values

    private mutating func value(nesting: Int) throws(Failure) {
        guard let c = peek() else { throw failure("expected a value, saw the end of the file") }
        switch c {
        case "\"": try peek(1) == "\"" && peek(2) == "\"" ? multiLineString(quote: "\"") : basicString()
        case "'": try peek(1) == "'" && peek(2) == "'" ? multiLineString(quote: "'") : literalString()
        case "[": try array(nesting: nesting + 1)
        case "{": try inlineTable(nesting: nesting + 1)
        default: try scalarToken()
        }
    }

    private mutating func array(nesting: Int) throws(Failure) {
        guard nesting <= Self.maximumNesting else { throw failure("arrays and inline tables nested more than \(Self.maximumNesting) deep") }
        advance()
        try skipBlank()
        while peek() != "]" {
            try value(nesting: nesting)
            try skipBlank()
            if peek() == "," {
                advance()
                try skipBlank()
            } else if peek() != "]" {
                throw failure("expected ',' or ']' in the array, saw \(saw())")
            }
        }
        advance()
    }

    private mutating func inlineTable(nesting: Int) throws(Failure) {
        guard nesting <= Self.maximumNesting else { throw failure("arrays and inline tables nested more than \(Self.maximumNesting) deep") }
        advance()
        skipSpaces()
        if peek() == "}" { advance(); return }
        while true {
            try keyValue(nesting: nesting)
            skipSpaces()
            if peek() == "}" { advance(); return }
            try expect(",", "',' or '}' in the inline table (on one line)")
            skipSpaces()
        }
    }

    private mutating func escape() throws(Failure) {
        advance()
        guard let c = peek() else { throw failure("an escape at the end of the file") }
        switch c {
        case "b", "t", "n", "f", "r", "\"", "\\":
            advance()
        case "u", "U":
            advance()
            var code: UInt32 = 0
            for _ in 0..<(c == "u" ? 4 : 8) {
                guard let digit = peek(), let value = UInt32(String(Character(digit)), radix: 16) else { throw failure("expected a hexadecimal digit in \\\(c), saw \(saw())") }
                code = code << 4 | value
                advance()
            }
            guard Unicode.Scalar(code) != nil else { throw failure("\\\(c) names no Unicode scalar value") }
        default:
            throw failure("an escape \\\(Character(c)) that TOML does not have")
        }
    }

    private mutating func basicString() throws(Failure) {
        advance()
        while let c = peek(), c != "\"" {
            if c == "\\" { try escape(); continue }
            guard !Self.isControl(c) else { throw failure(c == "\n" || c == "\r" ? "a string not closed on its line: expected its closing quote before the line ends" : "\(saw()) in a string") }
            advance()
        }
        try expect("\"", "'\"' to close the string")
    }

    private mutating func literalString() throws(Failure) {
        advance()
        while let c = peek(), c != "'" {
            guard !Self.isControl(c) else { throw failure(c == "\n" || c == "\r" ? "a string not closed on its line: expected its closing quote before the line ends" : "\(saw()) in a string") }
            advance()
        }
        try expect("'", "\"'\" to close the string")
    }

    /// `"""` or `'''`: it ends at three quotes, which up to two more before them may join.
    private mutating func multiLineString(quote: Unicode.Scalar) throws(Failure) {
        advance(); advance(); advance()
        while true {
            guard let c = peek() else { throw failure("a multi-line string not closed") }
            if c == quote {
                var run = 0
                while peek(run) == quote { run += 1 }
                if run >= 3 {
                    guard run <= 5 else { throw failure("\(run) quotes in a row in a multi-line string: at most five close it") }
                    for _ in 0..<run { advance() }
                    return
                }
                for _ in 0..<run { advance() }
                continue
            }
            if quote == "\"", c == "\\" {
                // A backslash at the end of a line joins it to the next.
                var ahead = 1
                while peek(ahead) == " " || peek(ahead) == "\t" { ahead += 1 }
                if peek(ahead) == "\n" || peek(ahead) == "\r" {
                    for _ in 0..<ahead { advance() }
                    continue
                }
                try escape()
                continue
            }
            if try newline() { continue }
            guard !Self.isControl(c) else { throw failure("\(saw()) in a string") }
            advance()
        }
    }

    // MARK: Booleans, numbers, dates and times

    private mutating func scalarToken() throws(Failure) {
        let start = index, column = index - lineStart + 1
        func isTokenCharacter(_ c: Unicode.Scalar) -> Bool { Self.isBareKey(c) || c == "+" || c == "." || c == ":" }
        while let c = peek(), isTokenCharacter(c) { advance() }
        var token = String(String.UnicodeScalarView(scalars[start..<index]))
        // A date and a time may be apart by a space: "1979-05-27 07:32:00".
        if token.wholeMatch(of: Self.date) != nil, peek() == " ", let d = peek(1), ("0"..."9").contains(d) {
            advance()
            let timeStart = index
            while let c = peek(), isTokenCharacter(c) { advance() }
            token += "T" + String(String.UnicodeScalarView(scalars[timeStart..<index]))
        }
        guard !token.isEmpty else { throw failure("expected a value, saw \(saw())") }
        guard Self.isScalarValue(token) else {
            throw Failure(line: line, column: column, message: "'\(token)' is not a TOML value: expected a string, a number, true, false, a date or a time, an array or an inline table")
        }
    }

    nonisolated(unsafe) private static let date = try! Regex(#"[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"#)
    nonisolated(unsafe) private static let patterns: [Regex<AnyRegexOutput>] = [
        #"true|false"#,
        #"[+-]?(inf|nan)"#,
        #"[+-]?(0|[1-9](_?[0-9])*)"#,
        #"0x[0-9A-Fa-f](_?[0-9A-Fa-f])*|0o[0-7](_?[0-7])*|0b[01](_?[01])*"#,
        #"[+-]?(0|[1-9](_?[0-9])*)(\.[0-9](_?[0-9])*)?([eE][+-]?[0-9](_?[0-9])*)?"#,
        // An offset or local date-time, and a local time, which has no offset.
        #"[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt]([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])?"#,
        #"([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\.[0-9]+)?"#,
        #"[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"#,
    ].map { try! Regex($0) }

    private static func isScalarValue(_ token: String) -> Bool {
        patterns.contains { token.wholeMatch(of: $0) != nil }
    }
}
