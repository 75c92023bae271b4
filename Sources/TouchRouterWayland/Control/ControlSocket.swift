import CWaylandShim
import TouchRouterConfig
import TouchRouterCore
import TouchRouterReplay
#if canImport(Glibc)
import Glibc
#endif

/// The control socket, like sway's IPC: a Unix socket in XDG_RUNTIME_DIR, mode 0600, that
/// refuses peers of another uid. A connection sends any number of requests, one line of
/// words each, and gets one line of JSON for each, `{"ok":true,...}` or
/// `{"ok":false,"error":"..."}`. `trace` goes on streaming one JSON line per routing
/// decision until the peer goes.
///
/// What one peer can hold is bounded: `maximumConnections` at once, lines of
/// `maximumLine` bytes, `maximumUnsent` bytes of replies it has not read (a trace reader
/// that falls behind loses lines and is told how many), and a connection with nothing to
/// stream that sends no request for `idleSeconds` is closed.
///
/// This file is the transport: the socket, its peers, their lines in and out. What a request
/// does is ControlRequests.swift's, the `trace` stream ControlTrace.swift's, how a request
/// reads ControlRequest.swift's, and how a reply is written JSONReply.swift's.
public final class ControlServer {
    public static let maximumConnections = 64
    public static let maximumLine = 65536
    public static let maximumUnsent = 1 << 20
    public static let idleSeconds = 60
    /// `idleSeconds`, unless TOUCH_ROUTER_CONTROL_IDLE_SECONDS (1 or more) says otherwise,
    /// as the tests do to see a connection closed without waiting a minute.
    package let idleSeconds: Int
    /// Touches down at once through `inject`, as scripts allow (InputLimits.liveTouches):
    /// the router's touch rules look at every live touch.
    public static let maximumInjectedTouches = InputLimits.liveTouches

    public let path: String
    package unowned let server: WaylandServer
    private let listenFD: Int32
    private var listenSource: OpaquePointer?
    package private(set) var connections: [Int32: Connection] = [:]
    /// The `trace` stream while a peer reads it (ControlTrace.swift).
    package var traceWriter: FlushStampedTrace?
    /// The workload `play` is playing (ControlRequests.swift).
    package var player: WorkloadPlayer?
    /// A screenshot is being composed and written off the loop (ControlRequests.swift).
    package var screenshotInFlight = false

    package final class Connection {
        package let fd: Int32
        package var source: OpaquePointer?
        package var buffer: [UInt8] = []
        /// Reply bytes the peer has not read yet.
        package var unsent: [UInt8] = []
        /// Trace lines dropped since the peer last kept up.
        package var lost = 0
        package var tracing = false
        /// Waiting for a `play` to end: never idle.
        package var waiting = false
        /// What `subscribe` asked for; nil before it.
        package var subscriptions: Set<ShellTopic>?
        /// A trace reader or a subscriber: its stream is never idle, and a stream that
        /// falls behind loses lines rather than the connection.
        package var streams: Bool { tracing || subscriptions != nil }
        package var lastRequest: RouterTime
        package init(fd: Int32, now: RouterTime) {
            self.fd = fd
            lastRequest = now
        }
    }

    public init(server: WaylandServer, path explicitPath: String? = nil) throws(WaylandError) {
        self.server = server
        idleSeconds = getenv("TOUCH_ROUTER_CONTROL_IDLE_SECONDS").flatMap { Int(String(cString: $0)) }.flatMap { $0 >= 1 ? $0 : nil } ?? Self.idleSeconds
        guard let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }) else { throw WaylandError("XDG_RUNTIME_DIR is not set: it says where the control socket goes") }
        path = explicitPath ?? "\(runtime)/touch-router.\(getpid()).\(server.socketName).sock"
        listenFD = try listeningSocket(at: path, named: "control socket", replacing: .anything)
        listenSource = try server.watch(fd: listenFD) { [unowned self] _ in self.accept() }
        server.shell.sink = self
        try server.display.every(milliseconds: 1000) { [weak self] in self?.sweep() }
    }

    public func close() {
        for fd in Array(connections.keys) { drop(fd) }
        if let listenSource { server.unwatch(fd: listenFD, source: listenSource) }
        listenSource = nil
        Glibc.close(listenFD)
        unlink(path)
    }

    private func accept() {
        while true {
            let fd = tr_accept_nonblocking(listenFD)
            guard fd >= 0 else { return }
            var uid: UInt32 = .max
            guard tr_peer_uid(fd, &uid) == 0, uid == getuid() else {
                server.report("control socket: refused a peer of uid \(uid)")
                Glibc.close(fd)
                continue
            }
            guard connections.count < Self.maximumConnections else {
                let refusal = JSONReply.failure("the session has \(Self.maximumConnections) control connections open, the most it keeps: close one first") + "\n"
                _ = refusal.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count - 1) }
                Glibc.close(fd)
                continue
            }
            let connection = Connection(fd: fd, now: server.clock.now())
            do {
                connection.source = try server.watch(fd: fd) { [unowned self] _ in self.readable(fd) }
                connections[fd] = connection
            } catch {
                Glibc.close(fd)
            }
        }
    }

    private func readable(_ fd: Int32) {
        guard let connection = connections[fd] else { return }
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count <= 0 {
            if count < 0, errno == EAGAIN || errno == EINTR { return }
            drop(fd)
            return
        }
        connection.buffer += chunk[0..<count]
        connection.lastRequest = server.clock.now()
        var consumed = 0
        while let newline = connection.buffer[consumed...].firstIndex(of: 10) {
            let line = String(decoding: connection.buffer[consumed..<newline], as: UTF8.self)
            consumed = newline + 1
            if let reply = handle(line, from: connection) { send(fd, reply) }
            guard connections[fd] != nil else { return }
        }
        connection.buffer.removeSubrange(..<consumed)
        guard connection.buffer.count <= Self.maximumLine else {
            send(fd, JSONReply.failure("request longer than \(Self.maximumLine) bytes"))
            drop(fd)
            return
        }
    }

    /// Every second: flushes what peers had not read, and closes connections idle too long.
    private func sweep() {
        let now = server.clock.now()
        for (fd, connection) in connections {
            flush(connection)
            guard connections[fd] != nil, !connection.streams, !connection.waiting else { continue }
            if (now.nanoseconds - connection.lastRequest.nanoseconds) / 1_000_000_000 >= Int64(idleSeconds) { drop(fd) }
        }
    }

    private func drop(_ fd: Int32) {
        guard let connection = connections.removeValue(forKey: fd) else { return }
        if let source = connection.source { server.unwatch(fd: fd, source: source) }
        if connection.tracing { stopTracingUnlessRead() }
        Glibc.close(fd)
    }

    /// Queues one line for the peer and writes what it will take now. A reply nobody
    /// reads closes the connection once `maximumUnsent` bytes wait; a trace line is
    /// dropped instead, and counted, and the peer is told the count once it catches up.
    package func send(_ fd: Int32, _ line: String) {
        guard let connection = connections[fd] else { return }
        let bytes = line.utf8.count + 1
        if connection.unsent.count + bytes > Self.maximumUnsent {
            if connection.streams {
                connection.lost += 1
                return
            }
            drop(fd)
            return
        }
        if connection.lost > 0, connection.unsent.isEmpty {
            let lost: JSONValue = ["lost": .number(connection.lost)]
            connection.unsent += lost.json.utf8
            connection.unsent.append(10)
            connection.lost = 0
        }
        connection.unsent += line.utf8
        connection.unsent.append(10)
        flush(connection)
    }

    private func flush(_ connection: Connection) {
        while !connection.unsent.isEmpty {
            let written = connection.unsent.withUnsafeBytes { write(connection.fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { return }
                drop(connection.fd)
                return
            }
            connection.unsent.removeFirst(written)
        }
    }
}

extension ControlServer: ShellEventSink {
    package func wants(_ topic: ShellTopic) -> Bool {
        connections.values.contains { $0.subscriptions?.contains(topic) == true }
    }

    /// One line to each subscriber of the topic, written now (the control socket is not
    /// libwayland's, so nothing waits for the loop's flush).
    package func publish(_ topic: ShellTopic, _ json: String) {
        for (fd, connection) in connections where connection.subscriptions?.contains(topic) == true { send(fd, json) }
    }
}
