import CWaylandShim
import TouchRouterCore
import TouchRouterReplay
#if canImport(Glibc)
import Glibc
#endif

/// The control socket, like sway's IPC: a Unix socket in XDG_RUNTIME_DIR, mode 0600, that
/// refuses peers of another uid. A request is one line of words; the reply is one line of
/// JSON, `{"ok":true,...}` or `{"ok":false,"error":"..."}`. `trace` keeps the connection
/// and streams one JSON line per routing decision until the peer goes.
public final class ControlServer {
    public let path: String
    private unowned let session: WaylandSession
    private let listenFD: Int32
    private var listenSource: OpaquePointer?
    private var connections: [Int32: Connection] = [:]
    private var tracers: Set<Int32> = []
    private var traceWriter: TraceWriter?

    final class Connection {
        let fd: Int32
        var source: OpaquePointer?
        var buffer: [UInt8] = []
        init(fd: Int32) { self.fd = fd }
    }

    public init(session: WaylandSession, path explicitPath: String? = nil) throws(WaylandError) {
        self.session = session
        guard let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }) else { throw WaylandError("XDG_RUNTIME_DIR is not set: it says where the control socket goes") }
        path = explicitPath ?? "\(runtime)/touch-router.\(getpid()).\(session.socketName).sock"
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else { throw WaylandError("control socket path \(path) is longer than \(capacity - 1) bytes") }
        listenFD = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard listenFD >= 0 else { throw WaylandError.errno("control socket") }
        unlink(path)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.enumerated() { raw[i] = byte }
        }
        // Created with no permissions for anyone else, so there is no window before the chmod.
        let oldMask = umask(0o177)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listenFD, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        umask(oldMask)
        guard bound == 0 else {
            let error = WaylandError.errno("binding the control socket \(path)")
            Glibc.close(listenFD)
            throw error
        }
        guard chmod(path, 0o600) == 0, listen(listenFD, 16) == 0 else {
            let error = WaylandError.errno("listening on the control socket \(path)")
            Glibc.close(listenFD)
            unlink(path)
            throw error
        }
        listenSource = try session.watch(fd: listenFD) { [unowned self] _ in self.accept() }
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
            let connection = Connection(fd: fd)
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
        guard connection.buffer.count <= 65536 else {
            send(fd, failure("request longer than 65536 bytes"))
            drop(fd)
            return
        }
        while let newline = connection.buffer.firstIndex(of: 10) {
            let line = String(decoding: connection.buffer[..<newline], as: UTF8.self)
            connection.buffer.removeSubrange(...newline)
            let (reply, keep) = handle(line, fd: fd)
            send(fd, reply)
            if !keep {
                drop(fd)
                return
            }
        }
    }

    private func drop(_ fd: Int32) {
        guard let connection = connections.removeValue(forKey: fd) else { return }
        if let source = connection.source { session.unwatch(fd: fd, source: source) }
        tracers.remove(fd)
        if tracers.isEmpty, traceWriter != nil {
            session.router.traceSink = nil
            traceWriter = nil
        }
        Glibc.close(fd)
    }

    private func send(_ fd: Int32, _ line: String) {
        var text = line + "\n"
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }

    private func failure(_ message: String) -> String { "{\"ok\":false,\"error\":\(jsonString(message))}" }

    /// One request; returns the reply and whether the connection stays open.
    func handle(_ line: String, fd: Int32) -> (String, Bool) {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
        guard let command = words.first else { return (failure("empty request: expected tree, pick, pixel, inject, trace, focus or ignore-interaction"), false) }
        switch command {
        case "tree":
            return ("{\"ok\":true,\"outputs\":[" + session.tree.outputs.map(outputJSON).joined(separator: ",") + "]}", false)
        case "pick":
            guard words.count == 3, let x = Double(words[1]), let y = Double(words[2]) else { return (failure("pick: expected two numbers, X Y"), false) }
            let point = Point<GlobalSpace>(x, y)
            let hit = session.tree.hitTest(point)
            let chain = session.router.fallbackChain(at: point).map { jsonString($0.description) }
            let surface = hit.map { "{\"id\":\($0.surface.raw),\"local\":[\(jsonNumber($0.local.x)),\(jsonNumber($0.local.y))]}" } ?? "null"
            return ("{\"ok\":true,\"surface\":\(surface),\"chain\":[\(chain.joined(separator: ","))]}", false)
        case "pixel":
            guard words.count == 3, let x = Double(words[1]), let y = Double(words[2]) else { return (failure("pixel: expected two numbers, X Y"), false) }
            guard let (surface, local, pixel) = session.pixel(at: Point(x, y)) else { return ("{\"ok\":true,\"surface\":null,\"argb\":null}", false) }
            let argb = pixel.map { jsonString("0x" + String($0, radix: 16)) } ?? "null"
            return ("{\"ok\":true,\"surface\":{\"id\":\(surface.raw),\"local\":[\(jsonNumber(local.x)),\(jsonNumber(local.y))]},\"argb\":\(argb)}", false)
        case "inject":
            do {
                let event = try EventSyntax.parse(Array(words.dropFirst()), time: session.clock.now(), device: WaylandSession.injectionDevice)
                session.inject(event)
                return ("{\"ok\":true,\"event\":\(jsonString(EventSyntax.format(event)))}", false)
            } catch {
                return (failure("inject: \(error)"), false)
            }
        case "focus":
            let keyboard = session.router.keyboardFocus.map { String($0.raw) } ?? "null"
            let pointer = session.router.pointerPosition
            let touches = session.router.activeTouches.map { "{\"id\":\($0.id.raw),\"surface\":\($0.surface.map { String($0.raw) } ?? "null")}" }
            return ("{\"ok\":true,\"keyboard\":\(keyboard),\"pointer\":[\(jsonNumber(pointer.x)),\(jsonNumber(pointer.y))],\"touches\":[\(touches.joined(separator: ","))]}", false)
        case "ignore-interaction":
            guard words.count == 2, words[1] == "on" || words[1] == "off" else { return (failure("ignore-interaction: expected on or off"), false) }
            if words[1] == "on" {
                session.router.beginIgnoringInteraction()
            } else if !session.router.endIgnoringInteraction() {
                return (failure("ignore-interaction off: interaction is not being ignored"), false)
            }
            session.router.dispatchAll()
            return ("{\"ok\":true}", false)
        case "trace":
            tracers.insert(fd)
            if traceWriter == nil {
                let writer = TraceWriter(format: .json, names: NameBook()) { [unowned self] line in
                    for tracer in self.tracers { self.send(tracer, line.hasSuffix("\n") ? String(line.dropLast()) : line) }
                }
                traceWriter = writer
                session.router.traceSink = writer
            }
            return ("{\"ok\":true,\"tracing\":true}", true)
        default:
            return (failure("unknown request '\(command)': expected tree, pick, pixel, inject, trace, focus or ignore-interaction"), false)
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
            + "\"mapped\":\(surface.properties.mapped),\"children\":[\(children)]}"
    }
}
