import CWaylandClientShim
import TouchRouterCore
import TouchRouterWayland
#if canImport(Glibc)
import Glibc
#endif

/// The wayland backend of `touch-router run`: the session as a client of a host Wayland
/// compositor, each output a window there (an xdg_toplevel showing its frames through
/// wl_shm buffers), the host seat's pointer, keyboard and touch the session's input.
///
/// Two steps, as `touch-router run` takes backends: `init` connects to the host before the
/// session exists (the session replaces WAYLAND_DISPLAY with its own socket) and opens the
/// windows, so that a host that cannot be reached stops everything before a socket opens;
/// `attach` shows the session's outputs in them and reads the host's events in its loop.
/// Everything runs on the session's thread.
public final class NestedBackend {
    /// The host's WAYLAND_DISPLAY, as given: errors name it.
    public let hostName: String
    let display: OpaquePointer
    private var registry: OpaquePointer?
    var compositor: OpaquePointer?
    private(set) var compositorVersion: UInt32 = 0
    var shm: OpaquePointer?
    var wmBase: OpaquePointer?
    private var seatGlobal: (name: UInt32, version: UInt32)?
    private(set) var seat: HostSeat?
    private(set) var windows: [HostWindow] = []
    private(set) weak var server: WaylandServer?
    /// Why the host connection ended the session, if it did: `touch-router run` exits with it.
    public private(set) var failure: WaylandError?
    /// Input events the host's callbacks translated, handed to the router after each read.
    var pending: [InputEvent] = []
    /// A flush that found the host's socket full; retried at the next frame tick and read.
    private var unflushed = false

    /// The outputs' names and identities: WL-1, WL-2… as wlroots names host windows.
    public static func identity(of index: Int) -> OutputIdentity {
        OutputIdentity(name: "WL-\(index + 1)", make: "TouchRouter", model: "wayland window")
    }

    /// Connects to the host compositor `hostName` (a WAYLAND_DISPLAY value: a socket name in
    /// XDG_RUNTIME_DIR or an absolute path) and opens a window for each of `modes`.
    public init(hostName: String, modes: [OutputMode]) throws(WaylandError) {
        self.hostName = hostName
        guard let display = wl_display_connect(hostName) else {
            throw WaylandError("cannot connect to the host Wayland display '\(hostName)' (WAYLAND_DISPLAY): \(String(cString: strerror(errno)))")
        }
        self.display = display
        // On an error the connection is closed by deinit.
        try connect(modes: modes)
    }

    deinit { destroy() }

    private func connect(modes: [OutputMode]) throws(WaylandError) {
        guard let registry = wl_display_get_registry(display) else { throw hostError("wl_display.get_registry") }
        self.registry = registry
        wl_registry_add_listener(registry, Listeners.registry, unretained)
        // The globals arrive in reply to get_registry; what binding them sends (the seat's
        // capabilities) in reply to the next round trip.
        try roundtrip("listing the host's globals")
        var missing: [String] = []
        if compositor == nil { missing.append("wl_compositor (version 4 or later)") }
        if shm == nil { missing.append("wl_shm") }
        if wmBase == nil { missing.append("xdg_wm_base") }
        guard missing.isEmpty else {
            throw WaylandError("the host Wayland display '\(hostName)' lacks \(missing.joined(separator: ", ")): the wayland backend needs them to open a window")
        }
        if let seatGlobal, let registry = self.registry {
            // Version 5: wl_pointer.frame and the axis source; nothing past what is translated.
            let version = min(seatGlobal.version, 5)
            if let proxy = wl_registry_bind(registry, seatGlobal.name, trc_wl_seat_interface(), version) {
                seat = HostSeat(backend: self, seat: OpaquePointer(proxy), version: version)
            }
        }
        for (index, mode) in modes.enumerated() {
            windows.append(try HostWindow(backend: self, index: index, mode: mode))
        }
        try flush()
        // xdg-shell: no buffer before the first configure.
        var rounds = 0
        while windows.contains(where: { !$0.configured }) {
            rounds += 1
            guard rounds <= 100 else { throw WaylandError("the host Wayland display '\(hostName)' never configured the window: no xdg_surface.configure after 100 round trips") }
            try roundtrip("waiting for the window's first configure")
        }
    }

    var unretained: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// Shows the session's outputs in the windows. The host's events are read as an input
    /// source (TouchRouterBackends: `NestedBackend: InputSource`, registered after this),
    /// through `fd`, `name(of:)` and `read(_:)` below.
    public func attach(to server: WaylandServer) throws(WaylandError) {
        self.server = server
        let placements = server.tree.outputs
        for window in windows {
            guard let output = placements.first(where: { $0.name == window.name }) else {
                throw WaylandError("the session has no output \(window.name) for its host window")
            }
            window.layoutRect = output.rect
            try server.setPresenter(window, forOutput: window.name)
        }
        server.outputModeSetter = self
        // A window's place in the layout moves when an output is set a new scale or an output
        // left of it a new size: its input follows.
        let previous = server.hooks.onTouchscreenLayoutChanged
        server.hooks.onTouchscreenLayoutChanged = { [weak self, unowned(unsafe) server] in
            previous?()
            for window in self?.windows ?? [] {
                if let output = server.tree.outputs.first(where: { $0.name == window.name }) { window.layoutRect = output.rect }
            }
        }
    }

    // MARK: The host seat's input

    /// The host connection's descriptor: readable when the host sent something (input,
    /// configures, frame callbacks), all of which `read` dispatches.
    public var fd: Int32 { wl_display_get_fd(display) }

    /// The host seat's devices: "host touch (HOST)", "host pointer (HOST)", "host keyboard (HOST)".
    public func name(of device: DeviceID) -> String? { HostSeat.deviceName(device, host: hostName) }

    /// Reads and dispatches what the host sent, then hands over the input events its
    /// callbacks translated, in order.
    public func read(_ deliver: (InputEvent) -> Void) {
        readHost()
        let events = pending
        pending.removeAll()
        for event in events { deliver(event) }
    }

    // MARK: The host connection

    /// Reads what the host sent, without blocking, and dispatches it (libwayland's
    /// prepare_read / read_events / dispatch_pending), then sends what the callbacks asked.
    func readHost() {
        guard failure == nil else { return }
        while wl_display_prepare_read(display) != 0 {
            guard wl_display_dispatch_pending(display) >= 0 else { return hostFailed() }
        }
        // Requests the callbacks made go out before waiting for their answers.
        _ = try? flush()
        var descriptor = pollfd(fd: wl_display_get_fd(display), events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, 0)
        if ready > 0, descriptor.revents & Int16(POLLIN) != 0 {
            guard wl_display_read_events(display) >= 0 else { return hostFailed() }
        } else {
            wl_display_cancel_read(display)
        }
        guard wl_display_dispatch_pending(display) >= 0 else { return hostFailed() }
        if ready > 0, descriptor.revents & Int16(POLLHUP | POLLERR) != 0 {
            // What came before the hang-up is dispatched; there is no more.
            return hostFailed(reason: "the host closed the connection")
        }
        do { try flush() } catch { hostFailed(error) }
    }

    /// Sends the requests made so far. A full socket keeps them for a later flush.
    func flush() throws(WaylandError) {
        if wl_display_flush(display) < 0 {
            if errno == EAGAIN { unflushed = true; return }
            throw hostError("sending to the host")
        }
        unflushed = false
    }

    /// A flush retried where one found the socket full (the frame tick asks every window).
    func flushIfBehind() {
        guard unflushed, failure == nil else { return }
        do { try flush() } catch { hostFailed(error) }
    }

    private func roundtrip(_ what: String) throws(WaylandError) {
        guard wl_display_roundtrip(display) >= 0 else { throw hostError(what) }
    }

    /// The connection's error, named: a protocol error names the interface and code.
    func hostError(_ what: String) -> WaylandError {
        let code = wl_display_get_error(display)
        var interface: UnsafePointer<wl_interface>?
        var id: UInt32 = 0
        if code == EPROTO {
            let protocolCode = wl_display_get_protocol_error(display, &interface, &id)
            let name = interface.map { String(cString: $0.pointee.name) } ?? "an object"
            return WaylandError("the host Wayland display '\(hostName)' ended the connection, \(what): protocol error \(protocolCode) on \(name)@\(id)")
        }
        let reason = code != 0 ? String(cString: strerror(code)) : String(cString: strerror(errno))
        return WaylandError("the host Wayland display '\(hostName)' went away, \(what): \(reason)")
    }

    private func hostFailed(reason: String? = nil) {
        hostFailed(reason.map { WaylandError("the host Wayland display '\(hostName)' went away: \($0)") } ?? hostError("reading its events"))
    }

    /// The host is gone or refused us: the session ends, and `touch-router run` says why.
    func hostFailed(_ error: WaylandError) {
        guard failure == nil else { return }
        // `touch-router run` fails with it once the session has ended.
        failure = error
        // Touches and keys down on the host end with it.
        seat?.releaseAll()
        server?.stop()
    }

    /// The host asked a window to close (xdg_toplevel.close): the session ends, as cage's does.
    func windowClosed(_ window: HostWindow) {
        server?.stop()
    }

    func global(name: UInt32, interface: String, version: UInt32) {
        guard let registry else { return }
        switch interface {
        case "wl_compositor" where version >= 4 && compositor == nil:
            compositorVersion = min(version, 4)
            compositor = wl_registry_bind(registry, name, trc_wl_compositor_interface(), compositorVersion).map(OpaquePointer.init)
        case "wl_shm" where shm == nil:
            shm = wl_registry_bind(registry, name, trc_wl_shm_interface(), 1).map(OpaquePointer.init)
        case "xdg_wm_base" where wmBase == nil:
            wmBase = wl_registry_bind(registry, name, trc_xdg_wm_base_interface(), 1).map(OpaquePointer.init)
            if let wmBase { xdg_wm_base_add_listener(wmBase, Listeners.wmBase, unretained) }
        case "wl_seat" where seatGlobal == nil && version >= 1:
            // The first seat; bound once the others are (HostSeat).
            seatGlobal = (name, version)
        default: break
        }
    }

    func globalRemoved(name: UInt32) {
        // The seat went: its devices go with it.
        if seatGlobal?.name == name {
            seat?.releaseAll()
            seat?.destroy()
            seat = nil
            seatGlobal = nil
        }
    }

    func window(of surface: OpaquePointer?) -> HostWindow? {
        guard let surface else { return nil }
        return windows.first { $0.surface == surface }
    }

    var now: RouterTime { server?.clock.now() ?? .zero }

    private var destroyed = false

    private func destroy() {
        guard !destroyed else { return }
        destroyed = true
        for window in windows { window.destroy() }
        windows.removeAll()
        seat?.destroy()
        seat = nil
        if let wmBase { xdg_wm_base_destroy(wmBase) }
        if let shm { wl_shm_destroy(shm) }
        if let compositor { wl_compositor_destroy(compositor) }
        if let registry { wl_registry_destroy(registry) }
        wmBase = nil
        shm = nil
        compositor = nil
        registry = nil
        if failure == nil { _ = wl_display_flush(display) }
        wl_display_disconnect(display)
    }
}

/// `msg output set` on a host window: its size is the window's, which the host decides, and
/// the window is not turned; its scale may change (the window shows the same pixels). A
/// virtual output added beside it (`msg output create`) takes any mode.
extension NestedBackend: OutputModeSetter {
    public func setMode(_ mode: OutputMode, onOutput name: String) throws -> OutputMode {
        guard let window = windows.first(where: { $0.name == name }) else { return mode }
        guard mode.width == window.mode.width, mode.height == window.mode.height, mode.transform == window.mode.transform else {
            throw WaylandError("\(name) is a window of the host compositor, whose size and orientation are the host's: resize the host window instead")
        }
        return mode
    }
}
