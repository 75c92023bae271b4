import CWaylandShim
import TouchRouterConfig
import TouchRouterCore
import TouchRouterReplay

// What bindings do: key chords taken before the focused client, switches at the shell
// link, gestures from the core's observer, and the actions they run.
extension ServerShell {
    /// Called for every key before the router sees it: a press that completes a bound
    /// chord runs its action and, with its release, never reaches the focused client, as
    /// sway's bindsym does. True when the shell took the key.
    package func takesKey(_ key: UInt32, state: KeyState) -> Bool {
        if state == .released { return swallowedKeys.remove(key) != nil }
        guard !keyBindings.isEmpty else { return false }
        let keymap = server.protocols.seat.keymap
        let chord = KeyChord(modifiers: keymap.chordModifiers, keysym: keymap.firstLevelKeysym(evdev: key), text: "")
        guard let binding = keyBindings[chord], mayRun(binding) else { return false }
        swallowedKeys.insert(key)
        run(binding)
        return true
    }

    package func switchToggled(_ kind: SwitchKind, _ state: SwitchState) -> Bool {
        guard let binding = switchBindings[.switchToggle(kind, state)], mayRun(binding) else { return false }
        run(binding)
        return true
    }

    /// Locked, only bindings marked `while-locked` run: a kiosk's shortcuts are behind the lock.
    package func mayRun(_ binding: Binding) -> Bool { !server.router.sessionLocked || binding.whileLocked }

    /// The session locked or unlocked: subscribers hear it.
    package func sessionLockChanged(_ locked: Bool) {
        publish(.lock) { "{\"type\":\"lock\",\"locked\":\(locked)}" }
    }

    package func run(_ binding: Binding) {
        // An action may change anything: a round of input that ran one settles.
        server.display.settleThisRound()
        publish(.action) { "{\"type\":\"action\",\"action\":\(jsonString(binding.action.name)),\"trigger\":\(jsonString(binding.trigger.description))\(self.actionDetail(binding.action))}" }
        perform(binding.action)
    }

    private func actionDetail(_ action: Action) -> String {
        switch action {
        case .exec(let argv): ",\"command\":[" + argv.map(jsonString).joined(separator: ",") + "]"
        case .emit(let name): ",\"event\":\(jsonString(name))"
        default: ""
        }
    }

    private func perform(_ action: Action) {
        let router = server.router!
        switch action {
        case .exec(let argv):
            do { _ = try spawnProcess(argv) } catch { server.report("exec action: \(error)") }
        case .closeFocused:
            guard let focus = router.keyboardFocus, let top = server.tree.toplevel(of: focus),
                  let surface = server.protocols.surface.surfaces[top] else { return }
            if let toplevel = surface.xdgSurface?.toplevel { xdg_toplevel_send_close(toplevel.resource) }
            else if let x11 = surface.x11 { server.protocols.xwayland.windowManager?.close(x11) }
        case .focusNext:
            focusNextToplevel()
        case .toggleIgnoreInteraction:
            if ignoringInteraction {
                ignoringInteraction = false
                _ = router.endIgnoringInteraction()
            } else {
                ignoringInteraction = true
                router.beginIgnoringInteraction()
            }
            router.dispatchAll()
        case .quit:
            server.stop()
        case .emit(let name):
            publish(.emit) { "{\"type\":\"emit\",\"event\":\(jsonString(name))}" }
        }
    }

    /// The next toplevel after the focused one, in stacking order across outputs, that
    /// takes the keyboard focus; it is raised too.
    private func focusNextToplevel() {
        let tree = server.tree, router = server.router!
        let candidates = tree.outputs.flatMap(\.toplevels).filter { tree.properties(of: $0).map { $0.mapped && !$0.hidden && $0.acceptsKeyboardFocus } ?? false }
        guard !candidates.isEmpty else { return }
        let current = router.keyboardFocus.flatMap { tree.toplevel(of: $0) }.flatMap { candidates.firstIndex(of: $0) }
        let next = candidates[current.map { ($0 + 1) % candidates.count } ?? 0]
        if router.setKeyboardFocus(next) { server.raiseWindow(next) }
        router.dispatchAll()
    }
}

extension ServerShell: GestureObserver {
    public func gesture(_ event: GestureEvent) {
        publish(.gesture) { gestureJSON(event) }
        for binding in gestureBindings[event.name] ?? [] {
            guard case .gesture(_, let states) = binding.trigger, states.contains(event.state) else { continue }
            run(binding)
        }
    }
}
