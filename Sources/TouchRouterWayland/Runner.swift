import CWaylandShim
import TouchRouterConfig
import TouchRouterCore
import TouchRouterReplay
#if canImport(Glibc)
import Glibc
#endif

/// `touch-router run`: a session, its control socket, and optionally a command that
/// lives in it; like cage, the session ends when the command does, unless it is supervised
/// (`--supervise`, `[supervise]`): then it is started again when it exits, with a growing
/// delay, until it fails too often and the fallback is shown (docs/supervision.md).
public final class ServerRunner {
    public let server: WaylandServer
    public let control: ControlServer
    /// The command given after `--`; empty: the session prints its sockets.
    private let command: [String]
    /// What the command's own connection is granted (`run --grant`); nil: it connects to WAYLAND_DISPLAY as any client.
    private let commandGrants: Set<Privilege>?
    /// Xwayland's DISPLAY, when `[xwayland]` enables it: printed third, without a command.
    public var x11Display: String?
    private var child: pid_t = 0
    private var childStatus: Int32 = 0
    /// Supervision, when asked for: its settings and decisions, and the app it runs.
    private var supervisor: AppSupervisor?
    private var app: [String] = []
    private var restartTimer: OneShotTimer?
    private var fallbackChild: pid_t = 0
    /// The app was killed for not answering pings, or for a socket that stayed full.
    private var killedForHang = false
    /// NOTIFY_SOCKET, taken from the environment (and removed from it, so that the app does
    /// not speak for the session); READY=1 is sent once.
    private let notifier: SystemdNotifier?
    private var readySent = false
    private var notifyFailed = false

    /// `configuration` was read from `source` already (a bad file stops the command
    /// before anything starts); it is applied before any socket opens, so that what only
    /// the core can refuse stops it as early. `supervise`: restart the command (or, without
    /// one, `supervise.command`) when it exits.
    public init(options: WaylandServer.Options, command: [String], commandGrants: Set<Privilege>? = nil,
                configuration: ServerConfiguration = ServerConfiguration(), source: ConfigurationSource? = nil,
                supervise: SupervisionSettings? = nil) throws(WaylandError) {
        signal(SIGPIPE, SIG_IGN)
        Self.raiseDescriptorLimit()
        var environment: [String: String] = [:]
        for name in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
            unsetenv(name)
        }
        notifier = SystemdNotifier(environment: environment)
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
        if let supervise {
            app = command.isEmpty ? supervise.command : command
            guard !app.isEmpty else { throw WaylandError("--supervise: there is no command to supervise (touch-router run --supervise -- COMMAND, or [supervise] command)") }
            supervisor = AppSupervisor(settings: supervise)
            restartTimer = try server.display.oneShotTimer { [unowned self] in self.restartApp() }
            server.hooks.onResponsiveness = { [unowned self] client, hung in self.responsivenessChanged(client, hung: hung) }
            if let hangAfter = supervise.hangAfter { try server.watchHangs(every: supervise.pingEvery, hangAfter: hangAfter) }
        } else {
            app = command
        }
        if let notifier {
            server.hooks.onToplevelMapped = { [unowned self] pid in self.notifyReady("a window of process \(pid) is mapped") }
            if let interval = notifier.watchdogMilliseconds {
                try server.display.every(milliseconds: interval) { [unowned self] in self.notify("WATCHDOG=1") }
            }
        }
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
    /// A supervised command ends the session only by a clean exit its restart policy does not restart.
    public func run() throws(WaylandError) -> Int32 {
        if command.isEmpty {
            print("WAYLAND_DISPLAY=\(server.socketName)")
            print("TOUCH_ROUTER_SOCKET=\(control.path)")
            if let x11Display { print("DISPLAY=\(x11Display)") }
            fflush(nil)
        }
        if app.isEmpty {
            notifyReady("the session is up")
        } else if supervisor == nil {
            child = try spawnApp()
        } else {
            supervisor?.started(at: server.clock.now())
            do {
                child = try spawnApp()
                server.report("supervising \(app.joined(separator: " ")) (process \(child))")
            } catch {
                // Supervised, a command that cannot start is a failure like any other (127, as a shell says).
                server.report("\(error)")
                appExited(pid: 0, status: 127 << 8)
            }
        }
        server.run()
        for pid in [child, fallbackChild] where pid > 0 {
            // A supervised app leads a process group of its own: its children go with it. One
            // that ignores SIGTERM for 2 s is killed, so that the session always ends.
            let target = supervisor != nil ? -pid : pid
            kill(target, SIGTERM)
            var status: Int32 = 0
            var waited = 0
            while waitpid(pid, &status, WNOHANG) == 0 {
                if waited == 200 { kill(target, SIGKILL) }
                usleep(10_000)
                waited += 1
            }
            if supervisor != nil { kill(target, SIGKILL) }
            if pid == child, supervisor == nil { childStatus = exitCode(status) }
        }
        child = 0
        fallbackChild = 0
        control.close()
        server.shutdown()
        return childStatus
    }

    private func spawnApp() throws(WaylandError) -> pid_t {
        let group = supervisor != nil
        if let commandGrants {
            // The command's first connection is one end of a socket pair whose client holds
            // the grants (PrivilegedSockets.swift), as sway hands swaybar its WAYLAND_SOCKET.
            let end = try server.addGrantedClient(commandGrants)
            defer { close(end) }
            return try spawnProcess(app, waylandSocket: end, newProcessGroup: group)
        }
        return try spawnProcess(app, newProcessGroup: group)
    }

    private func reap() {
        while true {
            var status: Int32 = 0
            let pid = waitpid(-1, &status, WNOHANG)
            guard pid > 0 else { return }
            if pid == child {
                child = 0
                if supervisor != nil {
                    // What the app left running in its group goes with it, before a restart
                    // starts another.
                    kill(-pid, SIGKILL)
                    appExited(pid: pid, status: status)
                } else {
                    childStatus = exitCode(status)
                    server.stop()
                }
            } else if pid == fallbackChild {
                fallbackChild = 0
                let (code, signal) = Self.split(status)
                server.report("the fallback (process \(pid)) \(Self.describe(status: code, signal: signal)); the session stays up")
                server.shell.publish(.app) {
                    "{\"type\":\"app\",\"change\":\"fallback-exited\",\"pid\":\(pid),\"status\":\(Self.json(code)),\"signal\":\(Self.json(signal))}"
                }
            }
        }
    }

    // MARK: Supervision

    private static func split(_ status: Int32) -> (status: Int32?, signal: Int32?) {
        let signal = status & 0x7f
        return signal == 0 ? ((status >> 8) & 0xff, nil) : (nil, signal)
    }

    private static func describe(status: Int32?, signal: Int32?) -> String {
        if let signal { return "was killed by signal \(signal)" }
        return "exited with status \(status ?? 0)"
    }

    private static func json(_ value: Int32?) -> String { value.map { String($0) } ?? "null" }

    private func appExited(pid: pid_t, status raw: Int32) {
        guard var supervisor else { return }
        let (status, signal) = Self.split(raw)
        let hung = killedForHang
        killedForHang = false
        let decision = supervisor.exited(status: status, signal: signal, hung: hung, at: server.clock.now())
        self.supervisor = supervisor
        let what = Self.describe(status: status, signal: signal) + (hung ? " (killed as hung)" : "")
        var next = "null"
        switch decision {
        case .restart(let after):
            let ms = (after + 999_999) / 1_000_000
            next = String(ms)
            server.report("\(pid > 0 ? "app \(pid)" : "the app") \(what); restart \(supervisor.restarts + 1) in \(ms) ms")
            restartTimer?.arm(milliseconds: Int32(clamping: max(1, ms)))
        case .end(let code):
            server.report("\(pid > 0 ? "app \(pid)" : "the app") \(what); restart = \"\(supervisor.settings.restart.rawValue)\" does not restart a clean exit: the session ends")
            childStatus = code
        case .fallback:
            server.report("\(pid > 0 ? "app \(pid)" : "the app") \(what)")
        }
        server.shell.publish(.app) {
            "{\"type\":\"app\",\"change\":\"exited\",\"pid\":\(pid),\"status\":\(Self.json(status)),\"signal\":\(Self.json(signal)),\"hung\":\(hung),"
                + "\"restarts\":\(supervisor.restarts),\"failures\":\(supervisor.failures.count),\"next_in_ms\":\(next)}"
        }
        switch decision {
        case .end: server.stop()
        case .fallback(let reason): showFallback(reason)
        case .restart: break
        }
    }

    private func restartApp() {
        guard var supervisor else { return }
        supervisor.restarted(at: server.clock.now())
        self.supervisor = supervisor
        do {
            child = try spawnApp()
        } catch {
            // As a shell says of a command it cannot run: 127, a failure like any other.
            server.report("restart \(supervisor.restarts): \(error)")
            appExited(pid: 0, status: 127 << 8)
            return
        }
        server.report("app restarted (restart \(supervisor.restarts), process \(child))")
        server.shell.publish(.app) { "{\"type\":\"app\",\"change\":\"restarted\",\"pid\":\(self.child),\"restarts\":\(supervisor.restarts)}" }
    }

    /// The app failed too often: the fallback runs, or the session stays up showing nothing.
    private func showFallback(_ reason: String) {
        guard let supervisor else { return }
        server.report("app failed: \(reason); no more restarts")
        server.shell.publish(.app) {
            "{\"type\":\"app\",\"change\":\"failed\",\"reason\":\(jsonString(reason)),\"restarts\":\(supervisor.restarts),\"failures\":\(supervisor.failures.count)}"
        }
        let fallback = supervisor.settings.fallback
        var pid: pid_t = 0
        if fallback.isEmpty {
            server.report("no fallback is configured ([supervise] fallback): the session stays up with nothing to show until it is stopped")
        } else {
            do {
                pid = try spawnProcess(fallback, newProcessGroup: true)
                fallbackChild = pid
                server.report("fallback started: \(fallback.joined(separator: " ")) (process \(pid))")
            } catch {
                server.report("the fallback cannot start: \(error); the session stays up with nothing to show")
            }
        }
        server.shell.publish(.app) {
            "{\"type\":\"app\",\"change\":\"fallback\",\"pid\":\(pid > 0 ? String(pid) : "null"),\"command\":[\(fallback.map(jsonString).joined(separator: ","))],\"reason\":\(jsonString(reason))}"
        }
        // A service manager waiting for READY=1 hears why the app is not there instead.
        notifyReady("app failed: \(reason)")
    }

    /// Whether `pid` is the supervised app or a process of its group (sh -c's child, a browser's helpers).
    private func isApp(_ pid: Int32) -> Bool {
        child > 0 && pid > 0 && (pid == child || getpgid(pid) == child)
    }

    private func responsivenessChanged(_ client: ClientResponsiveness, hung: Bool) {
        guard let supervisor else { return }
        let policy = supervisor.settings.onHang
        let app = isApp(client.pid)
        let appID = jsonString(client.appID)
        if !hung {
            server.report("client \(client.pid) answers pings again: its windows take touches again")
            server.shell.publish(.app) {
                "{\"type\":\"app\",\"change\":\"responsive\",\"client\":\(client.client.raw),\"pid\":\(client.pid),\"app_id\":\(appID),\"supervised\":\(app)}"
            }
            return
        }
        let why = client.reason == "ping" ? "left a ping unanswered for \(AppSupervisor.seconds(supervisor.settings.hangAfter ?? 0)) s"
            : "left its socket full for \(ClientLimits.unreadSeconds) s"
        server.report("client \(client.pid)\(app ? " (the supervised app)" : "") is hung: it \(why); on-hang = \(policy.rawValue)")
        server.shell.publish(.app) {
            "{\"type\":\"app\",\"change\":\"hung\",\"client\":\(client.client.raw),\"pid\":\(client.pid),\"app_id\":\(appID),\"reason\":\(jsonString(client.reason)),"
                + "\"policy\":\(jsonString(policy.rawValue)),\"supervised\":\(app)}"
        }
        guard policy != .report, client.pid > 1, client.pid != getpid() else { return }
        if app {
            // Counted as a hang when the app itself goes: its group, or its leading process.
            if policy == .restart || client.pid == child { killedForHang = true }
            // restart kills the whole app (its group); kill, only the hung process.
            kill(policy == .restart ? -child : client.pid, SIGKILL)
        } else {
            kill(client.pid, SIGKILL)
        }
    }

    // MARK: systemd

    private func notify(_ state: String) {
        guard let notifier else { return }
        do {
            try notifier.send(state)
        } catch {
            if !notifyFailed { server.report("\(error)") }
            notifyFailed = true
        }
    }

    private func notifyReady(_ status: String) {
        guard notifier != nil, !readySent else { return }
        readySent = true
        notify("READY=1\nSTATUS=\(status)")
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
