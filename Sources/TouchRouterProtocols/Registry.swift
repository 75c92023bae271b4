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

    package init(interface: @escaping () -> UnsafePointer<wl_interface>?, version: Int32, bind: wl_global_bind_func_t,
                 kioskOnly: Bool = false, privilege: Privilege? = nil) {
        self.interface = interface
        self.version = version
        self.bind = bind
        self.kioskOnly = kioskOnly
        self.privilege = privilege
    }
}
