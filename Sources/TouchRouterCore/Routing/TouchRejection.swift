/// XInput 2.2's touch reject: a client gives a touch sequence back, and it goes on down
/// the fallback chain.
extension Router {
    /// `client` gives up touch `id`. It gets wl_touch.cancel, which ends every touch it
    /// has (the trace names them); this one is offered to the next surface link whose
    /// client (another one) takes touch, else to the compositor's responders from the
    /// output on. False when the client does not have the touch.
    @discardableResult
    public func rejectTouch(_ id: TouchID, by client: ClientID) -> Bool {
        guard let i = touchIndex(id), case .client(let surface, let owner) = touches[i].target, owner == client else { return false }
        let saved = recordDeliveries
        recordDeliveries.removeAll(keepingCapacity: true)
        defer { recordDeliveries = saved }
        let time = clock.now()
        let alongside = touches.filter { $0.id != id && $0.target.client == client }.map(\.id)
        cancelTouches(of: client, reason: .cancel)
        let point = touches[i]
        let event = InputEvent.touchDown(device: point.device, time: time, id: id, position: point.position)
        let target = nextTarget(for: event, after: surface, skipping: client, position: point.position, output: point.output)
        touches[i].target = target
        if !touchFrameClients.isEmpty { _ = touchFrame() }
        if tracing {
            let also = alongside.isEmpty ? "" : "; wl_touch.cancel also ended its touches \(alongside.map(\.description).joined(separator: ", "))"
            traceArena(.rejected, member: nil, touches: [id] + alongside, client: client, detail: "it went to \(describe(target))\(also)", time: time)
        }
        return true
    }

    /// The chain after `surface`: parent surface links whose client is not `skipping` and
    /// takes touch, or compositor responders at those links, then output, shell, delegate.
    private func nextTarget(for event: InputEvent, after surface: SurfaceID, skipping client: ClientID, position: Point<GlobalSpace>, output: OutputID?) -> TouchTarget {
        var current = tree.parent(of: surface)
        while let link = current {
            if let owner = tree.client(of: link), owner != client, capabilities(of: owner).contains(.touch),
               let local = tree.localPoint(position, in: link) {
                delivery.touchDown(surface: link, client: owner, time: event.time, id: event.touchID!, local: local)
                record(.touchDown, link, owner, local, .fallback)
                noteTouchFrame(for: owner)
                return .client(link, owner)
            }
            if let taken = askResponders(event, at: .surface(link)) { return .compositor(taken, .surface(link)) }
            if let role = tree.role(of: link), role != .subsurface, let taken = askResponders(event, at: .role(link, role)) {
                return .compositor(taken, .role(link, role))
            }
            current = tree.parent(of: link)
        }
        return compositorChain(event, from: nil, output: output ?? tree.output(at: position)).1
    }

    private func describe(_ target: TouchTarget) -> String {
        switch target {
        case .client(let surface, let client): "\(surface) of \(client)"
        case .emulatedPointer(let surface, _): "pointer emulation on \(surface)"
        case .compositor(_, let link): "the compositor's responder at \(link)"
        case .swallowed: "nobody: every link passed it on"
        }
    }
}
