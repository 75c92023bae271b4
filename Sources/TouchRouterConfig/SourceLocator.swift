/// One step of a path into a TOML document: a key of a table, or an element of an array
/// (an array of tables counts its `[[header]]`s).
public enum PathComponent: Hashable, Sendable, CustomStringConvertible {
    case key(String)
    case index(Int)

    public var description: String {
        switch self {
        case .key(let key): key
        case .index(let index): "[\(index)]"
        }
    }
}

/// A path written as a person reads it: `recognizer[1].edges[0]`, `app."org.example.App".touch`.
func pathText(_ path: [PathComponent]) -> String {
    var text = ""
    for component in path {
        switch component {
        case .index: text += component.description
        case .key(let key):
            let bare = !key.isEmpty && key.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" }
            if !text.isEmpty { text += "." }
            text += bare ? key : "\"\(key)\""
        }
    }
    return text
}

/// Where a key or value was written: 1-based line and column, columns counting Unicode scalars.
public struct SourcePosition: Hashable, Sendable, Comparable {
    public var line: Int
    public var column: Int
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }
    public static func < (a: SourcePosition, b: SourcePosition) -> Bool { (a.line, a.column) < (b.line, b.column) }
}

/// Finds where each key and value of a TOML document was written, since TOMLKit's tables
/// keep no positions. It reads a document TOMLKit has already accepted, so it only tracks
/// structure: table headers, keys (dotted and quoted), strings of every kind (so that a `#`
/// or `=` inside one is not taken for syntax), and the nesting of arrays and inline tables.
/// Every key and every array element gets the position of its first character, and each
/// table header the position of its `[`; a key written nowhere (a table that only exists
/// through a dotted key) is found at its nearest written ancestor.
struct SourceLocator {
    private(set) var keys: [[PathComponent]: SourcePosition] = [:]
    private(set) var values: [[PathComponent]: SourcePosition] = [:]

    private var scalars: [Unicode.Scalar]
    private var offset = 0
    private var line = 1
    private var column = 1
    /// How many `[[header]]`s each array of tables has had so far.
    private var arrayCounts: [[PathComponent]: Int] = [:]

    init(text: String) {
        scalars = Array(text.unicodeScalars)
        scan()
    }

    /// The position of the key at `path`, else of its nearest ancestor written in the file.
    func key(_ path: [PathComponent]) -> SourcePosition {
        var path = path
        while !path.isEmpty {
            if let position = keys[path] { return position }
            path.removeLast()
        }
        return SourcePosition(line: 1, column: 1)
    }

    /// The position of the value at `path`, else of its key.
    func value(_ path: [PathComponent]) -> SourcePosition { values[path] ?? key(path) }

    // MARK: Scanning

    private var current: Unicode.Scalar? { offset < scalars.count ? scalars[offset] : nil }
    private var position: SourcePosition { SourcePosition(line: line, column: column) }

    private func peek(_ ahead: Int) -> Unicode.Scalar? { offset + ahead < scalars.count ? scalars[offset + ahead] : nil }

    private mutating func advance() {
        guard let scalar = current else { return }
        offset += 1
        if scalar == "\n" {
            line += 1
            column = 1
        } else {
            column += 1
        }
    }

    private func starts(with text: String) -> Bool {
        for (i, scalar) in text.unicodeScalars.enumerated() where peek(i) != scalar { return false }
        return true
    }

    /// Spaces, tabs, comments, and newlines too when `newlines`.
    private mutating func skipBlank(newlines: Bool) {
        while let scalar = current {
            if scalar == " " || scalar == "\t" || scalar == "\r" || (newlines && scalar == "\n") {
                advance()
            } else if scalar == "#" {
                while let c = current, c != "\n" { advance() }
            } else {
                return
            }
        }
    }

    private mutating func scan() {
        var table: [PathComponent] = []
        while current != nil {
            let before = offset
            skipBlank(newlines: true)
            guard let scalar = current else { return }
            if scalar == "[" {
                table = header()
            } else {
                keyValue(in: table)
            }
            // A document TOMLKit accepted never stalls here; this only guards the loop.
            if offset == before { advance() }
        }
    }

    /// `[a.b]` or `[[a.b]]`: the path of the table that follows.
    private mutating func header() -> [PathComponent] {
        let start = position
        let isArray = peek(1) == "["
        advance()
        if isArray { advance() }
        skipBlank(newlines: false)
        let written = dottedKey().map(\.key)
        // A header's keys go through the arrays of tables it names: [[a]] then [a.b] is
        // a table in the last element of a.
        var path: [PathComponent] = []
        for key in written {
            path.append(.key(key))
            if path.count < written.count, let count = arrayCounts[path] { path.append(.index(count - 1)) }
        }
        if isArray {
            let index = arrayCounts[path, default: 0]
            arrayCounts[path] = index + 1
            if keys[path] == nil { keys[path] = start }
            path.append(.index(index))
        }
        keys[path] = start
        while let c = current, c != "\n" { advance() }
        return path
    }

    private mutating func keyValue(in table: [PathComponent]) {
        let parts = dottedKey()
        guard !parts.isEmpty else {
            while let c = current, c != "\n" { advance() }
            return
        }
        var path = table
        for part in parts {
            path.append(.key(part.key))
            if keys[path] == nil { keys[path] = part.position }
        }
        skipBlank(newlines: false)
        guard current == "=" else { return }
        advance()
        skipBlank(newlines: false)
        value(at: path)
    }

    /// `a."b c".'d'`: each key and where it starts.
    private mutating func dottedKey() -> [(key: String, position: SourcePosition)] {
        var parts: [(String, SourcePosition)] = []
        while let scalar = current {
            let start = position
            var key = ""
            if scalar == "\"" || scalar == "'" {
                key = quotedString(scalar)
            } else {
                while let c = current, Self.isBare(c) {
                    key.unicodeScalars.append(c)
                    advance()
                }
                if key.isEmpty { break }
            }
            parts.append((key, start))
            skipBlank(newlines: false)
            guard current == "." else { break }
            advance()
            skipBlank(newlines: false)
        }
        return parts
    }

    private static func isBare(_ c: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) || c == "-" || c == "_"
    }

    /// A one-line string starting at `quote`; basic strings keep their escapes' meaning
    /// only as far as `\"` and `\\` go, which is all a key needs to be found.
    private mutating func quotedString(_ quote: Unicode.Scalar) -> String {
        var text = ""
        advance()
        while let c = current, c != quote, c != "\n" {
            if quote == "\"", c == "\\" {
                advance()
                if let escaped = current { text.unicodeScalars.append(Self.unescape(escaped)) }
                advance()
                continue
            }
            text.unicodeScalars.append(c)
            advance()
        }
        advance()
        return text
    }

    private static func unescape(_ c: Unicode.Scalar) -> Unicode.Scalar {
        switch c {
        case "n": "\n"
        case "t": "\t"
        case "r": "\r"
        default: c
        }
    }

    private mutating func value(at path: [PathComponent]) {
        values[path] = position
        guard let scalar = current else { return }
        if starts(with: "\"\"\"") || starts(with: "'''") {
            let quote = scalar
            advance(); advance(); advance()
            while current != nil {
                if current == "\\", quote == "\"" {
                    advance()
                    advance()
                    continue
                }
                if current == quote, peek(1) == quote, peek(2) == quote {
                    // A closing delimiter may be followed by one or two more quotes, which belong to the string.
                    while current == quote, peek(3) == quote { advance() }
                    advance(); advance(); advance()
                    return
                }
                advance()
            }
        } else if scalar == "\"" || scalar == "'" {
            _ = quotedString(scalar)
        } else if scalar == "[" {
            advance()
            var index = 0
            while true {
                skipBlank(newlines: true)
                guard let c = current, c != "]" else { break }
                let before = offset
                if c == "," {
                    advance()
                    continue
                }
                value(at: path + [.index(index)])
                index += 1
                if offset == before { advance() }
            }
            advance()
        } else if scalar == "{" {
            advance()
            while true {
                skipBlank(newlines: false)
                guard let c = current, c != "}", c != "\n" else { break }
                let before = offset
                if c == "," {
                    advance()
                    continue
                }
                keyValue(in: path)
                if offset == before { advance() }
            }
            advance()
        } else {
            // A number, boolean or date: up to whatever may follow a value.
            while let c = current, c != ",", c != "]", c != "}", c != "#", c != "\n" { advance() }
        }
    }
}
