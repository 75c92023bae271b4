import CWaylandShim
import TouchRouterCore
#if canImport(Glibc)
import Glibc
#endif

/// `touch-router run`: a session, its control socket, and optionally a command that
/// lives in it; like cage, the session ends when the command does.
public final class SessionRunner {
    public let session: WaylandSession
    public let control: ControlServer
    private let command: [String]
    private var child: pid_t = 0
    private var childStatus: Int32 = 0

    public init(options: WaylandSession.Options, command: [String]) throws(WaylandError) {
        signal(SIGPIPE, SIG_IGN)
        Self.raiseDescriptorLimit()
        session = try WaylandSession(options: options)
        try session.start()
        control = try ControlServer(session: session)
        self.command = command
        setenv("WAYLAND_DISPLAY", session.socketName, 1)
        setenv("TOUCH_ROUTER_SOCKET", control.path, 1)
        try session.onSignal(SIGINT) { [unowned self] in self.session.stop() }
        try session.onSignal(SIGTERM) { [unowned self] in self.session.stop() }
        try session.onSignal(SIGCHLD) { [unowned self] in self.reap() }
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
            print("WAYLAND_DISPLAY=\(session.socketName)")
            print("TOUCH_ROUTER_SOCKET=\(control.path)")
            fflush(nil)
        } else {
            child = try spawn(command)
        }
        session.run()
        if child > 0 {
            kill(child, SIGTERM)
            var status: Int32 = 0
            waitpid(child, &status, 0)
            childStatus = exitCode(status)
            child = 0
        }
        control.close()
        session.shutdown()
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
                session.stop()
            }
        }
    }

    private func exitCode(_ status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// posix_spawnp with the signal mask and SIGPIPE put back: the session blocks the
    /// signals its loop reads through signalfd, and a child must not inherit that.
    private func spawn(_ command: [String]) throws(WaylandError) -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let arguments = command.map { strdup($0) } + [nil]
        defer { for argument in arguments { free(argument) } }
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, arguments[0]!, nil, &attributes, arguments, environ)
        guard result == 0 else { throw WaylandError("cannot run \(command[0]): \(String(cString: strerror(result)))") }
        return pid
    }
}

/// The client side of the control socket, for `touch-router msg` and tests.
public enum ControlClient {
    /// Sends one request and hands its reply line to `onLine`, and for `trace` every line
    /// after it until the session closes the connection; returns whether the first reply said ok.
    public static func send(_ request: String, to path: String, onLine: (String) -> Void) throws(WaylandError) -> Bool {
        let streams = request.split(separator: " ").first == "trace"
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
                if !streams { return first ?? false }
            }
        }
        return first ?? false
    }
}
