import CWaylandShim
import TouchRouterCore

// input-timestamps-unstable-v1 (protocols/input-timestamps-unstable-v1.xml), as Weston
// serves it: a zwp_input_timestamps_v1 for a client's wl_keyboard, wl_pointer or wl_touch
// hears, immediately before each key, motion, button, axis, down, up and touch motion sent
// to that one resource, the event's own time in nanoseconds (the core's CLOCK_MONOTONIC
// `RouterTime`, libinput's device time), which wl_* events cut to milliseconds.

package enum InputTimestampsManagerGlobal {
    package static let version: Int32 = 1

    package static let bind: wl_global_bind_func_t = { client, data, version, id in
        GlobalHost.bindPlain(client, data, version, id, tr_zwp_input_timestamps_manager_v1_interface(), InputTimestampsManagerGlobal.table)
    }

    package nonisolated(unsafe) static let table = implementation(zwp_input_timestamps_manager_v1_interface(
        destroy: destroyRequest,
        get_keyboard_timestamps: { client, resource, id, device in create(client, resource, id, for: device) },
        get_pointer_timestamps: { client, resource, id, device in create(client, resource, id, for: device) },
        get_touch_timestamps: { client, resource, id, device in create(client, resource, id, for: device) }))

    /// libwayland has checked the device's interface against the request's; every wl_keyboard,
    /// wl_pointer and wl_touch is a `SeatDevice`.
    private static func create(_ client: OpaquePointer?, _ resource: OpaquePointer?, _ id: UInt32, for deviceResource: OpaquePointer?) {
        let manager = WaylandObject.of(resource, as: PlainGlobal.self)
        let device = WaylandObject.of(deviceResource, as: SeatDevice.self)
        guard device.timestamps.count < ClientLimits.timestampsPerDevice else {
            manager.endClient("\(manager.name).get_\(device.kind)_timestamps", pastLimit: "past \(ClientLimits.timestampsPerDevice) timestamps objects for \(device.name), the most one device may have")
            return
        }
        guard let created = createResource(client, tr_zwp_input_timestamps_v1_interface(), version: wl_resource_get_version(resource), id: id) else { return }
        let timestamps = InputTimestampsObject(resource: created, madeBy: manager, device: device)
        WaylandObject.install(timestamps, implementation: InputTimestampsObject.table)
        device.timestamps.append(timestamps)
    }
}

/// One zwp_input_timestamps_v1. Its device going first leaves it inert until destroyed.
package final class InputTimestampsObject: WaylandObject {
    /// Cleared by the device when its resource is destroyed first (`SeatDevice.resourceDestroyed`).
    package unowned(unsafe) var device: SeatDevice?

    package init(resource: OpaquePointer, madeBy manager: WaylandObject, device: SeatDevice) {
        self.device = device
        super.init(resource: resource, madeBy: manager)
    }

    package override func resourceDestroyed() {
        device?.timestamps.removeAll { $0 === self }
        device = nil
    }

    // Its event is sent by the server's delivery (Handlers/Seat/Delivery.swift,
    // `sendTimestamp`), for every routed event, where it inlines.

    package nonisolated(unsafe) static let table = implementation(zwp_input_timestamps_v1_interface(destroy: destroyRequest))
}
