import CWaylandShim
import TouchRouterCore
import TouchRouterProtocols

extension WaylandServer {
    /// wl_data_device.start_drag.
    package func startDrag(_ device: SelectionDevice, source: SelectionSource?, origin: SurfaceObject, icon: SurfaceObject?, serial: UInt32) {
        if let icon {
            guard icon.role == .none || icon.role == .dndIcon else {
                device.postError(WL_DATA_DEVICE_ERROR_ROLE.rawValue, "\(device.name).start_drag: icon wl_surface@\(wl_resource_get_id(icon.resource)) already has the role \(icon.role.rawValue)")
                return
            }
        }
        if let source {
            guard !source.drag.used, protocols.selection.selections.source(.clipboard) !== source else {
                source.postError(WL_DATA_SOURCE_ERROR_INVALID_SOURCE.rawValue, "\(source.name): start_drag with a source already used for a selection or a drag")
                return
            }
            source.drag.used = true
        }
        // The icon keeps its role even if the drag is refused, as in wlroots.
        icon?.role = .dndIcon
        guard protocols.selection.dragAndDrop == nil, origin.inTree, origin.client == device.client,
              let record = existingRecord(for: device.client), let originToplevel = tree.toplevel(of: origin.id) else {
            source?.cancel()
            return
        }
        if record.buttonPressSerial == serial, let focus = router.pointerFocus, tree.toplevel(of: focus) == originToplevel {
            let drag = DragAndDrop(input: .pointer, source: source, origin: record.id, icon: icon)
            protocols.selection.dragAndDrop = drag
            let taken = router.takePointer(from: record.id, onMotion: { [unowned self, weak drag] point in
                guard let drag else { return }
                self.dragMoved(drag, to: point)
            }, ended: { [unowned self, weak drag] in
                guard let drag else { return }
                // Ignoring interaction ends the take with the button still down: no drop.
                if self.router.ignoreInteractionDepth > 0 { self.dragCancelled(drag) } else { self.dragReleased(drag) }
            })
            guard taken else {
                protocols.selection.dragAndDrop = nil
                source?.cancel()
                return
            }
            // The origin hears enter at once, as wlroots' compositors rebase the cursor: a client drags within itself first.
            dragMoved(drag, to: router.pointerPosition)
            return
        }
        guard let press = record.touchDownSerials.last(where: { $0.serial == serial }),
              record.touchDownSerials.last(where: { $0.touch == press.touch })?.serial == serial,
              protocols.shell.touchMoves[press.touch] == nil,
              let touch = router.activeTouches.first(where: { $0.id == press.touch }), !touch.emulatingPointer,
              let touched = touch.surface, tree.toplevel(of: touched) == originToplevel else {
            source?.cancel()
            return
        }
        let drag = DragAndDrop(input: .touch(press.touch), source: source, origin: record.id, icon: icon)
        protocols.selection.dragAndDrop = drag
        let rejected = router.rejectTouch(press.touch, by: record.id)
        // Taken by the output's DragResponder, which began the drag; else (no output under
        // the finger, or a parent surface of another client took it) there is no drag.
        if !rejected || !drag.began {
            if protocols.selection.dragAndDrop === drag { protocols.selection.dragAndDrop = nil }
            drag.active = false
            setDragFocus(drag, nil)
            source?.cancel()
        }
        router.dispatchAll()
    }

    /// The pointer or finger of a drag is at `point`: the surface under it hears motion, or
    /// the drag leaves the one it was over and enters it.
    package func dragMoved(_ drag: DragAndDrop, to point: Point<GlobalSpace>) {
        guard drag.active, point.x.isFinite, point.y.isFinite else { return }
        drag.position = point
        // Its icon follows, in rounds of touch motion alone that wake nothing else.
        if drag.icon != nil { pictureMayHaveChanged() }
        if drag.hasSource ? drag.source == nil : clientsByID[drag.origin] == nil {
            endDrag(drag)
            return
        }
        var target: (surface: SurfaceObject, local: Point<SurfaceSpace>)?
        if let hit = tree.hitTest(point), let surface = protocols.surface.surfaces[hit.surface], let record = existingRecord(for: surface.client),
           drag.hasSource || record.id == drag.origin {
            target = (surface, hit.local)
        }
        let focusAlive = drag.focusClient.map { existingRecord(for: $0) != nil } ?? false
        guard let target, focusAlive, target.surface.id == drag.focus else {
            setDragFocus(drag, target)
            return
        }
        let time = clock.now().waylandMilliseconds
        for device in dataDevices(of: target.surface.client) {
            wl_data_device_send_motion(device.resource, time, wl_fixed_from_double(target.local.x), wl_fixed_from_double(target.local.y))
        }
    }

    /// The data devices of a connected client.
    private func dataDevices(of client: OpaquePointer) -> [SelectionDevice] {
        guard existingRecord(for: client) != nil else { return [] }
        return protocols.selection.selections.devices(of: client).filter { $0.kind == .data }
    }

    /// The drag leaves the surface it was over (its offers not dropped go inert) and enters `target`.
    private func setDragFocus(_ drag: DragAndDrop, _ target: (surface: SurfaceObject, local: Point<SurfaceSpace>)?) {
        if let client = drag.focusClient {
            for device in dataDevices(of: client) { wl_data_device_send_leave(device.resource) }
        }
        for weak in drag.offers {
            guard let offer = weak.offer, offer.drag?.dropped != true else { continue }
            offer.source = nil
        }
        drag.offers = []
        drag.focus = nil
        drag.focusClient = nil
        if let source = drag.source { source.drag.accepted = false }
        guard drag.active, let (surface, local) = target else { return }
        drag.focus = surface.id
        drag.focusClient = surface.client
        let serial = display.nextSerial
        for device in dataDevices(of: surface.client) {
            var offer: SelectionOffer?
            if let source = drag.source {
                offer = device.makeOffer(source, drag: OfferDragState())
                if let offer {
                    drag.offers.append(WeakOffer(offer: offer))
                    updateDragAction(offer)
                    if offer.version >= 3 { wl_data_offer_send_source_actions(offer.resource, sourceActions(source)) }
                }
            }
            wl_data_device_send_enter(device.resource, serial, surface.resource, wl_fixed_from_double(local.x), wl_fixed_from_double(local.y), offer?.resource)
        }
    }

    /// A source older than version 3 cannot set actions: it copies, as the protocol says.
    private func sourceActions(_ source: SelectionSource) -> UInt32 {
        source.version >= 3 ? source.drag.actions : WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY.rawValue
    }

    /// Negotiates the action again; the source and the offer hear it when it changed.
    private func updateDragAction(_ offer: SelectionOffer) {
        guard let source = offer.source, let state = offer.drag else { return }
        let targetActions = offer.version >= 3 ? state.actions : WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY.rawValue
        let action = chooseDragAction(source: sourceActions(source), target: targetActions, preferred: offer.version >= 3 ? state.preferred : 0)
        guard source.drag.action != action else { return }
        source.drag.action = action
        if source.version >= 3, !source.drag.settled, existingRecord(for: source.client) != nil { wl_data_source_send_action(source.resource, action) }
        if offer.version >= 3, existingRecord(for: offer.client) != nil { wl_data_offer_send_action(offer.resource, action) }
    }

    /// The button or finger is up: a drop where the target accepted a type and an action
    /// was chosen, else the source is cancelled; then the target hears leave.
    package func dragReleased(_ drag: DragAndDrop) {
        if protocols.selection.dragAndDrop === drag { protocols.selection.dragAndDrop = nil }
        guard drag.active else { return }
        // A surface gone or unmapped under a still pointer is no target.
        let focusAlive = (drag.focusClient.map { existingRecord(for: $0) != nil } ?? false) && drag.focus.flatMap { protocols.surface.surfaces[$0] }?.inTree == true
        let offers = drag.offers.compactMap(\.offer).filter { $0.source != nil }
        if let source = drag.source {
            if focusAlive, let client = drag.focusClient, source.drag.accepted, source.drag.action != 0, !offers.isEmpty {
                for device in dataDevices(of: client) { wl_data_device_send_drop(device.resource) }
                for offer in offers { offer.drag?.dropped = true }
                if source.version >= 3, existingRecord(for: source.client) != nil { wl_data_source_send_dnd_drop_performed(source.resource) }
            } else {
                source.cancel()
            }
        }
        endDrag(drag)
    }

    /// The drag offers no more: the target hears leave. The input stays taken until it is up.
    private func endDrag(_ drag: DragAndDrop) {
        setDragFocus(drag, nil)
        drag.active = false
        // Its icon leaves the picture, at a touch up that wakes nothing else.
        if drag.icon != nil { pictureMayHaveChanged() }
    }

    /// The finger of a touch drag was cancelled, or interaction is ignored: the drag is cancelled.
    package func dragCancelled(_ drag: DragAndDrop) {
        if protocols.selection.dragAndDrop === drag { protocols.selection.dragAndDrop = nil }
        guard drag.active else { return }
        drag.source?.cancel()
        endDrag(drag)
    }

    /// A commit of a surface with the dnd_icon role: the icon of the drag moves by its offset.
    package func dragIconCommitted(_ surface: SurfaceObject) {
        guard let drag = protocols.selection.dragAndDrop, drag.active, drag.icon === surface else { return }
        drag.iconOffset = drag.iconOffset.adding(surface.current.offset)
    }

    /// The drag's icon as a layer of `output`, over the windows and under the cursor, its
    /// top left at the pointer or finger moved by its offsets; nil with no icon or no pixels.
    package func dragIconLayer(on output: OutputSnapshot) -> CompositionLayer? {
        guard let drag = protocols.selection.dragAndDrop, drag.active, let icon = drag.icon, let contents = icon.contents, let position = drag.position,
              abs(position.x) < 1e9, abs(position.y) < 1e9 else { return nil }
        let origin = Offset(dx: Int(position.x.rounded(.down)) - output.rect.x, dy: Int(position.y.rounded(.down)) - output.rect.y).adding(drag.iconOffset)
        return CompositionLayer(pixels: contents.pixels, width: contents.width, height: contents.height, scale: Int(icon.current.scale),
                                opaque: contents.opaque, origin: origin, clip: icon.size, key: UInt64(icon.id.raw), damage: icon.unpaintedDamage,
                                transform: OutputTransform(rawValue: icon.current.transform) ?? .normal)
    }

    /// An output's responders were detached: a finger its DragResponder held is swallowed by
    /// the core without a cancel, so its drag is cancelled here, or it would never end.
    package func dragResponderRemoved(output: String) {
        guard let drag = protocols.selection.dragAndDrop, case .touch = drag.input, drag.responderOutput == output else { return }
        dragCancelled(drag)
    }

    /// A source destroyed mid-drag ends the drag; the target hears leave.
    package func dragSourceDestroyed(_ source: SelectionSource) {
        guard let drag = protocols.selection.dragAndDrop, drag.active, drag.source === source else { return }
        drag.source = nil
        endDrag(drag)
    }

    // MARK: The target's requests on its offer

    /// wl_data_offer.accept. A type the source does not offer counts as none. Ignored on an
    /// offer that is not the current target's, or once dropped, as Weston ignores it.
    package func dragOfferAccept(_ offer: SelectionOffer, _ mimeType: UnsafePointer<CChar>?) {
        guard let state = offer.drag, !state.finished else {
            if offer.drag?.finished == true { offer.postError(WL_DATA_OFFER_ERROR_INVALID_OFFER.rawValue, "\(offer.name).accept after finish") }
            return
        }
        guard !state.dropped, let source = offer.source, let drag = protocols.selection.dragAndDrop, drag.active, drag.source === source else { return }
        let mime = mimeType.map { String(cString: $0) }.flatMap { source.mimeTypes.contains($0) ? $0 : nil }
        source.drag.accepted = mime != nil
        guard existingRecord(for: source.client) != nil else { return }
        wl_data_source_send_target(source.resource, mime)
    }

    /// wl_data_offer.set_actions on a drag's offer, its arguments already checked.
    package func dragOfferSetActions(_ offer: SelectionOffer, actions: UInt32, preferred: UInt32) {
        guard offer.drag?.finished != true else {
            offer.postError(WL_DATA_OFFER_ERROR_INVALID_OFFER.rawValue, "\(offer.name).set_actions after finish")
            return
        }
        offer.drag?.actions = actions
        offer.drag?.preferred = preferred
        updateDragAction(offer)
    }

    /// wl_data_offer.finish: only after the drop, once, with copy or move chosen.
    package func dragOfferFinish(_ offer: SelectionOffer) {
        guard let state = offer.drag else {
            offer.postError(WL_DATA_OFFER_ERROR_INVALID_FINISH.rawValue, "\(offer.name).finish: the offer is a selection's, not a drag's")
            return
        }
        guard !state.finished else {
            offer.postError(WL_DATA_OFFER_ERROR_INVALID_FINISH.rawValue, "\(offer.name).finish: finished already")
            return
        }
        guard state.dropped else {
            offer.postError(WL_DATA_OFFER_ERROR_INVALID_FINISH.rawValue, "\(offer.name).finish before the drop")
            return
        }
        guard let source = offer.source else {
            offer.drag?.finished = true
            return
        }
        let action = source.drag.action
        guard action == WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY.rawValue || action == WL_DATA_DEVICE_MANAGER_DND_ACTION_MOVE.rawValue else {
            offer.postError(WL_DATA_OFFER_ERROR_INVALID_FINISH.rawValue, "\(offer.name).finish with the action \(action), neither copy nor move")
            return
        }
        offer.drag?.finished = true
        guard !source.drag.settled else { return }
        source.drag.settled = true
        if source.version >= 3, existingRecord(for: source.client) != nil { wl_data_source_send_dnd_finished(source.resource) }
    }

    /// A dropped offer destroyed unfinished (its client may be dying): a version 3 target
    /// gave up, so the source is cancelled; an older one cannot finish, so this is its finish.
    package func dragOfferDestroyed(_ offer: SelectionOffer) {
        guard let state = offer.drag, state.dropped, !state.finished, let source = offer.source, !source.drag.settled else { return }
        if offer.version >= 3 {
            source.cancel()
        } else {
            source.drag.settled = true
            if source.version >= 3, existingRecord(for: source.client) != nil { wl_data_source_send_dnd_finished(source.resource) }
        }
    }
}

/// An output's link: takes the fingers that `startDrag` took back from their clients.
package final class DragResponder: CompositorResponder {
    package unowned let server: WaylandServer
    package let output: String
    package init(server: WaylandServer, output: String) {
        self.server = server
        self.output = output
    }

    package func respond(to event: InputEvent, at link: Responder) -> ResponderAnswer {
        switch event {
        case .touchDown(_, _, let id, let position):
            guard let drag = server.protocols.selection.dragAndDrop, drag.input == .touch(id), !drag.began else { return .notHandled }
            drag.began = true
            drag.responderOutput = output
            server.dragMoved(drag, to: position)
            return .handled
        case .touchMotion(_, _, let id, let position):
            guard let drag = server.protocols.selection.dragAndDrop, drag.input == .touch(id) else { return .notHandled }
            server.dragMoved(drag, to: position)
            return .handled
        case .touchUp(_, _, let id):
            guard let drag = server.protocols.selection.dragAndDrop, drag.input == .touch(id) else { return .notHandled }
            server.dragReleased(drag)
            return .handled
        case .touchCancel(_, _, let id):
            guard let drag = server.protocols.selection.dragAndDrop, drag.input == .touch(id) else { return .notHandled }
            server.dragCancelled(drag)
            return .handled
        default:
            return .notHandled
        }
    }
}
