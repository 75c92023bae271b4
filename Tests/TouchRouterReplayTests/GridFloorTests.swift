import Testing
import TouchRouterBench
import TouchRouterCore

/// The C grid floor `bench hit-test` times beside the index: it must answer the same question,
/// or its figure would be a floor of something else.
@Suite("bench hit-test's C grid floor")
struct GridFloorTests {
    @Test("the front window where two overlap, the one behind beside it, nothing elsewhere; windows partly off the output clipped")
    func answers() throws {
        let tree = SurfaceTree()
        try tree.addOutput(OutputID(1), name: "A", rect: Rect(x: 0, y: 0, width: 1000, height: 700))
        // Bottom first: 1 is behind 2; 3 hangs off the output's right edge, over two grid cells.
        try tree.addToplevel(SurfaceID(1), client: ClientID(1), output: OutputID(1), position: Offset(dx: 100, dy: 100), size: Size(width: 300, height: 200))
        try tree.addToplevel(SurfaceID(2), client: ClientID(2), output: OutputID(1), position: Offset(dx: 300, dy: 200), size: Size(width: 300, height: 200))
        try tree.addToplevel(SurfaceID(3), client: ClientID(3), output: OutputID(1), position: Offset(dx: 900, dy: 600), size: Size(width: 300, height: 300))
        let floor = try #require(GridFloor(tree: tree))
        #expect(floor.windows == 3)
        // Counted from 1, front first: 3, then 2, then 1.
        #expect(floor.window(at: Point(350, 250)) == 2, "the overlap is the front window's")
        #expect(floor.window(at: Point(150, 150)) == 3, "beside it, the window behind")
        #expect(floor.window(at: Point(650, 250)) == 0)
        #expect(floor.window(at: Point(999.75, 699.75)) == 1)
        #expect(floor.window(at: Point(1000, 650)) == 0, "off the output")
        #expect(floor.window(at: Point(-0.25, 150)) == 0)
        // Its loop, over the same points, sums the same answers.
        let points = [Point<GlobalSpace>(350, 250), Point(150, 150), Point(650, 250), Point(999.75, 699.75)]
        #expect(floor.covers(points))
        let sum = points.withUnsafeBufferPointer { floor.run($0, prepared: floor.prepared(points)) }
        #expect(sum == 2 + 3 + 0 + 1)
        #expect(!floor.covers([Point(1000, 10)]))
    }

    @Test("on an output away from the layout's origin it reads a copy of the points, relative to the output, and answers the same")
    func movedOutput() throws {
        let tree = SurfaceTree()
        try tree.addOutput(OutputID(2), name: "B", rect: Rect(x: 2000, y: 100, width: 640, height: 480))
        try tree.addToplevel(SurfaceID(1), client: ClientID(1), output: OutputID(2), position: Offset(dx: 10, dy: 10), size: Size(width: 100, height: 100))
        let floor = try #require(GridFloor(tree: tree))
        let points = [Point<GlobalSpace>(2050, 150), Point(2300, 300)]
        #expect(floor.window(at: points[0]) == 1 && floor.window(at: points[1]) == 0)
        let copy = try #require(floor.prepared(points))
        #expect(copy == [50, 50, 300, 200])
        #expect(points.withUnsafeBufferPointer { floor.run($0, prepared: copy) } == 1)
    }

    @Test("no floor for two outputs: it covers one area")
    func twoOutputs() throws {
        let tree = SurfaceTree()
        try tree.addOutput(OutputID(1), name: "A", rect: Rect(x: 0, y: 0, width: 640, height: 480))
        try tree.addOutput(OutputID(2), name: "B", rect: Rect(x: 640, y: 0, width: 640, height: 480))
        #expect(GridFloor(tree: tree) == nil)
    }
}
