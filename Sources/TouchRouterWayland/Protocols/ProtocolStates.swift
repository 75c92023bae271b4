import CWaylandShim
import TouchRouterConfig

/// A weak reference to keep in a collection.
package struct Weak<T: AnyObject> {
    package weak var object: T?
    package init(_ object: T) { self.object = object }
}

/// The one extension object a protocol allows on another object (a decoration on a
/// toplevel, a fractional scale on a surface), found and removed in constant time. Keyed by
/// the owner's identity, which a later owner may reuse once the first is gone: an entry
/// counts only while its extension still names that owner.
package struct OnePerOwner<Owner: AnyObject, Extension: AnyObject> {
    private var entries: [ObjectIdentifier: Weak<Extension>] = [:]
    private let ownerOf: (Extension) -> Owner?

    package init(owner: @escaping (Extension) -> Owner?) { ownerOf = owner }

    package func has(_ owner: Owner) -> Bool {
        entries[ObjectIdentifier(owner)]?.object.map { ownerOf($0) === owner } ?? false
    }

    package func `extension`(of owner: Owner) -> Extension? {
        guard let found = entries[ObjectIdentifier(owner)]?.object, ownerOf(found) === owner else { return nil }
        return found
    }

    /// Whether a manager's request may make `owner`'s extension: when it has one already, the
    /// protocol's `code` is posted on the manager, naming the request and what `owner` is.
    package func allowsAnother(for owner: Owner, named ownerName: String, manager: WaylandObject, request: String, code: UInt32) -> Bool {
        guard has(owner) else { return true }
        manager.postError(code, "\(manager.name).\(request): \(ownerName) has one already")
        return false
    }

    package mutating func add(_ extension: Extension, to owner: Owner) { entries[ObjectIdentifier(owner)] = Weak(`extension`) }

    /// Every live extension, in no order.
    package var all: [Extension] { entries.values.compactMap(\.object) }

    /// `key` is the owner's identity the extension was added under.
    package mutating func remove(_ extension: Extension, key: ObjectIdentifier) {
        guard let entry = entries[key], entry.object == nil || entry.object === `extension` else { return }
        entries[key] = nil
    }

}

/// A global the server offers (Globals.swift): its interface, version and bind function, and
/// who sees it: a kiosk only (`--kiosk`), the clients `privilege` allows, or every client.
/// Immutable, and made of C function pointers only.
package struct ProtocolGlobal: @unchecked Sendable {
    package let interface: () -> UnsafePointer<wl_interface>?
    package let version: Int32
    package let bind: wl_global_bind_func_t
    package var kioskOnly = false
    package var privilege: Privilege? = nil
}

/// The state object of each protocol family's room (Protocols/<Family>/), and what the
/// registry filter needs to know of the globals made from the table in Globals.swift.
package final class ProtocolStates {
    /// The globals made from `globals` that only a kiosk shows, and those a privilege
    /// gates, by the global libwayland made (Privileges.swift filters them).
    package var kioskOnlyGlobals: Set<OpaquePointer> = []
    package var privilegedGlobals: [OpaquePointer: Privilege] = [:]
    package let decoration = DecorationState()
    package let idleInhibit = IdleInhibitState()
    package let fractionalScale = FractionalScaleState()
    package let activation = ActivationState()
    package let viewporter = ViewporterState()
    package let presentation = PresentationState()
    package let kdeIdle = KdeIdleState()
    package let idleNotify = IdleNotifyState()
    package let sessionLock = SessionLockState()
    package let screencopy = ScreencopyState()
    package let outputPower = OutputPowerState()
    package let layerShell = LayerShellState()
    package let foreignToplevel = ForeignToplevelState()
    package let output = OutputState()
    package let surface = SurfaceRegistry()
    package let seat: SeatState
    package let virtualInput = VirtualInputState()
    package let textInput = TextInputState()
    package let selection = SelectionState()
    package let shell = ShellState()

    package init(keymap: Keymap) {
        seat = SeatState(keymap: keymap)
    }
}
