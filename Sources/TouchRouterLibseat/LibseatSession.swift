import CLibseat
#if canImport(Glibc)
import Glibc
#endif

/// A failure of the seat manager, naming what was asked for and how to get it.
public struct SeatError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }

    /// What a user without a seat can do about it.
    public static let fix = "run seatd (seatd -g video, with LIBSEAT_BACKEND=seatd), or use logind (a login session), or add yourself to the video and input groups"
}

/// A seat taken through libseat (seatd, logind, or libseat's builtin seatd as root): it opens
/// DRM and input device nodes without root, and tells when the session loses the seat (a VT
/// switch) and gets it back. The host watches `fd` and calls `dispatch` when it is readable.
///
/// On a disable, the listeners added with `addListener` run (last added first), then
/// `onDisable`; then the seat is released with libseat_disable_seat, after which devices must
/// not be used until the enable, when `onEnable` and the listeners (first added first) run.
public final class LibseatSession {
    private let seat: OpaquePointer
    /// Each open device's libseat id, by its descriptor.
    private var devices: [Int32: Int32] = [:]
    private var listeners: [(id: Int, disable: () -> Void, enable: () -> Void)] = []
    private var nextListener = 0
    public var onDisable: (() -> Void)?
    public var onEnable: (() -> Void)?
    /// False between a disable and the next enable.
    public private(set) var isActive = false

    /// Opens the seat and waits up to `timeoutMilliseconds` for the seat manager to enable it.
    /// libseat picks its backend (LIBSEAT_BACKEND: seatd, logind, builtin, noop) as it does
    /// for every compositor. Its messages at `logLevel` or above go to standard error.
    public init(timeoutMilliseconds: Int32 = 5000, logLevel: libseat_log_level = LIBSEAT_LOG_LEVEL_ERROR) throws(SeatError) {
        touch_router_seat_log_to_stderr(logLevel)
        // libseat keeps the listener's address and the userdata for the seat's life; the
        // listener is one static table, the userdata this object, which outlives the seat.
        let box = SeatCallbacks()
        guard let seat = libseat_open_seat(LibseatSession.listener, Unmanaged.passUnretained(box).toOpaque()) else {
            throw SeatError("no seat: libseat_open_seat failed (\(Self.errnoText())): \(SeatError.fix)")
        }
        self.seat = seat
        self.callbacks = box
        box.session = self
        // libseat 0.7's noop backend (no seat manager: LIBSEAT_BACKEND=noop) never sends the
        // enable; it is always enabled.
        if box.enabledEarly || name == "noop" { enabled() }
        // A throw from here on still runs deinit, which closes the seat.
        var waited: Int32 = 0
        while !isActive {
            guard waited < timeoutMilliseconds else {
                throw SeatError("the seat \(name) was not enabled within \(timeoutMilliseconds) ms (another session holds it?): \(SeatError.fix)")
            }
            try check(libseat_dispatch(seat, 100), "libseat_dispatch")
            waited += 100
        }
    }

    private let callbacks: SeatCallbacks

    deinit {
        for (fd, id) in devices {
            _ = libseat_close_device(seat, id)
            _ = close(fd)
        }
        _ = libseat_close_seat(seat)
    }

    /// The seat's name, such as seat0.
    public var name: String { libseat_seat_name(seat).map { String(cString: $0) } ?? "seat0" }

    /// Readable when the seat manager has something for `dispatch`.
    public var fd: Int32 { libseat_get_fd(seat) }

    /// Handles what the seat manager sent (enables and disables run the hooks) without waiting.
    public func dispatch() {
        if libseat_dispatch(seat, 0) < 0 {
            warn("touch-router: libseat_dispatch failed on \(name): \(Self.errnoText())")
        }
    }

    /// Opens a device node through the seat manager: its descriptor, until `closeDevice`.
    public func openDevice(_ path: String) throws(SeatError) -> Int32 {
        var fd: Int32 = -1
        let id = libseat_open_device(seat, path, &fd)
        guard id >= 0, fd >= 0 else {
            throw SeatError("cannot open \(path) on the seat \(name): \(Self.errnoText()): \(SeatError.fix)")
        }
        devices[fd] = id
        return fd
    }

    /// Gives a device back to the seat manager and closes its descriptor.
    public func closeDevice(fd: Int32) {
        guard let id = devices.removeValue(forKey: fd) else { return }
        if libseat_close_device(seat, id) < 0 {
            warn("touch-router: libseat_close_device failed for descriptor \(fd) on \(name): \(Self.errnoText())")
        }
        _ = close(fd)
    }

    /// Asks the seat manager to switch to another session (a VT number).
    public func switchSession(_ session: Int32) throws(SeatError) {
        try check(libseat_switch_session(seat, session), "libseat_switch_session(\(session))")
    }

    /// Adds hooks beside `onDisable` and `onEnable`, for a second user of the seat (the DRM
    /// backend and the input backend each release their devices); the number removes them.
    @discardableResult
    public func addListener(disable: @escaping () -> Void, enable: @escaping () -> Void) -> Int {
        nextListener += 1
        listeners.append((nextListener, disable, enable))
        return nextListener
    }

    public func removeListener(_ id: Int) { listeners.removeAll { $0.id == id } }

    /// The number of devices open through the seat.
    public var openDeviceCount: Int { devices.count }

    fileprivate func disabled() {
        isActive = false
        for listener in listeners.reversed() { listener.disable() }
        onDisable?()
        // The seat manager waits for this before it hands the seat to another session.
        if libseat_disable_seat(seat) < 0 {
            warn("touch-router: libseat_disable_seat failed on \(name): \(Self.errnoText())")
        }
    }

    fileprivate func enabled() {
        let resumed = everEnabled
        isActive = true
        everEnabled = true
        // The first enable is the seat being opened, not a resume.
        guard resumed else { return }
        onEnable?()
        for listener in listeners { listener.enable() }
    }

    private var everEnabled = false

    private func check(_ result: Int32, _ call: String) throws(SeatError) {
        if result < 0 { throw SeatError("\(call) failed on the seat: \(Self.errnoText())") }
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }

    nonisolated(unsafe) private static let listener: UnsafeMutablePointer<libseat_seat_listener> = {
        let table = UnsafeMutablePointer<libseat_seat_listener>.allocate(capacity: 1)
        table.initialize(to: libseat_seat_listener(
            enable_seat: { _, userdata in
                let callbacks = Unmanaged<SeatCallbacks>.fromOpaque(userdata!).takeUnretainedValue()
                if let session = callbacks.session { session.enabled() } else { callbacks.enabledEarly = true }
            },
            disable_seat: { _, userdata in
                Unmanaged<SeatCallbacks>.fromOpaque(userdata!).takeUnretainedValue().session?.disabled()
            }))
        return table
    }()
}

/// A line on standard error, written whole.
public func warn(_ message: String) {
    let line = Array((message + "\n").utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

/// What libseat's userdata points at: set once the session exists, since libseat may call
/// back from inside libseat_open_seat, before `self` is complete.
private final class SeatCallbacks {
    weak var session: LibseatSession?
    var enabledEarly = false
}
