import CWaylandShim
import TouchRouterConfig

/// A weak reference to keep in a collection.
struct Weak<T: AnyObject> {
    weak var object: T?
    init(_ object: T) { self.object = object }
}

/// The one extension object a protocol allows on another object (a decoration on a
/// toplevel, a fractional scale on a surface), found and removed in constant time. Keyed by
/// the owner's identity, which a later owner may reuse once the first is gone: an entry
/// counts only while its extension still names that owner.
struct OnePerOwner<Owner: AnyObject, Extension: AnyObject> {
    private var entries: [ObjectIdentifier: Weak<Extension>] = [:]
    private let ownerOf: (Extension) -> Owner?

    init(owner: @escaping (Extension) -> Owner?) { ownerOf = owner }

    func has(_ owner: Owner) -> Bool {
        entries[ObjectIdentifier(owner)]?.object.map { ownerOf($0) === owner } ?? false
    }

    func `extension`(of owner: Owner) -> Extension? {
        guard let found = entries[ObjectIdentifier(owner)]?.object, ownerOf(found) === owner else { return nil }
        return found
    }

    /// Whether a manager's request may make `owner`'s extension: when it has one already, the
    /// protocol's `code` is posted on the manager, naming the request and what `owner` is.
    func allowsAnother(for owner: Owner, named ownerName: String, manager: WaylandObject, request: String, code: UInt32) -> Bool {
        guard has(owner) else { return true }
        manager.postError(code, "\(manager.name).\(request): \(ownerName) has one already")
        return false
    }

    mutating func add(_ extension: Extension, to owner: Owner) { entries[ObjectIdentifier(owner)] = Weak(`extension`) }

    /// Every live extension, in no order.
    var all: [Extension] { entries.values.compactMap(\.object) }

    /// `key` is the owner's identity the extension was added under.
    mutating func remove(_ extension: Extension, key: ObjectIdentifier) {
        guard let entry = entries[key], entry.object == nil || entry.object === `extension` else { return }
        entries[key] = nil
    }

}

/// A global the server offers (Globals.swift): its interface, version and bind function, and
/// who sees it: a kiosk only (`--kiosk`), the clients `privilege` allows, or every client.
/// Immutable, and made of C function pointers only.
struct ProtocolGlobal: @unchecked Sendable {
    let interface: () -> UnsafePointer<wl_interface>?
    let version: Int32
    let bind: wl_global_bind_func_t
    var kioskOnly = false
    var privilege: Privilege? = nil
}

/// The state object of each protocol family's room (Protocols/<Family>/), and what the
/// registry filter needs to know of the globals made from the table in Globals.swift.
final class ProtocolStates {
    /// The globals made from `globals` that only a kiosk shows, and those a privilege
    /// gates, by the global libwayland made (Privileges.swift filters them).
    var kioskOnlyGlobals: Set<OpaquePointer> = []
    var privilegedGlobals: [OpaquePointer: Privilege] = [:]
    let decoration = DecorationState()
    let idleInhibit = IdleInhibitState()
    let fractionalScale = FractionalScaleState()
    let activation = ActivationState()
    let viewporter = ViewporterState()
    let presentation = PresentationState()
    let kdeIdle = KdeIdleState()
    let idleNotify = IdleNotifyState()
    let sessionLock = SessionLockState()
    let screencopy = ScreencopyState()
    let outputPower = OutputPowerState()
    let layerShell = LayerShellState()
    let foreignToplevel = ForeignToplevelState()
    let output = OutputState()
    let surface = SurfaceRegistry()
    let seat: SeatState
    let virtualInput = VirtualInputState()
    let textInput = TextInputState()
    let selection = SelectionState()
    let shell = ShellState()

    init(keymap: Keymap) {
        seat = SeatState(keymap: keymap)
    }
}
