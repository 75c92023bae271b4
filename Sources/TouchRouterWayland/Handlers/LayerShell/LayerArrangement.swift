import CWaylandShim
import TouchRouterCore

// Where layer surfaces go: each output's layer surfaces placed by their anchors, margins and
// exclusive zones (LayerPlacement in the core), the usable area they leave for windows, and
// the keyboard focus that exclusive interactivity holds.

extension WaylandServer: LayerSurfaceHandler {
    package var layerShellState: LayerShellState { protocols.layerShell }

    package var firstOutput: OutputID? { outputs.first?.id }

    package func startsHidden(_ layer: LayerSurfaceObject) -> Bool { isOnScreenKeyboard(layer) && activeTextInput == nil }

    /// The layer surface's object went: it leaves the tree, and the rest of its output is arranged again.
    package func layerSurfaceGone(_ layer: LayerSurfaceObject) {
        protocols.layerShell.remove(layer)
        if let surface = layer.surface, surface.layerSurface === layer {
            surface.layerSurface = nil
            roleDestroyed(surface: surface)
            surface.role = .none
        }
        if let output = layer.output { layersChanged(on: output) }
    }

    /// On its surface's commit: the pending state becomes current, checked; the first
    /// commit is answered with a configure; a buffer maps it, a null buffer unmaps it until
    /// it commits and is configured again. A buffer in the very first commit, before any
    /// configure, is mapped, not an error: WLCS's clients attach before they read the
    /// configure, as with xdg-shell (Mir maps them; wlroots ends them).
    /// False when the commit ended the client.
    package func layerSurfaceCommitted(_ surface: SurfaceObject, _ layer: LayerSurfaceObject) -> Bool {
        if layer.closed { return true }
        let state = layer.pending
        if state.size.width == 0 && !state.anchor.contains([.left, .right]) || state.size.height == 0 && !state.anchor.contains([.top, .bottom]) {
            layer.postError(ZWLR_LAYER_SURFACE_V1_ERROR_INVALID_SIZE.rawValue, "\(layer.name): a size of \(state.size.width)x\(state.size.height) needs anchors on both edges of each axis that is 0")
            return false
        }
        let changedLayer = layer.layer != layer.pendingLayer
        let changedPlacement = layer.current != state
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
            if let output = layer.output { layersChanged(on: output) }
            return true
        }
        let first = !layer.initialized
        layer.initialized = true
        if let output = layer.output, first || changedPlacement || changedLayer { layersChanged(on: output, first: first ? layer : nil) }
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
    package func holdExclusiveLayerFocus() {
        guard !protocols.layerShell.isEmpty else { return }
        var holder: SurfaceID?
        search: for output in tree.outputs {
            for id in output.toplevels.reversed() {
                guard let layer = protocols.surface.surfaces[id]?.layerSurface, tree.isShown(id) else { continue }
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
    package func closeLayerSurfaces(on output: OutputID) {
        for layer in protocols.layerShell.surfaces(on: output) where !layer.closed {
            layer.closed = true
            if let surface = layer.surface, surface.inTree {
                roleDestroyed(surface: surface)
                surface.role = .layer
            }
            zwlr_layer_surface_v1_send_closed(layer.resource)
        }
        protocols.layerShell.outputRemoved(output)
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
    package var exclusiveLayerHoldsKeyboard: Bool {
        guard let focus = router.keyboardFocus, let surface = protocols.surface.surfaces[focus], let layer = surface.layerSurface else { return false }
        return layer.interactivity == .exclusive && layer.layer >= .top
    }

    /// An output's layer surfaces changed: arranged now, or once this round if it has too
    /// many (LayerShellState); `first`, committed for the first time, is configured now either way.
    package func layersChanged(on output: OutputID, first: LayerSurfaceObject? = nil) {
        if protocols.layerShell.count(on: output) <= LayerShellState.arrangedAtOnce {
            arrangeLayers(on: output)
        } else {
            protocols.layerShell.needsArranging(output)
            if let first { configureFirst(first, on: output) }
        }
    }

    /// The configure that answers a first commit, now: sized by the areas the last
    /// arrangement left, which the surface's own zone then takes from.
    private func configureFirst(_ layer: LayerSurfaceObject, on outputID: OutputID) {
        guard let output = outputs.first(where: { $0.id == outputID }) else { return }
        let whole = Rect<OutputSpace>(x: 0, y: 0, width: output.rect.width, height: output.rect.height)
        var areas = protocols.layerShell.areas[outputID] ?? LayerAreas(whole: whole)
        let placement = layer.arrangedPlacement
        let rect = placement.rect(in: areas.area(for: placement, on: layer.layer)).clampedToInt32
        layer.box = rect
        configure(layer, size: Size(width: rect.width, height: rect.height))
        areas.take(placement, on: layer.layer)
        protocols.layerShell.areas[outputID] = areas
    }

    private func configure(_ layer: LayerSurfaceObject, size: Size) {
        let serial = display.nextSerial
        layer.configuredSize = size
        layer.sentConfigure = true
        layer.lastConfigureSerial = serial
        zwlr_layer_surface_v1_send_configure(layer.resource, serial, UInt32(clamping: size.width), UInt32(clamping: size.height))
    }

    /// Arranges the outputs whose layer surfaces changed since they were last arranged:
    /// before an input event is routed, before a frame, and before the clients are flushed.
    package func arrangeWaitingLayers() {
        guard !protocols.layerShell.outputsToArrange.isEmpty else { return }
        for output in protocols.layerShell.outputsToArrange { arrangeLayers(on: output) }
    }

    /// Places every layer surface of an output that has committed, and works out the
    /// usable area; configures those whose size changed. Maximized windows on it are configured again when the usable area changes.
    private func arrangeLayers(on outputID: OutputID) {
        protocols.layerShell.arranged(outputID)
        guard let output = outputs.first(where: { $0.id == outputID }) else { return }
        let whole = Rect<OutputSpace>(x: 0, y: 0, width: output.rect.width, height: output.rect.height)
        let layers = protocols.layerShell.surfaces(on: outputID).filter { $0.initialized && !$0.closed && $0.surface != nil }
        let placements = layers.map(\.arrangedPlacement)
        let (rects, usable) = LayerPlacement.arrange(placements, on: whole)
        var areas = LayerAreas(whole: whole)
        for (layer, placement) in zip(layers, placements) { areas.take(placement, on: layer.layer) }
        protocols.layerShell.areas[outputID] = areas
        for (layer, unclamped) in zip(layers, rects) {
            // Sizes are uint32 and margins int32: a box can lie far outside int32, and is
            // kept at its edge, as popups' are.
            let rect = unclamped.clampedToInt32
            layer.box = rect
            let size = Size(width: rect.width, height: rect.height)
            if layer.configuredSize != size { configure(layer, size: size) }
            if let surface = layer.surface, surface.inTree, tree.surface(surface.id)?.position != Offset(dx: rect.x, dy: rect.y) {
                try? tree.move(surface.id, to: Offset(dx: rect.x, dy: rect.y))
            }
        }
        let previous = protocols.layerShell.usableAreas[outputID] ?? whole
        protocols.layerShell.usableAreas[outputID] = usable == whole ? nil : usable
        guard previous != usable else { return }
        for surface in protocols.surface.surfaces.values where surface.inTree && tree.outputOf(surface.id) == outputID {
            guard let toplevel = surface.xdgSurface?.toplevel, toplevel.maximized, !toplevel.fullscreen else { continue }
            surface.xdgSurface?.sendConfigure()
        }
    }

    /// Where windows go on an output: what the layer surfaces' exclusive zones leave.
    package func usableArea(of output: VirtualOutput) -> Rect<OutputSpace> {
        if protocols.layerShell.isWaiting(output.id) { arrangeLayers(on: output.id) }
        return protocols.layerShell.usableAreas[output.id] ?? Rect(x: 0, y: 0, width: output.rect.width, height: output.rect.height)
    }
}
