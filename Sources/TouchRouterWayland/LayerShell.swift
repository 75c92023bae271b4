import CWaylandShim
import TouchRouterCore

// wlr-layer-shell-unstable-v1 (protocols/wlr-layer-shell-unstable-v1.xml) at version 4:
// panels, docks, wallpapers, lock screens and on-screen keyboards. A layer surface is a
// toplevel of the core's tree kept in its layer of the output's stack (background and
// bottom under the windows, top and overlay over them), placed by its anchors and margins
// (LayerPlacement in the core); exclusive zones shrink the output's usable area, where
// windows are placed and maximized. Privileged: shown only to the programs
// `[privileges] layer-shell` names (Privileges.swift). README, "Layer shell".

enum LayerShellGlobal {
    static let version: Int32 = 4

    static let bind: wl_global_bind_func_t = { client, data, version, id in
        WaylandSession.bindGlobal(client, data, version, id, tr_zwlr_layer_shell_v1_interface(), LayerShellGlobal.table)
    }

    static func layer(_ value: UInt32) -> StackingLayer? {
        switch value {
        case ZWLR_LAYER_SHELL_V1_LAYER_BACKGROUND.rawValue: .background
        case ZWLR_LAYER_SHELL_V1_LAYER_BOTTOM.rawValue: .bottom
        case ZWLR_LAYER_SHELL_V1_LAYER_TOP.rawValue: .top
        case ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY.rawValue: .overlay
        default: nil
        }
    }

    nonisolated(unsafe) static let table = implementation(zwlr_layer_shell_v1_interface(
        get_layer_surface: { client, resource, id, surfaceResource, outputResource, layerValue, namespace in
            let shell = WaylandObject.of(resource, as: BoundGlobal.self)
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
            let output = asked.flatMap { $0 }.flatMap { $0.retired ? nil : $0 }?.id ?? shell.session.outputs.first?.id
            let layerSurface = LayerSurfaceObject(resource: created, session: shell.session, surface: surface, output: output, layer: layer,
                                                  namespace: namespace.map { String(cString: $0) } ?? "")
            WaylandObject.install(layerSurface, implementation: LayerSurfaceObject.table)
            surface.layerSurface = layerSurface
            surface.role = .layer
            // An on-screen keyboard's starts hidden unless a text field wants it (OnScreenKeyboard.swift).
            layerSurface.oskHidden = shell.session.isOnScreenKeyboard(layerSurface) && shell.session.activeTextInput == nil
            shell.session.layerSurfaces.append(layerSurface)
        },
        destroy: destroyRequest))
}

/// Keyboard interactivity, as layer-shell's enum.
enum LayerKeyboardInteractivity: UInt32 {
    case none = 0, exclusive = 1, onDemand = 2
}

final class LayerSurfaceObject: WaylandObject {
    weak var surface: SurfaceObject?
    let output: OutputID?
    let namespace: String
    /// Double-buffered: the requests set `pending`, the surface's commit makes it current.
    var pending: LayerPlacement
    var current: LayerPlacement
    var pendingLayer: StackingLayer
    var layer: StackingLayer
    var pendingInteractivity = LayerKeyboardInteractivity.none
    var interactivity = LayerKeyboardInteractivity.none
    /// Committed at least once since it was made or unmapped: it takes part in arranging.
    var initialized = false
    var sentConfigure = false
    var lastConfigureSerial: UInt32 = 0
    var configuredSize: Size?
    var acked = false
    /// Its output went and `closed` was sent: its commits change nothing any more.
    var closed = false
    /// An on-screen keyboard's, hidden while no enabled text input has the focus
    /// (OnScreenKeyboard.swift): hidden in the tree, and its exclusive zone left out.
    var oskHidden = false
    /// Where the arrangement put it, in its output's space.
    var box = Rect<OutputSpace>(x: 0, y: 0, width: 0, height: 0)

    init(resource: OpaquePointer, session: WaylandSession, surface: SurfaceObject, output: OutputID?, layer: StackingLayer, namespace: String) {
        self.surface = surface
        self.output = output
        self.namespace = namespace
        pending = LayerPlacement()
        current = pending
        pendingLayer = layer
        self.layer = layer
        super.init(resource: resource, session: session)
    }

    override func resourceDestroyed() {
        session.layerSurfaceGone(self)
    }

    func check(_ ok: Bool, _ code: UInt32, _ request: String, _ message: @autoclosure () -> String) -> Bool {
        if !ok { postError(code, "\(name).\(request): \(message())") }
        return ok
    }

    nonisolated(unsafe) static let table = implementation(zwlr_layer_surface_v1_interface(
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

extension WaylandSession {
    /// The layer surface's object went: it leaves the tree, and the rest of its output is arranged again.
    func layerSurfaceGone(_ layer: LayerSurfaceObject) {
        layerSurfaces.removeAll { $0 === layer }
        if let surface = layer.surface, surface.layerSurface === layer {
            surface.layerSurface = nil
            roleDestroyed(surface: surface)
            surface.role = .none
        }
        if let output = layer.output { arrangeLayers(on: output) }
    }

    /// On its surface's commit: the pending state becomes current, checked; the first
    /// commit is answered with a configure; a buffer maps it, a null buffer unmaps it until
    /// it commits and is configured again. A buffer in the very first commit, before any
    /// configure, is mapped, not an error: WLCS's clients attach before they read the
    /// configure, as with xdg-shell (Mir maps them; wlroots ends them).
    /// False when the commit ended the client.
    func layerSurfaceCommitted(_ surface: SurfaceObject, _ layer: LayerSurfaceObject) -> Bool {
        if layer.closed { return true }
        let state = layer.pending
        if state.size.width == 0 && !state.anchor.contains([.left, .right]) || state.size.height == 0 && !state.anchor.contains([.top, .bottom]) {
            layer.postError(ZWLR_LAYER_SURFACE_V1_ERROR_INVALID_SIZE.rawValue, "\(layer.name): a size of \(state.size.width)x\(state.size.height) needs anchors on both edges of each axis that is 0")
            return false
        }
        let changedLayer = layer.layer != layer.pendingLayer
        layer.current = state
        layer.layer = layer.pendingLayer
        layer.interactivity = layer.pendingInteractivity
        if !surface.hasBuffer && surface.inTree {
            // Unmapped: out of the tree; the next commit starts over with a configure.
            roleDestroyed(surface: surface)
            surface.role = .layer
            layer.initialized = false
            layer.sentConfigure = false
            layer.configuredSize = nil
            if let output = layer.output { arrangeLayers(on: output) }
            return true
        }
        let first = !layer.initialized
        layer.initialized = true
        if let output = layer.output { arrangeLayers(on: output, forceConfigure: first ? layer : nil) }
        if surface.hasBuffer, !surface.inTree, let output = layer.output {
            mapLayerSurface(surface, layer, output: output)
        } else if surface.inTree {
            if changedLayer { try? tree.setLayer(surface.id, layer.layer) }
            try? tree.updateProperties(surface.id) { $0.acceptsKeyboardFocus = layer.interactivity != .none }
            focusExclusiveLayer(layer, surface)
        }
        return true
    }

    private func mapLayerSurface(_ surface: SurfaceObject, _ layer: LayerSurfaceObject, output: OutputID) {
        var properties = surface.propertiesOnEntry
        properties.mapped = true
        properties.hidden = layer.oskHidden
        // Interactivity none: a touch or click on it never moves the keyboard focus to it.
        properties.acceptsKeyboardFocus = layer.interactivity != .none
        do {
            try tree.addToplevel(surface.id, client: record(for: surface.client).id, output: output,
                                 position: Offset(dx: layer.box.x, dy: layer.box.y), size: surface.size,
                                 properties: properties, label: layer.namespace.isEmpty ? "layer surface" : layer.namespace, layer: layer.layer)
            try tree.setInputRegion(surface.id, surface.inputRegionForTree)
        } catch {
            report("adding layer surface \(surface.id) to the tree: \(error)")
            return
        }
        surface.inTree = true
        shell.surfaceEntered(surface)
        if let virtualOutput = outputs.first(where: { $0.id == output }) {
            for resource in virtualOutput.bindings(of: surface.client) { wl_surface_send_enter(surface.resource, resource) }
        }
        if layer.interactivity == .onDemand {
            // On demand: focused as it maps, as a new window is; a press elsewhere takes it away.
            _ = router.setKeyboardFocus(surface.id)
            updateActivatedToplevel()
        }
        focusExclusiveLayer(layer, surface)
        router.dispatchAll()
    }

    /// Before each flush: the topmost mapped layer surface on top or overlay with exclusive
    /// interactivity keeps the keyboard (or a popup of its own does); a press elsewhere
    /// that moved it is undone here, before the client reads it.
    func holdExclusiveLayerFocus() {
        guard !layerSurfaces.isEmpty else { return }
        var holder: SurfaceID?
        search: for output in tree.outputs {
            for id in output.toplevels.reversed() {
                guard let layer = surfaces[id]?.layerSurface, tree.isShown(id) else { continue }
                guard layer.layer >= .top else { break }
                if layer.interactivity == .exclusive {
                    holder = id
                    break search
                }
            }
        }
        guard let holder, router.keyboardFocus.flatMap({ tree.toplevel(of: $0) }) != holder else { return }
        _ = router.setKeyboardFocus(holder)
        router.dispatchAll()
        updateActivatedToplevel()
    }

    /// The output went: each of its layer surfaces leaves the tree and is told `closed`;
    /// the client destroys it (a later commit is ignored).
    func closeLayerSurfaces(on output: OutputID) {
        for layer in layerSurfaces where layer.output == output && !layer.closed {
            layer.closed = true
            if let surface = layer.surface, surface.inTree {
                roleDestroyed(surface: surface)
                surface.role = .layer
            }
            zwlr_layer_surface_v1_send_closed(layer.resource)
        }
        usableAreas[output] = nil
    }

    /// Exclusive interactivity on the top and overlay layers takes the keyboard while mapped.
    private func focusExclusiveLayer(_ layer: LayerSurfaceObject, _ surface: SurfaceObject) {
        guard layer.interactivity == .exclusive, layer.layer >= .top, surface.inTree, router.keyboardFocus != surface.id else { return }
        _ = router.setKeyboardFocus(surface.id)
        router.dispatchAll()
        updateActivatedToplevel()
    }

    /// A mapped layer surface on top or overlay holding keyboard interactivity exclusive:
    /// new windows do not take the keyboard from it.
    var exclusiveLayerHoldsKeyboard: Bool {
        guard let focus = router.keyboardFocus, let surface = surfaces[focus], let layer = surface.layerSurface else { return false }
        return layer.interactivity == .exclusive && layer.layer >= .top
    }

    /// Places every layer surface of an output that has committed, and works out the
    /// usable area; configures those whose size changed (and `forceConfigure` in any case).
    /// Maximized windows on it are configured again when the usable area changes.
    func arrangeLayers(on outputID: OutputID, forceConfigure: LayerSurfaceObject? = nil) {
        guard let output = outputs.first(where: { $0.id == outputID }) else { return }
        let whole = Rect<OutputSpace>(x: 0, y: 0, width: output.rect.width, height: output.rect.height)
        let layers = layerSurfaces.filter { $0.output == outputID && $0.initialized && !$0.closed && $0.surface != nil }
            .enumerated().sorted { ($0.element.layer, $0.offset) < ($1.element.layer, $1.offset) }.map(\.element)
        // A hidden on-screen keyboard keeps its place but takes no room from the windows.
        let placements = layers.map { layer in
            var placement = layer.current
            if layer.oskHidden, placement.exclusiveZone > 0 { placement.exclusiveZone = 0 }
            return placement
        }
        let (rects, usable) = LayerPlacement.arrange(placements, on: whole)
        for (layer, unclamped) in zip(layers, rects) {
            // Sizes are uint32 and margins int32: a box can lie far outside int32, and is
            // kept at its edge, as popups' are.
            let rect = unclamped.clampedToInt32
            layer.box = rect
            let size = Size(width: rect.width, height: rect.height)
            if layer.configuredSize != size || layer === forceConfigure {
                let serial = display.nextSerial
                layer.configuredSize = size
                layer.sentConfigure = true
                layer.lastConfigureSerial = serial
                zwlr_layer_surface_v1_send_configure(layer.resource, serial, UInt32(clamping: size.width), UInt32(clamping: size.height))
            }
            if let surface = layer.surface, surface.inTree, tree.surface(surface.id)?.position != Offset(dx: rect.x, dy: rect.y) {
                try? tree.move(surface.id, to: Offset(dx: rect.x, dy: rect.y))
            }
        }
        let previous = usableAreas[outputID] ?? whole
        usableAreas[outputID] = usable == whole ? nil : usable
        guard previous != usable else { return }
        for surface in surfaces.values where surface.inTree && tree.outputOf(surface.id) == outputID {
            guard let toplevel = surface.xdgSurface?.toplevel, toplevel.maximized, !toplevel.fullscreen else { continue }
            surface.xdgSurface?.sendConfigure()
        }
    }

    /// Where windows go on an output: what the layer surfaces' exclusive zones leave.
    func usableArea(of output: VirtualOutput) -> Rect<OutputSpace> {
        usableAreas[output.id] ?? Rect(x: 0, y: 0, width: output.rect.width, height: output.rect.height)
    }
}
