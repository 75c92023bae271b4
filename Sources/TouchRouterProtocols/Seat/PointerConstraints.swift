import CWaylandShim
import TouchRouterCore

// pointer-constraints-unstable-v1 (protocols/pointer-constraints-unstable-v1.xml): a client
// locks the pointer in place (zwp_locked_pointer_v1) or confines it to a region
// (zwp_confined_pointer_v1) of one of its surfaces. A constraint is active while its surface
// has the pointer's focus, and becomes so only with the pointer inside its region; it is
// then the core's `PointerConstraint`, which the router applies to motion. A oneshot
// constraint that goes inactive is done; a persistent one waits for the focus again. One
// constraint a surface (the seat has one pointer): a second is the already_constrained
// error. The region and the cursor position hint are double-buffered: they apply with the
// surface's next commit.

package enum PointerConstraintsGlobal {
    package static let version: Int32 = 1

    package static let bind: wl_global_bind_func_t = { client, data, version, id in
        GlobalHost.bind(client, data, version, id, tr_zwp_pointer_constraints_v1_interface(), PointerConstraintsGlobal.table) { $0 as any SeatHandler }
    }

    package nonisolated(unsafe) static let table = implementation(zwp_pointer_constraints_v1_interface(
        destroy: destroyRequest,
        lock_pointer: { client, resource, id, surface, pointer, region, lifetime in
            create(.locked, client, resource, id, surface, pointer, region, lifetime)
        },
        confine_pointer: { client, resource, id, surface, pointer, region, lifetime in
            create(.confined, client, resource, id, surface, pointer, region, lifetime)
        }))

    private static func create(_ kind: PointerConstraintObject.Kind, _ client: OpaquePointer?, _ resource: OpaquePointer?, _ id: UInt32,
                               _ surfaceResource: OpaquePointer?, _ pointerResource: OpaquePointer?, _ regionResource: OpaquePointer?, _ lifetime: UInt32) {
        let manager = WaylandObject.of(resource, as: RoomGlobal<any SeatHandler>.self)
        let handler = manager.handler
        let request = "\(manager.name).\(kind == .locked ? "lock_pointer" : "confine_pointer")"
        // libwayland has checked the arguments' interfaces: a wl_surface, a wl_pointer, a wl_region or null.
        let surface = WaylandObject.of(surfaceResource, as: SurfaceObject.self)
        let pointer = WaylandObject.of(pointerResource, as: SeatDevice.self)
        guard lifetime == ZWP_POINTER_CONSTRAINTS_V1_LIFETIME_ONESHOT.rawValue || lifetime == ZWP_POINTER_CONSTRAINTS_V1_LIFETIME_PERSISTENT.rawValue else {
            // Version 1 names no error for it: a malformed request, wl_display's invalid_method.
            guard let display = wl_client_get_object(client, 1) else { return }
            tr_resource_post_error(display, WL_DISPLAY_ERROR_INVALID_METHOD.rawValue, "\(request): \(lifetime) is not a lifetime (1 oneshot, 2 persistent)")
            return
        }
        guard !handler.seatState.pointerConstraints.contains(where: { $0.surface === surface }) else {
            manager.postError(ZWP_POINTER_CONSTRAINTS_V1_ERROR_ALREADY_CONSTRAINED.rawValue, "\(request): \(surface.name) already has a pointer constraint")
            return
        }
        let interface: UnsafePointer<wl_interface> = kind == .locked ? tr_zwp_locked_pointer_v1_interface() : tr_zwp_confined_pointer_v1_interface()
        guard let created = createResource(client, interface, version: wl_resource_get_version(resource), id: id) else { return }
        let constraint = PointerConstraintObject(resource: created, madeBy: manager, handler: handler, kind: kind, surface: surface, pointer: pointer,
                                                 persistent: lifetime == ZWP_POINTER_CONSTRAINTS_V1_LIFETIME_PERSISTENT.rawValue)
        WaylandObject.install(constraint, implementation: kind == .locked ? PointerConstraintObject.lockedTable : PointerConstraintObject.confinedTable)
        // The initial region is current at once, as wlroots has it.
        constraint.region = regionResource.map { WaylandObject.of($0, as: RegionObject.self).region }
        constraint.countRegionRectangles(request)
        handler.seatState.pointerConstraints.append(constraint)
        handler.updatePointerConstraint()
    }
}

/// One zwp_locked_pointer_v1 or zwp_confined_pointer_v1.
package final class PointerConstraintObject: WaylandObject {
    private unowned let handler: any SeatHandler
    package enum Kind { case locked, confined }
    package let kind: Kind
    package weak var surface: SurfaceObject?
    /// The wl_pointer it was asked for; the seat's one pointer is what it holds.
    package weak var pointer: SeatDevice?
    package let persistent: Bool
    /// A oneshot constraint that was active and is no longer: it never holds the pointer again.
    package var defunct = false
    package var active = false
    /// Current: in the surface's space; nil, the whole surface.
    package var region: Region<SurfaceSpace>?
    package var cursorHint: Point<SurfaceSpace>?
    /// Set by set_region and set_cursor_position_hint, current from the surface's next commit.
    package var pendingRegion: Region<SurfaceSpace>??
    package var pendingHint: Point<SurfaceSpace>?

    package init(resource: OpaquePointer, madeBy manager: WaylandObject, handler: any SeatHandler, kind: Kind, surface: SurfaceObject, pointer: SeatDevice, persistent: Bool) {
        self.handler = handler
        self.kind = kind
        self.surface = surface
        self.pointer = pointer
        self.persistent = persistent
        super.init(resource: resource, madeBy: manager)
    }

    package override func resourceDestroyed() {
        countRegionRectangles(nil)
        handler.pointerConstraintDestroyed(self)
    }

    /// The rectangles this constraint's regions (pending and current) count in its client's
    /// `ClientLimits.regionRectanglesInAll`, as a surface's input regions do.
    private var counted = 0

    package func countRegionRectangles(_ request: String?) {
        let held = request == nil ? 0 : (region?.rects.count ?? 0) + (pendingRegion??.rects.count ?? 0)
        guard held != counted, let total = handler.countRegionRectangles(of: client, adding: held - counted) else { return }
        counted = held
        if let request, total > ClientLimits.regionRectanglesInAll {
            endClient(request, pastLimit: "past \(ClientLimits.regionRectanglesInAll) rectangles in all regions, the most one client may have")
        }
    }

    /// The surface's commit makes the pending region and hint current.
    package func surfaceCommitted() {
        guard pendingRegion != nil || pendingHint != nil else { return }
        if let pending = pendingRegion { region = pending }
        if let hint = pendingHint { cursorHint = hint }
        pendingRegion = nil
        pendingHint = nil
        countRegionRectangles("wl_surface.commit")
        if active { handler.activePointerConstraintChanged(self) }
    }

    /// Where the pointer may be: the region within the surface's input region (the whole
    /// surface where the client set none), in the surface's space.
    package var effectiveRegion: Region<SurfaceSpace> {
        guard let surface else { return Region() }
        let size = surface.size
        var input = surface.current.inputRegion ?? Region(Rect(x: 0, y: 0, width: size.width, height: size.height))
        input = input.intersection(Rect(x: 0, y: 0, width: size.width, height: size.height))
        guard let region else { return input }
        var result = Region<SurfaceSpace>()
        for rect in region.rects {
            for part in input.intersection(rect).rects { result.add(part) }
        }
        return result
    }

    package var coreConstraint: PointerConstraint? {
        guard let surface else { return nil }
        switch kind {
        case .locked: return PointerConstraint(surface: surface.id, kind: .locked)
        case .confined: return PointerConstraint(surface: surface.id, kind: .confined(effectiveRegion))
        }
    }

    package func activate() {
        active = true
        switch kind {
        case .locked: zwp_locked_pointer_v1_send_locked(resource)
        case .confined: zwp_confined_pointer_v1_send_confined(resource)
        }
    }

    package func deactivate() {
        active = false
        if !persistent { defunct = true }
        switch kind {
        case .locked: zwp_locked_pointer_v1_send_unlocked(resource)
        case .confined: zwp_confined_pointer_v1_send_unconfined(resource)
        }
    }

    private static let setRegion: @convention(c) (OpaquePointer?, OpaquePointer?, OpaquePointer?) -> Void = { _, resource, regionResource in
        let constraint = WaylandObject.of(resource, as: PointerConstraintObject.self)
        constraint.pendingRegion = .some(regionResource.map { WaylandObject.of($0, as: RegionObject.self).region })
        constraint.countRegionRectangles("\(constraint.name).set_region")
    }

    package nonisolated(unsafe) static let lockedTable = implementation(zwp_locked_pointer_v1_interface(
        destroy: destroyRequest,
        set_cursor_position_hint: { _, resource, x, y in
            let constraint = WaylandObject.of(resource, as: PointerConstraintObject.self)
            constraint.pendingHint = Point(wl_fixed_to_double(x), wl_fixed_to_double(y))
        },
        set_region: setRegion))

    package nonisolated(unsafe) static let confinedTable = implementation(zwp_confined_pointer_v1_interface(
        destroy: destroyRequest,
        set_region: setRegion))
}
