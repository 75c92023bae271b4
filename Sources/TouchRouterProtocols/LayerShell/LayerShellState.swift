import TouchRouterCore

/// The layer surfaces alive, each output's usable area, and the outputs whose layer surfaces
/// changed since they were last arranged (LayerArrangement.swift).
///
/// An output with up to `arrangedAtOnce` layer surfaces is arranged at each change, as sway
/// does, so that what a request causes reaches its client before a wl_display.sync sent
/// after it. Past that, as only a hostile client gets, a change only marks the output, and
/// it is arranged once: before the next input event is routed, before the next frame and
/// before the clients are flushed. Arranging at every change cost two clients with 2,500
/// exclusive zones each 76 s. A first commit there is still answered with a configure at
/// once, sized by the areas the last arrangement left (`LayerAreas`); the arrangement
/// configures it again if the round's other changes moved it.
package final class LayerShellState {
    package init() {}
    private var surfaces: [ObjectIdentifier: LayerSurfaceObject] = [:]
    private var surfacesByOutput: [OutputID: [ObjectIdentifier: LayerSurfaceObject]] = [:]
    private var nextOrder: UInt64 = 0
    /// Each output's area left for windows by the exclusive zones, in the output's space;
    /// an output not listed has all of itself.
    package var usableAreas: [OutputID: Rect<OutputSpace>] = [:]
    package private(set) var outputsToArrange: Set<OutputID> = []
    /// What the last arrangement of each output left, kept up to date by first commits.
    package var areas: [OutputID: LayerAreas] = [:]

    /// The most layer surfaces on one output that are arranged at each change.
    package static let arrangedAtOnce = 64

    package var isEmpty: Bool { surfaces.isEmpty }
    package func count(on output: OutputID) -> Int { surfacesByOutput[output]?.count ?? 0 }
    package var all: Dictionary<ObjectIdentifier, LayerSurfaceObject>.Values { surfaces.values }

    package func add(_ layer: LayerSurfaceObject) {
        layer.order = nextOrder
        nextOrder &+= 1
        surfaces[ObjectIdentifier(layer)] = layer
        if let output = layer.output { surfacesByOutput[output, default: [:]][ObjectIdentifier(layer)] = layer }
    }

    package func remove(_ layer: LayerSurfaceObject) {
        surfaces[ObjectIdentifier(layer)] = nil
        if let output = layer.output { surfacesByOutput[output]?[ObjectIdentifier(layer)] = nil }
    }

    /// The output's layer surfaces, bottom layer first and, within a layer, oldest first:
    /// the order exclusive zones are taken in.
    package func surfaces(on output: OutputID) -> [LayerSurfaceObject] {
        (surfacesByOutput[output]?.values).map { $0.sorted { ($0.layer, $0.order) < ($1.layer, $1.order) } } ?? []
    }

    package func needsArranging(_ output: OutputID) { outputsToArrange.insert(output) }
    package func isWaiting(_ output: OutputID) -> Bool { outputsToArrange.contains(output) }
    package func arranged(_ output: OutputID) { outputsToArrange.remove(output) }

    package func outputRemoved(_ output: OutputID) {
        usableAreas[output] = nil
        areas[output] = nil
        outputsToArrange.remove(output)
    }
}

/// The area each layer's exclusive zones leave, after the layers below it and itself, as
/// the last arrangement found it: where a layer surface committed for the first time goes
/// until the next arrangement.
package struct LayerAreas {
    private var after: [Rect<OutputSpace>]
    package let whole: Rect<OutputSpace>

    package init(whole: Rect<OutputSpace>) {
        self.whole = whole
        after = Array(repeating: whole, count: StackingLayer.allCases.count)
    }

    /// Where a surface of `layer` with `placement` goes: an exclusive zone takes from what
    /// the layers up to its own left, no zone from what all of them left, a negative zone
    /// from the whole output.
    package func area(for placement: LayerPlacement, on layer: StackingLayer) -> Rect<OutputSpace> {
        placement.exclusiveZone > 0 ? after[layer.rawValue] : placement.exclusiveZone == 0 ? after[after.count - 1] : whole
    }

    /// A surface of `layer` took its exclusive zone: its layer and those above have less.
    package mutating func take(_ placement: LayerPlacement, on layer: StackingLayer) {
        guard placement.exclusiveZone > 0 else { return }
        for i in layer.rawValue..<after.count { after[i] = placement.shrink(after[i]) }
    }
}
