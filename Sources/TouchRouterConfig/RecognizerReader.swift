import TOMLKit
import TouchRouterCore

/// `[[recognizer]]` tables into the core's `GestureSpec`s, and the checks of the set as a
/// whole that need no arena: names unique, names referred to exist, no cycle of failure
/// requirements. The core validates again when the session configures it.
enum RecognizerReader {
    static let commonKeys = ["name", "kind", "output", "app", "role", "cancels-touches", "deferrable", "simultaneous-with", "requires-failure-of"]

    static let kinds: [(String, [String])] = [
        ("tap", ["taps", "touches", "allowable-movement", "maximum-press-ms", "maximum-tap-interval-ms", "maximum-tap-distance"]),
        ("long-press", ["minimum-duration-ms", "allowable-movement", "touches"]),
        ("pan", ["minimum-touches", "maximum-touches", "slop"]),
        ("swipe", ["directions", "touches", "minimum-distance", "minimum-velocity"]),
        ("pinch", ["slop"]),
        ("rotation", ["minimum-degrees"]),
        ("screen-edge-pan", ["edges", "zone-width", "slop", "touches"]),
    ]

    /// Layout pixels: far beyond any output (16,384 px a side), far below what could overflow.
    static let lengths = 0.0...100_000
    /// A minute: no recognizer waits longer.
    static let durations = 0.0...60_000
    static let touches = 1...10

    static func read(_ tables: [TOMLTable], document: Document) throws(ConfigurationError) -> (specs: [GestureSpec], positions: [String: SourcePosition]) {
        var specs: [GestureSpec] = []
        var positions: [String: SourcePosition] = [:]
        var paths: [String: [PathComponent]] = [:]
        guard tables.count <= GestureConfiguration.maximumRecognizers else {
            throw document.error(key: [.key("recognizer"), .index(GestureConfiguration.maximumRecognizers)],
                                 "more than \(GestureConfiguration.maximumRecognizers) recognizers: expected at most \(GestureConfiguration.maximumRecognizers)")
        }
        for (index, table) in tables.enumerated() {
            let path: [PathComponent] = [.key("recognizer"), .index(index)]
            let spec = try readOne(table, path: path, document: document)
            if paths[spec.name] != nil {
                throw document.error(value: path + [.key("name")], "recognizer[\(index)].name: \"\(spec.name)\" is the name of an earlier recognizer (line \(positions[spec.name]!.line)): expected a name of its own")
            }
            paths[spec.name] = path
            positions[spec.name] = document.locator.key(path)
            specs.append(spec)
        }
        try checkReferences(specs, paths: paths, document: document)
        try checkCycles(specs, paths: paths, document: document)
        return (specs, positions)
    }

    private static func readOne(_ table: TOMLTable, path: [PathComponent], document: Document) throws(ConfigurationError) -> GestureSpec {
        var reader = TableReader(document, table, path: path, name: "[[recognizer]] \(pathText(path))")
        guard let name = try reader.string("name") else { throw reader.missing("name", "a name that bindings and other recognizers use") }
        guard let kindName = try reader.string("kind") else { throw reader.missing("kind", alternatives(kinds.map(\.0))) }
        guard let kindKeys = kinds.first(where: { $0.0 == kindName })?.1 else {
            throw document.error(value: path + [.key("kind")], "\(pathText(path + [.key("kind")])): expected \(alternatives(kinds.map(\.0))), found \"\(kindName)\"")
        }
        let kind = try readKind(kindName, &reader)
        try reader.atMostOne(of: ["output", "app", "role"])
        let attachment: GestureAttachment
        if let output = try reader.string("output") {
            attachment = .output(output)
        } else if let app = try reader.string("app") {
            attachment = .appID(app)
        } else if let role = try reader.choice("role", SurfaceRole.allCases.map { ($0.rawValue, $0) }) {
            attachment = .role(role)
        } else {
            attachment = .shell
        }
        var spec = GestureSpec(name: name, kind: kind, attachment: attachment)
        spec.cancelsTouchesInView = try reader.bool("cancels-touches") ?? true
        spec.deferrable = try reader.bool("deferrable") ?? true
        spec.simultaneousWith = try reader.strings("simultaneous-with") ?? []
        spec.requiresFailureOf = try reader.strings("requires-failure-of") ?? []
        // A key of another kind gets its own message: it is known, only not here.
        for key in table.keys where !commonKeys.contains(key) && !kindKeys.contains(key) && kinds.contains(where: { $0.1.contains(key) }) {
            throw document.error(key: path + [.key(key)], "'\(key)' is not a parameter of a \(kindName) recognizer: expected \(alternatives(kindKeys))")
        }
        try reader.finish(allowed: commonKeys + kindKeys)
        return spec
    }

    private static func readKind(_ kind: String, _ reader: inout TableReader) throws(ConfigurationError) -> GestureKind {
        switch kind {
        case "tap":
            var p = TapParameters()
            p.tapsRequired = try reader.integer("taps", in: 1...10) ?? p.tapsRequired
            p.touchesRequired = try reader.integer("touches", in: touches) ?? p.touchesRequired
            p.allowableMovement = try reader.number("allowable-movement", in: lengths) ?? p.allowableMovement
            p.maximumPressDuration = try reader.milliseconds("maximum-press-ms", in: durations) ?? p.maximumPressDuration
            p.maximumTapInterval = try reader.milliseconds("maximum-tap-interval-ms", in: durations) ?? p.maximumTapInterval
            p.maximumTapDistance = try reader.number("maximum-tap-distance", in: lengths) ?? p.maximumTapDistance
            return .tap(p)
        case "long-press":
            var p = LongPressParameters()
            p.minimumDuration = try reader.milliseconds("minimum-duration-ms", in: durations) ?? p.minimumDuration
            p.allowableMovement = try reader.number("allowable-movement", in: lengths) ?? p.allowableMovement
            p.touchesRequired = try reader.integer("touches", in: touches) ?? p.touchesRequired
            return .longPress(p)
        case "pan":
            var p = PanParameters()
            p.minimumTouches = try reader.integer("minimum-touches", in: touches) ?? p.minimumTouches
            p.maximumTouches = try reader.integer("maximum-touches", in: touches) ?? p.maximumTouches
            p.slop = try reader.number("slop", in: lengths) ?? p.slop
            guard p.minimumTouches <= p.maximumTouches else {
                throw reader.document.error(value: reader.keyPath("maximum-touches"), "\(pathText(reader.keyPath("maximum-touches"))): expected at least minimum-touches (\(p.minimumTouches)), found \(p.maximumTouches)")
            }
            return .pan(p)
        case "swipe":
            var p = SwipeParameters()
            let directions = try reader.strings("directions", nonEmpty: true) { SwipeDirection(rawValue: $0) == nil ? alternatives(SwipeDirection.allCases.map(\.rawValue)) : nil }
            if let directions { p.directions = Set(directions.compactMap(SwipeDirection.init(rawValue:))) }
            p.touchesRequired = try reader.integer("touches", in: touches) ?? p.touchesRequired
            p.minimumDistance = try reader.number("minimum-distance", in: lengths) ?? p.minimumDistance
            p.minimumVelocity = try reader.number("minimum-velocity", in: 0...1_000_000, unit: " px/s") ?? p.minimumVelocity
            return .swipe(p)
        case "pinch":
            var p = PinchParameters()
            p.slop = try reader.number("slop", in: lengths) ?? p.slop
            return .pinch(p)
        case "rotation":
            var p = RotationParameters()
            if let degrees = try reader.number("minimum-degrees", in: 0...360) { p.minimumAngle = degrees * .pi / 180 }
            return .rotation(p)
        default:
            var p = ScreenEdgePanParameters()
            let edges = try reader.strings("edges", nonEmpty: true) { ScreenEdge(rawValue: $0) == nil ? alternatives(ScreenEdge.allCases.map(\.rawValue)) : nil }
            if let edges { p.edges = Set(edges.compactMap(ScreenEdge.init(rawValue:))) }
            p.zoneWidth = try reader.number("zone-width", in: 1...16_384) ?? p.zoneWidth
            p.slop = try reader.number("slop", in: lengths) ?? p.slop
            p.touchesRequired = try reader.integer("touches", in: touches) ?? p.touchesRequired
            return .screenEdgePan(p)
        }
    }

    /// Every name in simultaneous-with and requires-failure-of is a recognizer, and not the one naming it.
    private static func checkReferences(_ specs: [GestureSpec], paths: [String: [PathComponent]], document: Document) throws(ConfigurationError) {
        for spec in specs {
            for (key, names) in [("simultaneous-with", spec.simultaneousWith), ("requires-failure-of", spec.requiresFailureOf)] {
                for (index, name) in names.enumerated() {
                    let path = paths[spec.name]! + [.key(key), .index(index)]
                    if name == spec.name, key == "simultaneous-with" {
                        throw document.error(value: path, "\(pathText(path)): a recognizer is always simultaneous with itself: expected the name of another recognizer")
                    }
                    guard paths[name] != nil else {
                        throw document.error(value: path, "\(pathText(path)): \"\(name)\" is not a recognizer: expected \(alternatives(specs.map { "\"\($0.name)\"" }))")
                    }
                }
            }
        }
    }

    /// Recognizers that require each other to fail in a ring would each wait for the other
    /// for ever: the first ring found, in the file's order, is reported by its names.
    private static func checkCycles(_ specs: [GestureSpec], paths: [String: [PathComponent]], document: Document) throws(ConfigurationError) {
        let requires = Dictionary(uniqueKeysWithValues: specs.map { ($0.name, $0.requiresFailureOf) })
        var finished: Set<String> = []
        for spec in specs where !finished.contains(spec.name) {
            // An explicit stack: the walk's depth is bounded by the recognizers, not by Swift's stack.
            var stack: [(name: String, next: Int)] = [(spec.name, 0)]
            var onStack: Set<String> = [spec.name]
            while let top = stack.last {
                let targets = requires[top.name] ?? []
                guard top.next < targets.count else {
                    finished.insert(top.name)
                    onStack.remove(top.name)
                    stack.removeLast()
                    continue
                }
                stack[stack.count - 1].next += 1
                let target = targets[top.next]
                if onStack.contains(target) {
                    let ring = stack.map(\.name).drop { $0 != target }
                    let path = paths[top.name]! + [.key("requires-failure-of"), .index(top.next)]
                    let names = (Array(ring) + [target]).map { "\"\($0)\"" }.joined(separator: " → ")
                    throw document.error(value: path, "recognizers require each other to fail in a cycle, \(names): expected no cycle of requires-failure-of")
                }
                if !finished.contains(target) {
                    stack.append((target, 0))
                    onStack.insert(target)
                }
            }
        }
    }
}
