import TouchRouterCore

/// Everything a configuration file says (docs/configuration.md): the core's gesture
/// configuration, what gestures, key chords and switches do, how each application's
/// surfaces take input, and the keyboard's layout.
public struct ServerConfiguration: Sendable, Equatable {
    public var gestures = GestureConfiguration()
    public var bindings: [Binding] = []
    /// Keyed by xdg_toplevel app id.
    public var applications: [String: ApplicationPolicy] = [:]
    public var keyboard = KeyboardSettings()
    /// `[keyboard] osk-namespace`: the layer-shell namespace of the on-screen keyboard's
    /// layer surfaces, shown only while the focused surface has an enabled text input.
    public var oskNamespace: String?
    /// `[cursor]`: when the compositor's cursor hides.
    public var cursor = CursorSettings()
    /// `[idle]`: when the outputs dim and go dark without input, and what waking swallows.
    public var idle = IdleSettings()
    /// `[stats]`: which events `msg stats slow` keeps.
    public var stats = StatsSettings()
    /// `[privileges]`: which programs may see the globals that let a client inject input.
    public var privileges = PrivilegeSettings()
    /// `[[touchscreen]]` tables, in the file's order: the first that matches a device wins.
    public var touchscreens: [TouchscreenRule] = []
    /// `[[output]]` tables: each output's mode and transform, over its backend's choice.
    public var outputs: [OutputRule] = []
    /// `[[input]]` tables, in the file's order: every one that matches a device applies.
    public var inputs: [InputRule] = []
    /// `[environment]`: variables set for every program the session starts, over its defaults.
    public var environment: [String: String] = [:]
    /// `[supervise]`: the app `run --supervise` restarts, and when a client counts as hung;
    /// nil without the table. Read when the session starts; a reload does not change it.
    public var supervise: SupervisionSettings?
    /// `[xwayland] enable`: whether X11 apps can run. Read when the session starts; a reload does not change it.
    public var xwayland = XWaylandMode.off
    /// The file it was read from, and where its recognizers were declared, for the errors
    /// that only the core's own validation finds.
    public var source = SourceNotes()

    public init() {}

    public static func == (a: ServerConfiguration, b: ServerConfiguration) -> Bool {
        a.gestures == b.gestures && a.bindings == b.bindings && a.applications == b.applications && a.keyboard == b.keyboard && a.oskNamespace == b.oskNamespace
            && a.cursor == b.cursor && a.idle == b.idle && a.stats == b.stats && a.privileges == b.privileges
            && a.touchscreens == b.touchscreens && a.outputs == b.outputs && a.inputs == b.inputs && a.environment == b.environment && a.supervise == b.supervise
            && a.xwayland == b.xwayland
    }
}

/// `[xwayland] enable`: `false` (the default) runs no Xwayland; `true` starts it with the
/// session; `"lazy"` when the first X11 client connects to DISPLAY, as sway does.
public enum XWaylandMode: String, Sendable, Equatable {
    case off, on, lazy
}

public struct SourceNotes: Sendable {
    public var file = ""
    /// Each recognizer's `[[recognizer]]` header.
    public var recognizers: [String: SourcePosition] = [:]
    /// The `[keyboard]` table's header, or the top of the file.
    public var keyboard = SourcePosition(line: 1, column: 1)
    /// Each `[[hold.zone]]` header, in order.
    public var zones: [SourcePosition] = []
    /// Where each top-level key (`hold`, `gestures`, the first `[[recognizer]]`) was written.
    public var sections: [String: SourcePosition] = [:]
    public init() {}

    public func error(at position: SourcePosition, _ message: String) -> ConfigurationError {
        ConfigurationError(file: file, position: position, message: message)
    }
}

/// What sets an action off.
public enum Trigger: Hashable, Sendable, CustomStringConvertible {
    /// A recognizer of this name reaching one of these states.
    case gesture(String, states: Set<GestureState>)
    case keys(KeyChord)
    case switchToggle(SwitchKind, SwitchState)
    /// A touch down or button press on this output's background: where no client took it,
    /// so it reached the output's link of the chain.
    case background(String)

    public var description: String {
        switch self {
        case .gesture(let name, let states): "gesture \(name) \(states.map(\.rawValue).sorted().joined(separator: "|"))"
        case .keys(let chord): "keys \(chord)"
        case .switchToggle(let kind, let state): "switch \(kind.rawValue) \(state.rawValue)"
        case .background(let output): "background \(output)"
        }
    }
}

public enum Action: Hashable, Sendable, CustomStringConvertible {
    /// A program and its arguments; a command written as one string is `["/bin/sh", "-c", it]`.
    case exec([String])
    /// xdg_toplevel.close to the toplevel that holds the keyboard focus.
    case closeFocused
    /// The keyboard focus to the next toplevel that takes it, in stacking order, and raises it.
    case focusNext
    case toggleIgnoreInteraction
    case quit
    /// An event of this name to `msg subscribe`'s readers.
    case emit(String)

    /// The name the file uses.
    public var name: String {
        switch self {
        case .exec: "exec"
        case .closeFocused: "close"
        case .focusNext: "focus-next"
        case .toggleIgnoreInteraction: "toggle-ignore-interaction"
        case .quit: "quit"
        case .emit: "emit"
        }
    }

    public var description: String {
        switch self {
        case .exec(let argv): "exec \(argv.joined(separator: " "))"
        case .emit(let event): "emit \(event)"
        default: name
        }
    }
}

public struct Binding: Hashable, Sendable {
    public var trigger: Trigger
    public var action: Action
    /// `while-locked`: a key chord or switch that still runs while the session is locked.
    public var whileLocked = false
    /// Where its `[[bind]]` table starts.
    public var position: SourcePosition

    public init(trigger: Trigger, action: Action, position: SourcePosition = SourcePosition(line: 1, column: 1)) {
        self.trigger = trigger
        self.action = action
        self.position = position
    }

    public static func == (a: Binding, b: Binding) -> Bool { a.trigger == b.trigger && a.action == b.action && a.whileLocked == b.whileLocked }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(trigger)
        hasher.combine(action)
    }
}

/// How an application's surfaces (its toplevel, subsurfaces and popups) take input.
public struct ApplicationPolicy: Hashable, Sendable {
    /// False: the client is treated as having no wl_touch, so touches reach it as pointer
    /// emulation (the whole client, since the router keeps capabilities per client).
    public var touch = true
    /// False: its surfaces never take the keyboard focus (an on-screen keyboard).
    public var keyboardFocus = true
    public var exclusiveTouch = false
    public var multipleTouch = true
    /// False: its surfaces take no touch or pointer input at all.
    public var interaction = true
    /// How its toplevels are configured in kiosk mode.
    public var kioskWindow = KioskWindowState.fullscreen

    public init() {}

    /// The surface properties this policy decides.
    public func apply(to properties: inout SurfaceProperties) {
        properties.acceptsKeyboardFocus = keyboardFocus
        properties.exclusiveTouch = exclusiveTouch
        properties.multipleTouch = multipleTouch
        properties.interactionEnabled = interaction
    }
}

/// The state a kiosk configures a toplevel with: either way it fills the area the layer
/// surfaces leave, and toolkits draw no title bar over a fullscreen one.
public enum KioskWindowState: String, Sendable, CaseIterable {
    case fullscreen
    case maximized
}

/// `[cursor]`: the compositor's cursor hides after `hideAfter` nanoseconds without pointer
/// activity (nil: never), and at a touch.
public struct CursorSettings: Sendable, Equatable {
    public var hideAfter: Int64? = 5_000_000_000
    public init() {}
}

/// `[idle]`: the seat's idle timer. Neither time is set by default: a kiosk stays lit until
/// its configuration says otherwise, as cage and sway do without swayidle.
public struct IdleSettings: Sendable, Equatable {
    /// `dim-after`, in nanoseconds (seconds in the file); nil: never.
    public var dimAfter: Int64?
    /// `blank-after`, in nanoseconds (seconds in the file); nil: never.
    public var blankAfter: Int64?
    public var blanking = IdleBlanking.powerOff
    /// `waking-keys = "deliver"`: a key or button that wakes a dark output reaches its
    /// client; by default (`"swallow"`) it reaches nobody, as a waking touch never does.
    public var letWakingKeysThrough = false
    public init() {}

    public var timer: IdleConfiguration { IdleConfiguration(dimAfter: dimAfter, blankAfter: blankAfter) }
}

/// `blanking`: what a dark output is.
public enum IdleBlanking: String, Sendable {
    /// On `drm`, the CRTC goes off (DPMS) and its page flips stop; elsewhere, the state only.
    case powerOff = "power-off"
    /// The output stays on and shows black: for panels that take long to come back from off.
    case black
}

/// `[stats]`: events whose arrival to flushed took longer than `slowThreshold`
/// nanoseconds are kept for `msg stats slow` (Android's 200 ms by default).
/// Programs allowed the privileged globals, each named by its executable: a bare name matches
/// the executable's file name, an absolute path the whole path once symbolic links are
/// resolved (as /proc/PID/exe gives it). Nobody is allowed unless named.
public struct PrivilegeSettings: Sendable, Equatable {
    /// The programs each `[privileges]` key names (`Privilege`'s raw value is the key); a
    /// privilege no key names is no program's.
    public var programs: [Privilege: [String]] = [:]
    public init() {}

    /// Whether `executable` (a resolved absolute path) is one of `names`; `resolve` resolves
    /// a configured path (it may be a symbolic link, as /usr/bin's alternatives are).
    public static func allows(_ names: [String], executable: String, resolve: (String) -> String?) -> Bool {
        let base = executable.split(separator: "/").last.map(String.init) ?? executable
        for name in names {
            if name.hasPrefix("/") {
                if name == executable || resolve(name) == executable { return true }
            } else if name == base {
                return true
            }
        }
        return false
    }
}

public struct StatsSettings: Sendable, Equatable {
    public var slowThreshold: Int64 = 200_000_000
    public init() {}
}

/// xkbcommon's rule names (nil leaves a name to XKB_DEFAULT_* and xkbcommon's defaults), and
/// key repeat as clients are told it (wl_keyboard.repeat_info), sway's defaults.
public struct KeyboardSettings: Hashable, Sendable {
    public var layout: String?
    public var variant: String?
    public var options: String?
    /// Repeated keys a second; 0 turns repeat off.
    public var repeatRate: Int
    /// Milliseconds a key is held before it repeats.
    public var repeatDelay: Int
    public init(layout: String? = nil, variant: String? = nil, options: String? = nil, repeatRate: Int = 25, repeatDelay: Int = 600) {
        self.layout = layout
        self.variant = variant
        self.options = options
        self.repeatRate = repeatRate
        self.repeatDelay = repeatDelay
    }
}

/// An error in a configuration file: where, and what was expected.
public struct ConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    public var file: String
    public var position: SourcePosition
    public var message: String

    public init(file: String, position: SourcePosition, message: String) {
        self.file = file
        self.position = position
        self.message = message
    }

    public var description: String { "\(file):\(position.line):\(position.column): error: \(message)" }
}

enum AppSupervisorText {
    static func seconds(_ nanoseconds: Int64) -> String { formatted(Double(nanoseconds) / 1_000_000_000) }
}
