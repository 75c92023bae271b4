import TOMLKit
import TouchRouterCore

/// The file being read, and where its keys are: every error is made here, so each names
/// the file, line and column.
final class Document {
    let file: String
    let locator: SourceLocator

    init(file: String, text: String) {
        self.file = file
        locator = SourceLocator(text: text)
    }

    func error(key path: [PathComponent], _ message: String) -> ConfigurationError {
        ConfigurationError(file: file, position: locator.key(path), message: message)
    }

    func error(value path: [PathComponent], _ message: String) -> ConfigurationError {
        ConfigurationError(file: file, position: locator.value(path), message: message)
    }
}

/// What a TOML value is, as the errors name it.
func kindName(_ value: any TOMLValueConvertible) -> String {
    switch value.type {
    case .table: "a table"
    case .array: "an array"
    case .string: "a string"
    case .int: "an integer"
    case .double: "a floating-point number"
    case .bool: "a boolean"
    case .date: "a date"
    case .time: "a time"
    case .dateTime: "a date-time"
    }
}

/// Reads one table's keys by type and range, remembering which were read, so that
/// `finish` can report any key the schema does not have: unknown keys are errors.
struct TableReader {
    let document: Document
    let table: TOMLTable
    let path: [PathComponent]
    /// How errors name the table: `[[recognizer]] "edge"`, `[keyboard]`.
    let name: String
    private var read: Set<String> = []

    init(_ document: Document, _ table: TOMLTable, path: [PathComponent], name: String) {
        self.document = document
        self.table = table
        self.path = path
        self.name = name
    }

    func has(_ key: String) -> Bool { table[key] != nil }

    /// For a key read by hand (through `table`), so that `finish` counts it as known.
    mutating func markRead(_ key: String) { read.insert(key) }

    func keyPath(_ key: String) -> [PathComponent] { path + [.key(key)] }

    private mutating func take(_ key: String) -> (any TOMLValueConvertible)? {
        read.insert(key)
        return table[key]
    }

    func wrongType(_ key: String, expected: String, found value: any TOMLValueConvertible) -> ConfigurationError {
        document.error(value: keyPath(key), "\(pathText(keyPath(key))): expected \(expected), found \(kindName(value))")
    }

    func missing(_ key: String, _ expected: String) -> ConfigurationError {
        document.error(key: path, "\(name): missing key '\(key)': expected \(expected)")
    }

    mutating func string(_ key: String, nonEmpty: Bool = true) throws(ConfigurationError) -> String? {
        guard let value = take(key) else { return nil }
        guard let text = value.string else { throw wrongType(key, expected: "a string", found: value) }
        if nonEmpty, text.isEmpty { throw document.error(value: keyPath(key), "\(pathText(keyPath(key))): expected a string that is not empty") }
        return text
    }

    mutating func bool(_ key: String) throws(ConfigurationError) -> Bool? {
        guard let value = take(key) else { return nil }
        guard let flag = value.bool else { throw wrongType(key, expected: "true or false", found: value) }
        return flag
    }

    /// A whole number within `range`.
    mutating func integer(_ key: String, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
        guard let value = take(key) else { return nil }
        let expected = "a whole number from \(range.lowerBound) to \(range.upperBound)"
        guard let number = value.int else { throw wrongType(key, expected: expected, found: value) }
        guard range.contains(number) else { throw document.error(value: keyPath(key), "\(pathText(keyPath(key))): expected \(expected), found \(number)") }
        return number
    }

    /// A number, whole or not, within `range`: lengths, speeds, angles and durations,
    /// checked here so that no later conversion (milliseconds into Int64 nanoseconds) can trap.
    mutating func number(_ key: String, in range: ClosedRange<Double>, unit: String = "") throws(ConfigurationError) -> Double? {
        guard let value = take(key) else { return nil }
        let expected = "a number from \(formatted(range.lowerBound)) to \(formatted(range.upperBound))\(unit)"
        let number: Double
        if let whole = value.int {
            number = Double(whole)
        } else if let double = value.double {
            number = double
        } else {
            throw wrongType(key, expected: expected, found: value)
        }
        guard number.isFinite, range.contains(number) else {
            let found = value.int.map { String($0) } ?? formatted(number)
            throw document.error(value: keyPath(key), "\(pathText(keyPath(key))): expected \(expected), found \(found)")
        }
        return number
    }

    /// Milliseconds within `range`, as nanoseconds.
    mutating func milliseconds(_ key: String, in range: ClosedRange<Double>) throws(ConfigurationError) -> Int64? {
        guard let ms = try number(key, in: range, unit: " ms") else { return nil }
        return Int64((ms * 1_000_000).rounded())
    }

    /// An array of strings, each checked by `check` (which says what it expected, or nil).
    mutating func strings(_ key: String, nonEmpty: Bool = false, check: (String) -> String? = { _ in nil }) throws(ConfigurationError) -> [String]? {
        guard let value = take(key) else { return nil }
        guard let array = value.array else { throw wrongType(key, expected: "an array of strings", found: value) }
        var strings: [String] = []
        for (index, element) in array.enumerated() {
            let elementPath = keyPath(key) + [.index(index)]
            guard let text = element.string else {
                throw document.error(value: elementPath, "\(pathText(elementPath)): expected a string, found \(kindName(element))")
            }
            if let expected = check(text) {
                throw document.error(value: elementPath, "\(pathText(elementPath)): expected \(expected), found \"\(text)\"")
            }
            strings.append(text)
        }
        if nonEmpty, strings.isEmpty { throw document.error(value: keyPath(key), "\(pathText(keyPath(key))): expected at least one string") }
        return strings
    }

    /// One of `choices`, by name.
    mutating func choice<T>(_ key: String, _ choices: [(String, T)]) throws(ConfigurationError) -> T? {
        guard let text = try string(key, nonEmpty: false) else { return nil }
        guard let match = choices.first(where: { $0.0 == text }) else {
            throw document.error(value: keyPath(key), "\(pathText(keyPath(key))): expected \(alternatives(choices.map { $0.0 })), found \"\(text)\"")
        }
        return match.1
    }

    /// A sub-table; `arrayOf` reads an array of tables (`[[a.b]]`) instead.
    mutating func table(_ key: String) throws(ConfigurationError) -> TOMLTable? {
        guard let value = take(key) else { return nil }
        guard let table = value.table else { throw wrongType(key, expected: "a table", found: value) }
        return table
    }

    mutating func arrayOfTables(_ key: String) throws(ConfigurationError) -> [TOMLTable] {
        guard let value = take(key) else { return [] }
        guard let array = value.array else { throw wrongType(key, expected: "an array of tables, [[\(pathText(keyPath(key)))]]", found: value) }
        var tables: [TOMLTable] = []
        for (index, element) in array.enumerated() {
            guard let table = element.table else {
                let elementPath = keyPath(key) + [.index(index)]
                throw document.error(value: elementPath, "\(pathText(elementPath)): expected a table, found \(kindName(element))")
            }
            tables.append(table)
        }
        return tables
    }

    /// Fails on the first key, in the file's order, that was not read: a key the schema
    /// does not have here. `allowed` lists what it has, for the message.
    func finish(allowed: [String]) throws(ConfigurationError) {
        let unknown = table.keys.filter { !read.contains($0) }
        guard !unknown.isEmpty else { return }
        let first = unknown.min { document.locator.key(keyPath($0)) < document.locator.key(keyPath($1)) }!
        let place = name.isEmpty ? "" : " in \(name)"
        throw document.error(key: keyPath(first), "unknown key '\(first)'\(place): expected \(alternatives(allowed))")
    }

    /// Fails if more than one of `keys` is present.
    func atMostOne(of keys: [String]) throws(ConfigurationError) {
        let present = keys.filter(has)
        guard present.count > 1 else { return }
        let second = present.max { document.locator.key(keyPath($0)) < document.locator.key(keyPath($1)) }!
        throw document.error(key: keyPath(second), "\(name): '\(present.filter { $0 != second }[0])' and '\(second)' cannot both be given: expected one of \(alternatives(keys))")
    }
}

/// `a, b or c`.
func alternatives(_ names: [String]) -> String {
    guard names.count > 1 else { return names.first ?? "nothing" }
    return names.dropLast().joined(separator: ", ") + " or " + names.last!
}

func formatted(_ number: Double) -> String {
    if number.isFinite, number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) }
    return "\(number)"
}

extension TableReader {
    /// `[x, y, width, height]` in layout pixels, whole numbers: a hold zone's `rect`, a
    /// touchscreen's `region`.
    mutating func layoutRect(_ key: String) throws(ConfigurationError) -> Rect<GlobalSpace> {
        let path = keyPath(key)
        let expected = "[x, y, width, height], whole numbers, x and y within ±1000000, width and height from 1 to 1000000"
        guard let array = table[key].flatMap({ $0.array }), array.count == 4 else {
            let found = table[key].map(kindName) ?? "nothing"
            let count = table[key]?.array.map { " of \($0.count)" } ?? ""
            throw document.error(value: path, "\(pathText(path)): expected \(expected), found \(found)\(count)")
        }
        var numbers: [Int] = []
        for (index, element) in array.enumerated() {
            let range = index < 2 ? -1_000_000...1_000_000 : 1...1_000_000
            guard let number = element.int, range.contains(number) else {
                throw document.error(value: path + [.index(index)], "\(pathText(path + [.index(index)])): expected \(expected)")
            }
            numbers.append(number)
        }
        markRead(key)
        return Rect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
    }
}
