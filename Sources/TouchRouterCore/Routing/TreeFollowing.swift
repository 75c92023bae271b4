/// When surfaces leave the tree, whatever was bound to them ends cleanly.
extension Router: SurfaceTreeObserver {
    public func surfaceTree(_ tree: SurfaceTree, didRemove surfaces: [SurfaceID], from parent: SurfaceID?) {
        for link in attachments.keys {
            switch link {
            case .surface(let id), .role(let id, _):
                if surfaces.contains(id) { attachments[link] = nil }
            case .output, .shell, .shellDelegate:
                break
            }
        }
        for surface in surfaces {
            arena.appIDs[surface] = nil
            arena.deferrals[surface] = nil
        }
        endTouches(on: surfaces)
        for i in touches.indices {
            switch touches[i].target {
            case .client:
                break
            case .emulatedPointer(let surface, _):
                if surfaces.contains(surface) {
                    pressedButtons.removeAll { $0 == EvdevCode.buttonLeft }
                    touches[i].target = .swallowed(.surfaceGone)
                }
            case .compositor(_, .surface(let surface)), .compositor(_, .role(let surface, _)):
                if surfaces.contains(surface) { touches[i].target = .swallowed(.surfaceGone) }
            case .compositor, .swallowed:
                break
            }
        }
        if let grab = pointerGrab, surfaces.contains(grab) {
            buttonsPressedOnGoneSurface += pressedButtons
            pressedButtons.removeAll(keepingCapacity: true)
            pointerGrab = nil
        }
        if let focus = pointerFocus, surfaces.contains(focus) {
            // A surface leaving the tree may live on in its client (an unmapped popup):
            // it hears its leave. The Wayland layer drops it for a destroyed wl_surface.
            let saved = recordDeliveries
            recordDeliveries.removeAll(keepingCapacity: true)
            setPointerFocus(nil)
            flushPointerFrames()
            traceSink?.focusChanged(FocusChangeRecord(kind: .pointer, from: focus, to: nil, cause: .surfaceRemoved, deliveries: recordDeliveries))
            recordDeliveries = saved
        }
        focusHistory.removeAll { surfaces.contains($0) }
        if let focus = keyboardFocus, surfaces.contains(focus) {
            fallBackKeyboardFocus(from: parent, cause: .surfaceRemoved)
        }
    }

    /// A touch whose surface goes away gets its up at once, as Mir sends it: the client
    /// would otherwise hold a touch point open that no event will ever close. The up joins
    /// the client's open frame if it has one, and comes with its own frame otherwise.
    func endTouches(on surfaces: [SurfaceID]) {
        let saved = recordDeliveries
        recordDeliveries.removeAll(keepingCapacity: true)
        var framedClients: [ClientID] = []
        var ended: [SurfaceID] = []
        let time = clock.now()
        for i in touches.indices {
            guard case .client(let surface, let client) = touches[i].target, surfaces.contains(surface) else { continue }
            delivery.touchUp(surface: surface, client: client, time: time, id: touches[i].id)
            record(.touchUp, surface, client, nil, .surfaceRemoved)
            touches[i].target = .swallowed(.surfaceGone)
            if !touchFrameClients.contains(client), !framedClients.contains(client) { framedClients.append(client) }
            if !ended.contains(surface) { ended.append(surface) }
        }
        for client in framedClients {
            delivery.touchFrame(client: client)
            record(.touchFrame, nil, client, nil, .frame)
        }
        if tracing {
            // One record per surface with its ups; the frames close the last one.
            for (index, surface) in ended.enumerated() {
                let last = index == ended.count - 1
                let deliveries = recordDeliveries.filter { $0.surface == surface || (last && $0.kind == .touchFrame) }
                traceSink?.focusChanged(FocusChangeRecord(kind: .touch, from: surface, to: nil, cause: .surfaceRemoved, deliveries: deliveries))
            }
        }
        recordDeliveries = saved
    }

    public func surfaceTree(_ tree: SurfaceTree, didChangePropertiesOf surface: SurfaceID) {
        if let focus = keyboardFocus, !tree.canTakeKeyboardFocus(focus) {
            fallBackKeyboardFocus(from: tree.parent(of: focus), cause: .surfaceCannotTakeFocus)
        }
    }
}
