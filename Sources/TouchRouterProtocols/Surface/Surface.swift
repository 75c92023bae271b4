import CWaylandShim
import TouchRouterCore

/// What the surface family's objects may ask of the server (Handlers/SurfaceHandling.swift):
/// the server keeps the core's tree, the frames and the presentation clock.
package protocol SurfaceHandler: AnyObject {
    /// wl_compositor.create_surface: the surface is given its id in the core and installed.
    func surfaceCreated(_ surface: SurfaceObject)
    /// wl_subcompositor.get_subsurface: the surface joins its parent in the tree, if the parent is in it.
    func subsurfaceCreated(_ subsurface: SubsurfaceObject)
    /// The wl_surface went: it leaves the tree and its client's accounting.
    func surfaceDestroyed(_ surface: SurfaceObject)
    /// A commit made `state` current on `surface` (its pixels copied, its input policy
    /// merged): the server maps it, follows it in the tree, queues its frame callbacks,
    /// stamps its presentation feedbacks and checks its pointer constraints.
    func surfaceStateApplied(_ surface: SurfaceObject, _ state: SurfaceState)
    /// The wl_subsurface went: its surface leaves the tree with its cached state.
    func subsurfaceDestroyed(_ subsurface: SubsurfaceObject)
    /// The surface's wp_viewport, if it has one: a viewport's errors are posted on it.
    func viewport(of surface: SurfaceObject) -> ViewportObject?
}

package final class SurfaceObject: WaylandObject {
    /// Also reached by the extensions other rooms give the surface (Viewporter.swift).
    package unowned let handler: any SurfaceHandler
    package private(set) var id = SurfaceID(0)
    package var pending = SurfaceState()
    package var current = SurfaceState()
    /// What a synchronized subsurface committed, waiting for its parent's commit.
    package var cached: SurfaceState? = nil
    /// Counted against the client's `ClientLimits.contentBytes` while it is kept; replaced
    /// only through `replaceContents`, and its pixels written in place.
    package private(set) var contents: SurfaceContents? = nil

    package func replaceContents(with new: SurfaceContents?) {
        let change = (new?.byteCount ?? 0) - (contents?.byteCount ?? 0)
        if change != 0 { clientRecord?.usage.contentBytes += change }
        contents = new
    }
    package var role = SurfaceRoleKind.none
    package weak var xdgSurface: XdgSurfaceObject?
    package weak var layerSurface: LayerSurfaceObject?
    package weak var lockSurface: LockSurfaceObject?
    package weak var wlShellSurface: WlShellSurfaceObject?
    package weak var subsurface: SubsurfaceObject?
    /// The X11 window Xwayland shows with it, once its window manager paired them (XWayland/).
    package weak var x11: X11Surface?
    /// Its touch_router_surface_input_v1, if the client made one.
    package weak var touchInput: TouchInputSurfaceObject?
    /// Subsurfaces, bottom first, split at the parent itself.
    package var below: [SubsurfaceObject] = []
    package var above: [SubsurfaceObject] = []
    /// The surface is in the core's tree (its role's parent is).
    package var inTree = false
    /// Where a toplevel goes when it maps, in global coordinates, if something asked.
    package var requestedPosition: Offset? = nil
    /// A subsurface was restacked; the core follows on this surface's next commit.
    package var pendingRestack = false

    package init(resource: OpaquePointer, madeBy compositor: WaylandObject, handler: any SurfaceHandler) {
        self.handler = handler
        super.init(resource: resource, madeBy: compositor)
    }

    package func assignID(_ id: SurfaceID) { self.id = id }

    /// Surface-local size: the viewport's where it sets one, else the buffer's, divided by
    /// the scale, turned by the transform.
    package var size: Size {
        guard current.bufferSize != nil else { return Size(width: 0, height: 0) }
        return current.viewport.surfaceSize ?? unscaledSize
    }

    package var hasBuffer: Bool { current.bufferSize != nil }

    /// What `[app."…"]` policies match: an xdg toplevel's app id, or an X11 window's `x11:CLASS`.
    package var appID: String { xdgSurface?.toplevel?.appID ?? x11?.appID ?? "" }

    package override func resourceDestroyed() { handler.surfaceDestroyed(self) }

    package nonisolated(unsafe) static let table = implementation(wl_surface_interface(
        destroy: destroyRequest,
        attach: { _, resource, buffer, x, y in
            let surface = WaylandObject.of(resource, as: SurfaceObject.self)
            surface.pending.bufferAttached = true
            if surface.version >= 5, x != 0 || y != 0 {
                surface.postError(WL_SURFACE_ERROR_INVALID_OFFSET.rawValue, "wl_surface@\(wl_resource_get_id(resource)).attach: x and y must be 0 from version 5; use wl_surface.offset")
                return
            }
            surface.pending.offset = surface.pending.offset.adding(x, y)
            guard let buffer else {
                surface.pending.bufferSize = nil
                surface.pending.buffer = nil
                return
            }
            let bufferSize: Size
            if let shm = ShmBuffer.behind(buffer) {
                bufferSize = shm.size
            } else if SinglePixelBuffer.behind(buffer) != nil {
                bufferSize = Size(width: 1, height: 1)
            } else {
                surface.postError(WL_SURFACE_ERROR_INVALID_SIZE.rawValue, "wl_surface@\(wl_resource_get_id(resource)).attach: only wl_shm and single-pixel buffers are supported")
                return
            }
            // xdg-shell: no buffer before the compositor's first configure. A toplevel is
            // configured as its role is made, so this catches a role-less xdg_surface and a
            // popup attached before its initial commit (docs/session.md, "Globals, and how windows are treated").
            if let xdg = surface.xdgSurface, !xdg.sentFirstConfigure {
                xdg.postError(xdg.flavor.unconfiguredBufferError, "\(xdg.name): wl_surface@\(wl_resource_get_id(resource)).attach before the first configure")
                return
            }
            surface.pending.bufferSize = bufferSize
            surface.pending.buffer = BufferReference(buffer)
        },
        damage: { _, resource, x, y, width, height in
            guard width > 0, height > 0 else { return }
            WaylandObject.of(resource, as: SurfaceObject.self).pending.damage.add(Rect(x: Int(x), y: Int(y), width: Int(width), height: Int(height)))
        },
        frame: { client, resource, id in
            let surface = WaylandObject.of(resource, as: SurfaceObject.self)
            guard let record = surface.clientRecord else { return }
            guard record.usage.pendingFrameCallbacks < ClientLimits.pendingFrameCallbacks else {
                surface.endClient("\(surface.name).frame", pastLimit: "past \(ClientLimits.pendingFrameCallbacks) waiting frame callbacks, the most one client may have")
                return
            }
            guard let created = createResource(client, tr_wl_callback_interface(), version: 1, id: id) else { return }
            record.usage.pendingFrameCallbacks += 1
            let callback = FrameCallback(resource: created, madeBy: surface)
            WaylandObject.install(callback, implementation: nil)
            surface.pending.frameCallbacks.append(callback)
        },
        set_opaque_region: { _, _, _ in },
        set_input_region: { _, resource, region in
            let surface = WaylandObject.of(resource, as: SurfaceObject.self)
            surface.pending.inputRegionSet = true
            surface.pending.inputRegion = region.map { WaylandObject.of($0, as: RegionObject.self).region }
            surface.countRegionRectangles("set_input_region")
        },
        commit: { _, resource in
            WaylandObject.of(resource, as: SurfaceObject.self).commit()
        },
        set_buffer_transform: { _, resource, transform in
            let surface = WaylandObject.of(resource, as: SurfaceObject.self)
            guard (0...7).contains(transform) else {
                surface.postError(WL_SURFACE_ERROR_INVALID_TRANSFORM.rawValue, "wl_surface@\(wl_resource_get_id(resource)).set_buffer_transform: \(transform) is not a wl_output.transform")
                return
            }
            surface.pending.transform = transform
        },
        set_buffer_scale: { _, resource, scale in
            let surface = WaylandObject.of(resource, as: SurfaceObject.self)
            guard scale >= 1 else {
                surface.postError(WL_SURFACE_ERROR_INVALID_SCALE.rawValue, "wl_surface@\(wl_resource_get_id(resource)).set_buffer_scale: \(scale) is not positive")
                return
            }
            surface.pending.scale = scale
        },
        damage_buffer: { _, resource, x, y, width, height in
            guard width > 0, height > 0 else { return }
            WaylandObject.of(resource, as: SurfaceObject.self).pending.bufferDamage.add(Rect(x: Int(x), y: Int(y), width: Int(width), height: Int(height)))
        },
        offset: { _, resource, x, y in
            let surface = WaylandObject.of(resource, as: SurfaceObject.self)
            surface.pending.offset = surface.pending.offset.adding(x, y)
        }))

    /// wl_surface.commit: a synchronized subsurface caches its state for its parent's
    /// commit; any other surface applies it, then its children's cached state.
    package func commit() {
        var state = pending
        pending = SurfaceState(scale: pending.scale, transform: pending.transform)
        if let subsurface, subsurface.isEffectivelySynchronized {
            if cached == nil { cached = state } else { cached!.merge(state) }
            state = SurfaceState()
            return
        }
        if let earlier = cached {
            var merged = earlier
            merged.merge(state)
            state = merged
            cached = nil
        }
        apply(state)
        countRegionRectangles("commit")
    }

    /// What this surface counts in its client's `ClientLimits.regionRectanglesInAll`: the
    /// input regions it holds (pending, cached and current), each a copy of a wl_region's.
    private var countedRegionRectangles = 0

    package func countRegionRectangles(_ request: String?) {
        let held = request == nil ? 0 : [pending.inputRegion, cached?.inputRegion, current.inputRegion].reduce(0) { $0 + ($1?.rects.count ?? 0) }
        guard held != countedRegionRectangles, let record = clientRecord else { return }
        record.usage.regionRectangles += held - countedRegionRectangles
        countedRegionRectangles = held
        if let request, record.usage.regionRectangles > ClientLimits.regionRectanglesInAll {
            endClient("\(name).\(request)", pastLimit: "past \(ClientLimits.regionRectanglesInAll) rectangles in all regions, the most one client may have")
        }
    }

    /// Makes `state` current and tells the session, then applies what synchronized
    /// children cached, so a parent's commit shows one consistent tree.
    package func apply(_ state: SurfaceState) {
        if state.bufferAttached {
            current.bufferSize = state.bufferSize
            current.buffer?.release()
            current.buffer = state.buffer
            if state.buffer == nil { replaceContents(with: nil) }
        }
        if state.inputRegionSet { current.inputRegion = state.inputRegion }
        current.scale = state.scale
        current.transform = state.transform
        current.offset = state.offset
        current.viewport.merge(state.viewport)
        guard viewportAllowsCommit() else { return }
        for (child, position) in state.subsurfacePositions where child.surface != nil { child.position = position }
        copyDamagedPixels(state)
        current.buffer?.release()
        current.inputPolicy.merge(state.inputPolicy)
        handler.surfaceStateApplied(self, state)
        for child in below + above {
            guard let surface = child.surface, let cached = surface.cached, child.isEffectivelySynchronized else { continue }
            surface.cached = nil
            surface.apply(cached)
        }
    }

    /// Brings `contents` up to date with the current buffer where `state` damaged it (all
    /// of it for a new buffer size, or where a transform would need turning the damage).
    private func copyDamagedPixels(_ state: SurfaceState) {
        guard let resource = current.buffer?.resource else { return }
        if let single = SinglePixelBuffer.behind(resource) {
            guard contents?.pixels != [single.pixel] || contents?.opaque != single.opaque else { return }
            replaceContents(with: SurfaceContents(width: 1, height: 1, pixels: [single.pixel], opaque: single.opaque))
            noteUnpainted([Rect(x: 0, y: 0, width: 1, height: 1)])
            return
        }
        guard let buffer = ShmBuffer.behind(resource) else { return }
        let size = buffer.size
        let whole = Rect<BufferSpace>(x: 0, y: 0, width: size.width, height: size.height)
        var rects = state.bufferDamage.rects
        if contents?.width != size.width || contents?.height != size.height || current.transform != 0 {
            replaceContents(with: nil)
            guard let record = clientRecord else { return }
            let bytes = size.width * size.height * 4
            guard record.usage.contentBytes + bytes <= ClientLimits.contentBytes else {
                endClient("\(name).commit", pastLimit: "\(size.width)x\(size.height) takes the client past \(ClientLimits.contentBytes >> 20) MiB of shown pixels, its limit")
                return
            }
            replaceContents(with: SurfaceContents(width: size.width, height: size.height, pixels: Array(repeating: 0, count: size.width * size.height)))
            rects = [whole]
        } else {
            let scale = Int(current.scale)
            // Clamped before scaling: clients damage (0, 0, INT32_MAX, INT32_MAX) to mean everything.
            rects += state.damage.rects.map { damage in
                let clipped = damage.intersection(Rect(x: 0, y: 0, width: size.width, height: size.height)) ?? Rect(x: 0, y: 0, width: 0, height: 0)
                return Rect(x: clipped.x * scale, y: clipped.y * scale, width: clipped.width * scale, height: clipped.height * scale)
            }
        }
        contents!.opaque = buffer.format == WL_SHM_FORMAT_XRGB8888.rawValue
        noteUnpainted(rects)
        contents!.pixels.withUnsafeMutableBufferPointer { pixels in
            for rect in rects {
                guard let area = rect.intersection(whole), area.width > 0, area.height > 0 else { continue }
                guard buffer.copy(area, into: pixels) else { return }
            }
        }
    }

    /// Where `contents` changed since its output was last composed (OutputComposition.swift);
    /// past `maximumUnpaintedRects` rectangles, their bounding box.
    package var unpaintedDamage: [PixelRect] = []
    package static let maximumUnpaintedRects = 16

    private func noteUnpainted(_ rects: [Rect<BufferSpace>]) {
        unpaintedDamage += rects.map { PixelRect(x: $0.x, y: $0.y, width: $0.width, height: $0.height) }
        guard unpaintedDamage.count > Self.maximumUnpaintedRects else { return }
        let left = unpaintedDamage.map(\.x).min()!, top = unpaintedDamage.map(\.y).min()!
        let right = unpaintedDamage.map { $0.x + $0.width }.max()!, bottom = unpaintedDamage.map { $0.y + $0.height }.max()!
        unpaintedDamage = [PixelRect(x: left, y: top, width: right - left, height: bottom - top)]
    }

    /// The input region clipped by the core to the surface's size; nil means all of it.
    package var inputRegionForTree: Region<SurfaceSpace>? { current.inputRegion }
}
