import CWaylandShim

/// A Swift object behind one wl_resource. The resource's user data holds a retained
/// reference, released by the resource's destroy callback, so the object lives exactly
/// as long as the client's object does.
package class WaylandObject {
    package let resource: OpaquePointer
    /// The server, private to this file, for what every object shares: its client's
    /// accounting (`install`, `clientRecord`, `endOwnClient`). No object reaches anything
    /// else of the server: a room's objects and managers hold its handler protocol.
    private unowned let owner: any ClientAccounting

    package init(resource: OpaquePointer, server: any ClientAccounting) {
        self.resource = resource
        owner = server
    }

    /// An object made by another (a lock's surface, a manager's object) in a room that does
    /// not see the server: the same accounting as `parent`'s.
    package init(resource: OpaquePointer, madeBy parent: WaylandObject) {
        self.resource = resource
        owner = parent.owner
    }

    /// Its client's record, for the accounting of what the client holds (`ClientLimits`);
    /// nil once the client is gone.
    package var clientRecord: ClientRecord? { owner.existingRecord(for: client) }

    /// Ends its client with wl_display's implementation error, and says so in the log
    /// (`endClient(_:pastLimit:)` in ClientLimits.swift).
    package func endOwnClient(_ message: String) { owner.endClient(client, message) }

    /// Called once, when libwayland destroys the resource (a destroy request, the client
    /// leaving, or a protocol error). Other objects refer to this one weakly.
    package func resourceDestroyed() {}

    package var client: OpaquePointer { wl_resource_get_client(resource) }
    package var version: Int32 { wl_resource_get_version(resource) }

    /// Ends the client with a protocol error on this object.
    package func postError(_ code: UInt32, _ message: String) {
        tr_resource_post_error(resource, code, message)
    }

    /// Makes `object` the resource's implementation and owner, counted against its
    /// client's `ClientLimits.objects` until libwayland destroys it.
    package static func install(_ object: WaylandObject, implementation: UnsafeRawPointer?) {
        wl_resource_set_implementation(object.resource, implementation, Unmanaged.passRetained(object).toOpaque()) { resource in
            guard let data = wl_resource_get_user_data(resource) else { return }
            let object = Unmanaged<WaylandObject>.fromOpaque(data).takeRetainedValue()
            object.owner.existingRecord(for: object.client)?.usage.objects -= 1
            object.resourceDestroyed()
        }
        guard let record = object.owner.existingRecord(for: object.client) else { return }
        record.usage.objects += 1
        if record.usage.objects > ClientLimits.objects {
            object.endClient("\(object.name) created", pastLimit: "past \(ClientLimits.objects) objects, the most one client may have")
        }
    }

    /// The object behind a resource this layer created with `install`.
    package static func of<T: WaylandObject>(_ resource: OpaquePointer?, as type: T.Type = T.self) -> T {
        unsafeDowncast(Unmanaged<WaylandObject>.fromOpaque(wl_resource_get_user_data(resource)!).takeUnretainedValue(), to: T.self)
    }
}

/// An implementation table at a stable address: libwayland keeps the pointer.
package func implementation<T>(_ table: T) -> UnsafeRawPointer {
    let pointer = UnsafeMutablePointer<T>.allocate(capacity: 1)
    pointer.initialize(to: table)
    return UnsafeRawPointer(pointer)
}

/// A resource for a new_id request; nil (the client told it is out of memory) on failure.
package func createResource(_ client: OpaquePointer?, _ interface: UnsafePointer<wl_interface>, version: Int32, id: UInt32) -> OpaquePointer? {
    guard let resource = wl_resource_create(client, interface, version, id) else {
        wl_client_post_no_memory(client)
        return nil
    }
    return resource
}

/// The common destroy request: the resource goes, and with it the object.
package let destroyRequest: @convention(c) (OpaquePointer?, OpaquePointer?) -> Void = { _, resource in
    wl_resource_destroy(resource)
}

/// A wl_listener whose callback finds its Swift owner. Removed by `remove()`, which the
/// owner calls in the same file that added it.
package final class Listener {
    private let storage: UnsafeMutablePointer<tr_listener>
    private let onNotify: (UnsafeMutableRawPointer?) -> Void
    private var linked = false

    package init(_ onNotify: @escaping (UnsafeMutableRawPointer?) -> Void) {
        self.onNotify = onNotify
        storage = .allocate(capacity: 1)
        storage.initialize(to: tr_listener())
        storage.pointee.owner = Unmanaged.passUnretained(self).toOpaque()
        storage.pointee.listener.notify = { listener, data in
            let owner = Unmanaged<Listener>.fromOpaque(tr_listener_owner(listener)).takeUnretainedValue()
            owner.onNotify(data)
        }
    }

    package var wlListener: UnsafeMutablePointer<wl_listener> {
        UnsafeMutableRawPointer(storage).assumingMemoryBound(to: wl_listener.self)
    }

    /// Marks the listener as added to a signal (by the caller, with the signal's own add function).
    package func didLink() { linked = true }

    package func remove() {
        guard linked else { return }
        wl_list_remove(&storage.pointee.listener.link)
        linked = false
    }

    deinit {
        remove()
        storage.deallocate()
    }
}
