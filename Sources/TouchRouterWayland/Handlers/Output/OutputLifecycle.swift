import CWaylandShim
import TouchRouterCore

// Outputs that come and go while the session runs: a screen plugged in or out on the drm
// backend, `msg output create|remove` on any. A new output goes right of the others. An
// output that goes hands its windows to the first one left, on top of its stack and inside
// it, and every client sees its surfaces leave the old output and enter the new one; its
// wl_output global is withdrawn at once and destroyed a few seconds later, so that a client
// that was binding it meanwhile gets an inert object, not a protocol error.

extension WaylandServer {
    /// The most outputs a session holds: each is a global every client may bind, a link of
    /// the chain and, once composed, a framebuffer of up to 16384² pixels.
    public static let maximumOutputs = 16

    /// Seconds a withdrawn wl_output global lives on, for clients still binding it.
    package static let retiredGlobalLifetime: Int32 = 5_000

    /// The wl_output global of `output`; each binding gets the output's state.
    package func createGlobal(for output: VirtualOutput) throws(WaylandError) {
        output.server = self
        let outputData = Unmanaged.passUnretained(output).toOpaque()
        guard let global = wl_global_create(display.display, tr_wl_output_interface(), 4, outputData, { client, data, version, id in
            let output = Unmanaged<VirtualOutput>.fromOpaque(data!).takeUnretainedValue()
            guard let client, let server = output.server, server.mayBind(client, "wl_output"),
                  let resource = createResource(client, tr_wl_output_interface(), version: Int32(version), id: id) else { return }
            let binding = OutputBinding(resource: resource, server: server)
            WaylandObject.install(binding, implementation: VirtualOutput.table)
            // A withdrawn output's late bindings stay inert: no state, no enter.
            guard !output.retired else { return }
            binding.output = output
            output.bindings[client, default: []].append(binding)
            output.sendState(to: resource)
        }) else { throw WaylandError("cannot create the wl_output global") }
        output.global = global
    }

    /// Each output's mode, by name.
    public var outputModes: [String: OutputMode] {
        Dictionary(uniqueKeysWithValues: outputs.map { ($0.name, $0.mode) })
    }

    /// Adds an output right of the others and announces it; returns its name.
    @discardableResult
    public func addOutput(_ identity: OutputIdentity, mode: OutputMode) throws(WaylandError) -> String {
        guard !outputs.contains(where: { $0.name == identity.name }) else { throw WaylandError("an output named \(identity.name) exists already") }
        guard outputs.count < Self.maximumOutputs else { throw WaylandError("the session has \(outputs.count) outputs, the most it holds") }
        let right = outputs.map { $0.rect.x + $0.rect.width }.max() ?? 0
        let id = OutputID(protocols.output.nextOutput)
        protocols.output.nextOutput += 1
        let rect = Rect<GlobalSpace>(origin: Offset(dx: right, dy: 0), size: mode.layoutSize)
        do { try tree.addOutput(id, name: identity.name, rect: rect) } catch { throw WaylandError("output \(identity.name): \(error)") }
        let output = VirtualOutput(id: id, identity: identity, rect: rect, mode: mode)
        outputs.append(output)
        try createGlobal(for: output)
        try startFrameClock(for: output)
        shell.outputAdded(output)
        report("output \(identity.name) added: \(mode) at \(rect.x),\(rect.y)")
        applyOutputRule(to: output)
        hooks.onTouchscreenLayoutChanged?()
        display.settleAndFlush()
        return identity.name
    }

    /// Removes the output named `name`; its windows move to the first output that stays.
    /// The last output cannot go: the session would have nowhere to show anything.
    /// The output's size in the layout; nil for one removed or never made.
    package func liveOutputSize(_ output: OutputID) -> Size? {
        outputs.first { $0.id == output && !$0.retired }.map { Size(width: $0.rect.width, height: $0.rect.height) }
    }

    public func removeOutput(named name: String) throws(WaylandError) {
        guard let index = outputs.firstIndex(where: { $0.name == name }) else {
            throw WaylandError("no output '\(name.prefix(64))': the outputs are \(outputs.map(\.name).joined(separator: ", "))")
        }
        guard outputs.count > 1 else { throw WaylandError("\(name) is the only output: the session keeps at least one") }
        let output = outputs.remove(at: index)
        let heir = outputs[0]
        // Layer surfaces belong to their output: they are closed, not handed over.
        closeLayerSurfaces(on: output.id)
        for toplevel in tree.output(output.id)?.toplevels ?? [] { handOver(toplevel, from: output, to: heir) }
        shell.outputRemoved(output)
        do { try tree.removeOutput(output.id) } catch { report("output \(name): \(error)") }
        protocols.output.presenters[output.id]?.onShown = nil
        protocols.output.presenters[output.id] = nil
        protocols.output.unpresented[output.id] = nil
        protocols.output.composers[output.id] = nil
        stopFrameClock(of: output.id)
        retire(output)
        report("output \(name) removed; its windows are on \(heir.name)")
        hooks.onTouchscreenLayoutChanged?()
        router.dispatchAll()
        display.settleAndFlush()
    }

    /// Moves a toplevel to `heir`, as far into it as it was into its old output and kept
    /// inside it, and tells its client's surfaces they left one output and entered the other.
    private func handOver(_ toplevel: SurfaceID, from old: VirtualOutput, to heir: VirtualOutput) {
        guard let surface = tree.surface(toplevel) else { return }
        do { try tree.moveToplevel(toplevel, to: heir.id, position: position(of: surface, keptInside: heir)) } catch {
            report("cannot move \(toplevel) to \(heir.name): \(error)")
            return
        }
        var family = [toplevel], next = 0
        while next < family.count {
            family += tree.children(of: family[next])
            next += 1
        }
        for id in family {
            guard let object = protocols.surface.surfaces[id] else { continue }
            for resource in old.bindings(of: object.client) { wl_surface_send_leave(object.resource, resource) }
            for resource in heir.bindings(of: object.client) { wl_surface_send_enter(object.resource, resource) }
        }
    }

    /// A toplevel's place, as far into `output` as it was into its own and kept inside it
    /// where it fits: an output that goes hands it on so, one that shrinks pulls it back so.
    package func position(of surface: SurfaceSnapshot, keptInside output: VirtualOutput) -> Offset {
        Offset(dx: min(max(surface.position.dx, 0), max(output.rect.width - surface.size.width, 0)),
               dy: min(max(surface.position.dy, 0), max(output.rect.height - surface.size.height, 0)))
    }

    /// Withdraws the output's global now and destroys it later; its bindings stay, inert.
    private func retire(_ output: VirtualOutput) {
        output.retired = true
        output.bindings.removeAll()
        // Its power state goes with it: its control fails, and it is no longer dark.
        protocols.outputPower.outputRemoved(output.id)
        protocols.output.power[output.id] = nil
        router.setOutputs([output.id], dark: false)
        guard let global = output.global else { return }
        wl_global_remove(global)
        output.retiredAt = clock.now()
        protocols.output.retiredOutputs.append(output)
        do {
            if protocols.output.retirementTimer == nil { protocols.output.retirementTimer = try display.oneShotTimer { [unowned self] in self.destroyRetiredGlobals() } }
            protocols.output.retirementTimer?.arm(milliseconds: Self.retiredGlobalLifetime)
        } catch {
            // Without a timer the global lives on, withdrawn, until the session ends.
            report("output \(output.name): \(error)")
        }
    }

    /// Destroys the globals withdrawn long enough ago; waits again for the others.
    private func destroyRetiredGlobals() {
        let now = clock.now().nanoseconds
        let lifetime = Int64(Self.retiredGlobalLifetime) * 1_000_000
        for output in protocols.output.retiredOutputs where now - output.retiredAt.nanoseconds >= lifetime {
            if let global = output.global { wl_global_destroy(global) }
            output.global = nil
        }
        protocols.output.retiredOutputs.removeAll { $0.global == nil }
        if let oldest = protocols.output.retiredOutputs.map(\.retiredAt.nanoseconds).min() {
            protocols.output.retirementTimer?.arm(milliseconds: Int32(clamping: (oldest + lifetime - now) / 1_000_000 + 1))
        }
    }
}
