import TOMLKit
import TouchRouterCore

/// Which devices an `[[input]]` table is for.
public enum InputMatch: Hashable, Sendable, CustomStringConvertible {
    /// Every device: `"*"`.
    case all
    /// libinput's device name, exactly.
    case name(String)
    case vendorProduct(vendor: UInt16, product: UInt16)
    /// `"type:touchpad"` and the like: a kind of device.
    case type(InputType)

    public enum InputType: String, Hashable, Sendable, CaseIterable {
        case keyboard, pointer, touchpad, touch, tabletTool = "tablet-tool", tabletPad = "tablet-pad", `switch`
    }

    /// `"*"`, `"type:KIND"`, `"vvvv:pppp"` in hexadecimal, or a name; nil for an unknown kind.
    public init?(parsing text: String) {
        if text == "*" {
            self = .all
        } else if text.hasPrefix("type:") {
            guard let type = InputType(rawValue: String(text.dropFirst(5))) else { return nil }
            self = .type(type)
        } else {
            switch TouchscreenMatch(parsing: text) {
            case .vendorProduct(let vendor, let product): self = .vendorProduct(vendor: vendor, product: product)
            case .name(let name): self = .name(name)
            }
        }
    }

    public func matches(_ device: InputRule.Device) -> Bool {
        switch self {
        case .all: true
        case .name(let wanted): wanted == device.name
        case .vendorProduct(let vendor, let product): vendor == device.vendor && product == device.product
        case .type(.touchpad): device.touchpad
        // A touchpad is a pointer to libinput, but `type:pointer` means mice and the like.
        case .type(.pointer): device.types.contains("pointer") && !device.touchpad
        case .type(let type): device.types.contains(type.rawValue)
        }
    }

    public var description: String {
        switch self {
        case .all: "\"*\""
        case .name(let name): "\"\(name)\""
        case .vendorProduct(let vendor, let product): TouchscreenMatch.vendorProduct(vendor: vendor, product: product).description
        case .type(let type): "\"type:\(type.rawValue)\""
        }
    }
}

/// libinput settings from an `[[input]]` table; nil leaves libinput's default.
public struct InputSettings: Hashable, Sendable {
    public enum AccelerationProfile: String, Hashable, Sendable, CaseIterable { case flat, adaptive }
    public var tap: Bool?
    public var naturalScroll: Bool?
    public var accelerationProfile: AccelerationProfile?
    /// From -1 to 1.
    public var accelerationSpeed: Double?
    public var leftHanded: Bool?

    public init(tap: Bool? = nil, naturalScroll: Bool? = nil, accelerationProfile: AccelerationProfile? = nil, accelerationSpeed: Double? = nil, leftHanded: Bool? = nil) {
        self.tap = tap
        self.naturalScroll = naturalScroll
        self.accelerationProfile = accelerationProfile
        self.accelerationSpeed = accelerationSpeed
        self.leftHanded = leftHanded
    }
}

/// One `[[input]]` table.
public struct InputRule: Hashable, Sendable {
    public var match: InputMatch
    public var settings: InputSettings
    public var position: SourcePosition

    public init(match: InputMatch, settings: InputSettings, position: SourcePosition = SourcePosition(line: 1, column: 1)) {
        self.match = match
        self.settings = settings
        self.position = position
    }

    /// What a rule is matched against.
    public struct Device: Sendable {
        public var name: String
        public var vendor: UInt16
        public var product: UInt16
        /// libinput's capabilities: keyboard, pointer, touch, gesture, switch, tablet-tool, tablet-pad.
        public var types: [String]
        public var touchpad: Bool
        public init(name: String, vendor: UInt16, product: UInt16, types: [String], touchpad: Bool) {
            self.name = name
            self.vendor = vendor
            self.product = product
            self.types = types
            self.touchpad = touchpad
        }
    }

    /// Every matching table applies, in the file's order, so a later one replaces what an
    /// earlier one set, key by key (`"*"` first, then a type, then one device, as sway does).
    public static func settings(for device: Device, rules: [InputRule]) -> InputSettings {
        var result = InputSettings()
        for rule in rules where rule.match.matches(device) {
            let s = rule.settings
            result = InputSettings(tap: s.tap ?? result.tap, naturalScroll: s.naturalScroll ?? result.naturalScroll,
                                   accelerationProfile: s.accelerationProfile ?? result.accelerationProfile,
                                   accelerationSpeed: s.accelerationSpeed ?? result.accelerationSpeed, leftHanded: s.leftHanded ?? result.leftHanded)
        }
        return result
    }
}

/// `[[input]]` tables: `match`, then `tap`, `natural-scroll`, `accel-profile`, `accel-speed`,
/// `left-handed`.
enum InputReader {
    static let keys = ["match", "tap", "natural-scroll", "accel-profile", "accel-speed", "left-handed"]

    static func read(_ tables: [TOMLTable], document: Document) throws(ConfigurationError) -> [InputRule] {
        var rules: [InputRule] = []
        for (index, table) in tables.enumerated() {
            let path: [PathComponent] = [.key("input"), .index(index)]
            var reader = TableReader(document, table, path: path, name: "[[input]] \(pathText(path))")
            let expected = "\"*\", a device name as libinput reports it (touch-router msg devices lists them), \"vendor:product\" in hexadecimal, or \"type:KIND\" with KIND "
                + alternatives(InputMatch.InputType.allCases.map(\.rawValue))
            guard let text = try reader.string("match") else { throw reader.missing("match", expected) }
            guard let match = InputMatch(parsing: text) else {
                throw document.error(value: path + [.key("match")], "\(pathText(path + [.key("match")])): expected \(expected), found \"\(text)\"")
            }
            var settings = InputSettings()
            settings.tap = try reader.bool("tap")
            settings.naturalScroll = try reader.bool("natural-scroll")
            settings.accelerationProfile = try reader.choice("accel-profile", InputSettings.AccelerationProfile.allCases.map { ($0.rawValue, $0) })
            settings.accelerationSpeed = try reader.number("accel-speed", in: -1...1)
            settings.leftHanded = try reader.bool("left-handed")
            try reader.finish(allowed: keys)
            rules.append(InputRule(match: match, settings: settings, position: document.locator.key(path)))
        }
        return rules
    }
}
