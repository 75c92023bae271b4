import TouchRouterConfig
import TouchRouterProtocols
import TouchRouterWayland
#if canImport(Glibc)
import Glibc
#endif

/// Xwayland in the session (`[xwayland] enable`): the X11 display it serves, its process,
/// and its window manager. `on` starts it with the session; `lazy` waits for the first X11
/// client to connect to the display's socket, as sway does. When Xwayland dies its X11
/// clients die with it; the session lives on, and Xwayland starts again (at once, or at
/// the next connection when lazy), up to `maximumQuickDeaths` deaths in a row that each
/// came within `quickDeath` of their start.
public final class XWayland {
    private let display: WaylandDisplay
    private unowned let handler: any XWaylandHandler
    private let state: XWaylandState
    private let mode: XWaylandMode
    private let x11: X11Display
    private let command: String
    private var process: pid_t = 0
    private var startedAt: Int64 = 0
    private var quickDeaths = 0
    private var restartTimer: OneShotTimer?
    private var listenSources: [(fd: Int32, source: OpaquePointer)] = []
    private var readySource: (fd: Int32, source: OpaquePointer)?
    private var readyText: [UInt8] = []
    private var windowManagerSocket: Int32 = -1
    private var connection: XCBConnection?
    private var connectionSource: (fd: Int32, source: OpaquePointer)?
    package private(set) var windowManager: XWindowManager?
    /// How many times Xwayland has been started.
    public private(set) var starts = 0

    static let quickDeath: Int64 = 10_000_000_000
    static let maximumQuickDeaths = 5

    /// Holds a display, sets DISPLAY for the session's children, and starts Xwayland (or,
    /// when lazy, waits for a client). `command` is the Xwayland binary.
    public init(server: WaylandServer, mode: XWaylandMode, command: String = "Xwayland") throws(WaylandError) {
        display = server.display
        handler = server
        state = server.protocols.xwayland
        self.mode = mode
        self.command = command
        x11 = try X11Display()
        do {
            restartTimer = try display.oneShotTimer { [unowned self] in self.start() }
            if mode == .lazy { try waitForClient() }
        } catch {
            stopWaiting()
            x11.release()
            throw error
        }
        setenv("DISPLAY", x11.name, 1)
        // Before the display and its loop go: the sources below live in it.
        server.hooks.onShutdown.append { [weak self] in self?.shutdown() }
        server.report("xwayland: DISPLAY=\(x11.name) (\(mode == .lazy ? "started at the first X11 client" : "starting"))")
        if mode == .on { start() }
    }

    public var displayName: String { x11.name }
    public var pid: pid_t { process }

    /// Lazy: Xwayland starts when a client connects to either socket; it accepts that
    /// connection itself, from the listening socket it is handed.
    private func waitForClient() throws(WaylandError) {
        for fd in x11.sockets {
            let source = try display.watch(fd: fd) { [unowned self] _ in self.clientWaiting() }
            listenSources.append((fd, source))
        }
    }

    private func clientWaiting() {
        stopWaiting()
        start()
    }

    private func stopWaiting() {
        for (fd, source) in listenSources { display.unwatch(fd: fd, source: source) }
        listenSources.removeAll()
    }

    private func start() {
        do {
            try spawn()
        } catch {
            handler.report("\(error)")
            died()
        }
    }

    private func spawn() throws(WaylandError) {
        var wayland: [Int32] = [-1, -1], wm: [Int32] = [-1, -1], ready: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &wayland) == 0 else { throw WaylandError.errno("xwayland: socketpair") }
        guard socketpair(AF_UNIX, type, 0, &wm) == 0 else {
            close(wayland[0]); close(wayland[1])
            throw WaylandError.errno("xwayland: socketpair")
        }
        guard socketpair(AF_UNIX, type, 0, &ready) == 0 else {
            for fd in wayland + wm { close(fd) }
            throw WaylandError.errno("xwayland: socketpair")
        }
        defer { close(wayland[1]); close(wm[1]); close(ready[1]) }
        // The session's end becomes Xwayland's client before Xwayland starts: the first
        // requests it sends already find it known as Xwayland.
        do {
            state.client = try handler.xwaylandConnected(socket: wayland[0])
        } catch {
            close(wm[0]); close(ready[0])
            throw error
        }
        var arguments = [command, x11.name, "-rootless", "-shm", "-displayfd", String(ready[1]), "-wm", String(wm[1])]
        for fd in x11.sockets { arguments += ["-listenfd", String(fd)] }
        do {
            process = try spawnProcess(arguments, waylandSocket: wayland[1], inheriting: x11.sockets + [ready[1], wm[1]])
        } catch {
            close(wm[0]); close(ready[0])
            throw error
        }
        starts += 1
        startedAt = Self.now()
        windowManagerSocket = wm[0]
        let readFD = ready[0]
        do {
            readySource = (readFD, try display.watch(fd: readFD) { [unowned self] _ in self.readyReadable() })
        } catch {
            close(readFD)
            throw error
        }
        handler.report("xwayland: started (process \(process), \(x11.name))")
    }

    /// `-displayfd`: Xwayland writes its display number, then a newline, when it takes
    /// connections; end of file first means it died starting. The number and the newline
    /// are two writes: closing our end after the first would fail Xwayland's second.
    private func readyReadable() {
        guard let (fd, _) = readySource else { return }
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR || errno == EAGAIN { return }
        if count > 0 {
            readyText += buffer.prefix(count)
            guard readyText.contains(UInt8(ascii: "\n")) || readyText.count > 16 else { return }
        }
        stopWatchingReady()
        guard count > 0 else {
            handler.report("xwayland: Xwayland (process \(process)) exited before it was ready")
            died()
            return
        }
        do {
            try startWindowManager()
        } catch {
            handler.report("\(error)")
            kill(process, SIGTERM)
            died()
        }
    }

    private func startWindowManager() throws(WaylandError) {
        let fd = windowManagerSocket
        windowManagerSocket = -1
        let connection = try XCBConnection(fd: fd)
        try connection.becomeWindowManager()
        let windowManager = XWindowManager(requests: connection, handler: handler, ownWindow: connection.ownWindow)
        self.connection = connection
        self.windowManager = windowManager
        state.windowManager = windowManager
        let xcbFD = connection.fd
        connectionSource = (xcbFD, try display.watch(fd: xcbFD) { [unowned self] _ in self.eventsArrived() })
        handler.report("xwayland: ready on \(x11.name), window manager running")
        eventsArrived()
    }

    private func eventsArrived() {
        guard let connection, let windowManager else { return }
        while let bytes = connection.nextEvent() {
            windowManager.handle(X11Event(wire: bytes, xfixesFirstEvent: connection.xfixesFirstEvent))
        }
        do {
            try connection.check()
        } catch {
            handler.report("\(error)")
            died()
        }
    }

    /// The ready pipe's end, closed and out of the loop, with what was read of it.
    private func stopWatchingReady() {
        if let (fd, source) = readySource {
            display.unwatch(fd: fd, source: source)
            close(fd)
        }
        readySource = nil
        readyText = []
    }

    /// Everything of one Xwayland the session holds: its window manager, whose windows leave
    /// the tree, the connection and its watch, the ready pipe and the window manager's socket.
    private func letConnectionGo() {
        windowManager?.disconnected()
        if let (fd, source) = connectionSource { display.unwatch(fd: fd, source: source) }
        connectionSource = nil
        connection = nil
        windowManager = nil
        state.windowManager = nil
        stopWatchingReady()
        if windowManagerSocket >= 0 { close(windowManagerSocket) }
        windowManagerSocket = -1
    }

    /// Xwayland is gone (or never came up): its window manager and client go, and it starts again.
    private func died() {
        letConnectionGo()
        var status: Int32 = 0
        if process > 0 {
            kill(process, SIGKILL)
            waitpid(process, &status, 0)
        }
        let lived = Self.now() - startedAt
        process = 0
        quickDeaths = lived < Self.quickDeath ? quickDeaths + 1 : 0
        guard quickDeaths < Self.maximumQuickDeaths else {
            handler.report("xwayland: Xwayland died \(quickDeaths) times within \(Self.quickDeath / 1_000_000_000) s of starting; not starting it again (X11 apps cannot run)")
            return
        }
        if mode == .lazy {
            handler.report("xwayland: Xwayland is gone; it starts again at the next X11 client")
            do { try waitForClient() } catch { handler.report("\(error)") }
        } else {
            let delay = Int32(250 << min(quickDeaths, 5))
            handler.report("xwayland: Xwayland is gone; starting it again in \(delay) ms")
            restartTimer?.arm(milliseconds: delay)
        }
    }

    private var shutDown = false

    /// Ends Xwayland and gives the display back; once, before the session's display goes.
    public func shutdown() {
        guard !shutDown else { return }
        shutDown = true
        letConnectionGo()
        stopWaiting()
        restartTimer?.disarm()
        if process > 0 {
            kill(process, SIGTERM)
            var status: Int32 = 0
            for _ in 0..<100 where waitpid(process, &status, WNOHANG) == 0 { usleep(10_000) }
            kill(process, SIGKILL)
            waitpid(process, &status, WNOHANG)
            process = 0
        }
        x11.release()
    }

    private static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}
