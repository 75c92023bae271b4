import Testing
import TouchRouterCore

/// Answer cells a window's edge crosses over a window that covers them (HitTestIndex's
/// `largerSideFirst`): the answer holds the larger side, so that most points of the cell end
/// on the query's common path, and every pixel still hits what the reference walk says.
@Suite("Hit testing where a window's edge crosses an answer cell over another window")
struct EdgeCellTests {
    func answer(_ tree: SurfaceTree, _ x0: Int, _ y0: Int) -> CachedAnswerSummary? {
        // The cell's first pixel: cells at the output's edges may be cut short.
        let point = Point<GlobalSpace>(x: Double(x0) + 0.5, y: Double(y0) + 0.5)
        _ = tree.hitTest(point)
        return tree.cachedHitTestAnswer(at: point)
    }

    @Test("an edge 2 px into a cell: the answer holds the 14 px behind it; 14 px in: the front window's; each side of a cell alike; a corner as before; every pixel as the reference says")
    func largerSide() throws {
        let harness = Harness()
        let tree = harness.tree
        let back = harness.toplevel(1, 0, 0, 400, 400)
        // Left edge at x 110: 2 px of the cell from x 96.
        let left = harness.toplevel(2, 110, 0, 200, 100)
        // Left edge at x 98: 14 px of the cell from x 96.
        let wide = harness.toplevel(3, 98, 200, 100, 100)
        // Top edge at y 126: the cell's bottom 2 rows from y 112.
        let top = harness.toplevel(4, 200, 126, 100, 50)
        // Bottom edge at y 244: the cell's top 4 rows from y 240.
        let bottom = harness.toplevel(5, 300, 50, 50, 194)
        // A corner at (358, 358): not a side, so the complement is no rectangle.
        let corner = harness.toplevel(6, 358, 358, 30, 30)

        #expect(answer(tree, 96, 32) == CachedAnswerSummary(held: back, rect: Rect(x: 0, y: 0, width: 14, height: 16), behind: left))
        #expect(answer(tree, 96, 208) == CachedAnswerSummary(held: wide, rect: Rect(x: 2, y: 0, width: 14, height: 16), behind: back))
        #expect(answer(tree, 208, 112) == CachedAnswerSummary(held: back, rect: Rect(x: 0, y: 0, width: 16, height: 14), behind: top))
        #expect(answer(tree, 304, 240) == CachedAnswerSummary(held: back, rect: Rect(x: 0, y: 4, width: 16, height: 12), behind: bottom))
        #expect(answer(tree, 352, 352) == CachedAnswerSummary(held: corner, rect: Rect(x: 6, y: 6, width: 10, height: 10), behind: back))
        for (x, y) in [(96, 32), (96, 208), (208, 112), (304, 240), (352, 352)] { agreesEverywhere(tree, x, y) }
        #expect(tree.indexConsistencyProblem() == nil)

        // Moved so that the edge lies the other way round, the answer follows.
        try tree.move(left, to: Offset(dx: 97, dy: 0))
        #expect(answer(tree, 96, 32) == CachedAnswerSummary(held: left, rect: Rect(x: 1, y: 0, width: 15, height: 16), behind: back))
        agreesEverywhere(tree, 96, 32)
        // Restacked below the window it crossed, the cell is that window's alone.
        try tree.raise(back)
        #expect(answer(tree, 96, 32) == CachedAnswerSummary(held: back, rect: Rect(x: 0, y: 0, width: 16, height: 16), behind: nil))
        agreesEverywhere(tree, 96, 32)
        #expect(tree.indexConsistencyProblem() == nil)
    }

    @Test("at the output's right and bottom edges, where cells are cut short, the sides are the cut cell's")
    func cutCells() {
        // 1000 = 62 × 16 + 8: the last column and row of cells are 8 px.
        let harness = Harness()
        let back = harness.toplevel(1, 900, 900, 100, 100)
        let front = harness.toplevel(2, 998, 900, 50, 50)
        // Cell from x 992, 8 px wide: the front window holds its last 2 px, the back its first 6.
        #expect(answer(harness.tree, 992, 912) == CachedAnswerSummary(held: back, rect: Rect(x: 0, y: 0, width: 6, height: 16), behind: front))
        agreesEverywhere(harness.tree, 992, 912)
        #expect(harness.tree.indexConsistencyProblem() == nil)
    }
}
