import CWaylandShim
import TouchRouterCore

// relative-pointer-unstable-v1 (protocols/relative-pointer-unstable-v1.xml): a
// zwp_relative_pointer_v1 for a client's wl_pointer hears each relative motion of the
// seat's pointer while the client has the pointer's focus, ahead of the wl_pointer.motion
// it causes (none while the pointer is locked) and in the same wl_pointer.frame. The delta
// is the device's, before the pointer is kept on the outputs or in a confinement; the core's
// events carry the accelerated delta only, which goes out as the unaccelerated one too.

package enum RelativePointerManagerGlobal {
    package static let version: Int32 = 1

    package static let bind: wl_global_bind_func_t = { client, data, version, id in
        GlobalHost.bind(client, data, version, id, tr_zwp_relative_pointer_manager_v1_interface(), RelativePointerManagerGlobal.table) { $0 as any SeatHandler }
    }

    package nonisolated(unsafe) static let table = implementation(zwp_relative_pointer_manager_v1_interface(
        destroy: destroyRequest,
        get_relative_pointer: { client, resource, id, pointerResource in
            let manager = WaylandObject.of(resource, as: RoomGlobal<any SeatHandler>.self)
            // libwayland has checked that the argument is a wl_pointer: a `SeatDevice`.
            let pointer = WaylandObject.of(pointerResource, as: SeatDevice.self)
            guard client != nil, let record = manager.clientRecord else { return }
            guard record.relativePointers.count < ClientLimits.relativePointers else {
                manager.endClient("\(manager.name).get_relative_pointer", pastLimit: "past \(ClientLimits.relativePointers) relative pointers, the most one client may have")
                return
            }
            guard let created = createResource(client, tr_zwp_relative_pointer_v1_interface(), version: wl_resource_get_version(resource), id: id) else { return }
            let relative = RelativePointerObject(resource: created, madeBy: manager, handler: manager.handler, pointer: pointer)
            WaylandObject.install(relative, implementation: RelativePointerObject.table)
            record.relativePointers.append(relative)
        }))
}

/// One zwp_relative_pointer_v1. Its wl_pointer going first leaves it silent until destroyed.
package final class RelativePointerObject: WaylandObject {
    private unowned let handler: any SeatHandler
    package weak var pointer: SeatDevice?

    package init(resource: OpaquePointer, madeBy manager: WaylandObject, handler: any SeatHandler, pointer: SeatDevice) {
        self.handler = handler
        self.pointer = pointer
        super.init(resource: resource, madeBy: manager)
    }

    package override func resourceDestroyed() {
        handler.relativePointerDestroyed(self)
    }

    package nonisolated(unsafe) static let table = implementation(zwp_relative_pointer_v1_interface(destroy: destroyRequest))
}
