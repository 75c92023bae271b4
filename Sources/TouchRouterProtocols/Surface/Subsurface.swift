import CWaylandShim
import TouchRouterCore

package enum SubcompositorGlobal {
    package static let version: Int32 = 1

    package nonisolated(unsafe) static let table = implementation(wl_subcompositor_interface(
        destroy: destroyRequest,
        get_subsurface: { client, resource, id, surfaceResource, parentResource in
            let global = WaylandObject.of(resource, as: RoomGlobal<any SurfaceHandler>.self)
            let surface = WaylandObject.of(surfaceResource, as: SurfaceObject.self)
            let parent = WaylandObject.of(parentResource, as: SurfaceObject.self)
            let name = "wl_subcompositor@\(wl_resource_get_id(resource)).get_subsurface"
            guard surface.role == .none || (surface.role == .subsurface && surface.subsurface == nil) else {
                global.postError(WL_SUBCOMPOSITOR_ERROR_BAD_SURFACE.rawValue, "\(name): wl_surface@\(wl_resource_get_id(surfaceResource)) already has the role \(surface.role.rawValue)")
                return
            }
            guard surface !== parent, !parent.isDescendant(of: surface) else {
                global.postError(WL_SUBCOMPOSITOR_ERROR_BAD_SURFACE.rawValue, "\(name): wl_surface@\(wl_resource_get_id(parentResource)) cannot be the parent of wl_surface@\(wl_resource_get_id(surfaceResource))")
                return
            }
            guard surface.fitsBelow(parent) else {
                global.endClient(name, pastLimit: "nests wl_surface@\(wl_resource_get_id(surfaceResource)) past \(ClientLimits.nestingDepth) levels, the most surfaces may nest")
                return
            }
            guard let created = createResource(client, tr_wl_subsurface_interface(), version: 1, id: id) else { return }
            let subsurface = SubsurfaceObject(resource: created, madeBy: global, handler: global.handler, surface: surface, parent: parent)
            WaylandObject.install(subsurface, implementation: SubsurfaceObject.table)
            surface.role = .subsurface
            surface.subsurface = subsurface
            parent.above.append(subsurface)
            global.handler.subsurfaceCreated(subsurface)
        }))
}

extension SurfaceObject {
    package func isDescendant(of other: SurfaceObject) -> Bool {
        var next = subsurface?.parent
        while let surface = next {
            if surface === other { return true }
            next = surface.subsurface?.parent
        }
        return false
    }

    /// How many subsurface and popup parents it has, up to the first without one. Every
    /// chain is kept within `ClientLimits.nestingDepth` as it is made (`fitsBelow`), and a
    /// popup's parent had its role before the popup, so the walk is short and ends.
    package var nestingDepth: Int {
        var depth = 0
        var next = parentSurface
        while let surface = next, depth <= ClientLimits.nestingDepth {
            depth += 1
            next = surface.parentSurface
        }
        return depth
    }

    private var parentSurface: SurfaceObject? {
        if let subsurface { return subsurface.parent }
        return xdgSurface?.popup?.parent ?? wlShellSurface?.popupParent
    }

    /// How many levels of subsurfaces hang below it (0 for none): a surface can be given
    /// its subsurfaces before it is given a parent.
    package var subsurfaceHeight: Int {
        var height = 0
        var level = below + above
        while !level.isEmpty, height <= ClientLimits.nestingDepth {
            height += 1
            level = level.flatMap { child in child.surface.map { $0.below + $0.above } ?? [] }
        }
        return height
    }

    /// Whether it and the subsurfaces below it can hang below `parent` within the limit.
    package func fitsBelow(_ parent: SurfaceObject) -> Bool {
        parent.nestingDepth + 1 + subsurfaceHeight <= ClientLimits.nestingDepth
    }
}

package final class SubsurfaceObject: WaylandObject {
    private unowned let handler: any SurfaceHandler
    package weak var surface: SurfaceObject?
    package weak var parent: SurfaceObject?
    /// Applied on the parent's commit, as wl_subsurface.set_position says.
    package var position = Offset.zero
    package var synchronized = true

    package init(resource: OpaquePointer, madeBy subcompositor: WaylandObject, handler: any SurfaceHandler, surface: SurfaceObject, parent: SurfaceObject) {
        self.handler = handler
        self.surface = surface
        self.parent = parent
        super.init(resource: resource, madeBy: subcompositor)
    }

    /// Synchronized itself or through any ancestor subsurface.
    package var isEffectivelySynchronized: Bool {
        if synchronized { return true }
        return parent?.subsurface?.isEffectivelySynchronized ?? false
    }

    package override func resourceDestroyed() { handler.subsurfaceDestroyed(self) }

    /// Takes this subsurface out of its parent's lists and its surface's role.
    package func detach() {
        parent?.below.removeAll { $0 === self }
        parent?.above.removeAll { $0 === self }
        if surface?.subsurface === self { surface?.subsurface = nil }
    }

    package nonisolated(unsafe) static let table = implementation(wl_subsurface_interface(
        destroy: destroyRequest,
        set_position: { _, resource, x, y in
            let subsurface = WaylandObject.of(resource, as: SubsurfaceObject.self)
            subsurface.parent?.pending.setPosition(Offset(dx: Int(x), dy: Int(y)), of: subsurface)
        },
        place_above: { _, resource, sibling in
            WaylandObject.of(resource, as: SubsurfaceObject.self).restack(sibling, above: true)
        },
        place_below: { _, resource, sibling in
            WaylandObject.of(resource, as: SubsurfaceObject.self).restack(sibling, above: false)
        },
        set_sync: { _, resource in
            WaylandObject.of(resource, as: SubsurfaceObject.self).synchronized = true
        },
        set_desync: { _, resource in
            let subsurface = WaylandObject.of(resource, as: SubsurfaceObject.self)
            subsurface.synchronized = false
            // Leaving synchronized mode applies what was cached, as if committed now.
            if !subsurface.isEffectivelySynchronized, let surface = subsurface.surface, let cached = surface.cached {
                surface.cached = nil
                surface.apply(cached)
            }
        }))

    /// place_above / place_below: relative to a sibling or the parent itself. Applied
    /// at once here (the core restacks on the parent's next commit).
    package func restack(_ siblingResource: OpaquePointer?, above: Bool) {
        guard let parent, let siblingResource else { return }
        let sibling = WaylandObject.of(siblingResource, as: SurfaceObject.self)
        let name = "wl_subsurface@\(wl_resource_get_id(resource)).\(above ? "place_above" : "place_below")"
        guard sibling === parent || (sibling.subsurface?.parent === parent && sibling !== surface) else {
            postError(WL_SUBSURFACE_ERROR_BAD_SURFACE.rawValue, "\(name): wl_surface@\(wl_resource_get_id(siblingResource)) is neither the parent nor a sibling")
            return
        }
        parent.below.removeAll { $0 === self }
        parent.above.removeAll { $0 === self }
        if sibling === parent {
            if above { parent.above.insert(self, at: 0) } else { parent.below.append(self) }
        } else if let siblingSub = sibling.subsurface {
            if let i = parent.above.firstIndex(where: { $0 === siblingSub }) {
                parent.above.insert(self, at: above ? i + 1 : i)
            } else if let i = parent.below.firstIndex(where: { $0 === siblingSub }) {
                parent.below.insert(self, at: above ? i + 1 : i)
            }
        }
        parent.pendingRestack = true
    }
}
