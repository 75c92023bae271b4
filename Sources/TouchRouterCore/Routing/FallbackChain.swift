/// The compositor's responders at the links of the chain, and event monitors.
struct ChainState {
    var monitors: [any EventMonitor] = [] {
        didSet { monitoredKinds = monitors.reduce([]) { $0.union($1.observedKinds) } }
    }
    /// The kinds some monitor is shown: the others pass the monitors by.
    var monitoredKinds: EventKinds = []
    var attachments: [Responder: [any CompositorResponder]] = [:]
}

extension Router {
    var monitors: [any EventMonitor] {
        _read { yield state.pointee.chain.monitors }
        _modify { yield &state.pointee.chain.monitors }
    }
    var attachments: [Responder: [any CompositorResponder]] {
        _read { yield state.pointee.chain.attachments }
        _modify { yield &state.pointee.chain.attachments }
    }

    public func addMonitor(_ monitor: any EventMonitor) { monitors.append(monitor) }

    public func removeMonitor(_ monitor: any EventMonitor) { monitors.removeAll { $0 === monitor } }

    /// Adds a compositor responder at a link of the fallback chain; several at one link are asked in order.
    public func attach(_ responder: any CompositorResponder, to link: Responder) {
        attachments[link, default: []].append(responder)
    }

    public func detach(_ responder: any CompositorResponder) {
        for (link, list) in attachments {
            let kept = list.filter { $0 !== responder }
            attachments[link] = kept.isEmpty ? nil : kept
        }
        for i in touches.indices {
            if case .compositor(let bound, _) = touches[i].target, bound === responder {
                touches[i].target = .swallowed(.touchCancelled)
            }
        }
    }

    /// The links a positional event at `point` would travel, first to last.
    public func fallbackChain(at point: Point<GlobalSpace>) -> [Responder] {
        if let hit = tree.hitTest(point) { return fallbackChain(from: hit.surface) }
        return (tree.output(at: point).map { [Responder.output($0)] } ?? []) + [.shell, .shellDelegate]
    }

    /// The links an event starting at `surface` travels: the surface, its role, its parents, its output, the shell.
    public func fallbackChain(from surface: SurfaceID?) -> [Responder] {
        var links: [Responder] = []
        var current = surface
        while let id = current, let role = tree.role(of: id) {
            links.append(.surface(id))
            if role != .subsurface { links.append(.role(id, role)) }
            current = tree.parent(of: id)
        }
        if let surface, let output = tree.outputOf(surface) { links.append(.output(output)) }
        return links + [.shell, .shellDelegate]
    }


    func askResponders(_ event: InputEvent, at link: Responder) -> (any CompositorResponder)? {
        guard !attachments.isEmpty, let list = attachments[link] else { return nil }
        for responder in list where responder.respond(to: event, at: link) == .handled {
            markDecided()
            return responder
        }
        return nil
    }

    /// The compositor's part of the chain: surface and role links from `surface` (whose
    /// clients have declined), then the output, the shell and the shell delegate.
    func compositorChain(_ event: InputEvent, from surface: SurfaceID?, output: OutputID?, declinedSoFar: Int = 0) -> (RouteOutcome, TouchTarget) {
        // Locked, the surfaces' and outputs' responders (background bindings among them) are
        // behind the lock: only the shell's links are asked.
        let locked = state.pointee.sessionLocked
        var declined = declinedSoFar
        var current = locked ? nil : surface
        while let id = current {
            if let taken = askResponders(event, at: .surface(id)) { return (.handled(by: .surface(id), declined: declined), .compositor(taken, .surface(id))) }
            declined += 1
            if let role = tree.role(of: id), role != .subsurface {
                if let taken = askResponders(event, at: .role(id, role)) { return (.handled(by: .role(id, role), declined: declined), .compositor(taken, .role(id, role))) }
                declined += 1
            }
            current = tree.parent(of: id)
        }
        if let output, !locked {
            if let taken = askResponders(event, at: .output(output)) { return (.handled(by: .output(output), declined: declined), .compositor(taken, .output(output))) }
            declined += 1
        }
        for link in [Responder.shell, .shellDelegate] {
            if let taken = askResponders(event, at: link) { return (.handled(by: link, declined: declined), .compositor(taken, link)) }
            declined += 1
        }
        markDecided()
        return (.discarded(declined: declined), .swallowed(.touchDiscarded))
    }
}
