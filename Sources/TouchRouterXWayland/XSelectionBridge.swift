import TouchRouterProtocols
#if canImport(Glibc)
import Glibc
#endif

/// The clipboard and the primary selection between X11 and Wayland, as wlroots'
/// xwayland/selection/ bridges them. X11's CLIPBOARD and PRIMARY owners become the seat's
/// selection (an `X11SelectionOrigin`, read by ConvertSelection when a Wayland client
/// pastes); a Wayland client's selection makes the window manager the X11 owner, and an X11
/// client's request is answered from the client's source through a pipe. Every transfer's
/// size is bounded, its descriptors watched in the session's loop, never read or written
/// blocking. INCR (X11's incremental transfers, for data past the X server's request size)
/// is not done: such a paste is refused and said.
final class XSelectionBridge {
    /// The most one transfer carries, either way.
    static let maximumBytes = 4 << 20
    /// The most targets read from an X11 owner, and MIME types offered to X11.
    static let maximumTargets = 64

    private let requests: any X11Requests
    private unowned let handler: any XWaylandHandler
    private let ownWindow: X11Window
    private var atoms: X11Atoms { requests.atoms }
    /// What X11's owner of each selection offers, once its TARGETS came.
    private var origins: [SelectionKind: X11SelectionOrigin] = [:]
    /// X11 owners whose TARGETS were asked for.
    private var awaitingTargets: Set<SelectionKind> = []
    /// Pastes from X11 into Wayland clients: one conversion at a time (they share a property).
    private var incoming: [IncomingTransfer] = []
    private var inFlight: IncomingTransfer?
    private var writers: [ObjectIdentifier: DescriptorWriter] = [:]
    private var readers: [ObjectIdentifier: SourceReader] = [:]
    /// The selections the window manager owns in X11 for a Wayland client.
    private var owned: Set<SelectionKind> = []

    init(requests: any X11Requests, handler: any XWaylandHandler, ownWindow: X11Window) {
        self.requests = requests
        self.handler = handler
        self.ownWindow = ownWindow
        requests.watchSelections()
        // Xwayland serves X11 clients from the moment it is ready, and the manager connects
        // only after that: a client may own a selection before the watch began, and no event
        // would ever say so (an xclip started as the session came up could).
        for kind in [SelectionKind.clipboard, .primary] {
            let owner = requests.selectionOwner(atom(kind))
            if owner != 0 { ownerChanged(owner, atom(kind)) }
        }
    }

    private func atom(_ kind: SelectionKind) -> X11Atom { kind == .clipboard ? atoms[.CLIPBOARD] : atoms[.PRIMARY] }
    private func kind(_ atom: X11Atom) -> SelectionKind? {
        atom == atoms[.CLIPBOARD] ? .clipboard : atom == atoms[.PRIMARY] ? .primary : nil
    }

    /// Takes the selection events; false for any other.
    func handle(_ event: X11Event) -> Bool {
        switch event {
        case let .selectionOwnerChanged(owner, selection, _):
            ownerChanged(owner, selection)
        case let .selectionNotify(time: _, requestor, selection, target, property):
            guard requestor == ownWindow else { return true }
            converted(selection, target: target, property: property)
        case let .selectionRequest(time, owner, requestor, selection, target, property):
            guard owner == ownWindow else { return true }
            requested(time: time, requestor: requestor, selection: selection, target: target, property: property == 0 ? target : property)
        case .selectionClear:
            break
        default:
            return false
        }
        return true
    }

    // MARK: X11 to Wayland

    private func ownerChanged(_ owner: X11Window, _ selection: X11Atom) {
        guard let kind = kind(selection), owner != ownWindow else { return }
        owned.remove(kind)
        if owner == 0 {
            if let origin = origins.removeValue(forKey: kind), handler.selection(kind) === origin { handler.x11SelectionChanged(kind, to: nil) }
            return
        }
        awaitingTargets.insert(kind)
        requests.convertSelection(selection, target: atoms[.TARGETS], property: atoms[._TOUCH_ROUTER_SELECTION], requestor: ownWindow)
    }

    private func converted(_ selection: X11Atom, target: X11Atom, property: X11Atom) {
        guard let kind = kind(selection) else { return }
        if target == atoms[.TARGETS], awaitingTargets.remove(kind) != nil {
            guard property != 0, let targets = requests.takeSelectionData(property)?.words else { return }
            let origin = X11SelectionOrigin(kind: kind, bridge: self, targets: mimeTargets(targets))
            origins[kind] = origin
            handler.x11SelectionChanged(kind, to: origin)
            return
        }
        guard let transfer = inFlight, transfer.kind == kind, transfer.target == target else { return }
        inFlight = nil
        defer { startNextConversion() }
        guard property != 0, let data = requests.takeSelectionData(property) else {
            close(transfer.fd)
            return
        }
        guard data.type != atoms[.INCR] else {
            handler.report("xwayland: an X11 selection sent incrementally (INCR, past the X server's request size) is not bridged")
            close(transfer.fd)
            return
        }
        write(data.bytes, to: transfer.fd)
    }

    /// The MIME types an X11 owner's targets give, each with the target to convert to.
    private func mimeTargets(_ targets: [X11Atom]) -> [(mime: String, target: X11Atom)] {
        var result: [(String, X11Atom)] = []
        let text = targets.contains(atoms[.UTF8_STRING]) ? atoms[.UTF8_STRING] : targets.first { $0 == atoms[.STRING] || $0 == atoms[.TEXT] }
        if let text { result += [("text/plain;charset=utf-8", text), ("text/plain", text)] }
        for target in targets.prefix(Self.maximumTargets) {
            guard let name = requests.atomName(target), name.contains("/"), !result.contains(where: { $0.0 == name }) else { continue }
            result.append((name, target))
        }
        return result
    }

    /// A Wayland client pastes what X11 holds: queued, converted one at a time.
    fileprivate func paste(_ origin: X11SelectionOrigin, mime: String, fd: Int32) {
        guard let target = origin.targets.first(where: { $0.mime == mime })?.target else { return }
        let copy = dup(fd)
        guard copy >= 0 else { return }
        incoming.append(IncomingTransfer(kind: origin.kind, target: target, fd: copy))
        if inFlight == nil { startNextConversion() }
        requests.flush()
    }

    private func startNextConversion() {
        guard inFlight == nil, !incoming.isEmpty else { return }
        let next = incoming.removeFirst()
        inFlight = next
        requests.convertSelection(atom(next.kind), target: next.target, property: atoms[._TOUCH_ROUTER_SELECTION], requestor: ownWindow)
    }

    private func write(_ bytes: [UInt8], to fd: Int32) {
        let writer = DescriptorWriter(fd: fd, bytes: bytes)
        if writer.writeSome() {
            writer.finish()
            return
        }
        let key = ObjectIdentifier(writer)
        do {
            writer.source = try handler.watch(fd: fd, writable: true) { [unowned self] in
                guard writer.writeSome() else { return }
                if let source = writer.source { self.handler.unwatch(fd: fd, source: source) }
                writer.finish()
                self.writers[key] = nil
            }
            writers[key] = writer
        } catch {
            writer.finish()
        }
    }

    // MARK: Wayland to X11

    /// The seat's selection changed: X11 is offered a Wayland client's, through the window
    /// manager's ownership; X11's own holder needs nothing.
    func selectionChanged(_ kind: SelectionKind) {
        let origin = handler.selection(kind)
        if let ours = origins[kind], origin !== ours { origins[kind] = nil }
        if origin is X11SelectionOrigin { return }
        if origin != nil {
            owned.insert(kind)
            requests.setSelectionOwner(atom(kind), owner: ownWindow)
        } else if owned.remove(kind) != nil {
            requests.setSelectionOwner(atom(kind), owner: 0)
        }
        requests.flush()
    }

    private func requested(time: UInt32, requestor: X11Window, selection: X11Atom, target: X11Atom, property: X11Atom) {
        func refuse() { requests.sendSelectionNotify(requestor: requestor, selection: selection, target: target, property: 0, time: time) }
        defer { requests.flush() }
        guard let kind = kind(selection), let origin = handler.selection(kind), !(origin is X11SelectionOrigin) else { return refuse() }
        let mimes = Array(origin.mimeTypes.prefix(Self.maximumTargets))
        if target == atoms[.TARGETS] {
            var targets = [atoms[.TARGETS], atoms[.TIMESTAMP]]
            if mimes.contains(where: Self.isText) { targets += [atoms[.UTF8_STRING], atoms[.STRING], atoms[.TEXT]] }
            targets += mimes.filter { !Self.isText($0) && $0.contains("/") }.compactMap { requests.intern($0) }
            requests.setProperty(requestor, property, type: atoms[.ATOM], words: targets)
            requests.sendSelectionNotify(requestor: requestor, selection: selection, target: target, property: property, time: time)
            return
        }
        guard let mime = mime(for: target, among: mimes) else { return refuse() }
        var ends: [Int32] = [-1, -1]
        // pipe2 is not in Glibc's Swift module; the flags are set one by one before anything can fork.
        guard pipe(&ends) == 0 else { return refuse() }
        for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
        origin.send(mime, fd: ends[1])
        close(ends[1])
        let reader = SourceReader(fd: ends[0], requestor: requestor, selection: selection, target: target, property: property, time: time)
        let key = ObjectIdentifier(reader)
        do {
            reader.source = try handler.watch(fd: ends[0], writable: false) { [unowned self] in self.readable(key) }
            readers[key] = reader
        } catch {
            close(ends[0])
            refuse()
        }
    }

    private static func isText(_ mime: String) -> Bool {
        mime == "text/plain;charset=utf-8" || mime == "text/plain" || mime == "UTF8_STRING" || mime == "STRING" || mime == "TEXT"
    }

    private func mime(for target: X11Atom, among mimes: [String]) -> String? {
        if target == atoms[.UTF8_STRING] || target == atoms[.STRING] || target == atoms[.TEXT] {
            return ["text/plain;charset=utf-8", "UTF8_STRING", "text/plain", "STRING", "TEXT"].first { mimes.contains($0) }
        }
        return requests.atomName(target).flatMap { name in mimes.contains(name) ? name : nil }
    }

    /// The source's client writes into the pipe; at its end the requestor gets it all.
    private func readable(_ key: ObjectIdentifier) {
        guard let reader = readers[key] else { return }
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(reader.fd, $0.baseAddress, $0.count) }
            if count > 0 {
                reader.data += chunk.prefix(count)
                if reader.data.count > Self.maximumBytes {
                    handler.report("xwayland: a Wayland selection past \(Self.maximumBytes >> 20) MiB is not given to X11")
                    return end(reader, key, deliver: false)
                }
                continue
            }
            if count < 0, errno == EAGAIN || errno == EINTR { return }
            return end(reader, key, deliver: count == 0)
        }
    }

    private func end(_ reader: SourceReader, _ key: ObjectIdentifier, deliver: Bool) {
        if let source = reader.source { handler.unwatch(fd: reader.fd, source: source) }
        close(reader.fd)
        readers[key] = nil
        if deliver {
            let type = reader.target == atoms[.STRING] || reader.target == atoms[.TEXT] ? atoms[.UTF8_STRING] : reader.target
            requests.setProperty(reader.requestor, reader.property, type: type, bytes: reader.data)
        }
        requests.sendSelectionNotify(requestor: reader.requestor, selection: reader.selection, target: reader.target,
                                     property: deliver ? reader.property : 0, time: reader.time)
        requests.flush()
    }

    /// Xwayland went: nothing of X11 holds a selection, and every transfer ends.
    func disconnected() {
        for kind in [SelectionKind.clipboard, .primary] {
            if let origin = origins[kind], handler.selection(kind) === origin { handler.x11SelectionChanged(kind, to: nil) }
        }
        origins.removeAll()
        for transfer in incoming + (inFlight.map { [$0] } ?? []) { close(transfer.fd) }
        incoming.removeAll()
        inFlight = nil
        for writer in writers.values {
            if let source = writer.source { handler.unwatch(fd: writer.fd, source: source) }
            writer.finish()
        }
        writers.removeAll()
        for reader in readers.values {
            if let source = reader.source { handler.unwatch(fd: reader.fd, source: source) }
            close(reader.fd)
        }
        readers.removeAll()
    }
}

/// X11's selection owner, as the seat's selection: pasting converts from it.
final class X11SelectionOrigin: SelectionOrigin {
    let kind: SelectionKind
    private weak var bridge: XSelectionBridge?
    let targets: [(mime: String, target: X11Atom)]

    init(kind: SelectionKind, bridge: XSelectionBridge, targets: [(mime: String, target: X11Atom)]) {
        self.kind = kind
        self.bridge = bridge
        self.targets = targets
    }

    var mimeTypes: [String] { targets.map(\.mime) }
    func send(_ mimeType: String, fd: Int32) { bridge?.paste(self, mime: mimeType, fd: fd) }
    func cancel() {}
}

private struct IncomingTransfer {
    let kind: SelectionKind
    let target: X11Atom
    let fd: Int32
}

/// Bytes for a Wayland client's descriptor, written as it takes them.
private final class DescriptorWriter {
    let fd: Int32
    let bytes: [UInt8]
    var offset = 0
    var source: OpaquePointer?

    init(fd: Int32, bytes: [UInt8]) {
        self.fd = fd
        self.bytes = bytes
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    /// Writes what the descriptor takes now; true when done (all written, or the reader gone).
    func writeSome() -> Bool {
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written > 0 { offset += written; continue }
            if written < 0, errno == EAGAIN || errno == EINTR { return false }
            return true
        }
        return true
    }

    private var finished = false
    func finish() {
        guard !finished else { return }
        finished = true
        close(fd)
    }
}

/// A Wayland source's data on its way to an X11 requestor.
private final class SourceReader {
    let fd: Int32
    let requestor: X11Window
    let selection: X11Atom
    let target: X11Atom
    let property: X11Atom
    let time: UInt32
    var data: [UInt8] = []
    var source: OpaquePointer?

    init(fd: Int32, requestor: X11Window, selection: X11Atom, target: X11Atom, property: X11Atom, time: UInt32) {
        (self.fd, self.requestor, self.selection, self.target, self.property, self.time) = (fd, requestor, selection, target, property, time)
    }
}
