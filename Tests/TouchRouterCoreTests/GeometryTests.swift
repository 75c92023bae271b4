import Testing
import TouchRouterCore

@Suite("Geometry and regions")
struct GeometryTests {
    typealias R = Rect<SurfaceSpace>

    @Test("rectangles are half-open")
    func halfOpen() {
        let rect = R(x: 10, y: 20, width: 30, height: 40)
        #expect(rect.contains(.at(10, 20)))
        #expect(rect.contains(.at(39.99, 59.99)))
        #expect(!rect.contains(.at(40, 30)))
        #expect(!rect.contains(.at(20, 60)))
        #expect(!rect.contains(.at(9.99, 30)))
    }

    @Test("add unites without overlap, as wl_region.add")
    func add() {
        var region = Region(R(x: 0, y: 0, width: 10, height: 10))
        region.add(R(x: 5, y: 5, width: 10, height: 10))
        #expect(region.area == 175)
        #expect(region.contains(.at(12, 12)))
        #expect(region.contains(.at(2, 2)))
        #expect(!region.contains(.at(12, 2)))
        for (i, a) in region.rects.enumerated() {
            for b in region.rects[(i + 1)...] { #expect(a.intersection(b) == nil) }
        }
    }

    @Test("subtract cuts a hole, as wl_region.subtract")
    func subtract() {
        var region = Region(R(x: 0, y: 0, width: 100, height: 100))
        region.subtract(R(x: 40, y: 40, width: 20, height: 20))
        #expect(region.area == 10_000 - 400)
        #expect(!region.contains(.at(50, 50)))
        #expect(region.contains(.at(39, 50)))
        #expect(region.contains(.at(60, 50)))
        region.subtract(R(x: -10, y: -10, width: 500, height: 500))
        #expect(region.isEmpty)
    }

    @Test("intersect keeps only the common points")
    func intersect() {
        var region = Region(rects: [R(x: 0, y: 0, width: 10, height: 10), R(x: 20, y: 0, width: 10, height: 10)])
        region.intersect(R(x: 5, y: 5, width: 20, height: 20))
        #expect(region.area == 25 + 25)
        #expect(region.contains(.at(7, 7)))
        #expect(region.contains(.at(22, 7)))
        #expect(!region.contains(.at(15, 7)))
        var other = Region(R(x: 0, y: 0, width: 8, height: 8))
        other.intersect(region)
        #expect(other.area == 9)
    }

    @Test("same points, different rectangles, compare equal by coverage")
    func coverage() {
        let a = Region(rects: [R(x: 0, y: 0, width: 10, height: 5), R(x: 0, y: 5, width: 10, height: 5)])
        let b = Region(R(x: 0, y: 0, width: 10, height: 10))
        #expect(a.coversSamePoints(as: b))
        #expect(!a.coversSamePoints(as: Region(R(x: 0, y: 0, width: 10, height: 9))))
        #expect(a.extents == R(x: 0, y: 0, width: 10, height: 10))
    }

    @Test("empty rectangles add nothing")
    func emptyRects() {
        var region = Region<SurfaceSpace>()
        region.add(R(x: 5, y: 5, width: 0, height: 10))
        #expect(region.isEmpty)
        #expect(!region.contains(.at(5, 5)))
    }
}
