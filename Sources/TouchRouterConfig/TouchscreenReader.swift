import TOMLKit
import TouchRouterCore

/// Which touchscreens a `[[touchscreen]]` table is for.
public enum TouchscreenMatch: Hashable, Sendable, CustomStringConvertible {
    /// libinput's device name, exactly.
    case name(String)
    /// The USB (or other bus) vendor and product ids.
    case vendorProduct(vendor: UInt16, product: UInt16)

    /// `"vvvv:pppp"` in hexadecimal is a vendor and product; anything else is a name.
    public init(parsing text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count == 2, (1...4).contains(parts[0].count), (1...4).contains(parts[1].count),
           let vendor = UInt16(parts[0], radix: 16), let product = UInt16(parts[1], radix: 16) {
            self = .vendorProduct(vendor: vendor, product: product)
        } else {
            self = .name(text)
        }
    }

    public func matches(name: String, vendor: UInt16, product: UInt16) -> Bool {
        switch self {
        case .name(let wanted): wanted == name
        case .vendorProduct(let v, let p): v == vendor && p == product
        }
    }

    public var description: String {
        switch self {
        case .name(let name): "\"\(name)\""
        case .vendorProduct(let v, let p): hex(v) + ":" + hex(p)
        }
    }

    private func hex(_ value: UInt16) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }
}

/// Where a touchscreen's positions go: an output by name, or a rectangle of the layout.
public enum TouchscreenTarget: Hashable, Sendable {
    case output(String)
    case region(Rect<GlobalSpace>)
}

/// One `[[touchscreen]]` table.
public struct TouchscreenRule: Hashable, Sendable {
    public var match: TouchscreenMatch
    public var target: TouchscreenTarget?
    /// Replaces the device's own (udev's LIBINPUT_CALIBRATION_MATRIX) when given.
    public var calibration: CalibrationMatrix?
    /// Where its table starts, for `msg devices`.
    public var position: SourcePosition

    public init(match: TouchscreenMatch, target: TouchscreenTarget? = nil, calibration: CalibrationMatrix? = nil, position: SourcePosition = SourcePosition(line: 1, column: 1)) {
        self.match = match
        self.target = target
        self.calibration = calibration
        self.position = position
    }
}

/// `[[touchscreen]]` tables: `match`, then `output` or `region`, and `calibration`.
enum TouchscreenReader {
    static let keys = ["match", "output", "region", "calibration"]

    static func read(_ tables: [TOMLTable], document: Document) throws(ConfigurationError) -> [TouchscreenRule] {
        var rules: [TouchscreenRule] = []
        var seen: [TouchscreenMatch: SourcePosition] = [:]
        for (index, table) in tables.enumerated() {
            let path: [PathComponent] = [.key("touchscreen"), .index(index)]
            var reader = TableReader(document, table, path: path, name: "[[touchscreen]] \(pathText(path))")
            guard let matchText = try reader.string("match") else {
                throw reader.missing("match", "a device name as libinput reports it (touch-router msg devices lists them), or \"vendor:product\" in hexadecimal")
            }
            let match = TouchscreenMatch(parsing: matchText)
            try reader.atMostOne(of: ["output", "region"])
            var target: TouchscreenTarget?
            if let output = try reader.string("output") { target = .output(output) }
            if reader.has("region") { target = .region(try reader.layoutRect("region")) }
            let calibration = reader.has("calibration") ? try matrix(&reader) : nil
            try reader.finish(allowed: keys)
            let position = document.locator.key(path)
            if let earlier = seen[match] {
                throw document.error(value: path + [.key("match")], "\(pathText(path + [.key("match")])): \(match) is matched already at line \(earlier.line): expected each device once")
            }
            seen[match] = position
            rules.append(TouchscreenRule(match: match, target: target, calibration: calibration, position: position))
        }
        return rules
    }

    /// Six numbers, libinput's `[a, b, c, d, e, f]`, each finite and within ±1000, and
    /// invertible (a singular matrix folds the panel onto a line).
    private static func matrix(_ reader: inout TableReader) throws(ConfigurationError) -> CalibrationMatrix {
        let path = reader.keyPath("calibration")
        let expected = "six numbers [a, b, c, d, e, f] as libinput's calibration matrix takes them, each from -1000 to 1000"
        guard let array = reader.table["calibration"].flatMap({ $0.array }), array.count == 6 else {
            let found = reader.table["calibration"].map(kindName) ?? "nothing"
            let count = reader.table["calibration"]?.array.map { " of \($0.count)" } ?? ""
            throw reader.document.error(value: path, "\(pathText(path)): expected \(expected), found \(found)\(count)")
        }
        var numbers: [Double] = []
        for (index, element) in array.enumerated() {
            let number = element.int.map(Double.init) ?? element.double
            guard let number, number.isFinite, abs(number) <= 1000 else {
                throw reader.document.error(value: path + [.index(index)], "\(pathText(path + [.index(index)])): expected \(expected), found \(number.map(formatted) ?? kindName(element))")
            }
            numbers.append(number)
        }
        reader.markRead("calibration")
        let matrix = CalibrationMatrix(numbers)!
        guard matrix.inverse != nil else {
            throw reader.document.error(value: path, "\(pathText(path)): the matrix is singular (a·e = b·d), so it folds the panel onto a line: expected an invertible matrix, such as [1, 0, 0, 0, 1, 0]")
        }
        return matrix
    }
}

/// A touchscreen's mapping and why it was chosen, by the first of: the first `[[touchscreen]]`
/// table that matches it; udev's WL_OUTPUT property of the device, naming an output that
/// exists; the built-in panel (the first output whose name starts with eDP or DSI), or the
/// only output; the first output. Its calibration is the table's, else the device's own
/// (udev's LIBINPUT_CALIBRATION_MATRIX), else identity.
public struct TouchscreenAssignment: Sendable, Equatable {
    public var mapping: TouchMapping
    /// The output it drives, or nil for a region.
    public var output: String?
    /// "configuration, line N", "udev WL_OUTPUT", "the built-in panel", "the only output" or
    /// "default: …", for `msg devices`.
    public var reason: String
    /// "configuration", "device" (udev's LIBINPUT_CALIBRATION_MATRIX) or "identity".
    public var calibrationSource: String

    /// `outputs` in layout order, each with its layout rectangle and transform.
    public init(device name: String, vendor: UInt16, product: UInt16, calibration deviceCalibration: CalibrationMatrix,
                udevOutput: String? = nil, rules: [TouchscreenRule], outputs: [(name: String, rect: Rect<GlobalSpace>, transform: OutputTransform)]) {
        let rule = rules.first { $0.match.matches(name: name, vendor: vendor, product: product) }
        let calibration = rule?.calibration ?? deviceCalibration
        calibrationSource = rule?.calibration != nil ? "configuration" : deviceCalibration.isIdentity ? "identity" : "device"
        func onto(_ output: (name: String, rect: Rect<GlobalSpace>, transform: OutputTransform)) -> TouchMapping {
            TouchMapping(area: output.rect, transform: output.transform, calibration: calibration)
        }
        switch rule?.target {
        case .output(let wanted)?:
            if let match = outputs.first(where: { $0.name == wanted }) {
                mapping = onto(match)
                output = match.name
                reason = "configuration, line \(rule!.position.line)"
                return
            }
            (mapping, output, reason) = Self.fallback(outputs, udevOutput: udevOutput, onto)
            reason += "; the configured output \(wanted) (line \(rule!.position.line)) does not exist"
        case .region(let rect)?:
            mapping = TouchMapping(area: rect, calibration: calibration)
            output = nil
            reason = "configuration, line \(rule!.position.line)"
        case nil:
            (mapping, output, reason) = Self.fallback(outputs, udevOutput: udevOutput, onto)
            if let rule { reason += " (line \(rule.position.line) sets no output or region)" }
        }
    }

    /// The chain past the configuration.
    private static func fallback(_ outputs: [(name: String, rect: Rect<GlobalSpace>, transform: OutputTransform)], udevOutput: String?,
                                 _ onto: ((name: String, rect: Rect<GlobalSpace>, transform: OutputTransform)) -> TouchMapping) -> (TouchMapping, String?, String) {
        if let udevOutput, let match = outputs.first(where: { $0.name == udevOutput }) {
            return (onto(match), match.name, "udev WL_OUTPUT")
        }
        let missing = udevOutput.map { " (udev's WL_OUTPUT \($0) does not exist)" } ?? ""
        if let panel = outputs.first(where: { $0.name.hasPrefix("eDP") || $0.name.hasPrefix("DSI") }) {
            return (onto(panel), panel.name, "the built-in panel" + missing)
        }
        if outputs.count == 1 { return (onto(outputs[0]), outputs[0].name, "the only output" + missing) }
        let first = outputs.first ?? (name: "", rect: Rect(x: 0, y: 0, width: 1, height: 1), transform: .normal)
        return (onto(first), first.name, "default: the first output" + missing)
    }
}
