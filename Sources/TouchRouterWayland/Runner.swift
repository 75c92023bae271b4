import CWaylandShim
import TouchRouterConfig
import TouchRouterCore
#if canImport(Glibc)
import Glibc
#endif

/// `touch-router run`: a session, its control socket, and optionally a command that
/// lives in it; like cage, the session ends when the command does.
public final class ServerRunner {
    public let server: WaylandServer
    public let control: ControlServer
    private let command: [String]
    /// What the command's own connection is granted (`run --grant`); nil: it connects to WAYLAND_DISPLAY as any client.
    private let commandGrants: Set<Privilege>?
    private var child: pid_t = 0
    private var childStatus: Int32 = 0

    /// `configuration` was read from `source` already (a bad file stops the command
    /// before anything starts); it is applied before any socket opens, so that what only
    /// the core can refuse stops it as early.
    public init(options: WaylandServer.Options, command: [String], commandGrants: Set<Privilege>? = nil,
                configuration: SessionConfiguration = SessionConfiguration(), source: ConfigurationSource? = nil) throws(WaylandError) {
        signal(SIGPIPE, SIG_IGN)
        Self.raiseDescriptorLimit()
        server = try WaylandServer(options: options)
        server.shell.source = source
        server.shell.childEnvironment = ChildEnvironment()
        do {
            try server.shell.apply(configuration)
        } catch {
            throw WaylandError(error.description)
        }
        try server.start()
        control = try ControlServer(server: server)
        self.command = command
        self.commandGrants = commandGrants
        setenv("WAYLAND_DISPLAY", server.socketName, 1)
        setenv("TOUCH_ROUTER_SOCKET", control.path, 1)
        try server.onSignal(SIGINT) { [unowned self] in self.server.stop() }
        try server.onSignal(SIGTERM) { [unowned self] in self.server.stop() }
        try server.onSignal(SIGCHLD) { [unowned self] in self.reap() }
        // A failed reload keeps the old configuration; reload() logs why.
        try server.onSignal(SIGHUP) { [unowned self] in _ = try? self.server.shell.reload() }
    }

    /// Every client costs a descriptor or more (its socket, its pools until mapped, its
    /// keymap), so the soft limit (often 1,024) is raised to the hard one, as sway and
    /// systemd's services do; a session without that room refuses new clients early.
    @discardableResult
    public static func raiseDescriptorLimit() -> rlim_t {
        var limit = rlimit()
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        guard getrlimit(resource, &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(resource, &raised) == 0 { return raised.rlim_cur }
        }
        return limit.rlim_cur
    }

    /// Runs until the command exits (returning its status) or a signal stops the session (0).
    public func run() throws(WaylandError) -> Int32 {
        if command.isEmpty {
            print("WAYLAND_DISPLAY=\(server.socketName)")
            print("TOUCH_ROUTER_SOCKET=\(control.path)")
            fflush(nil)
        } else if let commandGrants {
            // The command's first connection is one end of a socket pair whose client holds
            // the grants (PrivilegedSockets.swift), as sway hands swaybar its WAYLAND_SOCKET.
            let end = try server.addGrantedClient(commandGrants)
            defer { close(end) }
            child = try spawnProcess(command, waylandSocket: end)
        } else {
            child = try spawnProcess(command)
        }
        server.run()
        if child > 0 {
            kill(child, SIGTERM)
            var status: Int32 = 0
            waitpid(child, &status, 0)
            childStatus = exitCode(status)
            child = 0
        }
        control.close()
        server.shutdown()
        return childStatus
    }

    private func reap() {
        while true {
            var status: Int32 = 0
            let pid = waitpid(-1, &status, WNOHANG)
            guard pid > 0 else { return }
            if pid == child {
                childStatus = exitCode(status)
                child = 0
                server.stop()
            }
        }
    }

    private func exitCode(_ status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}

/// The client side of the control socket, for `touch-router msg` and tests.
public enum ControlClient {
    /// Sends one request and hands its reply line to `onLine`, and for `trace` every line
    /// after it until the session closes the connection; returns whether the first reply said ok.
    public static func send(_ request: String, to path: String, onLine: (String) -> Void) throws(WaylandError) -> Bool {
        let command = request.split(separator: " ").first
        let streams = command == "trace" || command == "subscribe"
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw WaylandError.errno("socket") }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        guard path.utf8.count < MemoryLayout.size(ofValue: address.sun_path) else { throw WaylandError("control socket path \(path) is too long") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.enumerated() { raw[i] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { throw WaylandError.errno("cannot connect to the control socket \(path)") }
        let line = request + "\n"
        let sent = line.withCString { write(fd, $0, strlen($0)) }
        guard sent == line.utf8.count else { throw WaylandError.errno("cannot send to the control socket \(path)") }
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        var first: Bool? = nil
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            buffer += chunk[0..<count]
            while let newline = buffer.firstIndex(of: 10) {
                let text = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                if first == nil { first = text.hasPrefix("{\"ok\":true") }
                onLine(text)
                // A refused stream is answered once, like any other request.
                if !streams || first == false { return first ?? false }
            }
        }
        return first ?? false
    }
}
