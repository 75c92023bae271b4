import TOMLKit
import TouchRouterCore

/// `[[bind]]` tables: one trigger (a gesture's state, a key chord, a switch, or a press on
/// an output's background), and one action.
enum BindingReader {
    static let keys = ["gesture", "state", "keys", "switch", "background", "action", "command", "event", "while-locked"]
    static let actions = ["exec", "close", "focus-next", "toggle-ignore-interaction", "quit", "emit"]
    static let gestureStates: [GestureState] = [.began, .changed, .ended, .cancelled, .recognized]
    /// What a binding without `state` waits for: the gesture's success, whichever way its
    /// kind reports it (a tap is recognized, a pan ends).
    static let defaultGestureStates: Set<GestureState> = [.recognized, .ended]

    static func read(_ tables: [TOMLTable], recognizers: [GestureSpec], document: Document) throws(ConfigurationError) -> [Binding] {
        var bindings: [Binding] = []
        var seen: [Trigger: SourcePosition] = [:]
        for (index, table) in tables.enumerated() {
            let path: [PathComponent] = [.key("bind"), .index(index)]
            var reader = TableReader(document, table, path: path, name: "[[bind]] \(pathText(path))")
            let trigger = try readTrigger(&reader, recognizers: recognizers)
            let action = try readAction(&reader)
            let whileLocked = try reader.bool("while-locked") ?? false
            if whileLocked, case .gesture = trigger {
                throw document.error(value: path + [.key("while-locked")], "\(pathText(path + [.key("while-locked")])): no recognizer runs while the session is locked: expected it on a keys or switch binding")
            }
            try reader.finish(allowed: keys)
            let position = document.locator.key(path)
            if let earlier = seen[trigger] {
                throw document.error(key: path, "\(pathText(path)): \(trigger) is bound already at line \(earlier.line): expected each trigger once")
            }
            seen[trigger] = position
            var binding = Binding(trigger: trigger, action: action, position: position)
            binding.whileLocked = whileLocked
            bindings.append(binding)
        }
        return bindings
    }

    private static func readTrigger(_ reader: inout TableReader, recognizers: [GestureSpec]) throws(ConfigurationError) -> Trigger {
        try reader.atMostOne(of: ["gesture", "keys", "switch", "background"])
        if let name = try reader.string("gesture") {
            guard recognizers.contains(where: { $0.name == name }) else {
                let names = recognizers.isEmpty ? "a recognizer's name (none is declared)" : alternatives(recognizers.map { "\"\($0.name)\"" })
                throw reader.document.error(value: reader.keyPath("gesture"), "\(pathText(reader.keyPath("gesture"))): \"\(name)\" is not a recognizer: expected \(names)")
            }
            let state = try reader.choice("state", gestureStates.map { ($0.rawValue, $0) })
            return .gesture(name, states: state.map { [$0] } ?? defaultGestureStates)
        }
        if let text = try reader.string("keys") {
            do {
                return .keys(try KeyChord.parse(text))
            } catch {
                let path = reader.keyPath("keys")
                let problem: String
                switch error {
                case .empty, .noKey: problem = "expected modifiers and a key, such as \"Ctrl+Alt+BackSpace\", found \"\(text)\""
                case .unknownModifier(let word): problem = "'\(word)' is not a modifier: expected Ctrl, Alt, Shift or Super before the key"
                case .unknownKey(let name): problem = "'\(name)' is not an XKB keysym name: expected one such as BackSpace, Escape, F1 or a"
                }
                throw reader.document.error(value: path, "\(pathText(path)): \(problem)")
            }
        }
        if let kind = try reader.choice("switch", SwitchKind.allCases.map { ($0.rawValue, $0) }) {
            let state = try reader.choice("state", [("on", SwitchState.on), ("off", .off)]) ?? .on
            return .switchToggle(kind, state)
        }
        if let output = try reader.string("background") {
            if reader.has("state") {
                throw reader.document.error(key: reader.keyPath("state"), "\(reader.name): 'state' needs a gesture or switch, not a background: expected it left out")
            }
            return .background(output)
        }
        if reader.has("state") {
            throw reader.document.error(key: reader.keyPath("state"), "\(reader.name): 'state' needs a gesture or switch: expected gesture = \"NAME\" or switch = \"lid\" beside it")
        }
        throw reader.missing("gesture', 'keys', 'switch' or 'background", "what sets the action off")
    }

    private static func readAction(_ reader: inout TableReader) throws(ConfigurationError) -> Action {
        guard let name = try reader.choice("action", actions.map { ($0, $0) }) else {
            throw reader.missing("action", alternatives(actions))
        }
        if name != "exec", reader.has("command") {
            throw reader.document.error(key: reader.keyPath("command"), "\(reader.name): 'command' is only for action = \"exec\", not \"\(name)\"")
        }
        if name != "emit", reader.has("event") {
            throw reader.document.error(key: reader.keyPath("event"), "\(reader.name): 'event' is only for action = \"emit\", not \"\(name)\"")
        }
        switch name {
        case "exec":
            return .exec(try command(&reader))
        case "emit":
            guard let event = try reader.string("event") else { throw reader.missing("event", "the name subscribers receive") }
            return .emit(event)
        case "close": return .closeFocused
        case "focus-next": return .focusNext
        case "toggle-ignore-interaction": return .toggleIgnoreInteraction
        default: return .quit
        }
    }

    /// A string runs through /bin/sh -c; an array is the program and its arguments.
    static func command(_ reader: inout TableReader, key: String = "command") throws(ConfigurationError) -> [String] {
        guard reader.has(key) else { throw reader.missing(key, "a string for /bin/sh -c, or an array of the program and its arguments") }
        if reader.table[key]?.type == .array {
            return try reader.strings(key, nonEmpty: true) { $0.contains("\0") ? "a string without NUL" : nil }!
        }
        guard let line = try reader.string(key) else { throw reader.missing(key, "a string") }
        guard !line.contains("\0") else { throw reader.document.error(value: reader.keyPath(key), "\(pathText(reader.keyPath(key))): expected a command without NUL") }
        return ["/bin/sh", "-c", line]
    }
}
