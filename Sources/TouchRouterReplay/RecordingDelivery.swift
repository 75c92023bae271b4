import TouchRouterCore

/// A deterministic stand-in for the Wayland layer: it keeps what every client would have received.
public final class RecordingDelivery: InputDelivery {
    public enum Received: Hashable, Sendable {
        case touchDown(SurfaceID, TouchID, Point<SurfaceSpace>)
        case touchMotion(SurfaceID, TouchID, Point<SurfaceSpace>)
        case touchUp(SurfaceID, TouchID)
        case touchFrame(ClientID)
        case touchCancel(ClientID)
        case keyboardEnter(SurfaceID, [UInt32])
        case keyboardLeave(SurfaceID)
        case key(SurfaceID, UInt32, KeyState)
        case modifiers(SurfaceID, KeyboardModifiers)
        case pointerEnter(SurfaceID, Point<SurfaceSpace>)
        case pointerLeave(SurfaceID)
        case pointerMotion(SurfaceID, Point<SurfaceSpace>)
        case pointerButton(SurfaceID, UInt32, ButtonState)
        case pointerAxis(SurfaceID, PointerAxis, Double)
        case pointerFrame(ClientID)
    }

    public private(set) var received: [Received] = []
    /// The event time of every touch down, motion and up, in delivery order.
    public private(set) var touchTimes: [RouterTime] = []
    /// How much of `received` had been written to the clients at each `writeToClients`.
    public private(set) var writes: [Int] = []

    public init() {}

    /// Returns what was received since the last call and forgets it.
    public func take() -> [Received] {
        defer {
            received.removeAll()
            writes.removeAll()
        }
        return received
    }

    public func touchDown(surface: SurfaceID, client: ClientID, time: RouterTime, id: TouchID, local: Point<SurfaceSpace>) { received.append(.touchDown(surface, id, local)); touchTimes.append(time) }
    public func touchMotion(surface: SurfaceID, client: ClientID, time: RouterTime, id: TouchID, local: Point<SurfaceSpace>) { received.append(.touchMotion(surface, id, local)); touchTimes.append(time) }
    public func touchUp(surface: SurfaceID, client: ClientID, time: RouterTime, id: TouchID) { received.append(.touchUp(surface, id)); touchTimes.append(time) }
    public func touchFrame(client: ClientID) { received.append(.touchFrame(client)) }
    public func touchCancel(client: ClientID) { received.append(.touchCancel(client)) }
    public func keyboardEnter(surface: SurfaceID, client: ClientID, pressedKeys: [UInt32]) { received.append(.keyboardEnter(surface, pressedKeys)) }
    public func keyboardLeave(surface: SurfaceID, client: ClientID) { received.append(.keyboardLeave(surface)) }
    public func key(surface: SurfaceID, client: ClientID, time: RouterTime, key: UInt32, state: KeyState) { received.append(.key(surface, key, state)) }
    public func modifiers(surface: SurfaceID, client: ClientID, modifiers: KeyboardModifiers) { received.append(.modifiers(surface, modifiers)) }
    public func pointerEnter(surface: SurfaceID, client: ClientID, local: Point<SurfaceSpace>) { received.append(.pointerEnter(surface, local)) }
    public func pointerLeave(surface: SurfaceID, client: ClientID) { received.append(.pointerLeave(surface)) }
    public func pointerMotion(surface: SurfaceID, client: ClientID, time: RouterTime, local: Point<SurfaceSpace>) { received.append(.pointerMotion(surface, local)) }
    public func pointerButton(surface: SurfaceID, client: ClientID, time: RouterTime, button: UInt32, state: ButtonState) { received.append(.pointerButton(surface, button, state)) }
    public func pointerAxis(surface: SurfaceID, client: ClientID, time: RouterTime, axis: PointerAxis, value: Double, discrete: Int32, source: AxisSource) { received.append(.pointerAxis(surface, axis, value)) }
    public func pointerFrame(client: ClientID) { received.append(.pointerFrame(client)) }
    public func writeToClients() { writes.append(received.count) }
}

/// Delivers nowhere: for benchmarks that measure routing alone.
public final class DiscardingDelivery: InputDelivery {
    public private(set) var count = 0
    public init() {}
    public func touchDown(surface: SurfaceID, client: ClientID, time: RouterTime, id: TouchID, local: Point<SurfaceSpace>) { count &+= 1 }
    public func touchMotion(surface: SurfaceID, client: ClientID, time: RouterTime, id: TouchID, local: Point<SurfaceSpace>) { count &+= 1 }
    public func touchUp(surface: SurfaceID, client: ClientID, time: RouterTime, id: TouchID) { count &+= 1 }
    public func touchFrame(client: ClientID) { count &+= 1 }
    public func touchCancel(client: ClientID) { count &+= 1 }
    public func keyboardEnter(surface: SurfaceID, client: ClientID, pressedKeys: [UInt32]) { count &+= 1 }
    public func keyboardLeave(surface: SurfaceID, client: ClientID) { count &+= 1 }
    public func key(surface: SurfaceID, client: ClientID, time: RouterTime, key: UInt32, state: KeyState) { count &+= 1 }
    public func modifiers(surface: SurfaceID, client: ClientID, modifiers: KeyboardModifiers) { count &+= 1 }
    public func pointerEnter(surface: SurfaceID, client: ClientID, local: Point<SurfaceSpace>) { count &+= 1 }
    public func pointerLeave(surface: SurfaceID, client: ClientID) { count &+= 1 }
    public func pointerMotion(surface: SurfaceID, client: ClientID, time: RouterTime, local: Point<SurfaceSpace>) { count &+= 1 }
    public func pointerButton(surface: SurfaceID, client: ClientID, time: RouterTime, button: UInt32, state: ButtonState) { count &+= 1 }
    public func pointerAxis(surface: SurfaceID, client: ClientID, time: RouterTime, axis: PointerAxis, value: Double, discrete: Int32, source: AxisSource) { count &+= 1 }
    public func pointerFrame(client: ClientID) { count &+= 1 }
}
