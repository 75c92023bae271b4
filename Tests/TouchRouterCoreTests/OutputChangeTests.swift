import TouchRouterCore
import TouchRouterReplay
import Testing

@Suite("Outputs reconfigured while running: the tree's index follows the new rectangle, and fingers down on the output are cancelled")
struct OutputChangeTests {
    @Test("a landscape output turned to portrait: the hit test and the reference agree on the new rectangle, a window keeps its place in it, and an output right of it moves")
    func rectangleChanges() throws {
        let h = Harness(outputs: [Rect(x: 0, y: 0, width: 1000, height: 600), Rect(x: 1000, y: 0, width: 500, height: 500)])
        let app = h.toplevel(1, 100, 100, 300, 300)
        let other = h.toplevel(2, 0, 0, 500, 500, output: 2)
        #expect(h.tree.hitTest(Point(900, 300)) == nil)
        try h.tree.setOutputRect(OutputID(1), Rect(x: 0, y: 0, width: 600, height: 1000))
        try h.tree.setOutputRect(OutputID(2), Rect(x: 600, y: 0, width: 500, height: 500))
        for (x, y, expected) in [(200.0, 200.0, app), (200, 800, nil), (650, 100, other), (1150, 100, nil), (599, 999, nil)] as [(Double, Double, SurfaceID?)] {
            #expect(h.tree.hitTest(Point(x, y))?.surface == expected, "at (\(x), \(y))")
            #expect(h.tree.referenceHitTest(Point(x, y))?.surface == expected, "the reference at (\(x), \(y))")
        }
        #expect(h.tree.output(OutputID(1))?.rect == Rect(x: 0, y: 0, width: 600, height: 1000))
        #expect(throws: SurfaceTreeError.unknownOutput(OutputID(7))) { try h.tree.setOutputRect(OutputID(7), Rect(x: 0, y: 0, width: 1, height: 1)) }
    }

    @Test("a finger down on an output that is reconfigured is cancelled, and the rest of its sequence reaches nobody; a finger on another output goes on")
    func touchesCancelled() throws {
        let h = Harness(outputs: [Rect(x: 0, y: 0, width: 1000, height: 600), Rect(x: 1000, y: 0, width: 500, height: 500)])
        let app = h.toplevel(1, 0, 0, 1000, 600)
        let other = h.toplevel(2, 0, 0, 500, 500, output: 2)
        h.down(1, 500, 300)
        h.down(2, 1100, 100)
        _ = h.delivery.take()
        try h.tree.setOutputRect(h.output, Rect(x: 0, y: 0, width: 600, height: 1000))
        h.router.outputReconfigured(h.output)
        #expect(h.delivery.take() == [.touchCancel(h.client(1))])
        h.move(1, 300, 700)
        h.up(1)
        #expect(h.delivery.take() == [], "the cancelled finger's motion and up reach nobody")
        #expect(h.log.records.suffix(2).map(\.outcome) == [.dropped(.outputChanged), .dropped(.outputChanged)])
        #expect(DropReason.outputChanged.description == "its output was reconfigured under it")
        h.move(2, 1110, 110)
        #expect(h.delivery.take() == [.touchMotion(other, TouchID(2), Point(110, 110))], "a finger on the other output is untouched")
        h.up(2)
        _ = h.delivery.take()
        h.down(3, 300, 300)
        #expect(h.delivery.take() == [.touchDown(app, TouchID(3), Point(300, 300))], "a new finger on the turned output reaches the window")
    }
}
