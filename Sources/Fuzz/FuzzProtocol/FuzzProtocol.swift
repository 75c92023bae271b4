// libFuzzer target: the protocol layer's request handlers, driven through a real
// WaylandServer over a socket pair (`addClient`), one fresh client per input and one
// session per process. Build and run: Sources/Fuzz/README.md.
//
// Raw bytes would mostly fail libwayland's header checks, so the input is read as a
// program (Tests/Fuzz/libfuzzer/make-protocol-seeds.py writes seeds in it):
//
//   prologue (always): wl_display.get_registry, then wl_registry.bind of every global.
//   then steps, each starting with a byte OP:
//     OP < 0xD0   a request: OBJ (index into the live ids, sorted), OPCODE (modulo the
//                 interface's request count), then the arguments its signature asks for:
//                   i/u/f  a value byte V: V < 0x80 → V-16; V < 0xF0 → (V-0x80)*32;
//                          V < 0xF8 → the next 4 bytes, little-endian; else a special
//                          (the last serial heard, the one before, Int32.max, Int32.min,
//                          -1, 65536, 2147483646, 1<<20); f is the value * 256 unless raw
//                   s      LEN then LEN % 48 bytes (LEN 0xFF: null if nullable)
//                   o      B: 0xFF null (0), 0xFE a dead id, else the B%n-th live object
//                          of the interface the argument wants (any live one if none)
//                   n      the next id, typed as the signature says
//                   a      LEN then LEN % 32 bytes
//                   h      SIZE byte: a sealed-free memfd of one of 8 sizes
//                 wl_registry.bind takes GLOBAL (index) and a version byte instead.
//     OP < 0xE8   a compositor action: input injected through the router (touch,
//                 pointer, keys) or a window placed, with value bytes as above
//     else        a deliberately broken message (bad size, id, opcode or payload)
//   The session is dispatched until idle after each step and the client's events are
//   read (serials, delete_id, registry globals, errors).
// After the input the client hangs up; the session must then hold no client and no
// surface, and its loop must go idle. A trap, crash or hang inside the session is a finding.
import CWaylandShim
import TouchRouterConfig
import TouchRouterCore
import TouchRouterWayland
#if canImport(Glibc)
import Glibc
import FuzzDriver
#endif

// MARK: Interfaces, from libwayland's own descriptions

final class Message {
    let name: String
    /// One entry per argument: its type character, whether it may be null, its interface.
    let arguments: [(type: Character, nullable: Bool, interface: String?)]
    init(_ message: wl_message) {
        name = String(cString: message.name)
        var arguments: [(Character, Bool, String?)] = []
        var nullable = false
        for char in String(cString: message.signature) {
            if char.isNumber { continue }
            if char == "?" { nullable = true; continue }
            let type = message.types?[arguments.count]
            arguments.append((char, nullable, type.map { String(cString: $0.pointee.name) }))
            nullable = false
        }
        self.arguments = arguments
    }
}

final class Interface {
    let name: String
    let version: UInt32
    var requests: [Message] = []
    var events: [Message] = []
    init(name: String, version: UInt32) { self.name = name; self.version = version }
}

nonisolated(unsafe) var interfaces: [String: Interface] = [:]
/// FUZZ_VERBOSE=1: libwayland's log, and each request and event, on standard error.
let verbose = getenv("FUZZ_VERBOSE") != nil

func say(_ text: String) { if verbose { print(text) } }

func learn(_ interface: UnsafePointer<wl_interface>) {
    let name = String(cString: interface.pointee.name)
    guard interfaces[name] == nil else { return }
    let described = Interface(name: name, version: UInt32(interface.pointee.version))
    interfaces[name] = described
    var nested: [UnsafePointer<wl_interface>] = []
    func messages(_ pointer: UnsafePointer<wl_message>?, _ count: Int32) -> [Message] {
        guard let pointer else { return [] }
        return (0..<Int(count)).map { i in
            let message = pointer[i]
            let arity = String(cString: message.signature).filter { $0.isLetter }.count
            for a in 0..<arity { if let type = message.types?[a] { nested.append(type) } }
            return Message(message)
        }
    }
    described.requests = messages(interface.pointee.methods, interface.pointee.method_count)
    described.events = messages(interface.pointee.events, interface.pointee.event_count)
    for type in nested { learn(type) }
}

func learnInterfaces() {
    // The C globals come into Swift as copies, but their message tables are the real ones.
    var display = wl_display_interface
    withUnsafePointer(to: &display) { learn($0) }
    // libwayland's core globals, and every interface of the protocols in protocols/, as
    // generate-protocols.sh lists them: a new protocol is fuzzed as soon as it is listed there.
    let core = [tr_wl_compositor_interface(), tr_wl_subcompositor_interface(), tr_wl_shm_interface(), tr_wl_seat_interface(),
                tr_wl_output_interface(), tr_wl_data_device_manager_interface(), tr_wl_shell_interface()]
    for interface in core + (0..<tr_protocol_interface_count()).map({ tr_protocol_interface($0) }) {
        if let interface { learn(interface) }
    }
}

// MARK: The input, read as a program

struct Program {
    let bytes: UnsafeBufferPointer<UInt8>
    var at = 0
    mutating func byte() -> UInt8? {
        guard at < bytes.count else { return nil }
        defer { at += 1 }
        return bytes[at]
    }
    mutating func word() -> UInt32 {
        var value: UInt32 = 0
        for shift in stride(from: 0, to: 32, by: 8) { value |= UInt32(byte() ?? 0) << UInt32(shift) }
        return value
    }
    var atEnd: Bool { at >= bytes.count }
}

// MARK: The client's side of the socket

final class FuzzClient {
    let fd: Int32
    var objects: [UInt32: Interface] = [:]
    var nextID: UInt32 = 2
    var globals: [(name: UInt32, interface: String, version: UInt32)] = []
    var serials: [UInt32] = [0, 0]
    var dead = false
    var unread: [UInt8] = []
    var framesWaited = 0

    init(fd: Int32) {
        self.fd = fd
        objects[1] = interfaces["wl_display"]!
    }

    /// Sends one message (words already laid out, size included) and its descriptors.
    func send(_ words: [UInt32], fds: [Int32] = []) {
        defer { for fd in fds { close(fd) } }
        guard !dead else { return }
        var words = words
        let length = words.count * 4
        let controlLength = fds.isEmpty ? 0 : cmsgSpace(fds.count * 4)
        let control = UnsafeMutableRawPointer.allocate(byteCount: max(controlLength, 8), alignment: 8)
        defer { control.deallocate() }
        if !fds.isEmpty {
            control.initializeMemory(as: UInt8.self, repeating: 0, count: controlLength)
            let header = control.assumingMemoryBound(to: cmsghdr.self)
            header.pointee.cmsg_len = cmsgLen(fds.count * 4)
            header.pointee.cmsg_level = SOL_SOCKET
            header.pointee.cmsg_type = Int32(SCM_RIGHTS)
            let data = control.advanced(by: MemoryLayout<cmsghdr>.stride).assumingMemoryBound(to: Int32.self)
            for (i, fd) in fds.enumerated() { data[i] = fd }
        }
        let sent: Int = words.withUnsafeMutableBytes { buffer in
            var iov = iovec(iov_base: buffer.baseAddress, iov_len: length)
            return withUnsafeMutablePointer(to: &iov) { iovPointer in
                var msg = msghdr()
                msg.msg_iov = iovPointer
                msg.msg_iovlen = 1
                if !fds.isEmpty {
                    msg.msg_control = control
                    msg.msg_controllen = controlLength
                }
                return Glibc.sendmsg(fd, &msg, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            }
        }
        if sent < 0 { dead = true }
    }

    /// Reads what the session sent: globals, serials, deleted ids, a protocol error.
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let controlLength = Int(cmsgSpace(28 * 4))
        let control = UnsafeMutableRawPointer.allocate(byteCount: controlLength, alignment: 8)
        defer { control.deallocate() }
        while !dead {
            let received: Int = buffer.withUnsafeMutableBytes { bytes in
                var iov = iovec(iov_base: bytes.baseAddress, iov_len: bytes.count)
                return withUnsafeMutablePointer(to: &iov) { iovPointer in
                    var msg = msghdr()
                    msg.msg_iov = iovPointer
                    msg.msg_iovlen = 1
                    msg.msg_control = control
                    msg.msg_controllen = controlLength
                    let n = recvmsg(fd, &msg, Int32(MSG_DONTWAIT) | Int32(MSG_CMSG_CLOEXEC))
                    if n >= 0, msg.msg_controllen >= MemoryLayout<cmsghdr>.stride {
                        let header = control.assumingMemoryBound(to: cmsghdr.self).pointee
                        if header.cmsg_level == SOL_SOCKET, header.cmsg_type == Int32(SCM_RIGHTS) {
                            let count = (Int(header.cmsg_len) - MemoryLayout<cmsghdr>.stride) / 4
                            let data = control.advanced(by: MemoryLayout<cmsghdr>.stride).assumingMemoryBound(to: Int32.self)
                            for i in 0..<max(0, count) { close(data[i]) }
                        }
                    }
                    return n
                }
            }
            if received == 0 { dead = true; break }
            if received < 0 {
                if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR { dead = true }
                break
            }
            unread.append(contentsOf: buffer[0..<received])
        }
        parseEvents()
    }

    private func parseEvents() {
        var offset = 0
        func word(_ at: Int) -> UInt32 {
            UInt32(unread[at]) | UInt32(unread[at + 1]) << 8 | UInt32(unread[at + 2]) << 16 | UInt32(unread[at + 3]) << 24
        }
        while unread.count - offset >= 8 {
            let sender = word(offset)
            let size = Int(word(offset + 4) >> 16)
            let opcode = Int(word(offset + 4) & 0xffff)
            guard size >= 8 else { fatalError("the session sent a message of size \(size)") }
            guard unread.count - offset >= size else { break }
            let body = offset + 8
            if let interface = objects[sender], opcode < interface.events.count {
                let event = interface.events[opcode]
                say("<- \(interface.name)@\(sender).\(event.name) \(stride(from: body, to: offset + size, by: 4).map { word($0) })")
                switch (interface.name, event.name) {
                case ("wl_display", "error"):
                    dead = true
                case ("wl_display", "delete_id") where size >= 12:
                    objects[word(body)] = nil
                case ("wl_registry", "global") where size >= 16:
                    let name = word(body)
                    let length = Int(word(body + 4))
                    if length > 0, body + 8 + length <= offset + size {
                        let text = String(decoding: unread[(body + 8)..<(body + 8 + length - 1)], as: UTF8.self)
                        let versionAt = body + 8 + ((length + 3) & ~3)
                        if versionAt + 4 <= offset + size { globals.append((name, text, word(versionAt))) }
                    }
                default:
                    if event.arguments.first?.type == "u", size >= 12,
                       ["configure", "ping", "enter", "button", "down", "key", "up"].contains(event.name) {
                        serials = [serials[1], word(body)]
                    }
                }
            }
            offset += size
        }
        unread.removeFirst(offset)
    }

    var liveIDs: [UInt32] { objects.keys.sorted() }

    func newID(_ interface: String?) -> UInt32 {
        let id = nextID
        nextID += 1
        if let interface, let described = interfaces[interface] { objects[id] = described }
        return id
    }
}

func cmsgSpace(_ length: Int) -> Int { MemoryLayout<cmsghdr>.stride + ((length + 7) & ~7) }
func cmsgLen(_ length: Int) -> Int { MemoryLayout<cmsghdr>.stride + length }

// MARK: Writing requests

struct Writer {
    var words: [UInt32] = []
    mutating func int(_ value: UInt32) { words.append(value) }
    mutating func bytes(_ bytes: [UInt8], string: Bool) {
        let length = bytes.count + (string ? 1 : 0)
        words.append(UInt32(length))
        var padded = bytes + (string ? [0] : [])
        while padded.count % 4 != 0 { padded.append(0) }
        for i in stride(from: 0, to: padded.count, by: 4) {
            words.append(UInt32(padded[i]) | UInt32(padded[i + 1]) << 8 | UInt32(padded[i + 2]) << 16 | UInt32(padded[i + 3]) << 24)
        }
    }
    func message(object: UInt32, opcode: UInt32) -> [UInt32] {
        [object, UInt32((words.count + 2) * 4) << 16 | (opcode & 0xffff)] + words
    }
}

func value(_ program: inout Program, _ client: FuzzClient, fixed: Bool = false) -> UInt32 {
    let b = program.byte() ?? 0
    let scale: Int32 = fixed ? 256 : 1
    switch b {
    case 0..<0x80: return UInt32(bitPattern: (Int32(b) - 16) &* scale)
    case 0x80..<0xF0: return UInt32(bitPattern: ((Int32(b) - 0x80) * 32) &* scale)
    case 0xF0..<0xF8: return program.word()
    default:
        let specials: [UInt32] = [client.serials[1], client.serials[0], UInt32(Int32.max), UInt32(bitPattern: Int32.min),
                                  UInt32.max, 65536, UInt32(Int32.max - 1), 1 << 20]
        return specials[Int(b - 0xF8)]
    }
}

func someBytes(_ program: inout Program, limit: Int) -> [UInt8] {
    let length = Int(program.byte() ?? 0) % limit
    return (0..<length).map { _ in program.byte() ?? 0x61 }
}

// Glibc's module map leaves it out; its C calling convention is Swift's for these arguments.
@_silgen_name("memfd_create")
func memfd_create(_ name: UnsafePointer<CChar>, _ flags: UInt32) -> Int32

func memfd(_ program: inout Program) -> Int32 {
    let sizes = [0, 4, 64, 4096, 16384, 65536, 1 << 20, 4 << 20]
    let choice = Int(program.byte() ?? 3)
    let fd = memfd_create("fuzz-pool", 1 /* MFD_CLOEXEC */)
    guard fd >= 0 else { fatalError("memfd_create: \(String(cString: strerror(errno)))") }
    _ = ftruncate(fd, off_t(sizes[choice % sizes.count]))
    return fd
}

func request(_ program: inout Program, _ client: FuzzClient) {
    let ids = client.liveIDs
    let object = ids[Int(program.byte() ?? 0) % ids.count]
    guard let interface = client.objects[object], !interface.requests.isEmpty else { return }
    let opcode = Int(program.byte() ?? 0) % interface.requests.count
    let message = interface.requests[opcode]
    var writer = Writer()
    var fds: [Int32] = []
    if interface.name == "wl_registry", message.name == "bind" {
        guard !client.globals.isEmpty else { return }
        let global = client.globals[Int(program.byte() ?? 0) % client.globals.count]
        let versionByte = program.byte() ?? 0
        let ours = interfaces[global.interface]?.version ?? 1
        let version = versionByte < 0xF0 ? max(1, min(global.version, ours) - UInt32(versionByte % 4 == 3 ? 1 : 0)) : UInt32(versionByte - 0xF0)
        writer.int(global.name)
        writer.bytes(Array(global.interface.utf8), string: true)
        writer.int(version)
        writer.int(client.newID(global.interface))
        client.send(writer.message(object: object, opcode: UInt32(opcode)))
        return
    }
    for argument in message.arguments {
        switch argument.type {
        case "i", "u": writer.int(value(&program, client))
        case "f": writer.int(value(&program, client, fixed: true))
        case "s":
            let length = program.byte() ?? 0
            if length == 0xFF && argument.nullable { writer.int(0); continue }
            let text = (0..<(Int(length) % 48)).map { _ in program.byte() ?? 0x61 }
            writer.bytes(text, string: true)
        case "o":
            let b = program.byte() ?? 0
            if b == 0xFF { writer.int(0); continue }
            if b == 0xFE { writer.int(client.nextID + 1000); continue }
            let matching = ids.filter { argument.interface == nil || client.objects[$0]?.name == argument.interface }
            let pool = matching.isEmpty ? ids : matching
            writer.int(pool[Int(b) % pool.count])
        case "n": writer.int(client.newID(argument.interface))
        case "a": writer.bytes(someBytes(&program, limit: 32), string: false)
        case "h": fds.append(memfd(&program))
        default: return
        }
    }
    say("-> \(interface.name)@\(object).\(message.name) \(writer.words.map { Int32(bitPattern: $0) }) fds \(fds.count)")
    client.send(writer.message(object: object, opcode: UInt32(opcode)), fds: fds)
}

func action(_ program: inout Program, _ client: FuzzClient, _ server: WaylandServer, _ op: UInt8) {
    let time = server.clock.now()
    let device = WaylandServer.injectionDevice
    func coordinate() -> Double { Double(Int32(bitPattern: value(&program, client))) + (Double(program.byte() ?? 0) / 256) }
    func touch() -> TouchID { TouchID(Int32((program.byte() ?? 0) % 10)) }
    switch (op - 0xD0) % 12 {
    case 0: server.inject(.touchDown(device: device, time: time, id: touch(), position: Point(coordinate(), coordinate())))
    case 1: server.inject(.touchMotion(device: device, time: time, id: touch(), position: Point(coordinate(), coordinate())))
    case 2: server.inject(.touchUp(device: device, time: time, id: touch()))
    case 3: server.inject(.touchFrame(device: device, time: time))
    case 4: server.inject(.pointerMotionAbsolute(device: device, time: time, position: Point(coordinate(), coordinate())))
    case 5: server.inject(.pointerButton(device: device, time: time, button: 0x110 + UInt32((program.byte() ?? 0) % 3), state: (program.byte() ?? 0) % 2 == 0 ? .pressed : .released))
    case 6: server.inject(.key(device: device, time: time, key: UInt32(program.byte() ?? 30), state: (program.byte() ?? 0) % 2 == 0 ? .pressed : .released))
    case 7: server.inject(.pointerAxis(device: device, time: time, axis: (program.byte() ?? 0) % 2 == 0 ? .vertical : .horizontal, value: coordinate(), discrete: Int32(bitPattern: value(&program, client)), source: .wheel))
    case 8:
        let surfaces = client.liveIDs.filter { client.objects[$0]?.name == "wl_surface" }
        let b = Int(program.byte() ?? 0)
        let surface = surfaces.isEmpty ? UInt32(b) : surfaces[b % surfaces.count]
        _ = try? server.placeWindow(clientSocket: client.fd, surfaceID: surface, x: Int(Int32(bitPattern: value(&program, client))), y: Int(Int32(bitPattern: value(&program, client))))
    case 9: server.inject(.touchCancel(device: device, time: time, id: touch()))
    case 10: server.inject(.pointerMotion(device: device, time: time, dx: coordinate(), dy: coordinate()))
    default:
        // Lets the frame clock tick once (frame callbacks, pings), at most twice an input.
        guard client.framesWaited < 2 else { return }
        client.framesWaited += 1
        var poller = pollfd(fd: -1, events: 0, revents: 0)
        _ = poll(&poller, 0, 20)
    }
}

func broken(_ program: inout Program, _ client: FuzzClient) {
    let ids = client.liveIDs
    let object = ids[Int(program.byte() ?? 0) % ids.count]
    let kind = program.byte() ?? 0
    let opcode = UInt32(program.byte() ?? 0)
    let payload = (0..<Int((program.byte() ?? 0) % 8)).map { _ in value(&program, client) }
    let rightSize = UInt32((payload.count + 2) * 4)
    switch kind % 8 {
    case 0: client.send([object, UInt32(kind % 8) << 16 | opcode] + payload)                     // size below the header
    case 1: client.send([object, (rightSize + 1 + UInt32(kind % 3)) << 16 | opcode] + payload + [0]) // size not a multiple of 4
    case 2: client.send([object, (rightSize + 8) << 16 | opcode] + payload)                       // longer than what follows
    case 3: client.send([object, 0xfffc << 16 | opcode] + payload)                                 // larger than any buffer
    case 4: client.send([client.nextID + 77, rightSize << 16 | opcode] + payload)                  // no such object
    case 5: client.send([object, rightSize << 16 | (0x8000 | opcode)] + payload)                   // no such request
    case 6: client.send([0, rightSize << 16 | opcode] + payload)                                    // object 0
    default: client.send([object, rightSize << 16 | opcode % 8] + payload)                         // arguments left to chance
    }
}

// MARK: The session, one per process

nonisolated(unsafe) var sharedSession: WaylandServer?

func server() -> WaylandServer {
    if let sharedSession { return sharedSession }
    signal(SIGPIPE, SIG_IGN)
    // libwayland logs every client it ends for a protocol error; FUZZ_VERBOSE=1 keeps that.
    if !verbose { wl_log_set_handler_server { _, _ in } }
    learnInterfaces()
    var options = WaylandServer.Options()
    options.listens = false
    // The fuzzed client is in this process: the privileged globals are fuzzed too.
    options.grantedToEveryClient = Set(Privilege.allCases)
    do {
        let server = try WaylandServer(options: options)
        try server.start()
        sharedSession = server
        return server
    } catch {
        fatalError("the session does not start: \(error)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProtocol(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let server = server()
    let fd: Int32
    do { fd = try server.addClient() } catch { fatalError("addClient: \(error)") }
    let client = FuzzClient(fd: fd)
    var program = Program(bytes: UnsafeBufferPointer(start: data, count: size))
    func settle() {
        guard server.dispatchPendingWork() else { fatalError("the session's loop does not go idle") }
        client.drain()
    }
    // Prologue: the registry, and every global bound at the version both sides know.
    let registry = client.newID("wl_registry")
    var writer = Writer()
    writer.int(registry)
    client.send(writer.message(object: 1, opcode: 1))
    settle()
    // The health of the session that served every input before this one: it still answers.
    guard !client.globals.isEmpty else { fatalError("the session no longer answers a new client's registry") }
    for global in client.globals {
        var bind = Writer()
        bind.int(global.name)
        bind.bytes(Array(global.interface.utf8), string: true)
        bind.int(min(global.version, interfaces[global.interface]?.version ?? 1))
        bind.int(client.newID(global.interface))
        client.send(bind.message(object: registry, opcode: 0))
    }
    settle()
    var steps = 0
    while !client.dead, steps < 1500, let op = program.byte() {
        steps += 1
        switch op {
        case 0..<0xD0: request(&program, client)
        case 0xD0..<0xE8: action(&program, client, server, op)
        default: broken(&program, client)
        }
        settle()
    }
    if let problem = server.tree.indexConsistencyProblem() { fatalError("the hit-test index disagrees with the tree: \(problem)") }
    close(fd)
    guard server.dispatchPendingWork() else { fatalError("the session's loop does not go idle after the client left") }
    let census = server.fuzzingCensus
    guard census.clients == 0, census.surfaceObjects == 0, census.treeSurfaces == 0 else {
        fatalError("after the client left the session still holds \(census)")
    }
    return 0
}

// SwiftPM links this executable's `main` here; FuzzDriver hands over to libFuzzer.
@_cdecl("FuzzProtocol_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    runLibFuzzer(argc, argv) { data, size in fuzzProtocol(data, size) }
}
