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
public final class ControlServer {
    public static let maximumConnections = 64
    public static let maximumLine = 65536
    public static let maximumUnsent = 1 << 20
    public static let idleSeconds = 60
    /// `idleSeconds`, unless TOUCH_ROUTER_CONTROL_IDLE_SECONDS (1 or more) says otherwise,
    /// as the tests do to see a connection closed without waiting a minute.
    let idleSeconds: Int
    /// Touches down at once through `inject`, as scripts allow (InputLimits.liveTouches):
    /// the router's touch rules look at every live touch.
    public static let maximumInjectedTouches = InputLimits.liveTouches

    public let path: String
    private unowned let session: WaylandSession
    private let listenFD: Int32
    private var listenSource: OpaquePointer?
    private var connections: [Int32: Connection] = [:]
    private var traceWriter: FlushStampedTrace?
    private var player: WorkloadPlayer?

    final class Connection {
        let fd: Int32
        var source: OpaquePointer?
        var buffer: [UInt8] = []
        /// Reply bytes the peer has not read yet.
        var unsent: [UInt8] = []
        /// Trace lines dropped since the peer last kept up.
        var lost = 0
        var tracing = false
        /// Waiting for a `play` to end: never idle.
        var waiting = false
        /// What `subscribe` asked for; nil before it.
        var subscriptions: Set<ShellTopic>?
        /// A trace reader or a subscriber: its stream is never idle, and a stream that
        /// falls behind loses lines rather than the connection.
        var streams: Bool { tracing || subscriptions != nil }
        var lastRequest: RouterTime
        init(fd: Int32, now: RouterTime) {
            self.fd = fd
            lastRequest = now
        }
    }

    public init(session: WaylandSession, path explicitPath: String? = nil) throws(WaylandError) {
        self.session = session
        idleSeconds = getenv("TOUCH_ROUTER_CONTROL_IDLE_SECONDS").flatMap { Int(String(cString: $0)) }.flatMap { $0 >= 1 ? $0 : nil } ?? Self.idleSeconds
        guard let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }) else { throw WaylandError("XDG_RUNTIME_DIR is not set: it says where the control socket goes") }
        path = explicitPath ?? "\(runtime)/touch-router.\(getpid()).\(session.socketName).sock"
        listenFD = try listeningSocket(at: path, named: "control socket", replacing: .anything)
        listenSource = try session.watch(fd: listenFD) { [unowned self] _ in self.accept() }
        session.shell.sink = self
        try session.display.every(milliseconds: 1000) { [weak self] in self?.sweep() }
    }

    public func close() {
        for fd in Array(connections.keys) { drop(fd) }
        if let listenSource { session.unwatch(fd: listenFD, source: listenSource) }
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
                session.report("control socket: refused a peer of uid \(uid)")
                Glibc.close(fd)
                continue
            }
            guard connections.count < Self.maximumConnections else {
                let refusal = failure("the session has \(Self.maximumConnections) control connections open, the most it keeps: close one first") + "\n"
                _ = refusal.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count - 1) }
                Glibc.close(fd)
                continue
            }
            let connection = Connection(fd: fd, now: session.clock.now())
            do {
                connection.source = try session.watch(fd: fd) { [unowned self] _ in self.readable(fd) }
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
        connection.lastRequest = session.clock.now()
        var consumed = 0
        while let newline = connection.buffer[consumed...].firstIndex(of: 10) {
            let line = String(decoding: connection.buffer[consumed..<newline], as: UTF8.self)
            consumed = newline + 1
            if let reply = handle(line, fd: fd) { send(fd, reply) }
            guard connections[fd] != nil else { return }
        }
        connection.buffer.removeSubrange(..<consumed)
        guard connection.buffer.count <= Self.maximumLine else {
            send(fd, failure("request longer than \(Self.maximumLine) bytes"))
            drop(fd)
            return
        }
    }

    /// Every second: flushes what peers had not read, and closes connections idle too long.
    private func sweep() {
        let now = session.clock.now()
        for (fd, connection) in connections {
            flush(connection)
            guard connections[fd] != nil, !connection.streams, !connection.waiting else { continue }
            if (now.nanoseconds - connection.lastRequest.nanoseconds) / 1_000_000_000 >= Int64(idleSeconds) { drop(fd) }
        }
    }

    private func drop(_ fd: Int32) {
        guard let connection = connections.removeValue(forKey: fd) else { return }
        if let source = connection.source { session.unwatch(fd: fd, source: source) }
        if traceWriter != nil, !connections.values.contains(where: \.tracing) {
            session.router.traceSink = nil
            session.onFlushed = nil
            session.onReceipt = nil
            traceWriter = nil
        }
        Glibc.close(fd)
    }

    /// Queues one line for the peer and writes what it will take now. A reply nobody
    /// reads closes the connection once `maximumUnsent` bytes wait; a trace line is
    /// dropped instead, and counted, and the peer is told the count once it catches up.
    private func send(_ fd: Int32, _ line: String) {
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
            connection.unsent += Array("{\"lost\":\(connection.lost)}\n".utf8)
            connection.lost = 0
        }
        connection.unsent += Array(line.utf8)
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

    private func failure(_ message: String) -> String { "{\"ok\":false,\"error\":\(jsonString(message))}" }

    /// One request's reply; nil when it comes later (`play`).
    func handle(_ line: String, fd: Int32) -> String? {
        let request: ControlRequest
        do {
            request = try ControlRequest.parse(line, time: session.clock.now(), device: WaylandSession.injectionDevice)
        } catch {
            return failure(error.description)
        }
        switch request {
        case .devices:
            return "{\"ok\":true,\"devices\":[" + (session.deviceReport?() ?? []).joined(separator: ",") + "]}"
        case .tree:
            let inhibitors = session.protocols.idleInhibit.report(shown: session.tree.isShown).map { "{\"surface\":\($0.surface.raw),\"shown\":\($0.shown)}" }
            return "{\"ok\":true,\"outputs\":[" + session.tree.outputs.map(outputJSON).joined(separator: ",") + "],\"idle_inhibitors\":[" + inhibitors.joined(separator: ",") + "]}"
        case .pick(let point):
            let hit = session.tree.hitTest(point)
            let chain = session.router.fallbackChain(at: point).map { jsonString($0.description) }
            let surface = hit.map { "{\"id\":\($0.surface.raw),\"local\":[\(jsonNumber($0.local.x)),\(jsonNumber($0.local.y))]}" } ?? "null"
            return "{\"ok\":true,\"surface\":\(surface),\"chain\":[\(chain.joined(separator: ","))]}"
        case .pixel(let point):
            guard let (surface, local, pixel) = session.pixel(at: point) else { return "{\"ok\":true,\"surface\":null,\"argb\":null}" }
            let argb = pixel.map { jsonString("0x" + String($0, radix: 16)) } ?? "null"
            return "{\"ok\":true,\"surface\":{\"id\":\(surface.raw),\"local\":[\(jsonNumber(local.x)),\(jsonNumber(local.y))]},\"argb\":\(argb)}"
        case .screenshot(let file, let output):
            do {
                let shot = try session.screenshot(to: file, output: output)
                return "{\"ok\":true,\"file\":\(jsonString(file)),\"output\":\(jsonString(shot.name)),\"width\":\(shot.width),\"height\":\(shot.height)}"
            } catch {
                return failure("screenshot: \(error)")
            }
        case .createOutput(let mode):
            let names = Set(session.outputs.map(\.name))
            let number = (1...).first { !names.contains("HEADLESS-\($0)") }!
            do {
                let name = try session.addOutput(OutputIdentity(name: "HEADLESS-\(number)", make: "TouchRouter", model: "virtual"), mode: mode)
                return "{\"ok\":true,\"output\":\(jsonString(name))}"
            } catch {
                return failure("output create: \(error)")
            }
        case .removeOutput(let name):
            do {
                try session.removeOutput(named: name)
                return "{\"ok\":true,\"removed\":\(jsonString(name))}"
            } catch {
                return failure("output remove: \(error)")
            }
        case .inject(let event):
            if case .touchDown = event, session.router.activeTouches.count >= Self.maximumInjectedTouches {
                return failure("inject: \(Self.maximumInjectedTouches) touches are down already, the most the control socket puts down; lift one first")
            }
            session.inject(event)
            return "{\"ok\":true,\"event\":\(jsonString(EventSyntax.format(event)))}"
        case .focus:
            let keyboard = session.router.keyboardFocus.map { String($0.raw) } ?? "null"
            let pointer = session.router.pointerPosition
            let touches = session.router.activeTouches.map { "{\"id\":\($0.id.raw),\"surface\":\($0.surface.map { String($0.raw) } ?? "null")}" }
            return "{\"ok\":true,\"keyboard\":\(keyboard),\"pointer\":[\(jsonNumber(pointer.x)),\(jsonNumber(pointer.y))],\"touches\":[\(touches.joined(separator: ","))]}"
        case .ignoreInteraction(let on):
            if on {
                session.router.beginIgnoringInteraction()
            } else if !session.router.endIgnoringInteraction() {
                return failure("ignore-interaction off: interaction is not being ignored")
            }
            session.router.dispatchAll()
            return "{\"ok\":true}"
        case .trace:
            connections[fd]?.tracing = true
            if traceWriter == nil {
                let writer = TraceWriter(format: .json, names: NameBook()) { [unowned self] line in
                    let text = line.hasSuffix("\n") ? String(line.dropLast()) : line
                    for (fd, connection) in self.connections where connection.tracing { self.send(fd, text) }
                }
                // Records wait for the round's flush, so that they carry its stamp.
                let held = FlushStampedTrace(writer)
                traceWriter = held
                session.router.traceSink = held
                session.onFlushed = { [unowned held] time in held.flushed(at: time) }
                session.onReceipt = { [unowned held] client, eventTime, receipt, sequences in
                    held.received(client, eventTime: eventTime, receipt: receipt, sequences: sequences)
                }
            }
            return "{\"ok\":true,\"tracing\":true}"
        case .subscribe(let topics):
            connections[fd]?.subscriptions = topics
            return "{\"ok\":true,\"subscribed\":[" + ShellTopic.allCases.filter(topics.contains).map { jsonString($0.rawValue) }.joined(separator: ",") + "]}"
        case .stats:
            return "{\"ok\":true," + session.stats.json().dropFirst()
        case .statsReset:
            session.stats.reset()
            return "{\"ok\":true,\"reset\":true}"
        case .statsSlow:
            return "{\"ok\":true," + session.stats.slowJSON().dropFirst()
        case .play(let workload, let log):
            return play(workload, log: log, fd: fd)
        case .grantSocket(let grants):
            do {
                let path = try session.openGrantSocket(grants)
                return "{\"ok\":true,\"socket\":\(jsonString(path)),\"grants\":[" + Privilege.sortedNames(grants).map(jsonString).joined(separator: ",") + "]}"
            } catch {
                return failure("grant-socket: \(error)")
            }
        case .revokeSocket(let path):
            do {
                let kept = try session.revokeGrantSocket(path)
                return "{\"ok\":true,\"revoked\":\(jsonString(path)),\"clients\":\(kept)}"
            } catch {
                return failure("revoke-socket: \(error)")
            }
        case .reload:
            do {
                let file = try session.shell.reload()
                return "{\"ok\":true,\"file\":\(file.map(jsonString) ?? "null")}"
            } catch {
                return failure("reload failed, the old configuration stays: \(error)")
            }
        }
    }

    /// `play`: the reply goes to the asking connection when the workload ends.
    private func play(_ workload: Workload, log: String?, fd: Int32) -> String? {
        guard player == nil else { return failure("play: a workload is playing already") }
        guard let connection = connections[fd] else { return nil }
        do {
            let player = try WorkloadPlayer(session: session, workload: workload, log: log) { [unowned self, weak connection] result in
                self.player = nil
                guard let connection, self.connections[connection.fd] === connection else { return }
                connection.waiting = false
                switch result {
                case .success(let fields): self.send(connection.fd, "{\"ok\":true," + fields + "}")
                case .failure(let error): self.send(connection.fd, self.failure(error.description))
                }
            }
            try player.start()
            self.player = player
            connection.waiting = true
            return nil
        } catch {
            return failure(error.description)
        }
    }

    private func outputJSON(_ output: OutputSnapshot) -> String {
        let rect = output.rect
        return "{\"id\":\(output.id.raw),\"name\":\(jsonString(output.name)),\"rect\":[\(rect.x),\(rect.y),\(rect.width),\(rect.height)],"
            + "\"toplevels\":[" + output.toplevels.map(surfaceJSON).joined(separator: ",") + "]}"
    }

    private func surfaceJSON(_ id: SurfaceID) -> String {
        guard let surface = session.tree.surface(id) else { return "null" }
        let children = session.tree.children(of: id).map(surfaceJSON).joined(separator: ",")
        return "{\"id\":\(id.raw),\"role\":\(jsonString(surface.role.rawValue)),\"client\":\(surface.client.raw),\"label\":\(jsonString(surface.label)),"
            + "\"position\":[\(surface.position.dx),\(surface.position.dy)],\"size\":[\(surface.size.width),\(surface.size.height)],"
            + "\"mapped\":\(surface.properties.mapped),\"hidden\":\(surface.properties.hidden),\"children\":[\(children)]}"
    }
}

extension ControlServer: ShellEventSink {
    func wants(_ topic: ShellTopic) -> Bool {
        connections.values.contains { $0.subscriptions?.contains(topic) == true }
    }

    /// One line to each subscriber of the topic, written now (the control socket is not
    /// libwayland's, so nothing waits for the loop's flush).
    func publish(_ topic: ShellTopic, _ json: String) {
        for (fd, connection) in connections where connection.subscriptions?.contains(topic) == true { send(fd, json) }
    }
}

/// The control socket's trace: what the router reports waits until the session flushes
/// clients, and goes out then, in order, each routed record that reached a client stamped
/// `flushed` with that flush. A round of the loop is short, so the lines are hardly late.
final class FlushStampedTrace: RoutingTraceSink {
    private enum Item {
        case routed(RouteRecord)
        case focus(FocusChangeRecord)
        case ignoring(Int, [DeliveryRecord])
        case arena(ArenaRecord)
        case received(ClientID, eventTime: Int64, receipt: Int64, sequences: [UInt64])
    }
    private let writer: TraceWriter
    private var items: [Item] = []

    init(_ writer: TraceWriter) { self.writer = writer }

    func routed(_ record: RouteRecord) { items.append(.routed(record)) }
    func focusChanged(_ record: FocusChangeRecord) { items.append(.focus(record)) }
    func interactionIgnoringChanged(depth: Int, cancelled: [DeliveryRecord]) { items.append(.ignoring(depth, cancelled)) }
    func arenaDecided(_ record: ArenaRecord) { items.append(.arena(record)) }
    /// Held like the rest, so that it follows the lines of the events it names.
    func received(_ client: ClientID, eventTime: Int64, receipt: Int64, sequences: [UInt64]) {
        items.append(.received(client, eventTime: eventTime, receipt: receipt, sequences: sequences))
    }

    func flushed(at time: RouterTime) {
        guard !items.isEmpty else { return }
        let held = items
        items.removeAll(keepingCapacity: true)
        for item in held {
            switch item {
            case .routed(var record):
                if record.stamps.has(.encoded) { record.stamps.flushed = max(time.nanoseconds, record.stamps.encoded) }
                writer.routed(record)
            case .focus(let record): writer.focusChanged(record)
            case .ignoring(let depth, let cancelled): writer.interactionIgnoringChanged(depth: depth, cancelled: cancelled)
            case .arena(let record): writer.arenaDecided(record)
            case .received(let client, let eventTime, let receipt, let sequences):
                writer.received(client: client, eventTime: eventTime, receipt: receipt, sequences: sequences)
            }
        }
    }
}
