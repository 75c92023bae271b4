import Testing
import TouchRouterCore

@Suite("Layers: layer-shell's stacking around windows, and placement by anchors, margins and exclusive zones")
struct LayerTests {
    private func add(_ tree: SurfaceTree, _ id: UInt32, _ layer: StackingLayer, _ rect: Rect<OutputSpace> = Rect(x: 0, y: 0, width: 100, height: 100)) throws {
        try tree.addToplevel(SurfaceID(id), client: ClientID(id), output: OutputID(1), position: Offset(dx: rect.x, dy: rect.y),
                             size: Size(width: rect.width, height: rect.height), layer: layer)
    }

    private func stack(_ tree: SurfaceTree) -> [UInt32] {
        tree.output(OutputID(1))!.toplevels.map { $0.raw }
    }

    @Test("toplevels stay between bottom and top whatever order they arrive in, and raising keeps a surface in its layer")
    func stacking() throws {
        let tree = SurfaceTree()
        try tree.addOutput(OutputID(1), name: "OUT-1", rect: Rect(x: 0, y: 0, width: 1000, height: 1000))
        try add(tree, 1, .overlay)
        try add(tree, 2, .windows)
        try add(tree, 3, .background)
        try add(tree, 4, .top)
        try add(tree, 5, .bottom)
        try add(tree, 6, .windows)
        #expect(stack(tree) == [3, 5, 2, 6, 4, 1])
        try tree.raise(SurfaceID(2))
        #expect(stack(tree) == [3, 5, 6, 2, 4, 1], "a raised window stays below the top layer")
        try tree.lower(SurfaceID(6))
        #expect(stack(tree) == [3, 5, 6, 2, 4, 1], "the lowest window stays above the bottom layer")
        try tree.lower(SurfaceID(2))
        #expect(stack(tree) == [3, 5, 2, 6, 4, 1])
        #expect(throws: SurfaceTreeError.notASibling(SurfaceID(2), of: SurfaceID(4))) { try tree.place(SurfaceID(2), above: SurfaceID(4)) }
        try tree.setLayer(SurfaceID(4), .background)
        #expect(stack(tree) == [3, 4, 5, 2, 6, 1])
        #expect(tree.layer(of: SurfaceID(4)) == .background)
        #expect(tree.surface(SurfaceID(1))?.layer == .overlay)
    }

    @Test("hit testing follows the layers: overlay over a window, a window over the bottom layer")
    func hitTesting() throws {
        let tree = SurfaceTree()
        try tree.addOutput(OutputID(1), name: "OUT-1", rect: Rect(x: 0, y: 0, width: 1000, height: 1000))
        try add(tree, 1, .overlay, Rect(x: 0, y: 0, width: 50, height: 50))
        try add(tree, 2, .bottom, Rect(x: 0, y: 0, width: 500, height: 500))
        try add(tree, 3, .windows, Rect(x: 0, y: 0, width: 200, height: 200))
        #expect(tree.hitTest(Point(10, 10))?.surface == SurfaceID(1))
        #expect(tree.hitTest(Point(100, 100))?.surface == SurfaceID(3))
        #expect(tree.hitTest(Point(300, 300))?.surface == SurfaceID(2))
        #expect(tree.referenceHitTest(Point(100, 100))?.surface == SurfaceID(3))
        try tree.setLayer(SurfaceID(2), .top)
        #expect(tree.hitTest(Point(100, 100))?.surface == SurfaceID(2))
        #expect(tree.indexConsistencyProblem() == nil)
    }

    private let output = Rect<OutputSpace>(x: 0, y: 0, width: 1920, height: 1080)

    @Test("anchors and margins place a surface; 0 across both anchored edges stretches; unanchored axes centre")
    func placement() {
        let corner = LayerPlacement(size: Size(width: 200, height: 100), anchor: [.bottom, .right], margins: .init(right: 10, bottom: 20))
        #expect(corner.rect(in: output) == Rect(x: 1710, y: 960, width: 200, height: 100))
        let bar = LayerPlacement(size: Size(width: 0, height: 30), anchor: [.top, .left, .right], margins: .init(top: 5, right: 7, left: 3))
        #expect(bar.rect(in: output) == Rect(x: 3, y: 5, width: 1910, height: 30))
        let centred = LayerPlacement(size: Size(width: 100, height: 100))
        #expect(centred.rect(in: output) == Rect(x: 910, y: 490, width: 100, height: 100))
        let full = LayerPlacement(anchor: .all)
        #expect(full.rect(in: output) == output)
        let huge = LayerPlacement(anchor: [.left, .right], margins: .init(right: Int(Int32.max), left: Int(Int32.max)))
        #expect(huge.rect(in: output).width == 0, "margins past the output leave a width of 0, not a negative one")
    }

    @Test("exclusive zones shrink the usable area on their edge only; 0 keeps out of them, -1 ignores them")
    func exclusiveZones() {
        let top = LayerPlacement(size: Size(width: 0, height: 30), anchor: [.top, .left, .right], margins: .init(top: 4), exclusiveZone: 30)
        let left = LayerPlacement(size: Size(width: 60, height: 0), anchor: [.left, .top, .bottom], exclusiveZone: 60)
        let corner = LayerPlacement(size: Size(width: 10, height: 10), anchor: [.top, .left], exclusiveZone: 0)
        let behind = LayerPlacement(anchor: .all, exclusiveZone: -1)
        let noEdge = LayerPlacement(size: Size(width: 10, height: 10), anchor: [.top, .bottom], exclusiveZone: 500)
        let (rects, usable) = LayerPlacement.arrange([top, left, corner, behind, noEdge], on: output)
        #expect(usable == Rect(x: 60, y: 34, width: 1860, height: 1046))
        #expect(rects[0] == Rect(x: 0, y: 4, width: 1920, height: 30))
        #expect(rects[1] == Rect(x: 0, y: 34, width: 60, height: 1046), "the second zone is placed inside what the first left")
        #expect(rects[2] == Rect(x: 60, y: 34, width: 10, height: 10))
        #expect(rects[3] == output)
        #expect(noEdge.exclusiveEdge == nil)
        #expect(LayerPlacement(anchor: [.bottom, .left], exclusiveZone: 1).exclusiveEdge == nil, "a corner has no edge")
        let greedy = LayerPlacement(size: Size(width: 0, height: 10), anchor: [.bottom], exclusiveZone: Int(Int32.max))
        #expect(greedy.shrink(output) == Rect(x: 0, y: 0, width: 1920, height: 0))
        let negative = LayerPlacement(size: Size(width: 10, height: 0), anchor: [.right, .top, .bottom], margins: .init(right: Int(Int32.min)), exclusiveZone: Int(Int32.max))
        #expect(negative.shrink(output) == output, "a zone less a larger negative margin takes nothing, and gives nothing")
    }
}
