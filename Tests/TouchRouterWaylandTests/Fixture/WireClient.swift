import CWaylandClientShim
import CWaylandShim
import Foundation
import Testing
import TouchRouterCore

/// A protocol error the server ended a client with, as libwayland-client reports it.
struct ProtocolErrorReport: CustomStringConvertible {
    let interface: String
    let objectID: UInt32
    let code: UInt32
    /// The error's text, from libwayland-client's log (its API does not give it).
    let message: String
    var description: String { "\(interface)@\(objectID) code \(code): \(message)" }
}

/// A libwayland-client connection on one end of a socket pair whose other end the
/// session serves in the same thread. It needs no listener per interface: every proxy
/// gets the same dispatcher, which decodes each event by its message's signature into
/// `events`; requests go out by name through `wl_proxy_marshal_array_flags`.
final class WireClient {
    let name: String
    /// The client's id in the session's core (`SurfaceTree.client(of:)`).
    let coreID: ClientID
    unowned let fixture: ProtocolFixture
    private(set) var display: OpaquePointer?
    private(set) var events: [WireEvent] = []
    private(set) var globals: [(name: UInt32, interface: String, version: UInt32)] = []
    /// Callbacks whose done came (wl_display.sync's and wl_surface.frame's), by serial.
    private(set) var doneCallbacks: Set<Int> = []
    /// Descriptors received in events (keymaps, data to write), closed with the client.
    private(set) var receivedDescriptors: [Int32] = []
    /// Called with each event once it is logged (to answer it, as a toolkit would).
    var onEvent: ((WireEvent) -> Void)?
    private(set) var registry: Proxy?
    /// Globals bound through `global(_:version:)`, by interface.
    var boundGlobals: [String: Proxy] = [:]
    private var live: [OpaquePointer: (proxy: Proxy, interface: UnsafePointer<wl_interface>?)] = [:]
    private var nextSerial = 0
    private var dispatching = false
    private var requestsSinceServe = 0

    init(fixture: ProtocolFixture, display: OpaquePointer, coreID: ClientID, name: String) {
        self.fixture = fixture
        self.display = display
        self.coreID = coreID
        self.name = name
    }

    deinit { disconnect() }

    var isConnected: Bool { display != nil }

    /// Closes the connection, as a client's process ending does; the session hears of it
    /// at its next round.
    func disconnect() {
        guard let display else { return }
        wl_display_disconnect(display)
        self.display = nil
        live.removeAll()
        for fd in receivedDescriptors { close(fd) }
        receivedDescriptors.removeAll()
    }

    /// The protocol error the server ended this client with, if it did.
    var protocolError: ProtocolErrorReport? {
        guard let display, wl_display_get_error(display) == EPROTO else { return nil }
        var interface: UnsafePointer<wl_interface>? = nil
        var id: UInt32 = 0
        let code = wl_display_get_protocol_error(display, &interface, &id)
        let interfaceName = interface.map { String(cString: $0.pointee.name) } ?? "?"
        let prefix = "\(interfaceName)@\(id): error \(code): "
        let line = ClientLog.lines().last { $0.hasPrefix(prefix) }
        let message = line.map { String($0.dropFirst(prefix.count)).trimmingCharacters(in: .newlines) } ?? ""
        return ProtocolErrorReport(interface: interfaceName, objectID: id, code: code, message: message)
    }

    /// The error that ended the connection (EPROTO for a protocol error), 0 if none.
    var connectionError: Int32 { display.map { wl_display_get_error($0) } ?? 0 }

    /// Takes a descriptor received in an event: the caller closes it, the client no longer will.
    func takeDescriptor(_ fd: Int32) -> Int32? {
        guard let index = receivedDescriptors.firstIndex(of: fd) else { return nil }
        return receivedDescriptors.remove(at: index)
    }

    // MARK: Objects

    private func register(_ pointer: OpaquePointer, interface: UnsafePointer<wl_interface>?) -> Proxy {
        nextSerial += 1
        let proxy = Proxy(pointer: pointer, id: wl_proxy_get_id(pointer), interface: String(cString: wl_proxy_get_class(pointer)), serial: nextSerial)
        live[pointer] = (proxy, interface)
        let dispatcher: wl_dispatcher_func_t = { implementation, target, opcode, message, arguments in
            guard let implementation, let target, let message else { return 0 }
            let client = Unmanaged<WireClient>.fromOpaque(implementation).takeUnretainedValue()
            client.received(OpaquePointer(target), message: message, arguments: arguments)
            return 0
        }
        wl_proxy_add_dispatcher(pointer, dispatcher, Unmanaged.passUnretained(self).toOpaque(), nil)
        return proxy
    }

    private func proxy(for pointer: OpaquePointer) -> Proxy {
        if let known = live[pointer] { return known.proxy }
        nextSerial += 1
        return Proxy(pointer: pointer, id: wl_proxy_get_id(pointer), interface: String(cString: wl_proxy_get_class(pointer)), serial: nextSerial)
    }

    /// Forgets a proxy the server destroyed (a callback after done): destroys it client-side.
    func destroyProxy(_ proxy: Proxy) {
        guard live.removeValue(forKey: proxy.pointer) != nil else { return }
        wl_proxy_destroy(proxy.pointer)
    }

    func isLive(_ proxy: Proxy) -> Bool { live[proxy.pointer]?.proxy == proxy }

    // MARK: Events

    private func received(_ target: OpaquePointer, message: UnsafePointer<wl_message>, arguments: UnsafeMutablePointer<wl_argument>?) {
        let signature = SignatureArgument.parse(message.pointee.signature)
        var values: [WireValue] = []
        for (index, argument) in signature.enumerated() {
            guard let raw = arguments?[index] else { break }
            switch argument.type {
            case "i": values.append(.int(raw.i))
            case "u": values.append(.uint(raw.u))
            case "f": values.append(.fixed(Double(raw.f) / 256))
            case "s": values.append(.string(raw.s.map { String(cString: $0) }))
            case "o": values.append(.object(raw.o.map { proxy(for: $0) }))
            case "n":
                guard let created = raw.o else { values.append(.object(nil)); continue }
                values.append(.newObject(register(created, interface: message.pointee.types?[index])))
            case "a":
                let bytes = raw.a.flatMap { array in array.pointee.data.map { Array(UnsafeRawBufferPointer(start: $0, count: array.pointee.size)) } } ?? []
                values.append(.array(bytes))
            case "h":
                receivedDescriptors.append(raw.h)
                values.append(.fd(raw.h))
            default: break
            }
        }
        let event = WireEvent(target: proxy(for: target), name: String(cString: message.pointee.name), arguments: values)
        events.append(event)
        dispatching = true
        defer { dispatching = false }
        switch (event.target.interface, event.name) {
        case ("wl_callback", "done"):
            doneCallbacks.insert(event.target.serial)
            destroyProxy(event.target)
        case ("wl_registry", "global"):
            if let name = event.uint(0), let interface = event.string(1), let version = event.uint(2) { globals.append((name, interface, version)) }
        case ("wl_registry", "global_remove"):
            globals.removeAll { $0.name == event.uint(0) }
        case ("xdg_wm_base", "ping"):
            request(event.target, "pong", event.uint(0) ?? 0)
        default: break
        }
        onEvent?(event)
    }

    /// The events sent to `proxy` (named `name`, if given), oldest first.
    func events(of proxy: Proxy, named name: String? = nil) -> [WireEvent] {
        events.filter { $0.target == proxy && (name == nil || $0.name == name) }
    }

    /// Events of an interface (named `name`, if given), whichever object got them.
    func events(interface: String, named name: String? = nil) -> [WireEvent] {
        events.filter { $0.target.interface == interface && (name == nil || $0.name == name) }
    }

    /// Forgets the events received so far (not the objects): what comes next is easier to read.
    func clearEvents() { events.removeAll() }

    // MARK: Requests

    /// Sends request `name` of `proxy`'s interface with `arguments`, in the signature's order,
    /// leaving out a `new_id`, which the proxy made for it stands for: that proxy is returned.
    /// A destructor ("destroy", "release") destroys the proxy too.
    @discardableResult
    func request(_ proxy: Proxy, _ name: String, _ arguments: any WireArgument..., sourceLocation: SourceLocation = #_sourceLocation) -> Proxy? {
        guard let display else {
            Issue.record("\(self.name): \(proxy).\(name) after the client disconnected", sourceLocation: sourceLocation)
            return nil
        }
        guard let interface = live[proxy.pointer]?.interface, live[proxy.pointer]?.proxy == proxy else {
            Issue.record("\(self.name): \(proxy).\(name) on an object it no longer has", sourceLocation: sourceLocation)
            return nil
        }
        guard let methods = interface.pointee.methods,
              let opcode = (0..<Int(interface.pointee.method_count)).first(where: { String(cString: methods[$0].name) == name }) else {
            Issue.record("\(proxy.interface) has no request \(name)", sourceLocation: sourceLocation)
            return nil
        }
        let message = methods[opcode]
        let signature = SignatureArgument.parse(message.signature)
        var wire = [wl_argument](repeating: wl_argument(), count: max(signature.count, 1))
        var allocations: [UnsafeMutableRawPointer] = []
        defer { for allocation in allocations { free(allocation) } }
        var newInterface: UnsafePointer<wl_interface>? = nil
        var given = arguments.makeIterator()
        for (index, argument) in signature.enumerated() {
            if argument.type == "n" {
                newInterface = message.types?[index]
                wire[index].o = nil
                continue
            }
            guard let value = given.next()?.requestValue else {
                Issue.record("\(proxy).\(name): too few arguments for \(String(cString: message.signature))", sourceLocation: sourceLocation)
                return nil
            }
            switch (argument.type, value) {
            case ("i", .integer(let number)): wire[index].i = Int32(truncatingIfNeeded: number)
            case ("u", .integer(let number)): wire[index].u = UInt32(truncatingIfNeeded: number)
            case ("f", .integer(let number)): wire[index].f = Int32(truncatingIfNeeded: number * 256)
            case ("f", .fixed(let number)): wire[index].f = Int32((number * 256).rounded())
            case ("s", .string(let text)):
                let copy = text.flatMap { strdup($0) }
                if let copy { allocations.append(UnsafeMutableRawPointer(copy)) }
                wire[index].s = UnsafePointer(copy)
            case ("s", .object(nil)): wire[index].s = nil
            case ("o", .object(let object)): wire[index].o = object?.pointer
            case ("h", .fd(let fd)): wire[index].h = fd
            case ("a", .array(let bytes)):
                let array = malloc(MemoryLayout<wl_array>.size)!.assumingMemoryBound(to: wl_array.self)
                let data = malloc(max(bytes.count, 1))!
                bytes.withUnsafeBytes { if let base = $0.baseAddress { data.copyMemory(from: base, byteCount: bytes.count) } }
                array.pointee = wl_array(size: bytes.count, alloc: max(bytes.count, 1), data: data)
                allocations += [UnsafeMutableRawPointer(array), data]
                wire[index].a = array
            default:
                Issue.record("\(proxy).\(name): argument \(index) is \(value), the signature says \(argument.type)", sourceLocation: sourceLocation)
                return nil
            }
        }
        if given.next() != nil {
            Issue.record("\(proxy).\(name): too many arguments for \(String(cString: message.signature))", sourceLocation: sourceLocation)
            return nil
        }
        let destructor = name == "destroy" || name == "release"
        if destructor { live[proxy.pointer] = nil }
        let created = wl_proxy_marshal_array_flags(proxy.pointer, UInt32(opcode), newInterface, wl_proxy_get_version(proxy.pointer),
                                                   destructor ? UInt32(WL_MARSHAL_FLAG_DESTROY) : 0, &wire)
        let result = created.map { register($0, interface: newInterface) }
        sent(display)
        return result
    }

    /// Binds global `interface` at `version` through the registry (the `index`-th listed of
    /// that interface, as the outputs are); nil (and an issue) if it is not listed.
    func bind(_ interface: String, version: UInt32, index: Int = 0, sourceLocation: SourceLocation = #_sourceLocation) -> Proxy? {
        guard let display, let registry else { return nil }
        let listed = globals.filter { $0.interface == interface }
        guard index < listed.count else {
            Issue.record("\(name): no \(interface) global is listed", sourceLocation: sourceLocation)
            return nil
        }
        guard let description = WireInterfaces.byName[interface] else {
            Issue.record("the fixture has no description of \(interface)", sourceLocation: sourceLocation)
            return nil
        }
        guard let bound = wl_registry_bind(registry.pointer, listed[index].name, description, version) else { return nil }
        let proxy = register(OpaquePointer(bound), interface: description)
        sent(display)
        return proxy
    }

    /// wl_display.get_registry; the globals arrive with the next roundtrip.
    func getRegistry() {
        guard let display, registry == nil, let made = wl_display_get_registry(display) else { return }
        registry = register(made, interface: nil)
        sent(display)
    }

    /// wl_display.sync: the callback's done ends a roundtrip.
    func sync() -> Proxy? {
        guard let display, let callback = wl_display_sync(display) else { return nil }
        let proxy = register(callback, interface: tr_wl_callback_interface())
        sent(display)
        return proxy
    }

    /// After each request: written at once, the server served when the socket is full, and
    /// every 64 requests anyway so that a flood neither fills the socket nor leaves the
    /// server's answers unread. Inside an event's dispatch it is only written.
    private func sent(_ display: OpaquePointer) {
        requestsSinceServe += 1
        guard !dispatching else {
            _ = wl_display_flush(display)
            return
        }
        flush()
        if requestsSinceServe >= 64 {
            requestsSinceServe = 0
            fixture.serveOnce()
        }
    }

    /// Writes what libwayland-client holds; a full socket is emptied by serving the session.
    /// A session that ended the client (EPIPE) leaves the rest unsent: its error is read next.
    func flush() {
        for _ in 0..<10_000 {
            guard let display, wl_display_get_error(display) == 0 else { return }
            if wl_display_flush(display) >= 0 { return }
            guard errno == EAGAIN else {
                // The session closed its end: its error, if it sent one, is read now, before
                // a later request finds the socket closed and hides it behind EPIPE.
                readAvailable()
                return
            }
            fixture.server.dispatchPendingWork()
            readAvailable()
        }
    }

    /// Reads and dispatches whatever events the socket holds, without waiting.
    func readAvailable() {
        guard let display, !dispatching else { return }
        for _ in 0..<1000 {
            guard wl_display_get_error(display) == 0 else { return }
            guard wl_display_prepare_read(display) != 0 else { break }
            wl_display_dispatch_pending(display)
        }
        guard wl_display_get_error(display) == 0 else { return }
        var poller = pollfd(fd: wl_display_get_fd(display), events: Int16(POLLIN), revents: 0)
        if poll(&poller, 1, 0) > 0 {
            wl_display_read_events(display)
        } else {
            wl_display_cancel_read(display)
        }
        wl_display_dispatch_pending(display)
    }
}

/// libwayland-client's log (where it writes a protocol error's text), kept per thread, since
/// tests run in parallel and each drives its clients on its own thread.
enum ClientLog {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var byThread: [UInt: [String]] = [:]

    static let installed: Void = {
        wl_log_set_handler_client { format, arguments in
            guard let format, let arguments else { return }
            var buffer = [CChar](repeating: 0, count: 1024)
            _ = vsnprintf(&buffer, buffer.count, format, arguments)
            let line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            ClientLog.lock.withLock { ClientLog.byThread[UInt(pthread_self()), default: []].append(line) }
        }
    }()

    /// The lines logged on this thread, the latest 64.
    static func lines() -> [String] {
        lock.withLock {
            let thread = UInt(pthread_self())
            if let lines = byThread[thread], lines.count > 64 { byThread[thread] = Array(lines.suffix(64)) }
            return byThread[thread] ?? []
        }
    }
}
