import CWaylandShim
import TouchRouterConfig
import TouchRouterCore
import TouchRouterReplay
#if canImport(Glibc)
import Glibc
#endif

/// The compositor's side of the session, driven by the configuration file
/// (docs/configuration.md): it hands the core its recognizers, applies each application's
/// policy to its surfaces, runs what gestures, key chords and switches are bound to, and
/// tells `msg subscribe`'s readers what happened. Reloading replaces all of it at once,
/// or, when anything in the new file fails, none of it.
public final class ServerShell {
    package unowned let server: WaylandServer
    public private(set) var configuration = ServerConfiguration()
    /// What `reload` reads: the file given with --config (which must exist), or the
    /// default path (which may not: then the configuration is the default one).
    public var source: ConfigurationSource?
    /// Where the session starts programs (`run`): `[environment]` is exported for them.
    package var childEnvironment: ChildEnvironment?
    package weak var sink: (any ShellEventSink)?

    /// The policy last applied to each toplevel in the tree, by its surface.
    private var appliedPolicies: [SurfaceID: ApplicationPolicy] = [:]
    /// The keyboard the current keymap was compiled for.
    package private(set) var keyboard: KeyboardSettings
    package var keyBindings: [KeyChord: Binding] = [:]
    package var switchBindings: [Trigger: Binding] = [:]
    /// By output name: what a press on that output's background runs.
    package var backgroundBindings: [String: Binding] = [:]
    package var gestureBindings: [String: [Binding]] = [:]
    /// What the last configuration's `[[output]]` tables could not set, each saying why.
    public private(set) var outputProblems: [String] = []
    /// Keys whose press a chord took: their release is the chord's too.
    package var swallowedKeys: Set<UInt32> = []
    /// Whether the toggle action began ignoring interaction (and so is the one to end it).
    package var ignoringInteraction = false
    private var reportedFocus: SurfaceID?
    private var gestureTimer: OneShotTimer?
    private var armedDeadline: RouterTime?
    private var responders: [any CompositorResponder] = []

    package init(server: WaylandServer) {
        self.server = server
        keyboard = KeyboardSettings(layout: server.options.keyboardLayout)
    }

    /// Takes the shell's places in the core: the gesture observer, the shell and
    /// delegate links, and the timer that gives recognizers and held touches their deadlines.
    package func install() throws(WaylandError) {
        server.router.gestureObserver = self
        let shell = ShellResponder(shell: self), delegate = DelegateResponder(shell: self)
        responders = [shell, delegate]
        server.router.attach(shell, to: .shell)
        server.router.attach(delegate, to: .shellDelegate)
        for output in server.outputs { outputAdded(output) }
        gestureTimer = try server.display.oneShotTimer { [unowned self] in self.gestureDeadlinePassed() }
        server.display.afterSettle = { [unowned self] in self.roundEnded() }
    }

    /// An output's link of the chain: a touch on its background.
    package func outputAdded(_ output: VirtualOutput) {
        // A moving finger first: it was given back by its client, and no binding may take it.
        let move = MoveResponder(server: server, output: output.name)
        responders.append(move)
        server.router.attach(move, to: .output(output.id))
        let drag = DragResponder(server: server, output: output.name)
        responders.append(drag)
        server.router.attach(drag, to: .output(output.id))
        let background = BackgroundResponder(shell: self, output: output.name)
        responders.append(background)
        server.router.attach(background, to: .output(output.id))
    }

    package func outputRemoved(_ output: VirtualOutput) {
        let ofOutput = { (responder: any CompositorResponder) in
            (responder as? BackgroundResponder)?.output == output.name || (responder as? MoveResponder)?.output == output.name
                || (responder as? DragResponder)?.output == output.name
        }
        for responder in responders where ofOutput(responder) { server.router.detach(responder) }
        responders.removeAll(where: ofOutput)
        server.dragResponderRemoved(output: output.name)
    }

    // MARK: Applying a configuration

    /// Replaces the configuration. Whatever can fail (the keymap, the core's validation
    /// of the recognizers) is tried first; on failure the old configuration stays whole.
    public func apply(_ new: ServerConfiguration) throws(ConfigurationError) {
        var wanted = new.keyboard
        // --keyboard-layout, given on the command line, wins over the file.
        if let layout = server.options.keyboardLayout { wanted.layout = layout }
        try checkOutputNames(new)
        var keymap: Keymap?
        if wanted != keyboard {
            do {
                keymap = try Keymap(layout: wanted.layout, variant: wanted.variant, options: wanted.options)
            } catch {
                throw new.source.error(at: new.source.keyboard, "[keyboard]: \(error)")
            }
        }
        do {
            try server.router.configureGestures(new.gestures)
        } catch {
            throw coreRejection(error, in: new)
        }
        let old = configuration
        configuration = new
        childEnvironment?.apply(new.environment)
        keyBindings = [:]
        switchBindings = [:]
        backgroundBindings = [:]
        gestureBindings = [:]
        for binding in new.bindings {
            switch binding.trigger {
            case .keys(let chord): keyBindings[chord] = binding
            case .switchToggle: switchBindings[binding.trigger] = binding
            case .background(let output): backgroundBindings[output] = binding
            case .gesture(let name, _): gestureBindings[name, default: []].append(binding)
            }
        }
        if let keymap {
            keyboard = wanted
            server.replaceKeymap(keymap)
        }
        server.cursor.hideAfter = new.cursor.hideAfter
        outputProblems = server.applyOutputRules(new.outputs)
        for problem in outputProblems { server.report(problem) }
        if new.touchscreens != old.touchscreens { server.hooks.onTouchscreenLayoutChanged?() }
        server.protocols.seat.idle.configure(new.idle, at: server.clock.now())
        server.router.letWakingKeysThrough = new.idle.letWakingKeysThrough
        server.stats.slowThreshold = new.stats.slowThreshold
        applyPolicies()
        server.router.dispatchAll()
    }

    /// An output named in a recognizer or a zone must be one of the session's: a name that
    /// matches nothing would leave a gesture that never fires, without a word.
    private func checkOutputNames(_ configuration: ServerConfiguration) throws(ConfigurationError) {
        let names = server.outputs.map(\.name)
        let expected = "expected \(names.count == 1 ? names[0] : names.dropLast().joined(separator: ", ") + " or " + (names.last ?? ""))"
        for spec in configuration.gestures.recognizers {
            guard case .output(let name) = spec.attachment, !names.contains(name) else { continue }
            throw configuration.source.error(at: configuration.source.recognizers[spec.name] ?? configuration.source.section("recognizer"),
                                             "recognizer \"\(spec.name)\": \"\(name)\" is not an output of this session: \(expected)")
        }
        for binding in configuration.bindings {
            guard case .background(let name) = binding.trigger, !names.contains(name) else { continue }
            throw configuration.source.error(at: binding.position, "\(binding.trigger): \"\(name)\" is not an output of this session: \(expected)")
        }
        for (index, zone) in configuration.gestures.holdZones.enumerated() {
            guard let name = zone.output, !names.contains(name) else { continue }
            let position = index < configuration.source.zones.count ? configuration.source.zones[index] : configuration.source.section("hold")
            throw configuration.source.error(at: position, "hold.zone[\(index)]: \"\(name)\" is not an output of this session: \(expected)")
        }
    }

    /// The core's own validation found what the file's reader could not: placed at the
    /// recognizer it names, or the table it concerns.
    private func coreRejection(_ error: GestureConfigurationError, in configuration: ServerConfiguration) -> ConfigurationError {
        let notes = configuration.source
        let position: SourcePosition
        switch error {
        case .duplicateName(let name), .unknownName(_, referencedBy: let name), .invalidParameter(recognizer: let name, _, _):
            position = notes.recognizers[name] ?? notes.section("recognizer")
        case .failureCycle(let names):
            position = names.first.flatMap { notes.recognizers[$0] } ?? notes.section("recognizer")
        case .tooManyRecognizers: position = notes.section("recognizer")
        case .invalidFingerLimit: position = notes.section("gestures")
        case .invalidHoldLimit: position = notes.section("hold")
        }
        return notes.error(at: position, "the router refused the gesture configuration: \(error)")
    }

    /// Reads the source again and applies it; on failure the old configuration stays, and
    /// the error says why. Returns the file read (nil: the default path has no file).
    @discardableResult
    public func reload() throws(ConfigurationError) -> String? {
        do throws(ConfigurationError) {
            guard let source else { throw ConfigurationError(file: "touch-router", position: SourcePosition(line: 1, column: 1), message: "no configuration file: the session found none at start and has no path to read") }
            let new: ServerConfiguration
            let path: String?
            if source.explicit || access(source.path, F_OK) == 0 {
                new = try ServerConfiguration.load(path: source.path)
                path = source.path
            } else {
                new = ServerConfiguration()
                path = nil
            }
            try apply(new)
            server.report("configuration reloaded from \(path ?? "defaults (\(source.path) does not exist)")")
            publish(.reload) { "{\"type\":\"reload\",\"ok\":true,\"file\":\(path.map(jsonString) ?? "null")}" }
            return path
        } catch {
            server.report("reload failed, the old configuration stays: \(error)")
            publish(.reload) { "{\"type\":\"reload\",\"ok\":false,\"error\":\(jsonString(error.description))}" }
            throw error
        }
    }

    // MARK: Application policies

    package func kioskWindow(appID: String) -> KioskWindowState {
        (configuration.applications[appID] ?? ApplicationPolicy()).kioskWindow
    }

    private func policy(of surface: SurfaceObject) -> ApplicationPolicy {
        let appID = surface.appID
        return configuration.applications[appID] ?? ApplicationPolicy()
    }

    /// Every toplevel in the tree gets its app's policy (or the default, where the new
    /// configuration no longer names its app).
    private func applyPolicies() {
        for id in server.tree.outputs.flatMap(\.toplevels) {
            guard let surface = server.protocols.surface.surfaces[id] else { continue }
            applyPolicy(toplevel: surface)
        }
        updateTouchCapabilities()
    }

    /// A toplevel's app id was set or changed: the core matches recognizers by it, and its policy may differ.
    package func appIDChanged(_ surface: SurfaceObject) {
        guard surface.inTree, server.tree.role(of: surface.id) == .toplevel else { return }
        let appID = surface.appID
        server.router.setAppID(appID.isEmpty ? nil : appID, for: surface.id)
        applyPolicy(toplevel: surface)
        updateTouchCapabilities()
        server.router.dispatchAll()
    }

    /// A surface entered the tree: a toplevel takes its app's policy (and the core learns
    /// its app id); a subsurface or popup takes its toplevel's.
    package func surfaceEntered(_ surface: SurfaceObject) {
        let tree = server.tree
        if tree.role(of: surface.id) == .toplevel {
            let appID = surface.appID
            if !appID.isEmpty { server.router.setAppID(appID, for: surface.id) }
            appliedPolicies[surface.id] = nil
            applyPolicy(toplevel: surface)
            updateTouchCapabilities()
        } else if let top = tree.toplevel(of: surface.id), let policy = appliedPolicies[top] {
            change(surface.id, from: ApplicationPolicy(), to: policy)
        }
    }

    /// A surface left the tree: a toplevel's policy is forgotten, and its client may take touch again.
    package func surfaceLeft(_ id: SurfaceID) {
        guard appliedPolicies.removeValue(forKey: id) != nil else { return }
        updateTouchCapabilities()
    }

    private func applyPolicy(toplevel surface: SurfaceObject) {
        let new = policy(of: surface), old = appliedPolicies[surface.id] ?? ApplicationPolicy()
        appliedPolicies[surface.id] = new == ApplicationPolicy() ? nil : new
        guard new != old else { return }
        var pending = [surface.id]
        while let id = pending.popLast() {
            change(id, from: old, to: new)
            pending += server.tree.children(of: id)
        }
    }

    /// Changes only what the policy changed, so that what a client set on a surface
    /// itself (through the protocol extension) stays where the policy says nothing new.
    private func change(_ id: SurfaceID, from old: ApplicationPolicy, to new: ApplicationPolicy) {
        do {
            try server.tree.updateProperties(id) { properties in
                if old.keyboardFocus != new.keyboardFocus { properties.acceptsKeyboardFocus = new.keyboardFocus }
                if old.exclusiveTouch != new.exclusiveTouch { properties.exclusiveTouch = new.exclusiveTouch }
                if old.multipleTouch != new.multipleTouch { properties.multipleTouch = new.multipleTouch }
                if old.interaction != new.interaction { properties.interactionEnabled = new.interaction }
            }
        } catch {
            server.report("applying an app policy to \(id): \(error)")
        }
    }

    /// `touch = false`: the router treats the client as having no wl_touch, so touches
    /// reach it as pointer emulation. Capabilities are per client, so one such toplevel
    /// withholds touch from all of its client's surfaces.
    private func updateTouchCapabilities() {
        var withheld: Set<ClientID> = []
        for (id, policy) in appliedPolicies where !policy.touch {
            if let client = server.tree.client(of: id) { withheld.insert(client) }
        }
        for record in server.clientRecords where record.touchWithheld != withheld.contains(record.id) {
            record.touchWithheld = withheld.contains(record.id)
            server.router.setCapabilities(record.capabilities, for: record.id)
        }
    }

    // MARK: Each round of the loop

    /// After each round: report a new keyboard focus, and arm the timer for the core's
    /// next gesture deadline. The deadline is on the clock every event carries: CLOCK_MONOTONIC,
    /// which `MonotonicClock` reads for injected events and libinput stamps its own with.
    private func roundEnded() {
        server.updateActivatedToplevel()
        let focus = server.router.keyboardFocus
        if focus != reportedFocus {
            let from = reportedFocus
            reportedFocus = focus
            publish(.focus) { self.focusJSON(from: from, to: focus) }
        }
        let deadline = server.router.nextGestureDeadline
        guard deadline != armedDeadline, let timer = gestureTimer else { return }
        armedDeadline = deadline
        guard let deadline else {
            timer.disarm()
            return
        }
        let now = server.clock.now().nanoseconds
        // Rounded up, so that the timer never fires before the deadline; no sum can overflow.
        let wait = deadline.nanoseconds <= now ? 0 : (deadline.nanoseconds - now) / 1_000_000 + 1
        timer.arm(milliseconds: Int32(clamping: wait))
    }

    private func gestureDeadlinePassed() {
        armedDeadline = nil
        server.router.advanceTime(to: server.clock.now())
        server.router.dispatchAll()
    }

    // MARK: Subscribers

    /// Builds the event only when someone subscribed to its topic.
    package func publish(_ topic: ShellTopic, _ json: () -> String) {
        guard let sink, sink.wants(topic) else { return }
        sink.publish(topic, json())
    }

    package func clientConnected(_ record: ClientRecord) {
        publish(.client) { "{\"type\":\"client\",\"change\":\"connected\",\"client\":\(record.id.raw),\"pid\":\(record.pid)}" }
    }

    package func clientDisconnected(_ record: ClientRecord) {
        publish(.client) { "{\"type\":\"client\",\"change\":\"disconnected\",\"client\":\(record.id.raw),\"pid\":\(record.pid)}" }
    }

    private func focusJSON(from: SurfaceID?, to: SurfaceID?) -> String {
        func id(_ surface: SurfaceID?) -> String { surface.map { String($0.raw) } ?? "null" }
        var app = "null", client = "null"
        if let to, let top = server.tree.toplevel(of: to) {
            if let appID = server.protocols.surface.surfaces[top]?.appID, !appID.isEmpty { app = jsonString(appID) }
            if let owner = server.tree.client(of: to) { client = String(owner.raw) }
        }
        return "{\"type\":\"focus\",\"from\":\(id(from)),\"to\":\(id(to)),\"client\":\(client),\"app_id\":\(app)}"
    }
}

/// Where `reload` reads.
public struct ConfigurationSource: Sendable {
    public var path: String
    /// Given with --config: it must exist. Otherwise it is the default path, which may not.
    public var explicit: Bool
    public init(path: String, explicit: Bool) {
        self.path = path
        self.explicit = explicit
    }
}

extension SourceNotes {
    package func section(_ key: String) -> SourcePosition { sections[key] ?? SourcePosition(line: 1, column: 1) }
}
