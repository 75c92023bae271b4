import CGridFloor
import TouchRouterCore

/// The C grid floor (Sources/CGridFloor) over one output: each toplevel's own rectangle, front
/// to back, in a grid of 128-px cells, and nothing else (no subsurfaces, no input regions). What
/// `bench hit-test` compares the index with, on the same scene and points.
public final class GridFloor {
    private let floor: OpaquePointer
    /// The output the floor covers, in the layout.
    public let area: Rect<GlobalSpace>
    public let windows: Int

    /// Nil where the floor cannot stand in: a tree of more or fewer outputs than one, or an
    /// output past the floor's 65,536 px (or no memory).
    public init?(tree: SurfaceTree) {
        let outputs = tree.outputs
        guard outputs.count == 1, let output = outputs.first else { return nil }
        var rects: [Double] = []
        for id in output.toplevels.reversed() {
            guard let top = tree.surface(id) else { continue }
            let x = Double(top.originInOutput.dx), y = Double(top.originInOutput.dy)
            rects += [x, y, x + Double(top.size.width), y + Double(top.size.height)]
        }
        guard let width = Int32(exactly: output.rect.width), let height = Int32(exactly: output.rect.height),
              let made = grid_floor_create(rects, rects.count / 4, width, height) else { return nil }
        floor = made
        area = output.rect
        windows = rects.count / 4
    }

    deinit { grid_floor_destroy(floor) }

    /// The window holding `point`, counted from 1, front first; 0 for none.
    public func window(at point: Point<GlobalSpace>) -> Int {
        Int(grid_floor_query(floor, point.x - Double(area.x), point.y - Double(area.y)))
    }

    /// Whether every point is on the floor's output, which its loop does not test.
    public func covers(_ points: [Point<GlobalSpace>]) -> Bool {
        points.allSatisfy { $0.x >= Double(area.x) && $0.y >= Double(area.y) && $0.x < Double(area.x + area.width) && $0.y < Double(area.y + area.height) }
    }

    /// Queries every point once, each relative to the floor's output, and returns the answers'
    /// sum. On an output at the layout's origin the floor reads the points where they are, as
    /// the index does, when a point is laid out as two Doubles, x first; otherwise it reads
    /// a copy, made before the clock starts by `prepared(_:)`.
    public func run(_ points: UnsafeBufferPointer<Point<GlobalSpace>>, prepared copy: [Double]?) -> UInt64 {
        if let copy { return grid_floor_run(floor, copy, copy.count / 2, 1) }
        guard let base = points.baseAddress else { return 0 }
        return grid_floor_run(floor, UnsafeRawPointer(base).assumingMemoryBound(to: Double.self), points.count, 1)
    }

    /// Nil where `run` can read the points themselves; else the copy it reads.
    public func prepared(_ points: [Point<GlobalSpace>]) -> [Double]? {
        let layout = MemoryLayout<Point<GlobalSpace>>.self
        if area.x == 0, area.y == 0, layout.stride == 16, layout.offset(of: \.x) == 0, layout.offset(of: \.y) == 8 { return nil }
        return points.flatMap { [$0.x - Double(area.x), $0.y - Double(area.y)] }
    }
}
