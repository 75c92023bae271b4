import CWaylandShim

// single-pixel-buffer-v1 (protocols/single-pixel-buffer-v1.xml): a 1x1 wl_buffer of one
// colour, which a client scales with a viewport to fill an area (a video's black bars, a
// background) without drawing or sending any pixels.

package enum SinglePixelBufferState {
    package static let globals = [ProtocolGlobal(interface: tr_wp_single_pixel_buffer_manager_v1_interface, version: SinglePixelBufferManager.version, bind: SinglePixelBufferManager.bind)]
}

package enum SinglePixelBufferManager {
    package static let version: Int32 = 1

    package static let bind: wl_global_bind_func_t = { client, data, version, id in
        GlobalHost.bindPlain(client, data, version, id, tr_wp_single_pixel_buffer_manager_v1_interface(), table)
    }

    package nonisolated(unsafe) static let table = implementation(wp_single_pixel_buffer_manager_v1_interface(
        destroy: destroyRequest,
        create_u32_rgba_buffer: { client, resource, id, red, green, blue, alpha in
            let manager = WaylandObject.of(resource, as: PlainGlobal.self)
            guard let created = createResource(client, tr_wl_buffer_interface(), version: 1, id: id) else { return }
            WaylandObject.install(SinglePixelBuffer(resource: created, madeBy: manager, red: red, green: green, blue: blue, alpha: alpha),
                                  implementation: SinglePixelBuffer.table)
        }))
}

/// A wl_buffer of one premultiplied pixel, each channel a fraction of UInt32.max.
package final class SinglePixelBuffer: WaylandObject {
    /// The pixel as premultiplied ARGB8888, each channel's top eight bits.
    package let pixel: UInt32
    package let opaque: Bool

    package init(resource: OpaquePointer, madeBy manager: WaylandObject, red: UInt32, green: UInt32, blue: UInt32, alpha: UInt32) {
        pixel = (alpha >> 24) << 24 | (red >> 24) << 16 | (green >> 24) << 8 | blue >> 24
        opaque = alpha == UInt32.max
        super.init(resource: resource, madeBy: manager)
    }

    package static func behind(_ resource: OpaquePointer) -> SinglePixelBuffer? {
        guard wl_resource_instance_of(resource, tr_wl_buffer_interface(), table) != 0 else { return nil }
        return WaylandObject.of(resource, as: SinglePixelBuffer.self)
    }

    package nonisolated(unsafe) static let table = implementation(wl_buffer_interface(destroy: destroyRequest))
}
