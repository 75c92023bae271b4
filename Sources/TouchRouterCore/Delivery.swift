/// What the router hands to clients, in surface-local coordinates. The Wayland layer
/// implements it by sending wl_touch, wl_keyboard and wl_pointer events; replay and
/// tests record it. Frames and cancels go to a client, as wl_touch and wl_pointer say.
public protocol InputDelivery: AnyObject {
    func touchDown(surface: SurfaceID, client: ClientID, time: RouterTime, id: TouchID, local: Point<SurfaceSpace>)
    func touchMotion(surface: SurfaceID, client: ClientID, time: RouterTime, id: TouchID, local: Point<SurfaceSpace>)
    func touchUp(surface: SurfaceID, client: ClientID, time: RouterTime, id: TouchID)
    func touchFrame(client: ClientID)
    func touchCancel(client: ClientID)

    func keyboardEnter(surface: SurfaceID, client: ClientID, pressedKeys: [UInt32])
    func keyboardLeave(surface: SurfaceID, client: ClientID)
    func key(surface: SurfaceID, client: ClientID, time: RouterTime, key: UInt32, state: KeyState)
    func modifiers(surface: SurfaceID, client: ClientID, modifiers: KeyboardModifiers)

    func pointerEnter(surface: SurfaceID, client: ClientID, local: Point<SurfaceSpace>)
    func pointerLeave(surface: SurfaceID, client: ClientID)
    func pointerMotion(surface: SurfaceID, client: ClientID, time: RouterTime, local: Point<SurfaceSpace>)
    func pointerButton(surface: SurfaceID, client: ClientID, time: RouterTime, button: UInt32, state: ButtonState)
    func pointerAxis(surface: SurfaceID, client: ClientID, time: RouterTime, axis: PointerAxis, value: Double, discrete: Int32, source: AxisSource)
    func pointerFrame(client: ClientID)
    /// A relative pointer motion, unclamped and unconstrained, ahead of the motion it moves
    /// the pointer by (if any), to the pointer's focus.
    func pointerRelativeMotion(surface: SurfaceID, client: ClientID, time: RouterTime, dx: Double, dy: Double)
    /// Writes what clients were sent so far now. The router calls it when a touch frame
    /// ends with presses, before the work they leave that can wait (raising windows, moving
    /// the keyboard focus), so that the frame's touches do not wait behind it.
    func writeToClients()
}

extension InputDelivery {
    public func writeToClients() {}
    public func pointerRelativeMotion(surface: SurfaceID, client: ClientID, time: RouterTime, dx: Double, dy: Double) {}
}

/// Hears the surface each press (a touch down, a pointer button pressed) went to, once the
/// router's one hit test and the fallback chain chose it: a desktop shell raises that
/// window, with no hit test of its own. Told before the keyboard focus follows it: for a
/// pointer button, before the press is delivered; for a touch, once its frame is written
/// (every finger of a frame is hit-tested against the stack it was put down on).
public protocol PressObserver: AnyObject {
    func pressLanded(on surface: SurfaceID)
}

/// Which wl_seat devices a client has bound. The fallback chain passes a surface by
/// when its client lacks what the event needs, and touch becomes pointer input for a
/// client with a pointer but no touch, as sway does.
public struct ClientCapabilities: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let keyboard = ClientCapabilities(rawValue: 1 << 0)
    public static let pointer = ClientCapabilities(rawValue: 1 << 1)
    public static let touch = ClientCapabilities(rawValue: 1 << 2)
    public static let all: ClientCapabilities = [.keyboard, .pointer, .touch]
}
