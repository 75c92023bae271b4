import CWaylandShim
import TouchRouterCore

package enum SessionLockManager {
    package static let version: Int32 = 1

    package static let bind: wl_global_bind_func_t = { client, data, version, id in
        GlobalHost.bind(client, data, version, id, tr_ext_session_lock_manager_v1_interface(), table) { $0 as any SessionLockHandler }
    }

    package nonisolated(unsafe) static let table = implementation(ext_session_lock_manager_v1_interface(
        destroy: destroyRequest,
        lock: { client, resource, id in
            let manager = WaylandObject.of(resource, as: RoomGlobal<any SessionLockHandler>.self)
            guard let created = createResource(client, tr_ext_session_lock_v1_interface(), version: wl_resource_get_version(resource), id: id) else { return }
            let handler = manager.handler, state = handler.sessionLockState
            let lock = SessionLockObject(resource: created, madeBy: manager, state: state, handler: handler)
            WaylandObject.install(lock, implementation: SessionLockObject.table)
            state.lock(lock, handler: handler)
        }))
}

/// ext_session_lock_v1: the lock, in force from `locked` until unlock_and_destroy; one that
/// was refused (another lock holds the session) heard `finished` and is inert.
package final class SessionLockObject: WaylandObject {
    private unowned let state: SessionLockState
    fileprivate unowned let handler: any SessionLockHandler
    package private(set) var sentLocked = false
    package private(set) var finished = false
    /// Its lock surfaces by output, while they live.
    private var surfaces: [OutputID: WeakLockSurface] = [:]

    package init(resource: OpaquePointer, madeBy manager: WaylandObject, state: SessionLockState, handler: any SessionLockHandler) {
        self.state = state
        self.handler = handler
        super.init(resource: resource, madeBy: manager)
    }

    package func finish() {
        finished = true
        ext_session_lock_v1_send_finished(resource)
    }

    package func sendLocked() {
        sentLocked = true
        ext_session_lock_v1_send_locked(resource)
    }

    package func surfaceGone(_ output: OutputID) { surfaces[output] = nil }

    package func surface(on output: OutputID) -> LockSurfaceObject? { surfaces[output]?.object }

    /// The lock holding the session, not one refused with finished nor one unlocked.
    package var isInForce: Bool { !finished && state.lock === self }

    package override func resourceDestroyed() {
        state.lockGone(self)
        for surface in surfaces.values { surface.object?.lockGone() }
    }

    package nonisolated(unsafe) static let table = implementation(ext_session_lock_v1_interface(
        destroy: { _, resource in
            let lock = WaylandObject.of(resource, as: SessionLockObject.self)
            guard !lock.sentLocked || lock.state.lock !== lock else {
                lock.postError(EXT_SESSION_LOCK_V1_ERROR_INVALID_DESTROY.rawValue, "\(lock.name).destroy: the session is locked by it; unlock_and_destroy ends a lock")
                return
            }
            wl_resource_destroy(resource)
        },
        get_lock_surface: { client, resource, id, surfaceResource, outputResource in
            let lock = WaylandObject.of(resource, as: SessionLockObject.self)
            let surface = WaylandObject.of(surfaceResource, as: SurfaceObject.self)
            let request = "\(lock.name).get_lock_surface"
            guard surface.role == .none, surface.xdgSurface == nil, surface.subsurface == nil, surface.layerSurface == nil else {
                lock.postError(EXT_SESSION_LOCK_V1_ERROR_ROLE.rawValue, "\(request): wl_surface@\(wl_resource_get_id(surfaceResource)) already has the role \(surface.role.rawValue)")
                return
            }
            guard !surface.hasBuffer, !surface.pending.bufferAttached || surface.pending.bufferSize == nil else {
                lock.postError(EXT_SESSION_LOCK_V1_ERROR_ALREADY_CONSTRUCTED.rawValue, "\(request): wl_surface@\(wl_resource_get_id(surfaceResource)) has a buffer attached or committed")
                return
            }
            let output = WaylandObject.of(outputResource, as: OutputBinding.self).output
            let outputID = output.flatMap { $0.retired ? nil : $0.id }
            if let outputID, lock.surfaces[outputID]?.object != nil {
                lock.postError(EXT_SESSION_LOCK_V1_ERROR_DUPLICATE_OUTPUT.rawValue, "\(request): the lock has a surface on \(output?.name ?? "that output") already")
                return
            }
            guard let created = createResource(client, tr_ext_session_lock_surface_v1_interface(), version: lock.version, id: id) else { return }
            let lockSurface = LockSurfaceObject(resource: created, madeBy: lock, handler: lock.handler, surface: surface, output: outputID)
            WaylandObject.install(lockSurface, implementation: LockSurfaceObject.table)
            surface.role = .lockSurface
            surface.lockSurface = lockSurface
            // A finished lock's surfaces, and one on an output gone already, get no configure:
            // they are inert, never shown.
            if let outputID, lock.isInForce {
                lock.surfaces[outputID] = WeakLockSurface(object: lockSurface)
                lockSurface.configure(handler: lock.handler)
            }
        },
        unlock_and_destroy: { _, resource in
            let lock = WaylandObject.of(resource, as: SessionLockObject.self)
            guard lock.sentLocked, !lock.finished else {
                lock.postError(EXT_SESSION_LOCK_V1_ERROR_INVALID_UNLOCK.rawValue, "\(lock.name).unlock_and_destroy: \(lock.finished ? "the lock was finished, never locked" : "before the locked event")")
                return
            }
            lock.state.unlock(lock, handler: lock.handler)
            wl_resource_destroy(resource)
        }))
}

package struct WeakLockSurface {
    package weak var object: LockSurfaceObject?
}

/// ext_session_lock_surface_v1: a surface filling one output while the session is locked,
/// configured to the output's size; its commits need an acked configure and a buffer of
/// exactly the acked size.
package final class LockSurfaceObject: WaylandObject {
    package weak var surface: SurfaceObject?
    private weak var lock: SessionLockObject?
    private unowned let handler: any SessionLockHandler
    package let output: OutputID?
    private var sent: [(serial: UInt32, size: Size)] = []
    package private(set) var acked: Size?

    package init(resource: OpaquePointer, madeBy lock: SessionLockObject, handler: any SessionLockHandler, surface: SurfaceObject, output: OutputID?) {
        self.surface = surface
        self.lock = lock
        self.handler = handler
        self.output = output
        super.init(resource: resource, madeBy: lock)
    }

    package func configure(handler: any SessionLockHandler) {
        guard let output, let size = handler.lockOutputSize(output) else { return }
        let serial = handler.nextSerial
        sent.append((serial, size))
        if sent.count > 16 { sent.removeFirst() }
        ext_session_lock_surface_v1_send_configure(resource, serial, UInt32(clamping: size.width), UInt32(clamping: size.height))
    }

    /// Its lock went: it leaves the screen, and stays inert until destroyed.
    package func lockGone() {
        lock = nil
        if let surface { handler.unmapLockSurface(surface) }
    }

    /// On its surface's commit; false when the commit ended the client.
    package func committed(_ surface: SurfaceObject, handler: any SessionLockHandler) -> Bool {
        guard lock?.isInForce == true, let output else { return true }
        guard let acked else {
            postError(EXT_SESSION_LOCK_SURFACE_V1_ERROR_COMMIT_BEFORE_FIRST_ACK.rawValue, "\(name): wl_surface@\(wl_resource_get_id(surface.resource)).commit before the first ack_configure")
            return false
        }
        guard surface.hasBuffer else {
            postError(EXT_SESSION_LOCK_SURFACE_V1_ERROR_NULL_BUFFER.rawValue, "\(name): wl_surface@\(wl_resource_get_id(surface.resource)).commit with a null buffer")
            return false
        }
        guard surface.size == acked else {
            postError(EXT_SESSION_LOCK_SURFACE_V1_ERROR_DIMENSIONS_MISMATCH.rawValue, "\(name): a \(surface.size.width)x\(surface.size.height) buffer, configured \(acked.width)x\(acked.height)")
            return false
        }
        if !surface.inTree { handler.mapLockSurface(surface, output: output) }
        return true
    }

    package override func resourceDestroyed() {
        if let output { lock?.surfaceGone(output) }
        guard let surface, surface.lockSurface === self else { return }
        surface.lockSurface = nil
        handler.unmapLockSurface(surface)
        surface.role = .none
    }

    package nonisolated(unsafe) static let table = implementation(ext_session_lock_surface_v1_interface(
        destroy: destroyRequest,
        ack_configure: { _, resource, serial in
            let lockSurface = WaylandObject.of(resource, as: LockSurfaceObject.self)
            guard let index = lockSurface.sent.firstIndex(where: { $0.serial == serial }) else {
                lockSurface.postError(EXT_SESSION_LOCK_SURFACE_V1_ERROR_INVALID_SERIAL.rawValue, "\(lockSurface.name).ack_configure: serial \(serial) was not sent")
                return
            }
            lockSurface.acked = lockSurface.sent[index].size
            lockSurface.sent.removeFirst(index + 1)
        }))
}
