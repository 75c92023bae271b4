import CWaylandShim
import TouchRouterCore

// wl_compositor, wl_surface, wl_region, wl_callback, wl_subcompositor, wl_subsurface.

enum CompositorGlobal {
    static let version: Int32 = 5

    nonisolated(unsafe) static let table = implementation(wl_compositor_interface(
        create_surface: { client, resource, id in
            let compositor = WaylandObject.of(resource, as: BoundGlobal.self)
            let session = compositor.session
            guard let record = client.flatMap(session.existingRecord(for:)) else { return }
            guard record.usage.surfaces < ClientLimits.surfaces else {
                compositor.endClient("\(compositor.name).create_surface", pastLimit: "past \(ClientLimits.surfaces) surfaces, the most one client may have")
                return
            }
            guard let created = createResource(client, tr_wl_surface_interface(), version: wl_resource_get_version(resource), id: id) else { return }
            record.usage.surfaces += 1
            session.surfaceCreated(SurfaceObject(resource: created, session: session))
        },
        create_region: { client, resource, id in
            let session = WaylandObject.of(resource, as: BoundGlobal.self).session
            guard let created = createResource(client, tr_wl_region_interface(), version: 1, id: id) else { return }
            WaylandObject.install(RegionObject(resource: created, session: session), implementation: RegionObject.table)
        }))
}

/// The resource of a bound global whose requests need only the session.
final class BoundGlobal: WaylandObject {}

/// A wl_region: a set of rectangles, as the core's `Region`.
final class RegionObject: WaylandObject {
    var region = Region<SurfaceSpace>()

    nonisolated(unsafe) static let table = implementation(wl_region_interface(
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
        guard let record = session.existingRecord(for: client) else { return }
        record.usage.regionRectangles += region.rects.count - counted
        counted = region.rects.count
        if region.rects.count > ClientLimits.regionRectangles {
            endClient("\(name).\(request)", pastLimit: "past \(ClientLimits.regionRectangles) rectangles, the most one region may hold")
        } else if record.usage.regionRectangles > ClientLimits.regionRectanglesInAll {
            endClient("\(name).\(request)", pastLimit: "past \(ClientLimits.regionRectanglesInAll) rectangles in all regions, the most one client may have")
        }
    }

    override func resourceDestroyed() { session.existingRecord(for: client)?.usage.regionRectangles -= counted }
}

/// A wl_callback for wl_surface.frame; done at the next frame tick after its commit.
final class FrameCallback: WaylandObject {
    private(set) var destroyed = false

    override func resourceDestroyed() {
        session.existingRecord(for: client)?.usage.pendingFrameCallbacks -= 1
        destroyed = true
    }
}

/// Buffer pixels: what wl_surface.damage_buffer and the shm contents are measured in.
enum BufferSpace: CoordinateSpace {}

/// What a surface shows: a copy of its buffer's pixels, taken at commit where damaged, as
/// a renderer uploads them, so that the buffer can be released at once. ARGB, rows top first.
struct SurfaceContents {
    var width: Int
    var height: Int
    var pixels: [UInt32]
    /// The buffer was XRGB: its top bytes mean nothing, and it hides what is below it.
    var opaque = false

    var byteCount: Int { width * height * 4 }

    /// The pixel at a point of the buffer, nil outside it.
    func pixel(atBuffer x: Int, _ y: Int) -> UInt32? {
        guard x >= 0, y >= 0, x < width, y < height else { return nil }
        return pixels[y * width + x]
    }
}

/// The double-buffered part of a wl_surface.
struct SurfaceState {
    var bufferAttached = false
    /// The attached buffer's size in buffer pixels; nil for a null attach.
    var bufferSize: Size? = nil
    var buffer: BufferReference? = nil
    var inputRegionSet = false
    /// nil: the whole surface.
    var inputRegion: Region<SurfaceSpace>? = nil
    var scale: Int32 = 1
    var transform: Int32 = 0
    var offset = Offset.zero
    var damage = Damage<SurfaceSpace>()
    var bufferDamage = Damage<BufferSpace>()
    var frameCallbacks: [FrameCallback] = []
    /// The last position each subsurface asked for, once each.
    var subsurfacePositions: [(SubsurfaceObject, Offset)] = []
    /// touch-router-input-v1's policies (TouchInputExtension.swift).
    var inputPolicy = InputPolicyChange()
    /// viewporter's source and destination (Protocols/Viewporter/).
    var viewport = ViewportState()
    /// presentation-time's feedbacks for this commit (Protocols/Presentation/).
    var presentationFeedbacks: [PresentationFeedbackObject] = []

    mutating func setPosition(_ position: Offset, of subsurface: SubsurfaceObject) {
        if let i = subsurfacePositions.firstIndex(where: { $0.0 === subsurface }) {
            subsurfacePositions[i].1 = position
        } else {
            subsurfacePositions.append((subsurface, position))
        }
    }

    /// Folds a later commit's state over this one, as a synchronized subsurface caches it.
    mutating func merge(_ later: SurfaceState) {
        if later.bufferAttached {
            bufferAttached = true
            bufferSize = later.bufferSize
            buffer = later.buffer
        }
        if later.inputRegionSet {
            inputRegionSet = true
            inputRegion = later.inputRegion
        }
        scale = later.scale
        transform = later.transform
        offset = offset.adding(later.offset)
        damage.add(later.damage)
        bufferDamage.add(later.bufferDamage)
        frameCallbacks += later.frameCallbacks
        for (subsurface, position) in later.subsurfacePositions { setPosition(position, of: subsurface) }
        inputPolicy.merge(later.inputPolicy)
        viewport.merge(later.viewport)
        presentationFeedbacks += later.presentationFeedbacks
    }
}

/// Damaged rectangles, up to a few; past that their bounding box, as renderers do, so
/// that a client sending damage without end costs a bounded amount of memory and work.
struct Damage<Space: CoordinateSpace> {
    static var mostRectangles: Int { 32 }
    private(set) var rects: [Rect<Space>] = []

    mutating func add(_ rect: Rect<Space>) {
        guard rects.count >= Self.mostRectangles else {
            rects.append(rect)
            return
        }
        var box = rect
        for other in rects {
            let x0 = min(box.minX, other.minX), y0 = min(box.minY, other.minY)
            box = Rect(x: x0, y: y0, width: max(box.maxX, other.maxX) - x0, height: max(box.maxY, other.maxY) - y0)
        }
        rects = [box]
    }

    mutating func add(_ other: Damage) {
        for rect in other.rects { add(rect) }
    }
}

extension Offset {
    /// The sum kept within int32, where the protocol's positions live: a client adding
    /// offsets without end moves its surface to the edge, not past what Int holds.
    func adding(_ dx: Int32, _ dy: Int32) -> Offset { adding(Offset(dx: Int(dx), dy: Int(dy))) }

    func adding(_ other: Offset) -> Offset {
        let range = Int(Int32.min)...Int(Int32.max)
        return Offset(dx: (dx + other.dx).clamped(to: range), dy: (dy + other.dy).clamped(to: range))
    }
}

extension Int {
    func clamped(to range: ClosedRange<Int>) -> Int { Swift.min(Swift.max(self, range.lowerBound), range.upperBound) }
}

/// A wl_buffer the surface holds until it is done with it; forgets it if the client destroys it first.
final class BufferReference {
    private(set) var resource: OpaquePointer?
    private var listener: Listener?

    init(_ resource: OpaquePointer) {
        self.resource = resource
        let listener = Listener { [weak self] _ in
            self?.resource = nil
            self?.listener?.remove()
        }
        wl_resource_add_destroy_listener(resource, listener.wlListener)
        listener.didLink()
        self.listener = listener
    }

    /// Sends wl_buffer.release: the pixels were copied at commit, so it is done with it.
    func release() {
        if let resource { wl_buffer_send_release(resource) }
        listener?.remove()
        resource = nil
    }

    deinit { listener?.remove() }
}

enum SurfaceRoleKind: String {
    case none, toplevel, popup, subsurface, layer = "layer surface", shellSurface = "wl_shell_surface", dndIcon = "dnd_icon"
}

final class SurfaceObject: WaylandObject {
    private(set) var id = SurfaceID(0)
    var pending = SurfaceState()
    var current = SurfaceState()
    /// What a synchronized subsurface committed, waiting for its parent's commit.
    var cached: SurfaceState? = nil
    /// Counted against the client's `ClientLimits.contentBytes` while it is kept; replaced
    /// only through `replaceContents`, and its pixels written in place.
    private(set) var contents: SurfaceContents? = nil

    func replaceContents(with new: SurfaceContents?) {
        let change = (new?.byteCount ?? 0) - (contents?.byteCount ?? 0)
        if change != 0 { session.existingRecord(for: client)?.usage.contentBytes += change }
        contents = new
    }
    var role = SurfaceRoleKind.none
    weak var xdgSurface: XdgSurfaceObject?
    weak var layerSurface: LayerSurfaceObject?
    weak var wlShellSurface: WlShellSurfaceObject?
    weak var subsurface: SubsurfaceObject?
    /// Its touch_router_surface_input_v1, if the client made one.
    weak var touchInput: TouchInputSurfaceObject?
    /// Subsurfaces, bottom first, split at the parent itself.
    var below: [SubsurfaceObject] = []
    var above: [SubsurfaceObject] = []
    /// The surface is in the core's tree (its role's parent is).
    var inTree = false
    /// Where a toplevel goes when it maps, in global coordinates, if something asked.
    var requestedPosition: Offset? = nil
    /// A subsurface was restacked; the core follows on this surface's next commit.
    var pendingRestack = false

    func assignID(_ id: SurfaceID) { self.id = id }

    /// Surface-local size: the viewport's where it sets one, else the buffer's, divided by
    /// the scale, turned by the transform.
    var size: Size {
        guard current.bufferSize != nil else { return Size(width: 0, height: 0) }
        return current.viewport.surfaceSize ?? unscaledSize
    }

    var hasBuffer: Bool { current.bufferSize != nil }

    override func resourceDestroyed() { session.surfaceDestroyed(self) }

    nonisolated(unsafe) static let table = implementation(wl_surface_interface(
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
            guard let record = surface.session.existingRecord(for: surface.client) else { return }
            guard record.usage.pendingFrameCallbacks < ClientLimits.pendingFrameCallbacks else {
                surface.endClient("\(surface.name).frame", pastLimit: "past \(ClientLimits.pendingFrameCallbacks) waiting frame callbacks, the most one client may have")
                return
            }
            guard let created = createResource(client, tr_wl_callback_interface(), version: 1, id: id) else { return }
            record.usage.pendingFrameCallbacks += 1
            let callback = FrameCallback(resource: created, session: surface.session)
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
    func commit() {
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

    func countRegionRectangles(_ request: String?) {
        let held = request == nil ? 0 : [pending.inputRegion, cached?.inputRegion, current.inputRegion].reduce(0) { $0 + ($1?.rects.count ?? 0) }
        guard held != countedRegionRectangles, let record = session.existingRecord(for: client) else { return }
        record.usage.regionRectangles += held - countedRegionRectangles
        countedRegionRectangles = held
        if let request, record.usage.regionRectangles > ClientLimits.regionRectanglesInAll {
            endClient("\(name).\(request)", pastLimit: "past \(ClientLimits.regionRectanglesInAll) rectangles in all regions, the most one client may have")
        }
    }

    /// Makes `state` current and tells the session, then applies what synchronized
    /// children cached, so a parent's commit shows one consistent tree.
    func apply(_ state: SurfaceState) {
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
        if !state.presentationFeedbacks.isEmpty {
            let now = session.clock.now()
            for feedback in state.presentationFeedbacks {
                feedback.committedAt = now
                feedback.surface = id
            }
            session.protocols.presentation.committed(state.presentationFeedbacks, surface: id)
        }
        current.inputPolicy.merge(state.inputPolicy)
        session.pointerConstraintsCommitted(self)
        session.surfaceCommitted(self, frameCallbacks: state.frameCallbacks)
        inputPolicyCommitted(state.inputPolicy)
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
            guard let record = session.existingRecord(for: client) else { return }
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
    var unpaintedDamage: [PixelRect] = []
    static let maximumUnpaintedRects = 16

    private func noteUnpainted(_ rects: [Rect<BufferSpace>]) {
        unpaintedDamage += rects.map { PixelRect(x: $0.x, y: $0.y, width: $0.width, height: $0.height) }
        guard unpaintedDamage.count > Self.maximumUnpaintedRects else { return }
        let left = unpaintedDamage.map(\.x).min()!, top = unpaintedDamage.map(\.y).min()!
        let right = unpaintedDamage.map { $0.x + $0.width }.max()!, bottom = unpaintedDamage.map { $0.y + $0.height }.max()!
        unpaintedDamage = [PixelRect(x: left, y: top, width: right - left, height: bottom - top)]
    }

    /// The input region clipped by the core to the surface's size; nil means all of it.
    var inputRegionForTree: Region<SurfaceSpace>? { current.inputRegion }
}

enum SubcompositorGlobal {
    static let version: Int32 = 1

    nonisolated(unsafe) static let table = implementation(wl_subcompositor_interface(
        destroy: destroyRequest,
        get_subsurface: { client, resource, id, surfaceResource, parentResource in
            let global = WaylandObject.of(resource, as: BoundGlobal.self)
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
            let subsurface = SubsurfaceObject(resource: created, session: global.session, surface: surface, parent: parent)
            WaylandObject.install(subsurface, implementation: SubsurfaceObject.table)
            surface.role = .subsurface
            surface.subsurface = subsurface
            parent.above.append(subsurface)
            global.session.subsurfaceCreated(subsurface)
        }))
}

extension SurfaceObject {
    func isDescendant(of other: SurfaceObject) -> Bool {
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
    var nestingDepth: Int {
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
    var subsurfaceHeight: Int {
        var height = 0
        var level = below + above
        while !level.isEmpty, height <= ClientLimits.nestingDepth {
            height += 1
            level = level.flatMap { child in child.surface.map { $0.below + $0.above } ?? [] }
        }
        return height
    }

    /// Whether it and the subsurfaces below it can hang below `parent` within the limit.
    func fitsBelow(_ parent: SurfaceObject) -> Bool {
        parent.nestingDepth + 1 + subsurfaceHeight <= ClientLimits.nestingDepth
    }
}

final class SubsurfaceObject: WaylandObject {
    weak var surface: SurfaceObject?
    weak var parent: SurfaceObject?
    /// Applied on the parent's commit, as wl_subsurface.set_position says.
    var position = Offset.zero
    var synchronized = true

    init(resource: OpaquePointer, session: WaylandSession, surface: SurfaceObject, parent: SurfaceObject) {
        self.surface = surface
        self.parent = parent
        super.init(resource: resource, session: session)
    }

    /// Synchronized itself or through any ancestor subsurface.
    var isEffectivelySynchronized: Bool {
        if synchronized { return true }
        return parent?.subsurface?.isEffectivelySynchronized ?? false
    }

    override func resourceDestroyed() { session.subsurfaceDestroyed(self) }

    /// Takes this subsurface out of its parent's lists and its surface's role.
    func detach() {
        parent?.below.removeAll { $0 === self }
        parent?.above.removeAll { $0 === self }
        if surface?.subsurface === self { surface?.subsurface = nil }
    }

    nonisolated(unsafe) static let table = implementation(wl_subsurface_interface(
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
    func restack(_ siblingResource: OpaquePointer?, above: Bool) {
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
