import Testing
import TouchRouterCore

/// Mixed answer cells (HitTestIndexMixedCells.swift): where windows' edges meet inside one
/// 16-px answer cell, the cell's short list answers every pixel as the reference walk does.
@Suite("Hit testing in mixed answer cells: the short list agrees with the reference at every pixel")
struct MixedCellTests {
    @Test("three windows' corners and a gap in one cell: each pixel hits the right window or nothing; after a move and a restack too; the cell is mixed and its list checked")
    func cornersMeet() throws {
        let harness = Harness()
        let tree = harness.tree
        // Cell (96, 96)-(112, 112): a's corner at (100, 100), b over its right part from x 106,
        // c below from y 108 up to x 104, a gap at the cell's top right.
        harness.toplevel(1, 0, 0, 100, 100)
        harness.toplevel(2, 106, 0, 100, 104)
        harness.toplevel(3, 0, 108, 104, 100)
        agreesEverywhere(tree, 96, 96)
        agreesEverywhere(tree, 96, 96)
        #expect(tree.cachedHitTestCounts().mixed >= 1)
        #expect(tree.indexConsistencyProblem() == nil)
        #expect(tree.hitTest(Point(x: 110.5, y: 106.5)) == nil, "the gap between b and c hits nothing")
        try tree.move(SurfaceID(2), to: Offset(dx: 98, dy: 0))
        agreesEverywhere(tree, 96, 96)
        try tree.raise(SurfaceID(1))
        agreesEverywhere(tree, 96, 96)
        #expect(tree.indexConsistencyProblem() == nil)
    }

    @Test("more windows' edges in one cell than a list holds: the cell walks the grid, and still agrees")
    func overflowingCell() {
        let harness = Harness()
        // Twelve windows 1 px wide side by side across the cell at (192, 192): twelve rectangles, past the list's eight.
        for i in 0..<12 { harness.toplevel(UInt32(10 + i), 192 + i, 194, 1, 10) }
        agreesEverywhere(harness.tree, 192, 192)
        agreesEverywhere(harness.tree, 192, 192)
        #expect(harness.tree.indexConsistencyProblem() == nil)
    }
    @Test("an output wider than 65,535 px, past the query's fast conversion: points beyond it hit what the reference says, edges and all")
    func outputPastSixteenBits() throws {
        let harness = Harness(outputs: [Rect(x: 0, y: 0, width: 70_000, height: 64)])
        harness.toplevel(1, 65_530, 4, 20, 20)
        harness.toplevel(2, 69_000, 8, 500, 30)
        harness.toplevel(3, 10, 10, 30, 30)
        agreesEverywhere(harness.tree, 65_520, 0)
        agreesEverywhere(harness.tree, 65_536, 16)
        agreesEverywhere(harness.tree, 69_488, 32)
        agreesEverywhere(harness.tree, 0, 0)
        #expect(harness.tree.hitTest(Point(x: 69_400.5, y: 20.5))?.surface == SurfaceID(2))
        #expect(harness.tree.hitTest(Point(x: 65_540.5, y: 10.5))?.surface == SurfaceID(1))
        #expect(harness.tree.indexConsistencyProblem() == nil)
    }
}
