internal import CXKBCommon
import Foundation
import TOMLKit
import TouchRouterCore

extension ServerConfiguration {
    /// The largest file read: a configuration is a page or two; this is a guard, not a need.
    public static let maximumFileBytes = 1 << 20
    /// What a program name in `[privileges]` should have been, or nil: an executable's file
    /// name, or an absolute path (a relative one would depend on the session's directory).
    static func programNameProblem(_ name: String) -> String? {
        if name.isEmpty || name.utf8.contains(0) { return "an executable's name or absolute path" }
        if name.contains("/"), !name.hasPrefix("/") { return "an absolute path or a bare executable name, not a relative path" }
        if name.hasSuffix("/") { return "an executable's path, not a directory" }
        return nil
    }

    /// `[privileges]`' keys: one for each privilege.
    static var privilegeKeys: [String] { Privilege.allCases.map(\.rawValue) }
    static let topLevelKeys = ["recognizer", "bind", "app", "keyboard", "hold", "gestures", "touchscreen", "output", "input", "cursor", "idle", "stats", "privileges", "environment", "supervise", "xwayland"]

    /// `$XDG_CONFIG_HOME/touch-router/config.toml`, or `$HOME/.config/touch-router/config.toml`
    /// where XDG_CONFIG_HOME is unset, empty or relative (as the XDG base directory
    /// specification says); nil without either.
    public static func defaultPath(environment: [String: String]) -> String? {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") { return config + "/touch-router/config.toml" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.config/touch-router/config.toml" }
        return nil
    }

    /// Reads a configuration file. Every error names the file, line and column.
    public static func load(path: String) throws(ConfigurationError) -> ServerConfiguration {
        let bytes: [UInt8]
        do {
            bytes = try RegularFile.read(path: path, limit: maximumFileBytes)
        } catch {
            let message = error.description == "not a regular file" ? "not a regular file: expected a TOML file"
                : error.description.replacing("cannot read the file", with: "cannot read the configuration file")
            throw ConfigurationError(file: path, position: SourcePosition(line: 1, column: 1), message: message)
        }
        return try parse(bytes: bytes, file: path)
    }

    /// Checks the bytes before TOMLKit sees them: it reads a C string, so a NUL would end
    /// the document early without a word, and an error past bad UTF-8 would be misplaced.
    public static func parse(bytes: [UInt8], file: String) throws(ConfigurationError) -> ServerConfiguration {
        var line = 1, column = 1
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        decoding: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                if scalar == "\0" { throw ConfigurationError(file: file, position: SourcePosition(line: line, column: column), message: "a NUL character: expected TOML text") }
                if scalar == "\n" { line += 1; column = 1 } else { column += 1 }
            case .emptyInput:
                break decoding
            case .error:
                throw ConfigurationError(file: file, position: SourcePosition(line: line, column: column), message: "bytes that are not UTF-8: expected TOML text in UTF-8")
            }
        }
        return try parse(String(decoding: bytes, as: UTF8.self), file: file)
    }

    /// Reads a configuration from TOML text; `file` names it in errors.
    public static func parse(_ text: String, file: String) throws(ConfigurationError) -> ServerConfiguration {
        if let failure = TOMLSyntax.check(text) {
            throw ConfigurationError(file: file, position: SourcePosition(line: failure.line, column: failure.column), message: failure.message)
        }
        let root: TOMLTable
        do {
            root = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            let position = SourcePosition(line: max(1, error.source.begin.line), column: max(1, error.source.begin.column))
            throw ConfigurationError(file: file, position: position, message: "\(error.description): expected TOML (toml.io, v1.0.0)")
        } catch {
            throw ConfigurationError(file: file, position: SourcePosition(line: 1, column: 1), message: "\(error): expected TOML (toml.io, v1.0.0)")
        }
        let document = Document(file: file, text: text)
        var reader = TableReader(document, root, path: [], name: "")
        var configuration = ServerConfiguration()
        configuration.source.file = file
        for key in root.keys { configuration.source.sections[key] = document.locator.key([.key(key)]) }

        let recognizers = try RecognizerReader.read(try reader.arrayOfTables("recognizer"), document: document)
        configuration.gestures.recognizers = recognizers.specs
        configuration.source.recognizers = recognizers.positions
        configuration.bindings = try BindingReader.read(try reader.arrayOfTables("bind"), recognizers: recognizers.specs, document: document)
        if let gestures = try reader.table("gestures") { try readGestures(gestures, into: &configuration.gestures, document) }
        if let hold = try reader.table("hold") {
            try readHold(hold, into: &configuration.gestures, document)
            configuration.source.zones = configuration.gestures.holdZones.indices.map { document.locator.key([.key("hold"), .key("zone"), .index($0)]) }
        }
        if let apps = try reader.table("app") { configuration.applications = try readApplications(apps, document) }
        if let keyboard = try reader.table("keyboard") {
            (configuration.keyboard, configuration.oskNamespace) = try readKeyboard(keyboard, document)
            configuration.source.keyboard = document.locator.key([.key("keyboard")])
        }
        if let cursor = try reader.table("cursor") {
            var cursorReader = TableReader(document, cursor, path: [.key("cursor")], name: "[cursor]")
            // 0 keeps the cursor until a touch.
            if let hideAfter = try cursorReader.milliseconds("hide-after-ms", in: 0...3_600_000) { configuration.cursor.hideAfter = hideAfter == 0 ? nil : hideAfter }
            try cursorReader.finish(allowed: ["hide-after-ms"])
        }
        if let idle = try reader.table("idle") {
            var idleReader = TableReader(document, idle, path: [.key("idle")], name: "[idle]")
            // 0 turns it off; at most 30 days, which keeps the nanoseconds well inside Int64.
            let seconds = { (value: Double) -> Int64? in value == 0 ? nil : Int64((value * 1_000_000_000).rounded()) }
            if let dim = try idleReader.number("dim-after", in: 0...2_592_000, unit: " s") { configuration.idle.dimAfter = seconds(dim) }
            if let blank = try idleReader.number("blank-after", in: 0...2_592_000, unit: " s") { configuration.idle.blankAfter = seconds(blank) }
            if let blanking = try idleReader.choice("blanking", [("power-off", IdleBlanking.powerOff), ("black", .black)]) { configuration.idle.blanking = blanking }
            if let wakeKeys = try idleReader.choice("waking-keys", [("swallow", false), ("deliver", true)]) { configuration.idle.letWakingKeysThrough = wakeKeys }
            try idleReader.finish(allowed: ["dim-after", "blank-after", "blanking", "waking-keys"])
        }
        if let stats = try reader.table("stats") {
            var statsReader = TableReader(document, stats, path: [.key("stats")], name: "[stats]")
            // 0 keeps every event that reached a client.
            if let slow = try statsReader.milliseconds("slow-ms", in: 0...3_600_000) { configuration.stats.slowThreshold = slow }
            try statsReader.finish(allowed: ["slow-ms"])
        }
        if let privileges = try reader.table("privileges") {
            var privilegesReader = TableReader(document, privileges, path: [.key("privileges")], name: "[privileges]")
            for privilege in Privilege.allCases {
                guard let programs = try privilegesReader.strings(privilege.rawValue, check: Self.programNameProblem) else { continue }
                guard programs.count <= 256 else {
                    throw document.error(value: [.key("privileges"), .key(privilege.rawValue)], "privileges.\(privilege.rawValue): \(programs.count) programs, past 256, the most it may name")
                }
                configuration.privileges.programs[privilege] = programs
            }
            try privilegesReader.finish(allowed: privilegeKeys)
        }
        if let environment = try reader.table("environment") { configuration.environment = try readEnvironment(environment, document) }
        if let supervise = try reader.table("supervise") { configuration.supervise = try readSupervise(supervise, document) }
        if let xwayland = try reader.table("xwayland") { configuration.xwayland = try readXWayland(xwayland, document) }
        configuration.touchscreens = try TouchscreenReader.read(try reader.arrayOfTables("touchscreen"), document: document)
        configuration.outputs = try OutputReader.read(try reader.arrayOfTables("output"), document: document)
        configuration.inputs = try InputReader.read(try reader.arrayOfTables("input"), document: document)
        try reader.finish(allowed: topLevelKeys.map { ["recognizer", "bind", "touchscreen", "output", "input"].contains($0) ? "[[\($0)]]" : "[\($0)]" })
        return configuration
    }

    /// `[xwayland]`: `enable = true | false | "lazy"`.
    private static func readXWayland(_ table: TOMLTable, _ document: Document) throws(ConfigurationError) -> XWaylandMode {
        var reader = TableReader(document, table, path: [.key("xwayland")], name: "[xwayland]")
        var mode = XWaylandMode.off
        if let value = table["enable"] {
            reader.markRead("enable")
            if let flag = value.bool { mode = flag ? .on : .off }
            else if value.string == "lazy" { mode = .lazy }
            else if let text = value.string {
                throw document.error(value: [.key("xwayland"), .key("enable")], "xwayland.enable: expected true, false or \"lazy\", found \"\(text)\"")
            } else { throw reader.wrongType("enable", expected: "true, false or \"lazy\"", found: value) }
        }
        try reader.finish(allowed: ["enable"])
        return mode
    }

    /// `[supervise]`: the app `run --supervise` restarts, and how (docs/supervision.md).
    private static func readSupervise(_ table: TOMLTable, _ document: Document) throws(ConfigurationError) -> SupervisionSettings {
        var reader = TableReader(document, table, path: [.key("supervise")], name: "[supervise]")
        var settings = SupervisionSettings()
        // Seconds, at most a day, as nanoseconds; the ranges keep every sum and doubling inside Int64.
        func seconds(_ key: String, in range: ClosedRange<Double>) throws(ConfigurationError) -> Int64? {
            guard let value = try reader.number(key, in: range, unit: " s") else { return nil }
            return Int64((value * 1_000_000_000).rounded())
        }
        if reader.has("command") { settings.command = try BindingReader.command(&reader) }
        if reader.has("fallback") { settings.fallback = try BindingReader.command(&reader, key: "fallback") }
        settings.restart = try reader.choice("restart", RestartPolicy.allCases.map { ($0.rawValue, $0) }) ?? settings.restart
        settings.backoffInitial = try seconds("backoff-initial", in: 0...86_400) ?? settings.backoffInitial
        settings.backoffMax = try seconds("backoff-max", in: 0...86_400) ?? settings.backoffMax
        settings.resetAfter = try seconds("reset-after", in: 0...86_400) ?? settings.resetAfter
        settings.maxFailures = try reader.integer("max-failures", in: 1...1_000) ?? settings.maxFailures
        settings.window = try seconds("window", in: 0...86_400) ?? settings.window
        // 0 turns pinging off.
        if let hangAfter = try seconds("hang-after", in: 0...3_600) { settings.hangAfter = hangAfter == 0 ? nil : hangAfter }
        settings.pingEvery = try seconds("ping-every", in: 0.1...3_600) ?? settings.pingEvery
        settings.onHang = try reader.choice("on-hang", HangPolicy.allCases.map { ($0.rawValue, $0) }) ?? settings.onHang
        if settings.backoffMax < settings.backoffInitial {
            throw document.error(value: [.key("supervise"), .key("backoff-max")],
                                 "supervise.backoff-max: expected at least backoff-initial (\(AppSupervisorText.seconds(settings.backoffInitial)) s), found \(AppSupervisorText.seconds(settings.backoffMax))")
        }
        try reader.finish(allowed: ["command", "restart", "backoff-initial", "backoff-max", "reset-after", "max-failures", "window",
                                    "fallback", "hang-after", "ping-every", "on-hang"])
        return settings
    }

    private static func readGestures(_ table: TOMLTable, into gestures: inout GestureConfiguration, _ document: Document) throws(ConfigurationError) {
        var reader = TableReader(document, table, path: [.key("gestures")], name: "[gestures]")
        gestures.fingerLimit = try reader.integer("finger-limit", in: 2...10)
        gestures.maximumDeferralLength = try reader.number("deferral-cap", in: 0...16_384, unit: " px") ?? gestures.maximumDeferralLength
        try reader.finish(allowed: ["finger-limit", "deferral-cap"])
    }

    private static func readHold(_ table: TOMLTable, into gestures: inout GestureConfiguration, _ document: Document) throws(ConfigurationError) {
        var reader = TableReader(document, table, path: [.key("hold")], name: "[hold]")
        gestures.holdLimit = try reader.milliseconds("limit-ms", in: 0...10_000) ?? gestures.holdLimit
        for (index, zone) in try reader.arrayOfTables("zone").enumerated() {
            gestures.holdZones.append(try readZone(zone, path: [.key("hold"), .key("zone"), .index(index)], document))
        }
        try reader.finish(allowed: ["limit-ms", "[[hold.zone]]"])
    }

    private static func readZone(_ table: TOMLTable, path: [PathComponent], _ document: Document) throws(ConfigurationError) -> HoldZone {
        var reader = TableReader(document, table, path: path, name: "[[hold.zone]] \(pathText(path))")
        let output = try reader.string("output")
        try reader.atMostOne(of: ["edges", "rect", "whole-output"])
        let area: HoldZone.Area
        if let edges = try reader.strings("edges", nonEmpty: true, check: { ScreenEdge(rawValue: $0) == nil ? alternatives(ScreenEdge.allCases.map(\.rawValue)) : nil }) {
            guard let width = try reader.number("width", in: 1...16_384, unit: " px") else { throw reader.missing("width", "the band's width in pixels, beside edges") }
            area = .edges(Set(edges.compactMap(ScreenEdge.init(rawValue:))), width: width)
        } else if reader.has("rect") {
            area = .rect(try reader.layoutRect("rect"))
        } else if let whole = try reader.bool("whole-output") {
            guard whole else { throw document.error(value: path + [.key("whole-output")], "\(pathText(path + [.key("whole-output")])): expected true (leave it out otherwise)") }
            area = .wholeOutput
        } else {
            throw reader.missing("edges", "edges (with width), rect = [x, y, width, height] or whole-output = true")
        }
        if !reader.has("edges"), reader.has("width") {
            throw document.error(key: path + [.key("width")], "\(reader.name): 'width' is only for edges")
        }
        try reader.finish(allowed: ["output", "edges", "width", "rect", "whole-output"])
        return HoldZone(output: output, area: area)
    }

    private static func readApplications(_ table: TOMLTable, _ document: Document) throws(ConfigurationError) -> [String: ApplicationPolicy] {
        var policies: [String: ApplicationPolicy] = [:]
        var reader = TableReader(document, table, path: [.key("app")], name: "[app]")
        for appID in table.keys.sorted(by: { document.locator.key([.key("app"), .key($0)]) < document.locator.key([.key("app"), .key($1)]) }) {
            let path: [PathComponent] = [.key("app"), .key(appID)]
            guard !appID.isEmpty else { throw document.error(key: path, "[app.\"\"]: expected an xdg_toplevel app id, not an empty one") }
            guard let policyTable = try reader.table(appID) else { continue }
            var policyReader = TableReader(document, policyTable, path: path, name: "[\(pathText(path))]")
            var policy = ApplicationPolicy()
            policy.touch = try policyReader.bool("touch") ?? policy.touch
            policy.keyboardFocus = try policyReader.bool("keyboard-focus") ?? policy.keyboardFocus
            policy.exclusiveTouch = try policyReader.bool("exclusive-touch") ?? policy.exclusiveTouch
            policy.multipleTouch = try policyReader.bool("multiple-touch") ?? policy.multipleTouch
            policy.interaction = try policyReader.bool("interaction") ?? policy.interaction
            policy.kioskWindow = try policyReader.choice("kiosk-window", KioskWindowState.allCases.map { ($0.rawValue, $0) }) ?? policy.kioskWindow
            try policyReader.finish(allowed: ["touch", "keyboard-focus", "exclusive-touch", "multiple-touch", "interaction", "kiosk-window"])
            policies[appID] = policy
        }
        return policies
    }

    /// The most variables `[environment]` may set: a guard, not a need.
    static let maximumEnvironmentVariables = 256
    /// Variables the session sets itself for each program, from its own sockets.
    static let sessionOwnedVariables: Set<String> = ["WAYLAND_DISPLAY", "WAYLAND_SOCKET", "TOUCH_ROUTER_SOCKET"]

    private static func readEnvironment(_ table: TOMLTable, _ document: Document) throws(ConfigurationError) -> [String: String] {
        var reader = TableReader(document, table, path: [.key("environment")], name: "[environment]")
        guard table.keys.count <= maximumEnvironmentVariables else {
            throw document.error(key: [.key("environment")], "[environment]: \(table.keys.count) variables, past \(maximumEnvironmentVariables), the most it may set")
        }
        var variables: [String: String] = [:]
        for name in table.keys {
            let path: [PathComponent] = [.key("environment"), .key(name)]
            guard isVariableName(name) else {
                throw document.error(key: path, "environment.\(name): expected a variable name of letters, digits and underscores, not starting with a digit")
            }
            guard !sessionOwnedVariables.contains(name) else {
                throw document.error(key: path, "environment.\(name): the session sets this one itself, for its own sockets")
            }
            guard let value = try reader.string(name, nonEmpty: false) else { continue }
            guard !value.utf8.contains(0) else { throw document.error(value: path, "environment.\(name): expected a value without NUL") }
            variables[name] = value
        }
        try reader.finish(allowed: Array(table.keys))
        return variables
    }

    static func isVariableName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
        return name.utf8.allSatisfy { $0 == UInt8(ascii: "_") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
            || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
    }

    private static func readKeyboard(_ table: TOMLTable, _ document: Document) throws(ConfigurationError) -> (KeyboardSettings, oskNamespace: String?) {
        var reader = TableReader(document, table, path: [.key("keyboard")], name: "[keyboard]")
        var settings = KeyboardSettings()
        settings.layout = try reader.string("layout")
        settings.variant = try reader.string("variant", nonEmpty: false)
        settings.options = try reader.string("options", nonEmpty: false)
        settings.repeatRate = try reader.integer("repeat-rate", in: 0...1000) ?? settings.repeatRate
        settings.repeatDelay = try reader.integer("repeat-delay", in: 0...10_000) ?? settings.repeatDelay
        let oskNamespace = try reader.string("osk-namespace")
        try reader.finish(allowed: ["layout", "variant", "options", "repeat-rate", "repeat-delay", "osk-namespace"])
        for (key, value) in [("layout", settings.layout), ("variant", settings.variant), ("options", settings.options), ("osk-namespace", oskNamespace)] where value?.contains("\0") == true {
            throw document.error(value: [.key("keyboard"), .key(key)], "keyboard.\(key): expected a name without NUL")
        }
        if let problem = KeymapCheck.problem(settings) {
            throw document.error(key: [.key("keyboard")], "[keyboard]: \(problem)")
        }
        return (settings, oskNamespace)
    }
}

/// Whether xkbcommon can compile a keymap from the names, so that a layout it does not
/// know is an error in the file, with its place, rather than in the session.
enum KeymapCheck {
    static func problem(_ settings: KeyboardSettings) -> String? {
        guard settings.layout != nil || settings.variant != nil || settings.options != nil else { return nil }
        guard let context = xkb_context_new(XKB_CONTEXT_NO_FLAGS) else { return "xkbcommon could not start (xkb_context_new failed)" }
        defer { xkb_context_unref(context) }
        let keymap: OpaquePointer? = withOptionalCString(settings.layout) { layout in
            withOptionalCString(settings.variant) { variant in
                withOptionalCString(settings.options) { options in
                    var names = xkb_rule_names(rules: nil, model: nil, layout: layout, variant: variant, options: options)
                    return xkb_keymap_new_from_names(context, &names, XKB_KEYMAP_COMPILE_NO_FLAGS)
                }
            }
        }
        guard let keymap else {
            let parts = [("layout", settings.layout), ("variant", settings.variant), ("options", settings.options)].compactMap { name, value in value.map { "\(name) \"\($0)\"" } }
            return "xkbcommon cannot compile a keymap from \(parts.joined(separator: ", ")): expected names from xkb-data (localectl list-x11-keymap-layouts lists the layouts)"
        }
        xkb_keymap_unref(keymap)
        return nil
    }
}

func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let string else { return body(nil) }
    return string.withCString { body($0) }
}
