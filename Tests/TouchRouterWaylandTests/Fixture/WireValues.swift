import CWaylandClientShim
import CWaylandShim

/// One client-side object: a libwayland-client proxy, named as the protocol names it
/// ("wl_surface@3"). Ids are reused once the server has deleted an object, so two proxies
/// are the same only if their `serial` is: each proxy the client ever had has its own.
struct Proxy: Hashable, CustomStringConvertible {
    let pointer: OpaquePointer
    let id: UInt32
    let interface: String
    let serial: Int

    static func == (a: Proxy, b: Proxy) -> Bool { a.serial == b.serial }
    func hash(into hasher: inout Hasher) { hasher.combine(serial) }
    var description: String { "\(interface)@\(id)" }
}

/// An argument of an event as the client decoded it, by the message's signature.
enum WireValue: Equatable, CustomStringConvertible {
    case int(Int32), uint(UInt32), fixed(Double), string(String?), object(Proxy?), newObject(Proxy), array([UInt8]), fd(Int32)

    var description: String {
        switch self {
        case .int(let value): "\(value)"
        case .uint(let value): "\(value)u"
        case .fixed(let value): "\(value)"
        case .string(let value): value.map { "\"\($0)\"" } ?? "nil"
        case .object(let value): value?.description ?? "nil"
        case .newObject(let value): "new \(value)"
        case .array(let value): "[\(value.count) bytes]"
        case .fd(let value): "fd \(value)"
        }
    }
}

/// An event one client received, in the order it was dispatched.
struct WireEvent: CustomStringConvertible {
    let target: Proxy
    let name: String
    let arguments: [WireValue]

    var description: String { "\(target).\(name)(\(arguments.map(\.description).joined(separator: ", ")))" }

    func int(_ index: Int) -> Int32? {
        guard index < arguments.count else { return nil }
        switch arguments[index] {
        case .int(let value): return value
        case .uint(let value): return Int32(bitPattern: value)
        default: return nil
        }
    }

    func uint(_ index: Int) -> UInt32? { int(index).map { UInt32(bitPattern: $0) } }

    func fixed(_ index: Int) -> Double? {
        guard index < arguments.count, case .fixed(let value) = arguments[index] else { return nil }
        return value
    }

    func string(_ index: Int) -> String? {
        guard index < arguments.count, case .string(let value) = arguments[index] else { return nil }
        return value
    }

    /// The object an argument names, old or new.
    func object(_ index: Int) -> Proxy? {
        guard index < arguments.count else { return nil }
        switch arguments[index] {
        case .object(let value): return value
        case .newObject(let value): return value
        default: return nil
        }
    }

    /// An array argument read as 32-bit words (xdg_toplevel's states, keyboard keys).
    func words(_ index: Int) -> [UInt32]? {
        guard index < arguments.count, case .array(let bytes) = arguments[index] else { return nil }
        var words: [UInt32] = []
        for at in stride(from: 0, to: bytes.count - bytes.count % 4, by: 4) {
            var word: UInt32 = 0
            for byte in 0..<4 { word |= UInt32(bytes[at + byte]) << UInt32(8 * byte) }
            words.append(word)
        }
        return words
    }
}

/// What a request argument may be given as; each is converted by the request's signature
/// (an integer literal goes out as `i` or `u`, whichever the signature says).
enum RequestValue {
    case integer(Int64), fixed(Double), string(String?), object(Proxy?), fd(Int32), array([UInt8])
}

protocol WireArgument { var requestValue: RequestValue { get } }
extension Int: WireArgument { var requestValue: RequestValue { .integer(Int64(self)) } }
extension Int32: WireArgument { var requestValue: RequestValue { .integer(Int64(self)) } }
extension UInt32: WireArgument { var requestValue: RequestValue { .integer(Int64(self)) } }
extension Double: WireArgument { var requestValue: RequestValue { .fixed(self) } }
extension String: WireArgument { var requestValue: RequestValue { .string(self) } }
extension Proxy: WireArgument { var requestValue: RequestValue { .object(self) } }
extension Array: WireArgument where Element == UInt8 { var requestValue: RequestValue { .array(self) } }

/// A file descriptor argument (`h`): libwayland-client sends a duplicate of it.
struct FileDescriptor: WireArgument {
    let fd: Int32
    var requestValue: RequestValue { .fd(fd) }
}

/// A null object or string argument.
struct Null: WireArgument {
    var requestValue: RequestValue { .object(nil) }
}

let null = Null()

/// One argument of a message's signature: its type letter and whether it may be null.
struct SignatureArgument {
    let type: Character
    let nullable: Bool

    /// The arguments of a signature such as "2?usn", without the version prefix.
    static func parse(_ signature: UnsafePointer<CChar>) -> [SignatureArgument] {
        var arguments: [SignatureArgument] = []
        var nullable = false
        for character in String(cString: signature) {
            if character.isNumber { continue }
            if character == "?" { nullable = true; continue }
            arguments.append(SignatureArgument(type: character, nullable: nullable))
            nullable = false
        }
        return arguments
    }
}

/// Interface descriptions by name, for binding globals: the session's own (CWaylandShim
/// has each protocol's by address), shared by the client, since they are plain data. A new
/// protocol is here as soon as generate-protocols.sh lists it.
enum WireInterfaces {
    nonisolated(unsafe) static let byName: [String: UnsafePointer<wl_interface>] = {
        // libwayland's core globals, and every interface of the protocols in protocols/ (the
        // list generate-protocols.sh makes with the scanner's output).
        let core: [UnsafePointer<wl_interface>?] = [
            tr_wl_compositor_interface(), tr_wl_data_device_manager_interface(), tr_wl_output_interface(), tr_wl_seat_interface(),
            tr_wl_shell_interface(), tr_wl_shm_interface(), tr_wl_subcompositor_interface(),
        ]
        let all = core + (0..<tr_protocol_interface_count()).map { tr_protocol_interface($0) }
        var table: [String: UnsafePointer<wl_interface>] = [:]
        for interface in all.compactMap({ $0 }) { table[String(cString: interface.pointee.name)] = interface }
        return table
    }()
}
