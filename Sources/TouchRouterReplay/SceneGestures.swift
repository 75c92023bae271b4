import TouchRouterCore

/// A compositor responder declared in a scene file: it takes the events of the kinds it
/// names at its link, so replay can show a sequence that travels to the output or the shell.
///
/// ```json
/// "responders": [ { "name": "kiosk", "link": "shell", "takes": ["touch"] } ]
/// ```
/// `link` is `"shell"`, `"shell-delegate"`, `{"output": NAME}` or `{"surface": NAME}`.
public struct SceneResponder: Sendable {
    public enum Link: Sendable { case shell, shellDelegate, output(String), surface(String) }
    public var name: String
    public var link: Link
    public var kinds: Set<ReplayResponder.Kind>
    public var location: SourceLocation

    func link(names: NameBook, tree: SurfaceTree) throws(InputFileError) -> Responder {
        switch link {
        case .shell: return .shell
        case .shellDelegate: return .shellDelegate
        case .output(let output):
            guard let id = names.outputs[output] else { throw InputFileError(location, "responder \"\(name)\": no output is named \"\(output)\"") }
            return .output(id)
        case .surface(let surface):
            guard let id = names.surfaces[surface] else { throw InputFileError(location, "responder \"\(name)\": no surface is named \"\(surface)\"") }
            return .surface(id)
        }
    }
}

/// Takes every event of its kinds, and remembers how many it took.
public final class ReplayResponder: CompositorResponder {
    public enum Kind: String, Sendable, CaseIterable { case touch, pointer, key, `switch`, gesture }
    public let name: String
    public let kinds: Set<Kind>
    public private(set) var taken = 0

    public init(name: String, kinds: Set<Kind>) {
        self.name = name
        self.kinds = kinds
    }

    public func respond(to event: InputEvent, at link: Responder) -> ResponderAnswer {
        let kind: Kind = switch event {
        case .touchDown, .touchMotion, .touchUp, .touchCancel, .touchFrame: .touch
        case .pointerMotion, .pointerMotionAbsolute, .pointerButton, .pointerAxis: .pointer
        case .key: .key
        case .switchToggle, .deviceAdded, .deviceRemoved: .switch
        case .swipe, .pinch, .hold: .gesture
        }
        guard kinds.contains(kind) else { return .notHandled }
        taken += 1
        return .handled
    }
}

/// The `gestures` object of a scene file: the compositor's recognizers, hold-back zones and
/// rules, as `touch-router run --config` reads them from TOML.
///
/// ```json
/// "gestures": {
///   "holdLimitMs": 300, "fingerLimit": 5, "maximumDeferralLength": 200,
///   "zones": [ { "edges": ["left"], "width": 30 }, { "output": "DSI-1", "rect": [0, 0, 100, 100] } ],
///   "recognizers": [
///     { "name": "admin", "kind": "screen-edge-pan", "attach": "shell", "edges": ["left"], "zoneWidth": 30 },
///     { "name": "secret", "kind": "tap", "touches": 5, "simultaneousWith": ["admin"] } ] }
/// ```
/// `attach` is `"shell"` (the default), `{"output": NAME}`, `{"app": APP_ID}` or `{"role": "toplevel" | "popup" | "subsurface"}`.
extension Scene {
    static func parseGestures(_ value: LocatedJSON, path: String) throws(InputFileError) -> GestureConfiguration {
        let reader = try ObjectReader(value, path: path)
        var configuration = GestureConfiguration()
        if let ms = try reader.number("holdLimitMs", range: 0...10_000) { configuration.holdLimit = Int64((ms * 1_000_000).rounded()) }
        configuration.fingerLimit = try reader.integer("fingerLimit", minimum: 2, maximum: 10)
        configuration.maximumDeferralLength = try reader.number("maximumDeferralLength", range: 0...100_000) ?? configuration.maximumDeferralLength
        configuration.holdZones = try reader.array("zones", required: false).enumerated().map { (i, zone) throws(InputFileError) in
            try parseZone(zone, path: "\(path).zones[\(i)]")
        }
        let recognizers = try reader.array("recognizers", required: false)
        guard recognizers.count <= GestureConfiguration.maximumRecognizers else {
            throw InputFileError(value.location, "\(path).recognizers: at most \(GestureConfiguration.maximumRecognizers) recognizers")
        }
        configuration.recognizers = try recognizers.enumerated().map { (i, item) throws(InputFileError) in
            try parseRecognizer(item, path: "\(path).recognizers[\(i)]")
        }
        try reader.rejectUnknownKeys()
        do { try configuration.validate() } catch { throw InputFileError(value.location, "\(path): \(error)") }
        return configuration
    }

    private static func parseZone(_ value: LocatedJSON, path: String) throws(InputFileError) -> HoldZone {
        let reader = try ObjectReader(value, path: path)
        let output = try reader.string("output")
        let edges = try reader.array("edges", required: false)
        let width = try reader.number("width", range: 0...100_000)
        let rect = try reader.array("rect", required: false)
        let whole = try reader.bool("wholeOutput") ?? false
        try reader.rejectUnknownKeys()
        if !edges.isEmpty {
            guard let width else { throw InputFileError(value.location, "\(path): edges need a \"width\"") }
            return HoldZone(output: output, area: .edges(try edgeSet(edges, path: "\(path).edges"), width: width))
        }
        if !rect.isEmpty {
            let numbers = rect.compactMap { item -> Int? in
                guard case .number(let n, _) = item, n == n.rounded(), abs(n) <= Double(Int32.max) else { return nil }
                return Int(n)
            }
            guard numbers.count == 4, rect.count == 4, numbers[2] >= 0, numbers[3] >= 0 else {
                throw InputFileError(value.location, "\(path).rect: expected [x, y, width, height] as whole numbers")
            }
            return HoldZone(output: output, area: .rect(Rect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])))
        }
        guard whole else { throw InputFileError(value.location, "\(path): expected \"edges\" with \"width\", \"rect\", or \"wholeOutput\": true") }
        return HoldZone(output: output, area: .wholeOutput)
    }

    private static func edgeSet(_ items: [LocatedJSON], path: String) throws(InputFileError) -> Set<ScreenEdge> {
        var edges = Set<ScreenEdge>()
        for (i, item) in items.enumerated() {
            guard case .string(let word, _) = item, let edge = ScreenEdge(rawValue: word) else {
                throw InputFileError(item.location, "\(path)[\(i)]: expected \"top\", \"bottom\", \"left\" or \"right\", found \(item.kindName)")
            }
            edges.insert(edge)
        }
        return edges
    }

    private static func names(_ reader: ObjectReader, _ key: String) throws(InputFileError) -> [String] {
        try reader.array(key, required: false).enumerated().map { (i, item) throws(InputFileError) in
            guard case .string(let word, _) = item, !word.isEmpty else {
                throw InputFileError(item.location, "\(reader.path).\(key)[\(i)]: expected a recognizer's name, found \(item.kindName)")
            }
            return word
        }
    }

    private static func parseRecognizer(_ value: LocatedJSON, path: String) throws(InputFileError) -> GestureSpec {
        let reader = try ObjectReader(value, path: path)
        let name = try reader.string("name", required: true)!
        let kindName = try reader.choice("kind", ["tap", "long-press", "pan", "swipe", "pinch", "rotation", "screen-edge-pan"])
        guard let kindName else { throw InputFileError(value.location, "\(path): expected the key \"kind\"") }
        func ms(_ key: String, _ fallback: Int64) throws(InputFileError) -> Int64 {
            try reader.number(key, range: 0...60_000).map { Int64(($0 * 1_000_000).rounded()) } ?? fallback
        }
        func length(_ key: String, _ fallback: Double) throws(InputFileError) -> Double { try reader.number(key, range: 0...100_000) ?? fallback }
        func count(_ key: String, _ fallback: Int) throws(InputFileError) -> Int { try reader.integer(key, minimum: 1, maximum: 10) ?? fallback }
        let kind: GestureKind
        switch kindName {
        case "tap":
            var p = TapParameters()
            p.tapsRequired = try count("taps", p.tapsRequired); p.touchesRequired = try count("touches", p.touchesRequired)
            p.allowableMovement = try length("allowableMovement", p.allowableMovement)
            p.maximumPressDuration = try ms("maximumPressMs", p.maximumPressDuration)
            p.maximumTapInterval = try ms("maximumTapIntervalMs", p.maximumTapInterval)
            p.maximumTapDistance = try length("maximumTapDistance", p.maximumTapDistance)
            kind = .tap(p)
        case "long-press":
            var p = LongPressParameters()
            p.minimumDuration = try ms("minimumDurationMs", p.minimumDuration)
            p.allowableMovement = try length("allowableMovement", p.allowableMovement); p.touchesRequired = try count("touches", p.touchesRequired)
            kind = .longPress(p)
        case "pan":
            var p = PanParameters()
            p.minimumTouches = try count("minimumTouches", p.minimumTouches); p.maximumTouches = try count("maximumTouches", p.maximumTouches)
            p.slop = try length("slop", p.slop)
            kind = .pan(p)
        case "swipe":
            var p = SwipeParameters()
            let directions = try reader.array("directions", required: false)
            if !directions.isEmpty {
                p.directions = []
                for (i, item) in directions.enumerated() {
                    guard case .string(let word, _) = item, let direction = SwipeDirection(rawValue: word) else {
                        throw InputFileError(item.location, "\(path).directions[\(i)]: expected \"up\", \"down\", \"left\" or \"right\", found \(item.kindName)")
                    }
                    p.directions.insert(direction)
                }
            }
            p.touchesRequired = try count("touches", p.touchesRequired)
            p.minimumDistance = try length("minimumDistance", p.minimumDistance); p.minimumVelocity = try length("minimumVelocity", p.minimumVelocity)
            kind = .swipe(p)
        case "pinch":
            var p = PinchParameters()
            p.slop = try length("slop", p.slop)
            kind = .pinch(p)
        case "rotation":
            var p = RotationParameters()
            if let degrees = try reader.number("minimumAngleDegrees", range: 0...180) { p.minimumAngle = degrees * .pi / 180 }
            kind = .rotation(p)
        default:
            var p = ScreenEdgePanParameters()
            let edges = try reader.array("edges", required: false)
            if !edges.isEmpty { p.edges = try edgeSet(edges, path: "\(path).edges") }
            p.zoneWidth = try length("zoneWidth", p.zoneWidth); p.slop = try length("slop", p.slop)
            p.touchesRequired = try count("touches", p.touchesRequired)
            kind = .screenEdgePan(p)
        }
        var spec = GestureSpec(name: name, kind: kind, attachment: try parseAttachment(reader, path: path))
        spec.cancelsTouchesInView = try reader.bool("cancelsTouches") ?? true
        spec.deferrable = try reader.bool("deferrable") ?? true
        spec.simultaneousWith = try names(reader, "simultaneousWith")
        spec.requiresFailureOf = try names(reader, "requiresFailureOf")
        try reader.rejectUnknownKeys()
        return spec
    }

    private static func parseAttachment(_ reader: ObjectReader, path: String) throws(InputFileError) -> GestureAttachment {
        guard let value = try reader.member("attach", required: false) else { return .shell }
        if case .string("shell", _) = value { return .shell }
        let attach = try ObjectReader(value, path: "\(path).attach")
        let output = try attach.string("output"), app = try attach.string("app")
        let role = try attach.choice("role", SurfaceRole.allCases.map(\.rawValue))
        try attach.rejectUnknownKeys()
        if let output, app == nil, role == nil { return .output(output) }
        if let app, output == nil, role == nil { return .appID(app) }
        if let role, output == nil, app == nil, let parsed = SurfaceRole(rawValue: role) { return .role(parsed) }
        throw InputFileError(value.location, "\(path).attach: expected \"shell\", or an object with one of \"output\", \"app\" or \"role\"")
    }

    static func parseResponder(_ value: LocatedJSON, path: String) throws(InputFileError) -> SceneResponder {
        let reader = try ObjectReader(value, path: path)
        let name = try reader.string("name", required: true)!
        guard let linkValue = try reader.member("link", required: true) else { throw InputFileError(value.location, "\(path): expected \"link\"") }
        let link: SceneResponder.Link
        switch linkValue {
        case .string("shell", _): link = .shell
        case .string("shell-delegate", _): link = .shellDelegate
        case .object:
            let linkReader = try ObjectReader(linkValue, path: "\(path).link")
            let output = try linkReader.string("output"), surface = try linkReader.string("surface")
            try linkReader.rejectUnknownKeys()
            if let output, surface == nil { link = .output(output) } else if let surface, output == nil { link = .surface(surface) } else {
                throw InputFileError(linkValue.location, "\(path).link: expected one of \"output\" or \"surface\"")
            }
        default:
            throw InputFileError(linkValue.location, "\(path).link: expected \"shell\", \"shell-delegate\", {\"output\": NAME} or {\"surface\": NAME}, found \(linkValue.kindName)")
        }
        var kinds = Set<ReplayResponder.Kind>()
        for (i, item) in try reader.array("takes", required: true).enumerated() {
            guard case .string(let word, _) = item, let kind = ReplayResponder.Kind(rawValue: word) else {
                throw InputFileError(item.location, "\(path).takes[\(i)]: expected one of \(ReplayResponder.Kind.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")), found \(item.kindName)")
            }
            kinds.insert(kind)
        }
        try reader.rejectUnknownKeys()
        return SceneResponder(name: name, link: link, kinds: kinds, location: reader.location)
    }
}
