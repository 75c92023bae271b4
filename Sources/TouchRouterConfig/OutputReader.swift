import TOMLKit
import TouchRouterCore

/// One `[[output]]` table: what an output's mode and transform are, over what its backend
/// chose (the screen's preferred mode, `--output`), applied when the output appears, at start,
/// and on every reload. An output no table names has its backend's choice.
public struct OutputRule: Hashable, Sendable {
    /// The output's name: the connector's (HDMI-A-1, Virtual-1), the host window's (WL-1), HEADLESS-N.
    public var name: String
    public var width: Int?
    public var height: Int?
    /// nil: the screen's refresh nearest its preferred one for that size (60 Hz on headless).
    public var refreshMilliHertz: Int?
    public var transform: OutputTransform?
    /// Panel pixels for each layout pixel, 1 to 4.
    public var scale: Int?
    /// How long before each vblank the output composes (ns); nil: measured (FrameSchedule).
    public var frameMargin: Int64?
    /// Where its table starts, for errors that only the session finds (a mode the screen lacks).
    public var position: SourcePosition

    /// The milliseconds `frame-margin-ms` (and `msg output set`'s `frame-margin`) takes.
    public static let frameMarginMilliseconds = 0.1...1000.0

    public init(name: String, width: Int? = nil, height: Int? = nil, refreshMilliHertz: Int? = nil, transform: OutputTransform? = nil,
                scale: Int? = nil, frameMargin: Int64? = nil, position: SourcePosition = SourcePosition(line: 1, column: 1)) {
        self.name = name
        self.width = width
        self.height = height
        self.refreshMilliHertz = refreshMilliHertz
        self.transform = transform
        self.scale = scale
        self.frameMargin = frameMargin
        self.position = position
    }
}

/// `[[output]]` tables: `name`, then `mode`, `transform`, `scale` and `frame-margin-ms`.
enum OutputReader {
    static let keys = ["name", "mode", "transform", "scale", "frame-margin-ms"]

    static func read(_ tables: [TOMLTable], document: Document) throws(ConfigurationError) -> [OutputRule] {
        var rules: [OutputRule] = []
        var seen: [String: SourcePosition] = [:]
        for (index, table) in tables.enumerated() {
            let path: [PathComponent] = [.key("output"), .index(index)]
            var reader = TableReader(document, table, path: path, name: "[[output]] \(pathText(path))")
            guard let name = try reader.string("name") else {
                throw reader.missing("name", "the output's name, as msg tree lists it (HDMI-A-1, Virtual-1, HEADLESS-1)")
            }
            guard name.count <= 64 else { throw document.error(value: path + [.key("name")], "\(pathText(path + [.key("name")])): a name of \(name.count) characters: expected at most 64") }
            var rule = OutputRule(name: name, position: document.locator.key(path))
            if let text = try reader.string("mode") {
                guard let mode = ModeText(text) else {
                    throw document.error(value: path + [.key("mode")], "\(pathText(path + [.key("mode")])): '\(text.prefix(64))': expected \(ModeText.expected)")
                }
                (rule.width, rule.height, rule.refreshMilliHertz) = (mode.width, mode.height, mode.refreshMilliHertz)
            }
            // A number is taken too, as people write angles: 0 is normal.
            let angle = reader.table["transform"]?.int
            if angle != nil { reader.markRead("transform") }
            let transformText: String? = if let angle { angle == 0 ? "normal" : String(angle) } else { try reader.string("transform") }
            if let text = transformText {
                guard let transform = OutputTransform(name: text) else {
                    throw document.error(value: path + [.key("transform")], "\(pathText(path + [.key("transform")])): '\(text.prefix(64))': expected one of \(OutputTransform.names.joined(separator: ", "))")
                }
                rule.transform = transform
            }
            rule.scale = try reader.integer("scale", in: 1...4)
            rule.frameMargin = try reader.milliseconds("frame-margin-ms", in: OutputRule.frameMarginMilliseconds)
            try reader.finish(allowed: keys)
            if let earlier = seen[name] {
                throw document.error(value: path + [.key("name")], "\(pathText(path + [.key("name")])): \"\(name)\" has a table already at line \(earlier.line): expected each output once")
            }
            seen[name] = rule.position
            rules.append(rule)
        }
        return rules
    }
}
