import CWaylandShim
import TouchRouterCore

// idle-inhibit-unstable-v1 (protocols/idle-inhibit-unstable-v1.xml): a video or presentation
// app asks that the screen not blank while its surface is shown. An inhibitor holds the
// seat's idle timer (`[idle]`, SeatIdle.swift) and the clients' idle notifications while its
// surface is shown, as the protocol says; `msg idle` lists them.

/// What the inhibitors may ask of the server (Handlers/IdleHandling.swift): to look again when
/// one goes. The session looks after every round, but a client that the round's flush ends
/// loses its inhibitors after that look, and an idle session may not run another round for a
/// second.
package protocol IdleInhibitHandler: AnyObject {
    func idleInhibitorGone()
}

/// The inhibitors alive, oldest first.
package final class IdleInhibitState {
    package init() {}
    /// Unowned: the server owns this state and outlives it.
    package unowned(unsafe) var handler: (any IdleInhibitHandler)?
    private var inhibitors: [ObjectIdentifier: IdleInhibitorObject] = [:]
    private var order: UInt64 = 0
    /// Changes with every inhibitor made or destroyed: with the tree's change stamp, whether
    /// one holds the idle timers stands as long as both stay the same.
    package private(set) var generation: UInt64 = 0

    package var isEmpty: Bool { inhibitors.isEmpty }

    /// Each inhibitor's surface and whether it is shown now, oldest first.
    package func report(shown: (SurfaceID) -> Bool) -> [(surface: SurfaceID, shown: Bool)] {
        inhibitors.values.sorted { $0.order < $1.order }.compactMap { inhibitor in
            guard let surface = inhibitor.surface else { return nil }
            return (surface.id, shown(surface.id))
        }
    }

    /// Whether one inhibitor's surface is shown: the session asks after every round that
    /// changed the tree while an inhibitor lives, so this walks without building a list.
    package func anyShown(shown: (SurfaceID) -> Bool) -> Bool {
        guard !inhibitors.isEmpty else { return false }
        return inhibitors.values.contains { inhibitor in inhibitor.surface.map { shown($0.id) } ?? false }
    }

    fileprivate func add(_ inhibitor: IdleInhibitorObject) {
        order += 1
        inhibitor.order = order
        inhibitors[ObjectIdentifier(inhibitor)] = inhibitor
        generation &+= 1
    }

    fileprivate func remove(_ inhibitor: IdleInhibitorObject) {
        inhibitors[ObjectIdentifier(inhibitor)] = nil
        generation &+= 1
        handler?.idleInhibitorGone()
    }

    package static let globals = [ProtocolGlobal(interface: tr_zwp_idle_inhibit_manager_v1_interface, version: IdleInhibitManager.version, bind: IdleInhibitManager.bind)]
}

package enum IdleInhibitManager {
    package static let version: Int32 = 1

    package static let bind: wl_global_bind_func_t = { client, data, version, id in
        GlobalHost.bind(client, data, version, id, tr_zwp_idle_inhibit_manager_v1_interface(), table, handler: { $0.idleInhibitState })
    }

    package nonisolated(unsafe) static let table = implementation(zwp_idle_inhibit_manager_v1_interface(
        destroy: destroyRequest,
        create_inhibitor: { client, resource, id, surfaceResource in
            let manager = WaylandObject.of(resource, as: RoomGlobal<IdleInhibitState>.self)
            let surface = WaylandObject.of(surfaceResource, as: SurfaceObject.self)
            guard let created = createResource(client, tr_zwp_idle_inhibitor_v1_interface(), version: wl_resource_get_version(resource), id: id) else { return }
            let state = manager.handler
            let inhibitor = IdleInhibitorObject(resource: created, madeBy: manager, surface: surface, state: state)
            WaylandObject.install(inhibitor, implementation: IdleInhibitorObject.table)
            state.add(inhibitor)
        }))
}

/// zwp_idle_inhibitor_v1: alive until destroyed; its surface going first leaves it inert.
package final class IdleInhibitorObject: WaylandObject {
    package weak var surface: SurfaceObject?
    fileprivate var order: UInt64 = 0
    private unowned let state: IdleInhibitState

    package init(resource: OpaquePointer, madeBy manager: WaylandObject, surface: SurfaceObject, state: IdleInhibitState) {
        self.surface = surface
        self.state = state
        super.init(resource: resource, madeBy: manager)
    }

    package override func resourceDestroyed() { state.remove(self) }

    package nonisolated(unsafe) static let table = implementation(zwp_idle_inhibitor_v1_interface(destroy: destroyRequest))
}
