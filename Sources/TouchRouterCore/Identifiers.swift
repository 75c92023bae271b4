/// A surface, named by whoever creates it (the Wayland layer uses the wl_surface's
/// protocol object; replay uses its scene order).
public struct SurfaceID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var raw: UInt32
    @inlinable public init(_ raw: UInt32) { self.raw = raw }
    public static func < (a: SurfaceID, b: SurfaceID) -> Bool { a.raw < b.raw }
    public var description: String { "surface#\(raw)" }
}

public struct OutputID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var raw: UInt32
    @inlinable public init(_ raw: UInt32) { self.raw = raw }
    public static func < (a: OutputID, b: OutputID) -> Bool { a.raw < b.raw }
    public var description: String { "output#\(raw)" }
}

/// The client that owns a surface. Frames and cancels go to clients, not surfaces,
/// as wl_touch.frame and wl_touch.cancel do.
public struct ClientID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var raw: UInt32
    @inlinable public init(_ raw: UInt32) { self.raw = raw }
    public static func < (a: ClientID, b: ClientID) -> Bool { a.raw < b.raw }
    public var description: String { "client#\(raw)" }
}

public struct DeviceID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var raw: UInt32
    @inlinable public init(_ raw: UInt32) { self.raw = raw }
    public static func < (a: DeviceID, b: DeviceID) -> Bool { a.raw < b.raw }
    public var description: String { "device#\(raw)" }
}

/// A point in time in nanoseconds on a monotonic clock. Event times (from the
/// device) and routing stamps (from the router's clock) both use it.
public struct RouterTime: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var nanoseconds: Int64
    @inlinable public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }
    @inlinable public static func microseconds(_ us: Int64) -> RouterTime { RouterTime(nanoseconds: us &* 1000) }
    /// Never traps: NaN is zero, and times past Int64's range of nanoseconds (about
    /// ±292 years) stand at its ends. Readers of files check their times before this.
    @inlinable public static func milliseconds(_ ms: Double) -> RouterTime {
        let ns = (ms * 1_000_000).rounded()
        if ns.isNaN { return .zero }
        // Int64.max is not a Double; 2^63 is the first Double past it.
        if ns >= 9_223_372_036_854_775_808.0 { return RouterTime(nanoseconds: .max) }
        if ns <= -9_223_372_036_854_775_808.0 { return RouterTime(nanoseconds: .min) }
        return RouterTime(nanoseconds: Int64(ns))
    }
    public static let zero = RouterTime(nanoseconds: 0)
    public static func < (a: RouterTime, b: RouterTime) -> Bool { a.nanoseconds < b.nanoseconds }
    /// Milliseconds truncated to 32 bits, as every Wayland input event carries its time.
    @inlinable public var waylandMilliseconds: UInt32 { UInt32(truncatingIfNeeded: nanoseconds / 1_000_000) }
    public var description: String { "\(Double(nanoseconds) / 1_000_000)ms" }
}

/// Where routing reads the time. Injected so that replay and tests are deterministic;
/// nothing in the core reads a real clock.
public protocol RouterClock: AnyObject {
    func now() -> RouterTime
}

/// A clock that moves only when told to (swift-nio's EmbeddedEventLoop.advanceTime).
public final class ManualClock: RouterClock {
    private let storage: UncheckedState<(current: RouterTime, tick: Int64)>

    public private(set) var current: RouterTime {
        get { storage.pointee.current }
        set { storage.pointee.current = newValue }
    }

    /// Added to the time on every read, so consecutive stamps differ in traces.
    public var tickPerRead: Int64 {
        get { storage.pointee.tick }
        set { storage.pointee.tick = newValue }
    }

    public init(start: RouterTime = .zero, tickPerRead: Int64 = 0) {
        storage = UncheckedState((start, tickPerRead))
    }

    deinit {
        storage.release()
    }

    public func now() -> RouterTime {
        defer { current.nanoseconds += tickPerRead }
        return current
    }

    public func advance(to time: RouterTime) {
        if time > current { current = time }
    }

    public func advance(byNanoseconds delta: Int64) {
        current.nanoseconds += delta
    }
}
