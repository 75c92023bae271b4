import CWaylandShim
import TouchRouterCore

// wlr-layer-shell-unstable-v1 (protocols/wlr-layer-shell-unstable-v1.xml) at version 4:
// panels, docks, wallpapers, lock screens and on-screen keyboards. A layer surface is a
// toplevel of the core's tree kept in its layer of the output's stack (background and
// bottom under the windows, top and overlay over them), placed by its anchors and margins
// (LayerPlacement in the core); exclusive zones shrink the output's usable area, where
// windows are placed and maximized. Privileged: shown only to the programs
// `[privileges] layer-shell` names (Privileges.swift). docs/protocols.md, "Layer shell".

package enum LayerShellGlobal {
    package static let version: Int32 = 4

    package static let bind: wl_global_bind_func_t = { client, data, version, id in
        GlobalHost.bind(client, data, version, id, tr_zwlr_layer_shell_v1_interface(), LayerShellGlobal.table) { $0 as any LayerSurfaceHandler }
    }

    package static func layer(_ value: UInt32) -> StackingLayer? {
        switch value {
        case ZWLR_LAYER_SHELL_V1_LAYER_BACKGROUND.rawValue: .background
        case ZWLR_LAYER_SHELL_V1_LAYER_BOTTOM.rawValue: .bottom
        case ZWLR_LAYER_SHELL_V1_LAYER_TOP.rawValue: .top
        case ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY.rawValue: .overlay
        default: nil
        }
    }

    package nonisolated(unsafe) static let table = implementation(zwlr_layer_shell_v1_interface(
        get_layer_surface: { client, resource, id, surfaceResource, outputResource, layerValue, namespace in
            let shell = WaylandObject.of(resource, as: RoomGlobal<any LayerSurfaceHandler>.self)
            let request = "zwlr_layer_shell_v1@\(wl_resource_get_id(resource)).get_layer_surface"
            let surface = WaylandObject.of(surfaceResource, as: SurfaceObject.self)
            guard surface.role == .none, surface.xdgSurface == nil, surface.subsurface == nil else {
                shell.postError(ZWLR_LAYER_SHELL_V1_ERROR_ROLE.rawValue, "\(request): wl_surface@\(wl_resource_get_id(surfaceResource)) already has the role \(surface.role.rawValue)")
                return
            }
            guard !surface.hasBuffer, !surface.pending.bufferAttached || surface.pending.bufferSize == nil else {
                shell.postError(ZWLR_LAYER_SHELL_V1_ERROR_ALREADY_CONSTRUCTED.rawValue, "\(request): wl_surface@\(wl_resource_get_id(surfaceResource)) has a buffer attached or committed")
                return
            }
            guard let layer = layer(layerValue) else {
                shell.postError(ZWLR_LAYER_SHELL_V1_ERROR_INVALID_LAYER.rawValue, "\(request): \(layerValue) is not a zwlr_layer_shell_v1.layer")
                return
            }
            guard let created = createResource(client, tr_zwlr_layer_surface_v1_interface(), version: shell.version, id: id) else { return }
            // The output asked for, or the first; an output already removed counts as none given.
            let asked = outputResource.map { WaylandObject.of($0, as: OutputBinding.self).output }
            let output = asked.flatMap { $0 }.flatMap { $0.retired ? nil : $0 }?.id ?? shell.handler.firstOutput
            let layerSurface = LayerSurfaceObject(resource: created, madeBy: shell, handler: shell.handler, surface: surface, output: output, layer: layer,
                                                  namespace: namespace.map { String(cString: $0) } ?? "")
            WaylandObject.install(layerSurface, implementation: LayerSurfaceObject.table)
            surface.layerSurface = layerSurface
            surface.role = .layer
            // An on-screen keyboard's starts hidden unless a text field wants it (OnScreenKeyboard.swift).
            layerSurface.oskHidden = shell.handler.startsHidden(layerSurface)
            shell.handler.layerShellState.add(layerSurface)
        },
        destroy: destroyRequest))
}

/// Keyboard interactivity, as layer-shell's enum.
package enum LayerKeyboardInteractivity: UInt32 {
    case none = 0, exclusive = 1, onDemand = 2
}

/// What a layer surface may ask of the server; the arrangement of an output's layer
/// surfaces is the server's (LayerArrangement.swift).
package protocol LayerSurfaceHandler: AnyObject {
    var layerShellState: LayerShellState { get }
    /// The output a layer surface goes on when it names none.
    var firstOutput: OutputID? { get }
    /// An on-screen keyboard's starts hidden unless a text field wants it (OnScreenKeyboard.swift).
    func startsHidden(_ layer: LayerSurfaceObject) -> Bool
    /// The layer surface went: its output is arranged again, and its surface leaves the tree.
    func layerSurfaceGone(_ layer: LayerSurfaceObject)
}

package final class LayerSurfaceObject: WaylandObject {
    private unowned let handler: any LayerSurfaceHandler
    package weak var surface: SurfaceObject?
    package let output: OutputID?
    package let namespace: String
    /// Double-buffered: the requests set `pending`, the surface's commit makes it current.
    package var pending: LayerPlacement
    package var current: LayerPlacement
    package var pendingLayer: StackingLayer
    package var layer: StackingLayer
    package var pendingInteractivity = LayerKeyboardInteractivity.none
    package var interactivity = LayerKeyboardInteractivity.none
    /// Committed at least once since it was made or unmapped: it takes part in arranging.
    package var initialized = false
    package var sentConfigure = false
    package var lastConfigureSerial: UInt32 = 0
    package var configuredSize: Size?
    package var acked = false
    /// Its output went and `closed` was sent: its commits change nothing any more.
    package var closed = false
    /// An on-screen keyboard's, hidden while no enabled text input has the focus
    /// (OnScreenKeyboard.swift): hidden in the tree, and its exclusive zone left out.
    package var oskHidden = false
    /// Where the arrangement put it, in its output's space.
    package var box = Rect<OutputSpace>(x: 0, y: 0, width: 0, height: 0)
    /// Its place among the layer surfaces of its layer: the order exclusive zones are taken in.
    package var order: UInt64 = 0

    package init(resource: OpaquePointer, madeBy shell: WaylandObject, handler: any LayerSurfaceHandler, surface: SurfaceObject, output: OutputID?, layer: StackingLayer, namespace: String) {
        self.handler = handler
        self.surface = surface
        self.output = output
        self.namespace = namespace
        pending = LayerPlacement()
        current = pending
        pendingLayer = layer
        self.layer = layer
        super.init(resource: resource, madeBy: shell)
    }

    package override func resourceDestroyed() {
        handler.layerSurfaceGone(self)
    }

    /// The committed placement as arrangements take it: a hidden on-screen keyboard keeps its
    /// place but takes no room from the windows.
    package var arrangedPlacement: LayerPlacement {
        var placement = current
        if oskHidden, placement.exclusiveZone > 0 { placement.exclusiveZone = 0 }
        return placement
    }

    package func check(_ ok: Bool, _ code: UInt32, _ request: String, _ message: @autoclosure () -> String) -> Bool {
        if !ok { postError(code, "\(name).\(request): \(message())") }
        return ok
    }

    package nonisolated(unsafe) static let table = implementation(zwlr_layer_surface_v1_interface(
        set_size: { _, resource, width, height in
            // uint32 each: any of them fits Int; configures send them back clamped to uint32.
            WaylandObject.of(resource, as: LayerSurfaceObject.self).pending.size = Size(width: Int(width), height: Int(height))
        },
        set_anchor: { _, resource, anchor in
            let layer = WaylandObject.of(resource, as: LayerSurfaceObject.self)
            guard layer.check(anchor <= 15, ZWLR_LAYER_SURFACE_V1_ERROR_INVALID_ANCHOR.rawValue, "set_anchor", "\(anchor) is not a set of zwlr_layer_surface_v1.anchor bits") else { return }
            layer.pending.anchor = LayerPlacement.Anchor(rawValue: anchor)
        },
        set_exclusive_zone: { _, resource, zone in
            WaylandObject.of(resource, as: LayerSurfaceObject.self).pending.exclusiveZone = Int(zone)
        },
        set_margin: { _, resource, top, right, bottom, left in
            WaylandObject.of(resource, as: LayerSurfaceObject.self).pending.margins =
                LayerPlacement.Margins(top: Int(top), right: Int(right), bottom: Int(bottom), left: Int(left))
        },
        set_keyboard_interactivity: { _, resource, value in
            let layer = WaylandObject.of(resource, as: LayerSurfaceObject.self)
            // Before version 4 it was a boolean: on_demand came with version 4.
            let valid = LayerKeyboardInteractivity(rawValue: value).flatMap { $0 == .onDemand && layer.version < 4 ? nil : $0 }
            guard let valid else {
                layer.postError(ZWLR_LAYER_SURFACE_V1_ERROR_INVALID_KEYBOARD_INTERACTIVITY.rawValue, "\(layer.name).set_keyboard_interactivity: \(value) is not a zwlr_layer_surface_v1.keyboard_interactivity of version \(layer.version)")
                return
            }
            layer.pendingInteractivity = valid
        },
        get_popup: { _, resource, popupResource in
            let layer = WaylandObject.of(resource, as: LayerSurfaceObject.self)
            let popup = WaylandObject.of(popupResource, as: XdgPopupObject.self)
            guard let surface = layer.surface, popup.parent == nil, let popupSurface = popup.xdgSurface?.surface, !popupSurface.inTree else {
                layer.postError(ZWLR_LAYER_SURFACE_V1_ERROR_INVALID_SURFACE_STATE.rawValue, "\(layer.name).get_popup: xdg_popup@\(wl_resource_get_id(popupResource)) has a parent already, or is mapped")
                return
            }
            guard popupSurface.fitsBelow(surface) else {
                layer.endClient("\(layer.name).get_popup", pastLimit: "nests the popup past \(ClientLimits.nestingDepth) levels, the most surfaces may nest")
                return
            }
            popup.parent = surface
            // Configured at once, as toplevels are: WLCS's clients attach the popup's buffer
            // without committing first.
            if let xdg = popup.xdgSurface, !xdg.sentFirstConfigure { xdg.sendConfigure() }
        },
        ack_configure: { _, resource, serial in
            let layer = WaylandObject.of(resource, as: LayerSurfaceObject.self)
            guard layer.check(layer.sentConfigure && serial <= layer.lastConfigureSerial, ZWLR_LAYER_SURFACE_V1_ERROR_INVALID_SURFACE_STATE.rawValue,
                              "ack_configure", "serial \(serial) was never sent") else { return }
            layer.acked = true
        },
        destroy: destroyRequest,
        set_layer: { _, resource, value in
            let layer = WaylandObject.of(resource, as: LayerSurfaceObject.self)
            guard let new = LayerShellGlobal.layer(value) else {
                layer.postError(ZWLR_LAYER_SHELL_V1_ERROR_INVALID_LAYER.rawValue, "\(layer.name).set_layer: \(value) is not a zwlr_layer_shell_v1.layer")
                return
            }
            layer.pendingLayer = new
        }))
}
