import TouchRouterCore

/// A scene file: outputs with their surface trees, the clients and what they bound.
///
/// ```json
/// { "outputs": [ { "name": "HDMI-A-1", "width": 1920, "height": 1080,
///                  "toplevels": [ { "name": "app", "x": 0, "y": 0, "width": 800, "height": 600 } ] } ] }
/// ```
/// Lists of toplevels, subsurfaces and popups are bottom first, as they are drawn.
public struct Scene: Sendable {
    public var outputs: [Output]
    public var clients: [Client]
    public var keyboardFocus: String?
    public var focusPolicy: FocusPolicy?
    /// Recognizers, zones and rules of the compositor's side (`SceneGestures`).
    public var gestures: GestureConfiguration?
    public var responders: [SceneResponder] = []
    public var gesturesLocation: SourceLocation?

    public struct Output: Sendable {
        public var name: String
        public var rect: Rect<GlobalSpace>
        public var toplevels: [Surface]
        public var location: SourceLocation
    }

    public struct Client: Sendable {
        public var name: String
        public var capabilities: ClientCapabilities
        public var location: SourceLocation
    }

    public struct Surface: Sendable {
        public var name: String
        public var client: String?
        public var position: Offset
        public var size: Size
        /// nil: the whole surface.
        public var inputRegion: Region<SurfaceSpace>?
        public var properties: SurfaceProperties
        /// For subsurfaces: stacked under the parent rather than over it.
        public var below: Bool
        public var subsurfaces: [Surface]
        public var popups: [Surface]
        public var location: SourceLocation
        /// A toplevel's xdg_toplevel app id, which recognizers attached to an app match.
        public var appID: String?
    }
}

/// A scene made into a tree, with the names the script and the trace use.
public final class LoadedScene {
    public let tree: SurfaceTree
    public let names: NameBook
    public let capabilities: [ClientID: ClientCapabilities]
    public let keyboardFocus: SurfaceID?
    public let focusPolicy: FocusPolicy
    public let gestures: GestureConfiguration?
    public let appIDs: [SurfaceID: String]
    public let responders: [(link: Responder, responder: ReplayResponder)]

    init(tree: SurfaceTree, names: NameBook, capabilities: [ClientID: ClientCapabilities], keyboardFocus: SurfaceID?, focusPolicy: FocusPolicy,
         gestures: GestureConfiguration? = nil, appIDs: [SurfaceID: String] = [:], responders: [(link: Responder, responder: ReplayResponder)] = []) {
        self.tree = tree
        self.names = names
        self.capabilities = capabilities
        self.keyboardFocus = keyboardFocus
        self.focusPolicy = focusPolicy
        self.gestures = gestures
        self.appIDs = appIDs
        self.responders = responders
    }

    /// A router over this scene's tree, with its clients' capabilities and initial focus.
    public func makeRouter(delivery: any InputDelivery, clock: any RouterClock) -> Router {
        let router = Router(tree: tree, delivery: delivery, clock: clock)
        for (client, capabilities) in capabilities { router.setCapabilities(capabilities, for: client) }
        router.focusPolicy = focusPolicy
        if let keyboardFocus { router.setKeyboardFocus(keyboardFocus) }
        for (surface, appID) in appIDs { router.setAppID(appID, for: surface) }
        for (link, responder) in responders { router.attach(responder, to: link) }
        // Validated when the scene was loaded.
        if let gestures { try? router.configureGestures(gestures) }
        return router
    }
}

/// Names for ids in both directions, kept after surfaces are removed so traces can still name them.
public final class NameBook: @unchecked Sendable {
    public private(set) var surfaces: [String: SurfaceID] = [:]
    public private(set) var outputs: [String: OutputID] = [:]
    public private(set) var clients: [String: ClientID] = [:]
    private var surfaceNames: [SurfaceID: String] = [:]
    private var outputNames: [OutputID: String] = [:]
    private var clientNames: [ClientID: String] = [:]

    public init() {}

    public func add(surface id: SurfaceID, _ name: String) { surfaces[name] = id; surfaceNames[id] = name }
    public func add(output id: OutputID, _ name: String) { outputs[name] = id; outputNames[id] = name }
    public func add(client id: ClientID, _ name: String) { clients[name] = id; clientNames[id] = name }

    public func name(of id: SurfaceID) -> String { surfaceNames[id] ?? "surface#\(id.raw)" }
    public func name(of id: OutputID) -> String { outputNames[id] ?? "output#\(id.raw)" }
    public func name(of id: ClientID) -> String { clientNames[id] ?? "client#\(id.raw)" }

    public func name(of link: Responder) -> String {
        switch link {
        case .surface(let id): "surface \"\(name(of: id))\""
        case .role(let id, let role): "\(role.rawValue) of \"\(name(of: id))\""
        case .output(let id): "output \"\(name(of: id))\""
        case .shell: "shell"
        case .shellDelegate: "shell delegate"
        }
    }
}

extension Scene {
    /// Parses a scene file's text. The limits of `InputLimits` apply: file size, JSON
    /// nesting, surface nesting and counts, rectangles in an input region.
    public static func parse(_ text: String, file: String) throws(InputFileError) -> Scene {
        if text.utf8.count > InputLimits.fileBytes {
            return try parse(bytes: Array(text.utf8), file: file)
        }
        let root = try ObjectReader(try LocatedJSON.parse(text, file: file), path: "scene")
        var counter = SurfaceCounter()
        var pixels = 0
        let outputs = try root.array("outputs", required: true).enumerated().map { (i, value) throws(InputFileError) in
            guard i < InputLimits.outputs else {
                throw InputFileError(value.location, "outputs[\(i)]: a scene may have at most \(InputLimits.outputs) outputs (InputLimits.outputs)")
            }
            let output = try parseOutput(value, path: "outputs[\(i)]", counter: &counter)
            pixels += output.rect.width * output.rect.height
            guard pixels <= InputLimits.outputPixels else {
                throw InputFileError(value.location, "outputs[\(i)]: the outputs together cover more than \(InputLimits.outputPixels) pixels, the limit of a scene (InputLimits.outputPixels)")
            }
            return output
        }
        let clients = try root.array("clients", required: false).enumerated().map { (i, value) throws(InputFileError) in
            try parseClient(value, path: "clients[\(i)]")
        }
        let focus = try root.string("keyboardFocus")
        let policy: FocusPolicy? = switch try root.choice("focusPolicy", ["explicit", "on-press"]) {
        case "explicit": .explicit
        case "on-press": .onPress
        default: nil
        }
        let gesturesValue = try root.member("gestures", required: false)
        let gestures = try gesturesValue.map { (value: LocatedJSON) throws(InputFileError) in try parseGestures(value, path: "scene.gestures") }
        let responders = try root.array("responders", required: false).enumerated().map { (i, value) throws(InputFileError) in
            try parseResponder(value, path: "scene.responders[\(i)]")
        }
        try root.rejectUnknownKeys()
        guard !outputs.isEmpty else { throw InputFileError(root.location, "scene: expected at least one output in \"outputs\"") }
        var scene = Scene(outputs: outputs, clients: clients, keyboardFocus: focus, focusPolicy: policy)
        scene.gestures = gestures
        scene.gesturesLocation = gesturesValue?.location
        scene.responders = responders
        return scene
    }

    /// Counts surfaces against `InputLimits.surfaces` and `InputLimits.surfacesPerToplevel`.
    private struct SurfaceCounter {
        var all = 0
        var inToplevel = 0

        mutating func count(_ location: SourceLocation, path: String, isToplevel: Bool) throws(InputFileError) {
            all += 1
            if isToplevel { inToplevel = 0 } else { inToplevel += 1 }
            guard all <= InputLimits.surfaces else {
                throw InputFileError(location, "\(path): this scene has more than \(InputLimits.surfaces) surfaces, the limit of a scene file (InputLimits.surfaces)")
            }
            guard inToplevel <= InputLimits.surfacesPerToplevel else {
                throw InputFileError(location, "\(path): this toplevel has more than \(InputLimits.surfacesPerToplevel) subsurfaces and popups, the limit below one toplevel (InputLimits.surfacesPerToplevel)")
            }
        }
    }

    private static func parseOutput(_ value: LocatedJSON, path: String, counter: inout SurfaceCounter) throws(InputFileError) -> Output {
        let reader = try ObjectReader(value, path: path)
        let name = try reader.string("name", required: true)!
        let x = try reader.integer("x") ?? 0, y = try reader.integer("y") ?? 0
        let width = try reader.integer("width", required: true, minimum: 1, maximum: InputLimits.outputDimension)!
        let height = try reader.integer("height", required: true, minimum: 1, maximum: InputLimits.outputDimension)!
        let toplevels = try reader.array("toplevels", required: false).enumerated().map { (i, value) throws(InputFileError) in
            try parseSurface(value, path: "\(path).toplevels[\(i)]", role: .toplevel, depth: 0, counter: &counter)
        }
        try reader.rejectUnknownKeys()
        return Output(name: name, rect: Rect(x: x, y: y, width: width, height: height), toplevels: toplevels, location: reader.location)
    }

    private static func parseClient(_ value: LocatedJSON, path: String) throws(InputFileError) -> Client {
        let reader = try ObjectReader(value, path: path)
        let name = try reader.string("name", required: true)!
        var capabilities: ClientCapabilities = []
        for (i, item) in try reader.array("capabilities", required: true).enumerated() {
            guard case .string(let word, _) = item, let capability = ["touch": ClientCapabilities.touch, "pointer": .pointer, "keyboard": .keyboard][word] else {
                throw InputFileError(item.location, "\(path).capabilities[\(i)]: expected \"touch\", \"pointer\" or \"keyboard\", found \(item.kindName)")
            }
            capabilities.insert(capability)
        }
        try reader.rejectUnknownKeys()
        return Client(name: name, capabilities: capabilities, location: reader.location)
    }

    /// Recurses once per level of nesting, which `InputLimits.surfaceDepth` bounds (and
    /// `InputLimits.jsonDepth` before it).
    private static func parseSurface(_ value: LocatedJSON, path: String, role: SurfaceRole, depth: Int, counter: inout SurfaceCounter) throws(InputFileError) -> Surface {
        guard depth <= InputLimits.surfaceDepth else {
            throw InputFileError(value.location, "\(path): surfaces are nested more than \(InputLimits.surfaceDepth) deep below their toplevel here, past the limit (InputLimits.surfaceDepth)")
        }
        try counter.count(value.location, path: path, isToplevel: role == .toplevel)
        let reader = try ObjectReader(value, path: path)
        let name = try reader.string("name", required: true)!
        let client = try reader.string("client")
        let x = try reader.integer("x") ?? 0, y = try reader.integer("y") ?? 0
        let width = try reader.integer("width", required: true, minimum: 0)!
        let height = try reader.integer("height", required: true, minimum: 0)!
        var properties = SurfaceProperties()
        properties.mapped = try reader.bool("mapped") ?? true
        properties.hidden = try reader.bool("hidden") ?? false
        properties.opacity = try reader.number("opacity", range: 0...1) ?? 1
        properties.interactionEnabled = try reader.bool("interactionEnabled") ?? true
        properties.acceptsKeyboardFocus = try reader.bool("acceptsKeyboardFocus") ?? true
        properties.exclusiveTouch = try reader.bool("exclusiveTouch") ?? false
        properties.multipleTouch = try reader.bool("multipleTouch") ?? true
        let region = try reader.region("inputRegion")
        let appID = role == .toplevel ? try reader.string("appID") : nil
        var below = false
        if role == .subsurface {
            below = try reader.choice("placement", ["above", "below"]) == "below"
        }
        let subsurfaces = try reader.array("subsurfaces", required: false).enumerated().map { (i, value) throws(InputFileError) in
            try parseSurface(value, path: "\(path).subsurfaces[\(i)]", role: .subsurface, depth: depth + 1, counter: &counter)
        }
        let popups = try reader.array("popups", required: false).enumerated().map { (i, value) throws(InputFileError) in
            try parseSurface(value, path: "\(path).popups[\(i)]", role: .popup, depth: depth + 1, counter: &counter)
        }
        try reader.rejectUnknownKeys()
        return Surface(
            name: name, client: client, position: Offset(dx: x, dy: y), size: Size(width: width, height: height),
            inputRegion: region, properties: properties, below: below, subsurfaces: subsurfaces, popups: popups, location: reader.location, appID: appID)
    }

    /// Builds the tree. Surface ids follow document order from 1; a surface without a
    /// client belongs to its parent's, and a toplevel without one is its own client.
    public func load(cellShift: Int = HitTestIndex.defaultCellShift) throws(InputFileError) -> LoadedScene {
        let tree = SurfaceTree(cellShift: cellShift)
        let names = NameBook()
        var capabilities: [ClientID: ClientCapabilities] = [:]
        var nextSurface: UInt32 = 1
        var appIDs: [SurfaceID: String] = [:]

        func client(named name: String) -> ClientID {
            if let id = names.clients[name] { return id }
            let id = ClientID(UInt32(names.clients.count + 1))
            names.add(client: id, name)
            return id
        }
        for declared in clients {
            guard names.clients[declared.name] == nil else {
                throw InputFileError(declared.location, "the client \"\(declared.name)\" is declared twice")
            }
            capabilities[client(named: declared.name)] = declared.capabilities
        }

        func add(_ surface: Surface, role: SurfaceRole, parent: SurfaceID?, parentClient: ClientID?, output: OutputID) throws(InputFileError) {
            guard names.surfaces[surface.name] == nil else {
                throw InputFileError(surface.location, "the surface name \"\(surface.name)\" is used twice; names must be unique")
            }
            let id = SurfaceID(nextSurface)
            nextSurface += 1
            let owner = surface.client.map(client(named:)) ?? parentClient ?? client(named: surface.name)
            do {
                switch role {
                case .toplevel:
                    try tree.addToplevel(id, client: owner, output: output, position: surface.position, size: surface.size, properties: surface.properties, label: surface.name)
                case .subsurface:
                    try tree.addSubsurface(id, client: owner, parent: parent!, position: surface.position, size: surface.size, below: false, properties: surface.properties, label: surface.name)
                case .popup:
                    try tree.addPopup(id, client: owner, parent: parent!, position: surface.position, size: surface.size, properties: surface.properties, label: surface.name)
                }
                if let region = surface.inputRegion { try tree.setInputRegion(id, region) }
            } catch {
                throw InputFileError(surface.location, "surface \"\(surface.name)\": \(error)")
            }
            names.add(surface: id, surface.name)
            if let appID = surface.appID { appIDs[id] = appID }
            for child in surface.subsurfaces { try add(child, role: .subsurface, parent: id, parentClient: owner, output: output) }
            // Subsurfaces listed with "placement": "below" go under the parent, keeping their listed order.
            for child in surface.subsurfaces where child.below {
                let childID = names.surfaces[child.name]!
                do { try tree.place(childID, below: id) } catch { throw InputFileError(child.location, "\(error)") }
            }
            for child in surface.popups { try add(child, role: .popup, parent: id, parentClient: owner, output: output) }
        }

        for (i, output) in outputs.enumerated() {
            guard names.outputs[output.name] == nil else {
                throw InputFileError(output.location, "the output name \"\(output.name)\" is used twice")
            }
            let id = OutputID(UInt32(i + 1))
            do { try tree.addOutput(id, name: output.name, rect: output.rect) } catch { throw InputFileError(output.location, "\(error)") }
            names.add(output: id, output.name)
            for toplevel in output.toplevels { try add(toplevel, role: .toplevel, parent: nil, parentClient: nil, output: id) }
        }

        var focus: SurfaceID?
        if let name = keyboardFocus {
            guard let id = names.surfaces[name] else {
                throw InputFileError(outputs[0].location, "keyboardFocus names \"\(name)\", which is no surface of this scene")
            }
            focus = id
        }
        if let gestures {
            do { try gestures.validate() } catch { throw InputFileError(gesturesLocation ?? outputs[0].location, "scene.gestures: \(error)") }
        }
        let attached = try responders.map { (declared: SceneResponder) throws(InputFileError) -> (link: Responder, responder: ReplayResponder) in
            (try declared.link(names: names, tree: tree), ReplayResponder(name: declared.name, kinds: declared.kinds))
        }
        return LoadedScene(tree: tree, names: names, capabilities: capabilities, keyboardFocus: focus, focusPolicy: focusPolicy ?? .explicit,
                           gestures: gestures, appIDs: appIDs, responders: attached)
    }
}

/// Reads one JSON object's members by name and rejects the ones nobody asked for.
final class ObjectReader {
    let members: [JSONMember]
    let location: SourceLocation
    let path: String
    private var asked: [String] = []

    init(_ value: LocatedJSON, path: String) throws(InputFileError) {
        guard case .object(let members, let location) = value else {
            throw InputFileError(value.location, "\(path): expected an object, found \(value.kindName)")
        }
        self.members = members
        self.location = location
        self.path = path
    }

    func member(_ key: String, required: Bool) throws(InputFileError) -> LocatedJSON? {
        asked.append(key)
        guard let found = members.first(where: { $0.key == key }) else {
            if required { throw InputFileError(location, "\(path): expected the key \"\(key)\"") }
            return nil
        }
        if case .null = found.value, !required { return nil }
        return found.value
    }

    func string(_ key: String, required: Bool = false) throws(InputFileError) -> String? {
        guard let value = try member(key, required: required) else { return nil }
        guard case .string(let text, _) = value, !text.isEmpty else {
            throw InputFileError(value.location, "\(path).\(key): expected a non-empty string, found \(value.kindName)")
        }
        return text
    }

    func choice(_ key: String, _ options: [String]) throws(InputFileError) -> String? {
        guard let value = try member(key, required: false) else { return nil }
        guard case .string(let text, _) = value, options.contains(text) else {
            throw InputFileError(value.location, "\(path).\(key): expected one of \(options.map { "\"\($0)\"" }.joined(separator: ", ")), found \(value.kindName)")
        }
        return text
    }

    /// Whole numbers are checked against their range before any conversion; by default
    /// that of Int32, where positions and sizes live.
    func integer(_ key: String, required: Bool = false, minimum: Int = Int(Int32.min), maximum: Int = Int(Int32.max)) throws(InputFileError) -> Int? {
        guard let value = try member(key, required: required) else { return nil }
        guard case .number(let number, _) = value, number == number.rounded(), number >= Double(minimum), number <= Double(maximum) else {
            var wanted = minimum >= 0 ? (minimum == 0 ? "a whole number of 0 or more" : "a whole number of \(minimum) or more") : "a whole number"
            if maximum < Int(Int32.max), case .number(let number, _) = value, number > Double(maximum) {
                wanted = "a whole number from \(minimum) to \(maximum) (InputLimits.outputDimension)"
            }
            throw InputFileError(value.location, "\(path).\(key): expected \(wanted), found \(value.kindName)")
        }
        return Int(number)
    }

    func number(_ key: String, range: ClosedRange<Double>) throws(InputFileError) -> Double? {
        guard let value = try member(key, required: false) else { return nil }
        guard case .number(let number, _) = value, range.contains(number) else {
            throw InputFileError(value.location, "\(path).\(key): expected a number from \(range.lowerBound.formatted) to \(range.upperBound.formatted), found \(value.kindName)")
        }
        return number
    }

    func bool(_ key: String) throws(InputFileError) -> Bool? {
        guard let value = try member(key, required: false) else { return nil }
        guard case .bool(let flag, _) = value else {
            throw InputFileError(value.location, "\(path).\(key): expected true or false, found \(value.kindName)")
        }
        return flag
    }

    func array(_ key: String, required: Bool) throws(InputFileError) -> [LocatedJSON] {
        guard let value = try member(key, required: required) else { return [] }
        guard case .array(let items, _) = value else {
            throw InputFileError(value.location, "\(path).\(key): expected an array, found \(value.kindName)")
        }
        return items
    }

    /// `[[x, y, w, h], …]` adds rectangles; `{"add": […], "subtract": […]}` follows wl_region.
    func region(_ key: String) throws(InputFileError) -> Region<SurfaceSpace>? {
        guard let value = try member(key, required: false) else { return nil }
        var listed = 0
        func rects(_ list: LocatedJSON, _ where_: String) throws(InputFileError) -> [Rect<SurfaceSpace>] {
            guard case .array(let items, _) = list else {
                throw InputFileError(list.location, "\(where_): expected an array of [x, y, width, height], found \(list.kindName)")
            }
            listed += items.count
            guard listed <= InputLimits.regionRectangles else {
                throw InputFileError(list.location, "\(where_): an input region may list at most \(InputLimits.regionRectangles) rectangles (InputLimits.regionRectangles)")
            }
            return try items.enumerated().map { (i, item) throws(InputFileError) in
                guard case .array(let numbers, _) = item, numbers.count == 4,
                      case .number(let x, _) = numbers[0], case .number(let y, _) = numbers[1],
                      case .number(let w, _) = numbers[2], case .number(let h, _) = numbers[3],
                      [x, y, w, h].allSatisfy({ $0 == $0.rounded() && abs($0) <= Double(Int32.max) }), w >= 0, h >= 0 else {
                    throw InputFileError(item.location, "\(where_)[\(i)]: expected [x, y, width, height] as whole numbers with width and height 0 or more")
                }
                return Rect(x: Int(x), y: Int(y), width: Int(w), height: Int(h))
            }
        }
        switch value {
        case .array:
            return Region(rects: try rects(value, "\(path).\(key)"))
        case .object:
            let reader = try ObjectReader(value, path: "\(path).\(key)")
            var region = Region<SurfaceSpace>()
            if let add = try reader.member("add", required: false) { for rect in try rects(add, "\(path).\(key).add") { region.add(rect) } }
            if let cut = try reader.member("subtract", required: false) { for rect in try rects(cut, "\(path).\(key).subtract") { region.subtract(rect) } }
            try reader.rejectUnknownKeys()
            return region
        default:
            throw InputFileError(value.location, "\(path).\(key): expected an array of rectangles or {\"add\": …, \"subtract\": …}, found \(value.kindName)")
        }
    }

    func rejectUnknownKeys() throws(InputFileError) {
        for member in members where !asked.contains(member.key) {
            throw InputFileError(member.keyLocation, "\(path): unknown key \"\(member.key)\"; expected one of \(asked.map { "\"\($0)\"" }.joined(separator: ", "))")
        }
    }
}
