import TouchRouterCore

/// A stand-in for clients that checks the deliveries follow wl_touch, wl_pointer and
/// wl_keyboard's rules, as a real client would see them, and notes every breach:
/// motion or up for a touch the client does not have, a key without keyboard focus,
/// an enter without a leave.
public final class ProtocolChecker: InputDelivery {
    public private(set) var violations: [String] = []
    public private(set) var deliveries = 0
    /// Touch ids each client has down (received down, not yet up or cancel).
    public private(set) var openTouches: [ClientID: Set<TouchID>] = [:]
    private var touchSurface: [ClientID: [TouchID: SurfaceID]] = [:]
    public private(set) var keyboardEntered: SurfaceID?
    /// Clients with touch events not yet closed by a frame (or ended by a cancel).
    public private(set) var unframedTouchClients: Set<ClientID> = []
    public private(set) var pointerEntered: SurfaceID?

    /// A surface that leaves the core's tree may live on in its client (an unmapped
    /// popup), so every enter must be closed by a leave, whatever became of the surface.
    public init() {}

    private func breach(_ text: String) { violations.append(text) }

    public func touchDown(surface: SurfaceID, client: ClientID, time: RouterTime, id: TouchID, local: Point<SurfaceSpace>) {
        deliveries += 1
        if openTouches[client, default: []].contains(id) { breach("touch down \(id) to \(client), which has it down already") }
        openTouches[client, default: []].insert(id)
        touchSurface[client, default: [:]][id] = surface
        unframedTouchClients.insert(client)
    }

    public func touchMotion(surface: SurfaceID, client: ClientID, time: RouterTime, id: TouchID, local: Point<SurfaceSpace>) {
        deliveries += 1
        if !openTouches[client, default: []].contains(id) { breach("touch motion \(id) to \(client), which does not have it down") }
        if touchSurface[client]?[id] != surface { breach("touch motion \(id) on \(surface), but it went down on \(String(describing: touchSurface[client]?[id]))") }
        unframedTouchClients.insert(client)
    }

    public func touchUp(surface: SurfaceID, client: ClientID, time: RouterTime, id: TouchID) {
        deliveries += 1
        if openTouches[client]?.remove(id) == nil { breach("touch up \(id) to \(client), which does not have it down") }
        unframedTouchClients.insert(client)
    }

    public func touchFrame(client: ClientID) {
        deliveries += 1
        unframedTouchClients.remove(client)
    }

    public func touchCancel(client: ClientID) {
        deliveries += 1
        openTouches[client] = []
        unframedTouchClients.remove(client)
    }

    public func keyboardEnter(surface: SurfaceID, client: ClientID, pressedKeys: [UInt32]) {
        deliveries += 1
        if let entered = keyboardEntered { breach("keyboard enter \(surface) while \(entered) has focus") }
        keyboardEntered = surface
    }

    public func keyboardLeave(surface: SurfaceID, client: ClientID) {
        deliveries += 1
        if keyboardEntered != surface { breach("keyboard leave \(surface), which has no focus") }
        keyboardEntered = nil
    }

    public func key(surface: SurfaceID, client: ClientID, time: RouterTime, key: UInt32, state: KeyState) {
        deliveries += 1
        if keyboardEntered != surface { breach("key to \(surface) without keyboard focus") }
    }

    public func modifiers(surface: SurfaceID, client: ClientID, modifiers: KeyboardModifiers) {
        deliveries += 1
        if keyboardEntered != surface { breach("modifiers to \(surface) without keyboard focus") }
    }

    public func pointerEnter(surface: SurfaceID, client: ClientID, local: Point<SurfaceSpace>) {
        deliveries += 1
        if let entered = pointerEntered { breach("pointer enter \(surface) while \(entered) has the pointer") }
        pointerEntered = surface
    }

    public func pointerLeave(surface: SurfaceID, client: ClientID) {
        deliveries += 1
        if pointerEntered != surface { breach("pointer leave \(surface), which does not have the pointer") }
        pointerEntered = nil
    }

    public func pointerMotion(surface: SurfaceID, client: ClientID, time: RouterTime, local: Point<SurfaceSpace>) {
        deliveries += 1
        if pointerEntered != surface { breach("pointer motion to \(surface) without pointer focus") }
    }

    public func pointerButton(surface: SurfaceID, client: ClientID, time: RouterTime, button: UInt32, state: ButtonState) {
        deliveries += 1
        if pointerEntered != surface { breach("pointer button to \(surface) without pointer focus") }
    }

    public func pointerAxis(surface: SurfaceID, client: ClientID, time: RouterTime, axis: PointerAxis, value: Double, discrete: Int32, source: AxisSource) {
        deliveries += 1
        if pointerEntered != surface { breach("pointer axis to \(surface) without pointer focus") }
    }

    public func pointerFrame(client: ClientID) { deliveries += 1 }
}
