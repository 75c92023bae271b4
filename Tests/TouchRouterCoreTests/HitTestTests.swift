import Testing
import TouchRouterCore

@Suite("Hit testing: the deepest, topmost surface whose input region holds the point")
struct HitTestTests {
    @Test("topmost toplevel wins; local coordinates subtract every offset")
    func topmost() {
        let h = Harness(outputs: [Rect(x: 100, y: 50, width: 1000, height: 1000)])
        h.toplevel(1, 0, 0, 500, 500)
        h.toplevel(2, 200, 200, 500, 500)
        h.subsurface(3, of: 2, 10, 20, 50, 50)
        #expect(h.hit(150, 100) == SurfaceID(1))
        #expect(h.hit(550, 500) == SurfaceID(2))
        let deep = h.tree.hitTest(Point(100 + 200 + 10 + 5.5, 50 + 200 + 20 + 7.25))
        #expect(deep?.surface == SurfaceID(3))
        #expect(deep?.local == Point(5.5, 7.25))
        #expect(h.hit(99, 60) == nil, "left of the output")
    }

    @Test("hidden, transparent, unmapped and interaction-disabled surfaces fall through, with their subtrees",
          arguments: ["hidden", "transparent", "unmapped", "interaction disabled"])
    func fallsThrough(_ kind: String) throws {
        let h = Harness()
        h.toplevel(1, 0, 0, 500, 500)
        h.toplevel(2, 100, 100, 200, 200)
        h.subsurface(3, of: 2, 50, 50, 20, 20)
        #expect(h.hit(120, 120) == SurfaceID(2))
        #expect(h.hit(155, 155) == SurfaceID(3))
        try h.tree.updateProperties(SurfaceID(2)) { p in
            switch kind {
            case "hidden": p.hidden = true
            case "transparent": p.opacity = 0.009
            case "unmapped": p.mapped = false
            default: p.interactionEnabled = false
            }
        }
        #expect(h.hit(120, 120) == SurfaceID(1))
        #expect(h.hit(155, 155) == SurfaceID(1), "the subsurface goes with its parent")
    }

    @Test("an opacity of 0.01 still takes input")
    func opacityThreshold() throws {
        let h = Harness()
        h.toplevel(1, 0, 0, 100, 100) { $0.opacity = 0.01 }
        #expect(h.hit(50, 50) == SurfaceID(1))
    }

    @Test("the input region, clipped to the surface, decides; an empty one takes nothing")
    func inputRegion() throws {
        let h = Harness()
        h.toplevel(1, 0, 0, 500, 500)
        h.toplevel(2, 100, 100, 200, 200)
        var region = Region(Rect<SurfaceSpace>(x: 0, y: 0, width: 200, height: 200))
        region.subtract(Rect(x: 50, y: 50, width: 100, height: 100))
        region.add(Rect(x: 150, y: 150, width: 500, height: 500))
        try h.tree.setInputRegion(SurfaceID(2), region)
        #expect(h.hit(110, 110) == SurfaceID(2))
        #expect(h.hit(200, 200) == SurfaceID(1), "the hole")
        #expect(h.hit(299, 299) == SurfaceID(2))
        #expect(h.hit(350, 350) == SurfaceID(1), "region beyond the surface is clipped")
        try h.tree.setInputRegion(SurfaceID(2), Region())
        #expect(h.hit(110, 110) == SurfaceID(1))
        try h.tree.setInputRegion(SurfaceID(2), nil)
        #expect(h.hit(200, 200) == SurfaceID(2))
    }

    @Test("subsurfaces below the parent lose to it; above win; place_above/below the parent reorders")
    func subsurfaceStacking() throws {
        let h = Harness()
        h.toplevel(1, 0, 0, 100, 100)
        h.subsurface(2, of: 1, 0, 0, 100, 100, below: true)
        h.subsurface(3, of: 1, 50, 0, 100, 100)
        #expect(h.hit(10, 10) == SurfaceID(1))
        #expect(h.hit(60, 10) == SurfaceID(3))
        try h.tree.place(SurfaceID(3), below: SurfaceID(1))
        #expect(h.hit(60, 10) == SurfaceID(1))
        #expect(h.hit(120, 10) == SurfaceID(3), "outside the parent a subsurface still takes input")
        try h.tree.place(SurfaceID(2), above: SurfaceID(1))
        #expect(h.hit(10, 10) == SurfaceID(2))
        #expect(h.tree.subsurfaces(of: SurfaceID(1)).above == [SurfaceID(2)])
        #expect(h.tree.subsurfaces(of: SurfaceID(1)).below == [SurfaceID(3)])
        try h.tree.place(SurfaceID(3), above: SurfaceID(2))
        #expect(h.hit(60, 10) == SurfaceID(3))
        #expect(throws: SurfaceTreeError.self) { try h.tree.place(SurfaceID(3), above: SurfaceID(99)) }
    }

    @Test("popups go above their parent and its subsurfaces, even outside it")
    func popups() throws {
        let h = Harness()
        h.toplevel(1, 100, 100, 200, 200)
        h.subsurface(2, of: 1, 0, 0, 200, 200)
        h.popup(3, of: 2, -50, 150, 100, 100)
        #expect(h.hit(60, 260) == SurfaceID(3))
        #expect(h.hit(120, 260) == SurfaceID(3))
        #expect(h.hit(160, 150) == SurfaceID(2))
        let hit = h.tree.hitTest(Point(60, 260))
        #expect(hit?.local == Point(10, 10))
    }

    @Test("raise, lower and place reorder toplevels")
    func toplevelStacking() throws {
        let h = Harness()
        for id: UInt32 in 1...3 { h.toplevel(id, 0, 0, 100, 100) }
        #expect(h.hit(50, 50) == SurfaceID(3))
        try h.tree.raise(SurfaceID(1))
        #expect(h.hit(50, 50) == SurfaceID(1))
        try h.tree.lower(SurfaceID(1))
        #expect(h.hit(50, 50) == SurfaceID(3))
        try h.tree.place(SurfaceID(1), above: SurfaceID(3))
        #expect(h.hit(50, 50) == SurfaceID(1))
        try h.tree.place(SurfaceID(1), below: SurfaceID(2))
        #expect(h.tree.output(OutputID(1))?.toplevels == [SurfaceID(1), SurfaceID(2), SurfaceID(3)])
        #expect(h.tree.indexConsistencyProblem() == nil)
    }

    @Test("toplevelBehind: a surface's toplevel when it is not the front of its output, else nil")
    func toplevelBehind() throws {
        let h = Harness()
        for id: UInt32 in 1...2 { h.toplevel(id, 0, 0, 100, 100) }
        #expect(h.tree.toplevelBehind(of: SurfaceID(1)) == SurfaceID(1))
        #expect(h.tree.toplevelBehind(of: SurfaceID(2)) == nil, "the front toplevel")
        #expect(h.tree.toplevelBehind(of: SurfaceID(9)) == nil, "no such surface")
        try h.tree.raise(SurfaceID(1))
        #expect(h.tree.toplevelBehind(of: SurfaceID(1)) == nil)
        #expect(h.tree.toplevelBehind(of: SurfaceID(2)) == SurfaceID(2))
    }

    @Test("moving, resizing and removing update the index in place")
    func incremental() throws {
        let h = Harness()
        h.toplevel(1, 0, 0, 100, 100)
        h.subsurface(2, of: 1, 90, 90, 50, 50)
        try h.tree.move(SurfaceID(1), to: Offset(dx: 500, dy: 500))
        #expect(h.hit(50, 50) == nil)
        #expect(h.hit(550, 550) == SurfaceID(1))
        #expect(h.hit(630, 630) == SurfaceID(2))
        try h.tree.resize(SurfaceID(2), to: Size(width: 10, height: 10))
        #expect(h.hit(630, 630) == nil)
        let removed = try h.tree.remove(SurfaceID(1))
        #expect(removed == [SurfaceID(2), SurfaceID(1)])
        #expect(h.hit(550, 550) == nil)
        #expect(h.tree.indexConsistencyProblem() == nil)
    }

    @Test("cached answers: an answer cell split by one edge answers both sides, and a move drops the answers under it")
    func cachedAnswers() throws {
        let h = Harness()
        h.toplevel(1, 0, 0, 300, 300)
        // Its left edge runs through the middle of the 16-px answer cell at x 96..<112.
        h.toplevel(2, 104, 0, 100, 100)
        #expect(h.hit(100, 50) == SurfaceID(1))
        #expect(h.hit(108, 50) == SurfaceID(2))
        #expect(h.tree.hitTest(Point(103.75, 50))?.local == Point(103.75, 50))
        #expect(h.tree.hitTest(Point(104.25, 50))?.local == Point(0.25, 50))
        let counts = h.tree.cachedHitTestCounts()
        #expect(counts.current == 1, "the four queries share one answer cell")
        #expect(counts.mixed == 0, "one edge leaves the cell answered: front, then what lies behind")
        #expect(h.tree.indexConsistencyProblem() == nil)

        try h.tree.move(SurfaceID(2), to: Offset(dx: 400, dy: 0))
        #expect(h.tree.cachedHitTestCounts().current == 0)
        #expect(h.hit(108, 50) == SurfaceID(1))
        h.subsurface(3, of: 1, 100, 40, 4, 4)
        #expect(h.hit(108, 50) == SurfaceID(1))
        #expect(h.hit(101, 41) == SurfaceID(3))
        #expect(h.tree.cachedHitTestCounts().mixed == 0, "the subsurface lies in front of its parent's whole cell")
        h.subsurface(4, of: 1, 98, 46, 4, 4)
        #expect(h.hit(99, 47) == SurfaceID(4))
        #expect(h.hit(101, 41) == SurfaceID(3))
        #expect(h.hit(110, 58) == SurfaceID(1))
        #expect(h.tree.cachedHitTestCounts().mixed == 1, "two partial surfaces in one cell leave it to the grid's walk")
        #expect(h.tree.indexConsistencyProblem() == nil)
    }

    @Test("each output is a root; toplevels do not reach past their output")
    func outputs() throws {
        let h = Harness(outputs: [Rect(x: 0, y: 0, width: 100, height: 100), Rect(x: 100, y: 0, width: 100, height: 100)])
        h.toplevel(1, 50, 0, 100, 100, output: 1)
        h.toplevel(2, 0, 0, 100, 100, output: 2)
        #expect(h.hit(75, 50) == SurfaceID(1))
        #expect(h.hit(125, 50) == SurfaceID(2), "the part of 1 hanging off output 1 takes nothing")
        try h.tree.removeOutput(OutputID(2))
        #expect(!h.tree.contains(SurfaceID(2)))
        #expect(h.hit(125, 50) == nil)
    }

    @Test("bad operations throw and change nothing")
    func errors() throws {
        let h = Harness()
        h.toplevel(1, 0, 0, 100, 100)
        #expect(throws: SurfaceTreeError.duplicateSurface(SurfaceID(1))) {
            try h.tree.addToplevel(SurfaceID(1), client: ClientID(1), output: OutputID(1), position: .zero, size: Size(width: 1, height: 1))
        }
        #expect(throws: SurfaceTreeError.unknownOutput(OutputID(9))) {
            try h.tree.addToplevel(SurfaceID(2), client: ClientID(1), output: OutputID(9), position: .zero, size: Size(width: 1, height: 1))
        }
        #expect(throws: SurfaceTreeError.negativeSize(Size(width: -1, height: 1))) { try h.tree.resize(SurfaceID(1), to: Size(width: -1, height: 1)) }
        #expect(throws: SurfaceTreeError.unknownSurface(SurfaceID(7))) { try h.tree.move(SurfaceID(7), to: .zero) }
        #expect(h.hit(50, 50) == SurfaceID(1))
        #expect(h.tree.surfaceCount == 1)
    }

    @Test("changes inside a toplevel between two hit tests cost one flattening of it, however many there were, and the answer is the new one")
    func flattenOncePerQuestion() throws {
        let h = Harness()
        h.toplevel(1, 0, 0, 800, 800)
        #expect(h.hit(10, 10) == SurfaceID(1))
        let before = h.tree.hitTestFlattenings
        for i in 0..<1000 {
            h.subsurface(UInt32(100 + i), of: 1, (i % 40) * 20, (i / 40) * 20, 10, 10)
            try h.tree.resize(SurfaceID(1), to: Size(width: 800, height: 800 - i % 2))
        }
        #expect(h.tree.hitTestFlattenings == before, "nothing asked yet")
        #expect(h.hit(25, 25) == SurfaceID(141))
        #expect(h.tree.hitTestFlattenings == before + 1)
        #expect(h.tree.indexConsistencyProblem() == nil)
    }

    @Test("a surface nested past SurfaceTree.maximumDepth is refused, and a chain at the limit is hit at its leaf")
    func nestingLimit() throws {
        let h = Harness()
        h.toplevel(1, 0, 0, 100, 100)
        var parent: UInt32 = 1
        for depth in 1...SurfaceTree.maximumDepth {
            parent = h.subsurface(UInt32(1 + depth), of: parent, 0, 0, 100 - depth, 100 - depth).raw
        }
        #expect(throws: SurfaceTreeError.tooDeep(SurfaceID(999), limit: SurfaceTree.maximumDepth)) {
            try h.tree.addSubsurface(SurfaceID(999), client: h.client(1), parent: SurfaceID(parent), position: .zero, size: Size(width: 1, height: 1))
        }
        #expect(h.hit(1, 1) == SurfaceID(parent))
        try h.tree.remove(SurfaceID(1))
        #expect(h.tree.surfaceCount == 0)
    }
}

@Suite("Moving a toplevel to another output")
struct MoveToplevelTests {
    @Test("The window and what is on it are hit on the new output, on top of its stack, and no longer on the old one; a subsurface cannot be moved so")
    func moveAcrossOutputs() throws {
        let h = Harness(outputs: [Rect(x: 0, y: 0, width: 100, height: 100), Rect(x: 100, y: 0, width: 100, height: 100)])
        let (window, child, other) = (SurfaceID(1), SurfaceID(2), SurfaceID(3))
        try h.tree.addToplevel(window, client: ClientID(1), output: OutputID(2), position: Offset(dx: 10, dy: 10), size: Size(width: 50, height: 50))
        try h.tree.addSubsurface(child, client: ClientID(1), parent: window, position: Offset(dx: 40, dy: 40), size: Size(width: 30, height: 30))
        try h.tree.addToplevel(other, client: ClientID(2), output: OutputID(1), position: Offset(dx: 0, dy: 0), size: Size(width: 100, height: 100))
        h.tree.settleIndex()
        #expect(h.tree.hitTest(Point(120, 20))?.surface == window)
        try h.tree.moveToplevel(window, to: OutputID(1), position: Offset(dx: 5, dy: 5))
        h.tree.settleIndex()
        #expect(h.tree.hitTest(Point(120, 20)) == nil, "gone from the second output")
        #expect(h.tree.hitTest(Point(10, 10))?.surface == window, "above the first output's window")
        #expect(h.tree.hitTest(Point(50, 50))?.surface == child, "its subsurface came with it")
        #expect(h.tree.outputOf(child) == OutputID(1))
        #expect(h.tree.output(OutputID(1))?.toplevels == [other, window])
        #expect(h.tree.output(OutputID(2))?.toplevels == [])
        #expect(throws: SurfaceTreeError.wrongRole(child, expected: .toplevel)) { try h.tree.moveToplevel(child, to: OutputID(2), position: .zero) }
        #expect(throws: SurfaceTreeError.unknownOutput(OutputID(9))) { try h.tree.moveToplevel(window, to: OutputID(9), position: .zero) }
        // Now the old output can go without taking the window with it.
        try h.tree.removeOutput(OutputID(2))
        #expect(h.tree.surface(window) != nil)
    }
}
