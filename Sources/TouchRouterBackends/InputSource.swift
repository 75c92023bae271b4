import TouchRouterCore
import TouchRouterLibinput
import TouchRouterNested
import TouchRouterLibseat
import TouchRouterWayland

/// A source of input events behind a file descriptor, read in the session's loop: libinput
/// (`--input-device`, `--input udev`), the host seat of `--backend wayland`, and the seat
/// manager's messages (which deliver no events). Every one enters the session the same way,
/// through `WaylandServer.addInputSource(_:)`, the one call of the server's
/// `addInputSource(fd:name:read:)`; the events go into the router's queue as a device's.
///
/// The headless backend has no input source: its input comes from the control socket
/// (`msg inject`, `msg play`) and from clients' virtual pointers and keyboards.
public protocol InputSource: AnyObject {
    /// Watched by the session's loop: `read` is called whenever it is readable.
    var fd: Int32 { get }
    /// A device's name, asked the first time it is added, for traces and `msg devices`.
    func name(of device: DeviceID) -> String?
    /// Hands over, in order, every event the source has now, without blocking.
    func read(_ deliver: (InputEvent) -> Void)
    /// True when reading it does nothing but deliver devices' events, so that a round that
    /// changed nothing the session settles can skip settling; false when it does more.
    var onlyDevices: Bool { get }
}

extension InputSource {
    public var onlyDevices: Bool { true }
}

extension WaylandServer {
    /// Registers `source` with the session, which keeps it for its life. It is read once at
    /// once: libinput queues its devices' added events before its descriptor is readable.
    public func addInputSource(_ source: some InputSource) throws(WaylandError) {
        try addInputSource(fd: source.fd, onlyDevices: source.onlyDevices, name: { source.name(of: $0) }, read: { source.read($0) })
    }
}

/// Kernel devices read through libinput: its path or udev backend.
extension LibinputBackend: InputSource {
    public func read(_ deliver: (InputEvent) -> Void) { dispatch(deliver) }
}

/// The host seat's pointer, keyboard and touch of `--backend wayland` (TouchRouterNested).
/// Its descriptor is the host connection, which also brings frame callbacks, buffer
/// releases and the window's close.
extension NestedBackend: InputSource {
    public var onlyDevices: Bool { false }
}

/// The seat manager's messages (enables and disables, a VT switch), dispatched from the
/// session's loop like any input; the seat delivers no events of its own. libinput's udev
/// backend and the drm backend hear them through `LibseatSession.addListener`.
public final class SeatMessages: InputSource {
    public let seat: LibseatSession
    public init(_ seat: LibseatSession) { self.seat = seat }
    public var fd: Int32 { seat.fd }
    public func name(of device: DeviceID) -> String? { nil }
    public func read(_ deliver: (InputEvent) -> Void) { seat.dispatch() }
    /// Enabling and disabling the seat pauses and resumes the outputs and devices.
    public var onlyDevices: Bool { false }
}
