import Testing
import TouchRouterCore

@Suite("Touch mapping: output transforms and calibration")
struct TouchMappingTests {
    /// An 800×600 panel, the second output of a layout, so the origin matters.
    static let mode = Size(width: 800, height: 600)

    static func mapping(_ transform: OutputTransform, calibration: CalibrationMatrix = .identity) -> TouchMapping {
        let size = transform.layoutSize(of: mode)
        return TouchMapping(area: Rect(x: 1000, y: 50, width: size.width, height: size.height), transform: transform, calibration: calibration)
    }

    static func close(_ point: Point<GlobalSpace>, _ x: Double, _ y: Double, tolerance: Double = 1e-6) -> Bool {
        abs(point.x - x) <= tolerance && abs(point.y - y) <= tolerance
    }

    /// Where the panel's top-left, top-right and bottom-left corners land, as fractions of
    /// the layout rectangle, written out by hand from wl_output.transform's definitions (as
    /// Weston maps touch: with 90, the panel's right edge is the layout's top).
    static let corners: [(OutputTransform, [(Double, Double)])] = [
        (.normal, [(0, 0), (1, 0), (0, 1)]),
        (.rotated90, [(0, 1), (0, 0), (1, 1)]),
        (.rotated180, [(1, 1), (0, 1), (1, 0)]),
        (.rotated270, [(1, 0), (1, 1), (0, 0)]),
        (.flipped, [(1, 0), (0, 0), (1, 1)]),
        (.flipped90, [(1, 1), (1, 0), (0, 1)]),
        (.flipped180, [(0, 1), (1, 1), (0, 0)]),
        (.flipped270, [(0, 0), (0, 1), (1, 0)]),
    ]

    @Test("names are wl_output.transform's, numbered as the protocol numbers them", arguments: OutputTransform.allCases)
    func names(transform: OutputTransform) {
        #expect(OutputTransform(name: transform.name) == transform)
        #expect(OutputTransform(name: "sideways") == nil)
        #expect(OutputTransform.names == ["normal", "90", "180", "270", "flipped", "flipped-90", "flipped-180", "flipped-270"])
        #expect(transform.swapsAxes == [1, 3, 5, 7].contains(transform.rawValue))
    }

    @Test("a rotated output's layout size swaps width and height for 90 and 270")
    func layoutSize() {
        #expect(OutputTransform.rotated90.layoutSize(of: Self.mode) == Size(width: 600, height: 800))
        #expect(OutputTransform.flipped270.layoutSize(of: Self.mode) == Size(width: 600, height: 800))
        #expect(OutputTransform.rotated180.layoutSize(of: Self.mode) == Self.mode)
        #expect(OutputTransform.flipped.layoutSize(of: Self.mode) == Self.mode)
    }

    @Test("each transform takes the panel's corners and centre where the protocol says", arguments: corners.indices)
    func cornersAndCentre(index: Int) {
        let (transform, expected) = Self.corners[index]
        let mapping = Self.mapping(transform)
        let area = mapping.area
        for ((u, v), (fx, fy)) in zip([(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)], expected) {
            let point = mapping.map(u, v)
            #expect(Self.close(point, Double(area.x) + fx * Double(area.width), Double(area.y) + fy * Double(area.height)), "\(transform) (\(u), \(v)) → \(point)")
            #expect(area.contains(point), "\(transform): the far edge stays inside the half-open rectangle")
        }
        #expect(Self.close(mapping.map(0.5, 0.5), Double(area.x) + Double(area.width) / 2, Double(area.y) + Double(area.height) / 2))
        // A point off the centre, so that a transform that only swaps would show.
        let quarter = mapping.map(0.25, 0)
        let (fx, fy) = transform.apply(0.25, 0)
        #expect(Self.close(quarter, Double(area.x) + fx * Double(area.width), Double(area.y) + fy * Double(area.height)))
    }

    static func same(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Bool {
        abs(a.x - b.x) < 1e-12 && abs(a.y - b.y) < 1e-12
    }

    @Test("rotations compose as rotations; each flipped one, undone, un-rotates and then mirrors")
    func rotationsCompose() {
        let pairs: [(OutputTransform, OutputTransform)] = [(.flipped90, .rotated90), (.flipped180, .rotated180), (.flipped270, .rotated270), (.flipped, .normal)]
        for (u, v) in [(0.1, 0.7), (0.9, 0.2), (0.5, 0.0), (0.3, 0.3)] {
            let once = OutputTransform.rotated90.apply(u, v)
            #expect(Self.same(OutputTransform.rotated90.apply(once.x, once.y), OutputTransform.rotated180.apply(u, v)), "90 twice is 180")
            let half = OutputTransform.rotated180.apply(u, v)
            #expect(Self.same(OutputTransform.rotated90.apply(half.x, half.y), OutputTransform.rotated270.apply(u, v)), "180 then 90 is 270")
            #expect(Self.same(OutputTransform.rotated270.apply(once.x, once.y), (u, v)), "90 then 270 is nothing")
            for (flipped, rotation) in pairs {
                let unrotated = rotation.apply(u, v)
                #expect(Self.same(OutputTransform.flipped.apply(unrotated.x, unrotated.y), flipped.apply(u, v)), "\(flipped) is a mirror after \(rotation)")
            }
        }
    }

    @Test("the identity calibration changes nothing")
    func identityCalibration() {
        let mapping = TouchMapping(area: Rect(x: 0, y: 0, width: 800, height: 600))
        #expect(mapping.map(0.25, 0.75) == Point(200, 450))
        #expect(CalibrationMatrix.identity.isIdentity)
    }

    @Test("a rotation matrix as libinput documents them turns the panel by 90°")
    func rotationMatrix() {
        // libinput's matrix for a 90° clockwise rotation: u' = 1 − v, v' = u.
        let rotation = CalibrationMatrix(0, -1, 1, 1, 0, 0)
        let mapping = TouchMapping(area: Rect(x: 0, y: 0, width: 1000, height: 1000), calibration: rotation)
        #expect(Self.close(mapping.map(0, 0), 1000.0.nextDown, 0))
        #expect(Self.close(mapping.map(0.2, 0.1), 900, 200))
        #expect(Self.close(mapping.map(1, 1), 0, 1000.0.nextDown))
    }

    @Test("a scale and offset calibration shrinks the panel around its centre")
    func scaleAndOffset() {
        let mapping = TouchMapping(area: Rect(x: 100, y: 0, width: 800, height: 600), calibration: CalibrationMatrix(0.5, 0, 0.25, 0, 0.5, 0.25))
        #expect(Self.close(mapping.map(0, 0), 300, 150))
        #expect(Self.close(mapping.map(1, 1), 700, 450))
        #expect(Self.close(mapping.map(0.5, 0.5), 500, 300))
    }

    @Test("calibration then transform: libinput's 90° matrix and a 270° output make 180°")
    func composition() {
        let composed = Self.mapping(.rotated270, calibration: CalibrationMatrix(0, -1, 1, 1, 0, 0))
        let area = composed.area
        for (u, v) in [(0.1, 0.2), (0.6, 0.3), (0.5, 0.5), (0.99, 0.01)] {
            let (fx, fy) = OutputTransform.rotated180.apply(u, v)
            #expect(Self.close(composed.map(u, v), Double(area.x) + fx * Double(area.width), Double(area.y) + fy * Double(area.height)), "(\(u), \(v))")
        }
        // The calibration runs first: with it after, the scale would act on the rotated axes.
        let scaled = Self.mapping(.rotated90, calibration: CalibrationMatrix(0.5, 0, 0, 0, 1, 0))
        // Panel (1, 0) becomes (0.5, 0), which a 90° output puts at (0, 0.5) of its 600×800 rectangle.
        #expect(Self.close(scaled.map(1, 0), 1000, 50 + 400))
    }

    @Test("NaN, infinities and huge values stay inside the rectangle without a trap")
    func hostileNumbers() {
        let values: [Double] = [.nan, .infinity, -.infinity, 1e308, -1e308, .greatestFiniteMagnitude, 2, -1, .ulpOfOne]
        for transform in OutputTransform.allCases {
            for calibration in [CalibrationMatrix.identity, CalibrationMatrix(1e308, 1e308, .nan, .infinity, -1e308, 0)] {
                let mapping = Self.mapping(transform, calibration: calibration)
                for u in values {
                    for v in values {
                        let point = mapping.map(u, v)
                        #expect(mapping.area.contains(point), "\(transform) \(calibration) (\(u), \(v)) → \(point)")
                    }
                }
            }
        }
        // Outside 0…1 is clamped to the nearest edge; NaN counts as 0.
        let plain = Self.mapping(.normal)
        #expect(plain.map(-3, 0.5) == Point(1000, 50 + 300))
        #expect(plain.map(.nan, .nan) == Point(1000, 50))
        #expect(plain.map(7, 0.5) == Point(1800.0.nextDown, 350))
        // An empty rectangle maps everything onto its origin.
        #expect(TouchMapping(area: Rect(x: 5, y: 6, width: 0, height: 0)).map(0.5, 0.5) == Point(5, 6))
        #expect(TouchMapping(area: Rect(x: Int.max, y: Int.min, width: Int.max, height: 1)).map(0.5, 0.5).x.isFinite)
    }

    @Test("a singular calibration has no inverse; an invertible one has")
    func inverse() {
        #expect(CalibrationMatrix(1, 1, 0, 1, 1, 0).inverse == nil)
        #expect(CalibrationMatrix(.nan, 0, 0, 0, 1, 0).inverse == nil)
        let matrix = CalibrationMatrix(0, -1, 1, 1, 0, 0)
        let inverse = try! #require(matrix.inverse)
        let there = matrix.apply(0.3, 0.8), back = inverse.apply(there.u, there.v)
        #expect(abs(back.u - 0.3) < 1e-12 && abs(back.v - 0.8) < 1e-12)
    }

    @Test("property: mapping is invertible for every transform and calibration, over random points", arguments: OutputTransform.allCases)
    func invertible(transform: OutputTransform) throws {
        var random = SystemLikeGenerator(seed: UInt64(transform.rawValue) + 77)
        let calibrations = [CalibrationMatrix.identity, CalibrationMatrix(0, -1, 1, 1, 0, 0), CalibrationMatrix(0.5, 0, 0.25, 0, 0.5, 0.25)]
        for calibration in calibrations {
            let mapping = Self.mapping(transform, calibration: calibration)
            for _ in 0..<2000 {
                let u = Double.random(in: 0..<1, using: &random), v = Double.random(in: 0..<1, using: &random)
                let (x, y) = transform.apply(u, v)
                let (ru, rv) = transform.unapply(x, y)
                #expect(abs(ru - u) < 1e-15 && abs(rv - v) < 1e-15, "\(transform) undoes itself")
                let point = mapping.map(u, v)
                #expect(mapping.area.contains(point))
                let device = try #require(mapping.devicePosition(of: point))
                #expect(abs(device.u - u) < 1e-9 && abs(device.v - v) < 1e-9, "\(transform) \(calibration): (\(u), \(v)) → \(point) → \(device)")
            }
        }
    }
}
