import CWaylandShim
import TouchRouterCore

// wl_compositor, wl_region and wl_callback; wl_surface is Surface.swift's, what a surface
// holds SurfaceState.swift's, and wl_subcompositor with wl_subsurface Subsurface.swift's.

package enum CompositorGlobal {
    package static let version: Int32 = 5

    package nonisolated(unsafe) static let table = implementation(wl_compositor_interface(
        create_surface: { client, resource, id in
            let compositor = WaylandObject.of(resource, as: RoomGlobal<any SurfaceHandler>.self)
            guard client != nil, let record = compositor.clientRecord else { return }
            guard record.usage.surfaces < ClientLimits.surfaces else {
                compositor.endClient("\(compositor.name).create_surface", pastLimit: "past \(ClientLimits.surfaces) surfaces, the most one client may have")
                return
            }
            guard let created = createResource(client, tr_wl_surface_interface(), version: wl_resource_get_version(resource), id: id) else { return }
            record.usage.surfaces += 1
            compositor.handler.surfaceCreated(SurfaceObject(resource: created, madeBy: compositor, handler: compositor.handler))
        },
        create_region: { client, resource, id in
            let compositor = WaylandObject.of(resource, as: RoomGlobal<any SurfaceHandler>.self)
            guard let created = createResource(client, tr_wl_region_interface(), version: 1, id: id) else { return }
            WaylandObject.install(RegionObject(resource: created, madeBy: compositor), implementation: RegionObject.table)
        }))
}

/// The resource of a bound global, a manager of its room's objects: its requests reach the
/// server through `handler`, the room's handler protocol, never the whole server.
package final class RoomGlobal<Handler>: WaylandObject {
    /// Held strongly (a protocol existential cannot be unowned in a generic): the server
    /// outlives every client's objects, which `WaylandServer.shutdown` destroys first.
    package let handler: Handler

    package init(resource: OpaquePointer, server: any ClientAccounting, handler: Handler) {
        self.handler = handler
        super.init(resource: resource, server: server)
    }
}

/// The resource of a bound global whose requests need nothing of the server.
package final class PlainGlobal: WaylandObject {
}

/// A wl_region: a set of rectangles, as the core's `Region`.
package final class RegionObject: WaylandObject {
    package var region = Region<SurfaceSpace>()

    package nonisolated(unsafe) static let table = implementation(wl_region_interface(
        destroy: destroyRequest,
        add: { _, resource, x, y, width, height in
            guard width > 0, height > 0 else { return }
            let region = WaylandObject.of(resource, as: RegionObject.self)
            region.region.add(Rect(x: Int(x), y: Int(y), width: Int(width), height: Int(height)))
            region.checkSize("add")
        },
        subtract: { _, resource, x, y, width, height in
            guard width > 0, height > 0 else { return }
            let region = WaylandObject.of(resource, as: RegionObject.self)
            region.region.subtract(Rect(x: Int(x), y: Int(y), width: Int(width), height: Int(height)))
            region.checkSize("subtract")
        }))

    /// What this region counts in its client's `ClientLimits.regionRectanglesInAll`.
    private var counted = 0

    /// Each operation compares against every rectangle held, so their number is bounded,
    /// in one region and in all of a client's; in Int, a client's int32 corners and sizes
    /// cannot overflow.
    private func checkSize(_ request: String) {
        guard let record = clientRecord else { return }
        record.usage.regionRectangles += region.rects.count - counted
        counted = region.rects.count
        if region.rects.count > ClientLimits.regionRectangles {
            endClient("\(name).\(request)", pastLimit: "past \(ClientLimits.regionRectangles) rectangles, the most one region may hold")
        } else if record.usage.regionRectangles > ClientLimits.regionRectanglesInAll {
            endClient("\(name).\(request)", pastLimit: "past \(ClientLimits.regionRectanglesInAll) rectangles in all regions, the most one client may have")
        }
    }

    package override func resourceDestroyed() { clientRecord?.usage.regionRectangles -= counted }
}

/// A wl_callback for wl_surface.frame; done at its output's next frame after its commit
/// (the session's tick, for a surface on no output).
package final class FrameCallback: WaylandObject {
    package private(set) var destroyed = false

    package override func resourceDestroyed() {
        clientRecord?.usage.pendingFrameCallbacks -= 1
        destroyed = true
    }
}
