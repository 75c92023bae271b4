import CWaylandShim
import TouchRouterCore

// viewporter (protocols/viewporter.xml): a surface shows a crop of its buffer (the source
// rectangle), scaled to a size of its own (the destination), as Firefox asks for its
// video and pages and a single-pixel buffer needs to cover anything at all. Both are
// double-buffered surface state (`SurfaceState.viewport`); the surface's size is the
// destination, else the source's size; composition and `msg pixel` map through it
// (`ViewportState.bufferFraction`).

/// A wl_surface's viewport request, as pending, cached and current state hold it.
package struct ViewportState {
    /// The crop, in surface coordinates before the viewport (the buffer's size divided by
    /// its scale, turned by its transform); nil: the whole buffer.
    package var source: (x: Double, y: Double, width: Double, height: Double)?
    package var destination: Size?
    /// Whether a request set (or unset) each since the last commit, for merging.
    package var sourceSet = false, destinationSet = false

    package var isEmpty: Bool { source == nil && destination == nil }

    /// A later commit's requests over this one's.
    package mutating func merge(_ later: ViewportState) {
        if later.sourceSet { source = later.source; sourceSet = true }
        if later.destinationSet { destination = later.destination; destinationSet = true }
    }

    /// The size the surface takes with this viewport; nil when the viewport says nothing, or
    /// when its source has no whole size to take.
    package var surfaceSize: Size? {
        if let destination { return destination }
        guard let source, source.width == source.width.rounded(), source.height == source.height.rounded() else { return nil }
        return Size(width: Int(source.width), height: Int(source.height))
    }

    /// What the protocol forbids at commit, with its error code; nil when all is well.
    package func problem(unscaled: Size, hasBuffer: Bool) -> (code: UInt32, message: String)? {
        if let source, hasBuffer {
            guard source.x + source.width <= Double(unscaled.width), source.y + source.height <= Double(unscaled.height) else {
                return (WP_VIEWPORT_ERROR_OUT_OF_BUFFER.rawValue,
                        "the source rectangle \(source.x),\(source.y) \(source.width)x\(source.height) reaches outside the \(unscaled.width)x\(unscaled.height) buffer")
            }
        }
        if destination == nil, let source, source.width != source.width.rounded() || source.height != source.height.rounded() {
            return (WP_VIEWPORT_ERROR_BAD_SIZE.rawValue, "without a destination, the source's size \(source.width)x\(source.height) must be whole")
        }
        return nil
    }
}

/// Which surfaces have a viewport object: a second is the protocol's viewport_exists.
package final class ViewporterState {
    package init() {}
    package var viewports = OnePerOwner<SurfaceObject, ViewportObject> { $0.surface }

    package static let globals = [ProtocolGlobal(interface: tr_wp_viewporter_interface, version: ViewporterGlobal.version, bind: ViewporterGlobal.bind)]
}

package enum ViewporterGlobal {
    package static let version: Int32 = 1

    package static let bind: wl_global_bind_func_t = { client, data, version, id in
        GlobalHost.bind(client, data, version, id, tr_wp_viewporter_interface(), table, handler: { $0.viewporterState })
    }

    package nonisolated(unsafe) static let table = implementation(wp_viewporter_interface(
        destroy: destroyRequest,
        get_viewport: { client, resource, id, surfaceResource in
            let manager = WaylandObject.of(resource, as: RoomGlobal<ViewporterState>.self)
            let surface = WaylandObject.of(surfaceResource, as: SurfaceObject.self)
            let state = manager.handler
            guard state.viewports.allowsAnother(for: surface, named: surface.name, manager: manager, request: "get_viewport",
                                                code: WP_VIEWPORTER_ERROR_VIEWPORT_EXISTS.rawValue) else { return }
            guard let created = createResource(client, tr_wp_viewport_interface(), version: wl_resource_get_version(resource), id: id) else { return }
            let viewport = ViewportObject(resource: created, madeBy: manager, surface: surface, state: state)
            WaylandObject.install(viewport, implementation: ViewportObject.table)
            state.viewports.add(viewport, to: surface)
        }))
}

/// wp_viewport: its requests go to its surface's pending state; destroying it unsets both at
/// the surface's next commit, as the protocol says.
package final class ViewportObject: WaylandObject {
    package weak var surface: SurfaceObject?
    private let key: ObjectIdentifier
    private unowned let state: ViewporterState

    package init(resource: OpaquePointer, madeBy manager: WaylandObject, surface: SurfaceObject, state: ViewporterState) {
        self.surface = surface
        key = ObjectIdentifier(surface)
        self.state = state
        super.init(resource: resource, madeBy: manager)
    }

    package override func resourceDestroyed() {
        state.viewports.remove(self, key: key)
        guard let surface else { return }
        surface.pending.viewport.source = nil
        surface.pending.viewport.destination = nil
        surface.pending.viewport.sourceSet = true
        surface.pending.viewport.destinationSet = true
    }

    /// The surface, or the protocol's no_surface error when it went first.
    private func liveSurface(_ request: String) -> SurfaceObject? {
        guard let surface else {
            postError(WP_VIEWPORT_ERROR_NO_SURFACE.rawValue, "\(name).\(request): its wl_surface was destroyed")
            return nil
        }
        return surface
    }

    private func setSource(_ x: Int32, _ y: Int32, _ width: Int32, _ height: Int32) {
        guard let surface = liveSurface("set_source") else { return }
        let values = [x, y, width, height].map { Double($0) / 256 }
        if values == [-1, -1, -1, -1] {
            surface.pending.viewport.source = nil
        } else {
            guard values[0] >= 0, values[1] >= 0, values[2] > 0, values[3] > 0 else {
                postError(WP_VIEWPORT_ERROR_BAD_VALUE.rawValue, "\(name).set_source: \(values[0]),\(values[1]) \(values[2])x\(values[3]): expected x and y of 0 or more and a positive size, or all -1")
                return
            }
            surface.pending.viewport.source = (values[0], values[1], values[2], values[3])
        }
        surface.pending.viewport.sourceSet = true
    }

    private func setDestination(_ width: Int32, _ height: Int32) {
        guard let surface = liveSurface("set_destination") else { return }
        if width == -1, height == -1 {
            surface.pending.viewport.destination = nil
        } else {
            guard width > 0, height > 0 else {
                postError(WP_VIEWPORT_ERROR_BAD_VALUE.rawValue, "\(name).set_destination: \(width)x\(height): expected a positive size, or -1x-1")
                return
            }
            surface.pending.viewport.destination = Size(width: Int(width), height: Int(height))
        }
        surface.pending.viewport.destinationSet = true
    }

    /// The protocol's error for state made current at a commit, posted on this viewport.
    package func commitFailed(_ problem: (code: UInt32, message: String), surface: SurfaceObject) {
        postError(problem.code, "\(surface.name).commit: \(problem.message) (\(name))")
    }

    package nonisolated(unsafe) static let table = implementation(wp_viewport_interface(
        destroy: destroyRequest,
        set_source: { _, resource, x, y, width, height in WaylandObject.of(resource, as: ViewportObject.self).setSource(x, y, width, height) },
        set_destination: { _, resource, width, height in WaylandObject.of(resource, as: ViewportObject.self).setDestination(width, height) }))
}

extension SurfaceObject {
    /// The surface's size from its buffer alone: divided by the scale, turned by the transform.
    package var unscaledSize: Size {
        guard let buffer = current.bufferSize else { return Size(width: 0, height: 0) }
        let scale = Int(max(current.scale, 1))
        let turned = current.transform & 1 == 1
        return Size(width: (turned ? buffer.height : buffer.width) / scale, height: (turned ? buffer.width : buffer.height) / scale)
    }

    /// The viewport as composition takes it; nil without one.
    package var layerViewport: LayerViewport? {
        guard !current.viewport.isEmpty else { return nil }
        let unscaled = unscaledSize
        let whole: [Double] = [0, 0, Double(unscaled.width), Double(unscaled.height)]
        let source: [Double] = current.viewport.source.map { [$0.x, $0.y, $0.width, $0.height] } ?? whole
        return LayerViewport(source: source, unscaled: unscaled, destination: size)
    }

    /// Checks the viewport made current; false once the client was ended for it.
    package func viewportAllowsCommit() -> Bool {
        guard !current.viewport.isEmpty, let problem = current.viewport.problem(unscaled: unscaledSize, hasBuffer: hasBuffer) else { return true }
        if let viewport = handler.viewport(of: self) {
            viewport.commitFailed(problem, surface: self)
        } else {
            postError(problem.code, "\(name).commit: \(problem.message)")
        }
        return false
    }
}
