import CWaylandShim

// fractional-scale-v1 (protocols/fractional-scale-v1.xml): each surface may ask the scale it
// should draw at: its output's (a whole number, `msg output set … scale N`, `[[output]]`)
// in 120ths, sent at once and again when that output's scale changes; clients that bind it
// (Firefox, Chromium, Qt 6) then draw at it without guessing. A surface not on an output yet
// is told the first output's.

/// Which surfaces have a fractional scale object: a second is the protocol's error.
package final class FractionalScaleState {
    package init() {}
    package var scales = OnePerOwner<SurfaceObject, FractionalScaleObject> { $0.surface }

    /// The preferred scale, in 120ths, on an output of `scale`.
    package static func preferredScale(_ scale: Int) -> UInt32 { UInt32(clamping: 120 * scale) }

    /// Each surface's object hears its output's scale again (`scale(of:)`, nil to leave one be).
    package func outputScalesChanged(scale: (SurfaceObject) -> Int?) {
        for object in scales.all {
            guard let surface = object.surface, let wanted = scale(surface) else { continue }
            wp_fractional_scale_v1_send_preferred_scale(object.resource, Self.preferredScale(wanted))
        }
    }

    package static let globals = [ProtocolGlobal(interface: tr_wp_fractional_scale_manager_v1_interface, version: FractionalScaleManager.version, bind: FractionalScaleManager.bind)]
}

/// What the fractional scale manager may ask of the server (OutputReconfiguration.swift has
/// the output scale).
package protocol FractionalScaleHandler: AnyObject {
    var fractionalScaleState: FractionalScaleState { get }
    /// The scale of the output the surface is on, or of the first output.
    func outputScale(of surface: SurfaceObject) -> Int
}

package enum FractionalScaleManager {
    package static let version: Int32 = 1

    package static let bind: wl_global_bind_func_t = { client, data, version, id in
        GlobalHost.bind(client, data, version, id, tr_wp_fractional_scale_manager_v1_interface(), table) { $0 as any FractionalScaleHandler }
    }

    package nonisolated(unsafe) static let table = implementation(wp_fractional_scale_manager_v1_interface(
        destroy: destroyRequest,
        get_fractional_scale: { client, resource, id, surfaceResource in
            let manager = WaylandObject.of(resource, as: RoomGlobal<any FractionalScaleHandler>.self)
            let surface = WaylandObject.of(surfaceResource, as: SurfaceObject.self)
            let state = manager.handler.fractionalScaleState
            guard state.scales.allowsAnother(for: surface, named: surface.name, manager: manager, request: "get_fractional_scale",
                                             code: WP_FRACTIONAL_SCALE_MANAGER_V1_ERROR_FRACTIONAL_SCALE_EXISTS.rawValue) else { return }
            guard let created = createResource(client, tr_wp_fractional_scale_v1_interface(), version: wl_resource_get_version(resource), id: id) else { return }
            let scale = FractionalScaleObject(resource: created, madeBy: manager, surface: surface, state: state)
            WaylandObject.install(scale, implementation: FractionalScaleObject.table)
            state.scales.add(scale, to: surface)
            wp_fractional_scale_v1_send_preferred_scale(created, FractionalScaleState.preferredScale(manager.handler.outputScale(of: surface)))
        }))
}

package final class FractionalScaleObject: WaylandObject {
    package weak var surface: SurfaceObject?
    private let key: ObjectIdentifier
    private unowned let state: FractionalScaleState

    package init(resource: OpaquePointer, madeBy manager: WaylandObject, surface: SurfaceObject, state: FractionalScaleState) {
        self.surface = surface
        key = ObjectIdentifier(surface)
        self.state = state
        super.init(resource: resource, madeBy: manager)
    }

    package override func resourceDestroyed() { state.scales.remove(self, key: key) }

    package nonisolated(unsafe) static let table = implementation(wp_fractional_scale_v1_interface(destroy: destroyRequest))
}
