/// The pointer: its position, its focus and the implicit grab of held buttons, and the
/// clients whose pointer frame is open.
struct PointerState {
    var position = Point<GlobalSpace>(0, 0)
    var focus: SurfaceID?
    var focusClient: ClientID?
    /// Where the focus last heard the pointer was, in its own space.
    var local: Point<SurfaceSpace>?
    /// False until the pointer first moves: a seat with no pointer yet focuses nothing.
    var placed = false
    /// The tree's hit-test revision when the pointer's focus was last picked; nil when
    /// the focus must be picked again whatever the tree did.
    var pickRevision: UInt64? = nil
    var grab: SurfaceID?
    /// A client's popup grab (`ClientGrab`), which the pointer's focus honours.
    var clientGrab: ClientGrab?
    /// The shell holds the pointer mid-press (`takePointer`).
    var take: PointerTake?
    /// Buttons whose press dismissed a client's grab: their release is dropped too.
    var buttonsPressedOutsideGrab: [UInt32] = []
    /// Buttons held when the surface they were pressed on left the tree: their releases
    /// go nowhere, as the rest of a touch on a gone surface does, rather than to a client
    /// that never saw the press.
    var buttonsPressedOnGoneSurface: [UInt32] = []
    var pressedButtons: [UInt32] = []
    var frameClients: [ClientID] = []
    /// The host's active pointer constraint (PointerConstraint.swift).
    var constraint: PointerConstraint?
}

extension Router {
    public internal(set) var pointerPosition: Point<GlobalSpace> {
        get { state.pointee.pointer.position }
        set { state.pointee.pointer.position = newValue }
    }
    public internal(set) var pointerFocus: SurfaceID? {
        get { state.pointee.pointer.focus }
        set { state.pointee.pointer.focus = newValue }
    }
    var pointerFocusClient: ClientID? {
        _read { yield state.pointee.pointer.focusClient }
        _modify { yield &state.pointee.pointer.focusClient }
    }
    var pointerLocal: Point<SurfaceSpace>? {
        _read { yield state.pointee.pointer.local }
        _modify { yield &state.pointee.pointer.local }
    }
    var pointerPlaced: Bool {
        _read { yield state.pointee.pointer.placed }
        _modify { yield &state.pointee.pointer.placed }
    }
    var pointerPickRevision: UInt64? {
        _read { yield state.pointee.pointer.pickRevision }
        _modify { yield &state.pointee.pointer.pickRevision }
    }
    var pointerGrab: SurfaceID? {
        _read { yield state.pointee.pointer.grab }
        _modify { yield &state.pointee.pointer.grab }
    }
    var buttonsPressedOutsideGrab: [UInt32] {
        _read { yield state.pointee.pointer.buttonsPressedOutsideGrab }
        _modify { yield &state.pointee.pointer.buttonsPressedOutsideGrab }
    }
    var buttonsPressedOnGoneSurface: [UInt32] {
        _read { yield state.pointee.pointer.buttonsPressedOnGoneSurface }
        _modify { yield &state.pointee.pointer.buttonsPressedOnGoneSurface }
    }
    public internal(set) var pressedButtons: [UInt32] {
        get { state.pointee.pointer.pressedButtons }
        _modify { yield &state.pointee.pointer.pressedButtons }
    }
    var pointerFrameClients: [ClientID] {
        _read { yield state.pointee.pointer.frameClients }
        _modify { yield &state.pointee.pointer.frameClients }
    }

    // MARK: Pointer emulation

    /// Emulated input goes wherever the pointer focus is, which the move puts on the touched surface.
    func emulatePointerPress(time: RouterTime, at position: Point<GlobalSpace>) {
        movePointer(to: position, time: time)
        if pressedButtons.isEmpty { pointerGrab = pointerFocus }
        if !pressedButtons.contains(EvdevCode.buttonLeft) { pressedButtons.append(EvdevCode.buttonLeft) }
        if let focus = pointerFocus, let focusClient = tree.client(of: focus) {
            delivery.pointerButton(surface: focus, client: focusClient, time: time, button: EvdevCode.buttonLeft, state: .pressed)
            record(.pointerButton, focus, focusClient, nil, .pointerEmulation)
            notePointerFrame(for: focusClient)
        }
        flushPointerFrames()
    }

    func releaseEmulatedButton(time: RouterTime) {
        pressedButtons.removeAll { $0 == EvdevCode.buttonLeft }
        if let focus = pointerFocus, let focusClient = tree.client(of: focus) {
            delivery.pointerButton(surface: focus, client: focusClient, time: time, button: EvdevCode.buttonLeft, state: .released)
            record(.pointerButton, focus, focusClient, nil, .pointerEmulation)
            notePointerFrame(for: focusClient)
        }
        endPointerGrabIfReleased(time: time)
        flushPointerFrames()
    }

    // MARK: Pointer

    func clampedToOutputs(_ point: Point<GlobalSpace>) -> Point<GlobalSpace> {
        // A device's delta that is not a number leaves the pointer where it was.
        guard !point.x.isNaN, !point.y.isNaN else { return pointerPosition }
        if tree.output(at: point) != nil { return point }
        guard let output = tree.output(at: pointerPosition).flatMap({ tree.output($0) }) ?? tree.outputs.first,
              output.rect.width > 0, output.rect.height > 0 else { return point }
        let rect = output.rect
        // Just inside the far edges: rectangles are half-open.
        let x = min(max(point.x, Double(rect.minX)), Double(rect.maxX) - 1.0 / 256)
        let y = min(max(point.y, Double(rect.minY)), Double(rect.maxY) - 1.0 / 256)
        return Point(x, y)
    }

    func pointerMotion(_ event: InputEvent, time: RouterTime, to position: Point<GlobalSpace>) -> RouteOutcome {
        let reason = movePointer(to: position, time: time)
        if pointerFocus == nil {
            flushPointerFrames()
            return compositorChain(event, from: tree.hitTest(position)?.surface, output: tree.output(at: position)).0
        }
        flushPointerFrames()
        return .delivered(reason)
    }

    /// Moves the pointer, re-picks its focus unless a button holds it, and sends motion.
    @discardableResult
    func movePointer(to position: Point<GlobalSpace>, time: RouterTime) -> DeliveryReason {
        pointerPosition = position
        pointerPlaced = true
        pointerPickRevision = tree.hitTestRevision
        if let grab = pointerGrab, tree.contains(grab), let client = tree.client(of: grab) {
            let local = tree.localPoint(position, in: grab)!
            markDecided()
            pointerLocal = local
            delivery.pointerMotion(surface: grab, client: client, time: time, local: local)
            record(.pointerMotion, grab, client, local, .implicitGrab)
            notePointerFrame(for: client)
            return .implicitGrab
        }
        pointerGrab = nil
        let target = pointerTarget(at: position)
        markDecided()
        if target?.surface != pointerFocus { setPointerFocus(target) }
        guard let target else { return .pointerFocus }
        pointerLocal = target.local
        delivery.pointerMotion(surface: target.surface, client: target.client, time: time, local: target.local)
        record(.pointerMotion, target.surface, target.client, target.local, .pointerFocus)
        notePointerFrame(for: target.client)
        return .pointerFocus
    }

    /// Whether `refreshPointerFocus` has work: the scene changed under a still pointer, or
    /// the end of a grab asked for the pointer to be given again.
    public var pointerFocusStale: Bool {
        pointerPlaced && ignoreInteractionDepth == 0 && pointerTake == nil && pointerPickRevision != tree.hitTestRevision
    }

    /// Looks again at what lies under a still pointer once the scene has changed, as
    /// Weston's repick and sway's cursor rebase do: the focus leaves a surface that moved
    /// away and enters the one now there; a focus that stays hears its new local position
    /// as motion. Held buttons keep the focus, which still hears where it now is. Cheap
    /// when nothing changed. The host calls it once it has applied a batch of changes;
    /// buttons and axis events call it first, so that they never reach a stale focus.
    public func refreshPointerFocus() {
        guard pointerFocusStale else { return }
        let saved = recordDeliveries
        recordDeliveries.removeAll(keepingCapacity: true)
        let old = pointerFocus
        repickPointer(time: clock.now())
        flushPointerFrames()
        if tracing, !recordDeliveries.isEmpty {
            traceSink?.focusChanged(FocusChangeRecord(kind: .pointer, from: old, to: pointerFocus, cause: .sceneChanged, deliveries: recordDeliveries))
        }
        recordDeliveries = saved
    }

    /// Once the last button is up the implicit grab ends, and the pointer goes to what is
    /// under it now, as in Weston.
    func endPointerGrabIfReleased(time: RouterTime) {
        guard pressedButtons.isEmpty, pointerGrab != nil else { return }
        pointerGrab = nil
        if ignoreInteractionDepth == 0 { repickPointer(time: time) }
    }

    /// Gives the still pointer to what is under it now (the grabbed surface while a button
    /// is held): leave and enter if that changed, motion if only its local position did.
    func repickPointer(time: RouterTime) {
        pointerPickRevision = tree.hitTestRevision
        var target: PointerTarget?
        if let grab = pointerGrab {
            if let client = tree.client(of: grab), let local = tree.localPoint(pointerPosition, in: grab) { target = (grab, client, local) }
        } else {
            target = pointerTarget(at: pointerPosition)
        }
        if target?.surface != pointerFocus {
            if pointerGrab == nil { setPointerFocus(target) }
        } else if let target, target.local != pointerLocal {
            pointerLocal = target.local
            delivery.pointerMotion(surface: target.surface, client: target.client, time: time, local: target.local)
            record(.pointerMotion, target.surface, target.client, target.local, pointerGrab == nil ? .pointerFocus : .implicitGrab)
            notePointerFrame(for: target.client)
        }
    }

    typealias PointerTarget = (surface: SurfaceID, client: ClientID, local: Point<SurfaceSpace>)

    /// The surface under `position` if its client bound wl_pointer: the pointer's focus there.
    func pointerTarget(at position: Point<GlobalSpace>) -> PointerTarget? {
        guard let hit = tree.hitTest(position), let client = tree.client(of: hit.surface),
              capabilities(of: client).contains(.pointer), clientGrab.map({ $0.client == client }) ?? true else { return nil }
        return (hit.surface, client, hit.local)
    }

    func setPointerFocus(_ target: PointerTarget?) {
        if let old = pointerFocus, let client = pointerFocusClient {
            delivery.pointerLeave(surface: old, client: client)
            record(.pointerLeave, old, client, nil, .focusChange)
            notePointerFrame(for: client)
        }
        pointerFocus = target?.surface
        pointerFocusClient = target?.client
        pointerLocal = target?.local
        if let (surface, client, local) = target {
            delivery.pointerEnter(surface: surface, client: client, local: local)
            record(.pointerEnter, surface, client, local, .focusChange)
            notePointerFrame(for: client)
        }
    }

    func pointerButton(_ event: InputEvent, time: RouterTime, button: UInt32, state: ButtonState) -> RouteOutcome {
        refreshPointerFocus()
        if state == .pressed, let grab = clientGrab, pointerGrab == nil, pointerFocusClient != grab.client {
            markDecided()
            buttonsPressedOutsideGrab.append(button)
            dismissClientGrab()
            return .dropped(.outsideGrab)
        }
        if state == .released, let i = buttonsPressedOutsideGrab.firstIndex(of: button) {
            buttonsPressedOutsideGrab.remove(at: i)
            return .dropped(.outsideGrab)
        }
        if state == .released, let i = buttonsPressedOnGoneSurface.firstIndex(of: button) {
            buttonsPressedOnGoneSurface.remove(at: i)
            return .dropped(.surfaceGone)
        }
        switch state {
        case .pressed:
            if pressedButtons.isEmpty { pointerGrab = pointerFocus }
            if !pressedButtons.contains(button) { pressedButtons.append(button) }
        case .released:
            pressedButtons.removeAll { $0 == button }
        }
        defer { if pressedButtons.isEmpty { pointerGrab = nil } }
        guard let focus = pointerFocus, let client = tree.client(of: focus) else {
            return compositorChain(event, from: tree.hitTest(pointerPosition)?.surface, output: tree.output(at: pointerPosition)).0
        }
        if state == .pressed { pressLanded(on: focus) }
        markDecided()
        delivery.pointerButton(surface: focus, client: client, time: time, button: button, state: state)
        let reason: DeliveryReason = pointerGrab == nil ? .pointerFocus : .implicitGrab
        record(.pointerButton, focus, client, nil, reason)
        notePointerFrame(for: client)
        endPointerGrabIfReleased(time: time)
        flushPointerFrames()
        return .delivered(reason)
    }

    func pointerAxis(_ event: InputEvent, time: RouterTime, axis: PointerAxis, value: Double, discrete: Int32, source: AxisSource) -> RouteOutcome {
        refreshPointerFocus()
        guard let focus = pointerFocus, let client = tree.client(of: focus) else {
            return compositorChain(event, from: tree.hitTest(pointerPosition)?.surface, output: tree.output(at: pointerPosition)).0
        }
        markDecided()
        delivery.pointerAxis(surface: focus, client: client, time: time, axis: axis, value: value, discrete: discrete, source: source)
        record(.pointerAxis, focus, client, nil, .pointerFocus)
        notePointerFrame(for: client)
        flushPointerFrames()
        return .delivered(.pointerFocus)
    }

    func notePointerFrame(for client: ClientID) {
        if !pointerFrameClients.contains(client) { pointerFrameClients.append(client) }
    }

    func flushPointerFrames() {
        for client in pointerFrameClients {
            delivery.pointerFrame(client: client)
            record(.pointerFrame, nil, client, nil, .frame)
        }
        pointerFrameClients.removeAll(keepingCapacity: true)
    }

    /// Core Wayland gives clients no touchpad gestures, so they go to compositor responders,
    /// starting at the surface under the pointer.
    func touchpadGesture(_ event: InputEvent) -> RouteOutcome {
        compositorChain(event, from: pointerFocus ?? tree.hitTest(pointerPosition)?.surface, output: tree.output(at: pointerPosition)).0
    }
}
