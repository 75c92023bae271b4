#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TouchRouterCore

/// Measures the hit-test index against the reference walk on the same scene and points.
public struct HitTestBenchmark {
    public struct Percentiles: Sendable {
        /// Median over runs of (run time / queries).
        public var medianNanoseconds: Double
        public var p50Nanoseconds: Double
        public var p99Nanoseconds: Double
        public var queries: Int
    }

    public struct Report: Sendable {
        public var label: String
        public var leaves: Int
        public var toplevels: Int
        public var surfaces: Int
        public var seed: UInt64
        public var cellSize: Int
        public var buildMilliseconds: Double
        public var index: [String: Percentiles]
        public var reference: [String: Percentiles]
        public var missPointsOnOutput: Int
        /// After the random points: answer cells with a cached answer, and how many are mixed.
        public var answerCells: Int
        public var mixedAnswerCells: Int
        public var moveRandom: Percentiles
        public var moveDrag: Percentiles
        /// Every point checked after the moves gave the same answer from both.
        public var agreed: Bool
        /// The index beside the C grid floor on the random points; nil where the floor cannot
        /// stand in (see `GridFloor`).
        public var floor: FloorComparison?
    }

    /// The index and the C grid floor on the same random points, a whole run of each in turn
    /// (which goes first alternating), each after an untimed run of its own, so that both
    /// medians come from the same minutes and each is its steady state.
    public struct FloorComparison: Sendable {
        public var windows: Int
        public var floorMedianNanoseconds: Double
        public var indexMedianNanoseconds: Double
        public var ratio: Double { indexMedianNanoseconds / floorMedianNanoseconds }
    }

    public static let batch = 32

    public var runs = 7
    public var queries = 65_536
    /// The reference walk is slow on large scenes: it gets this many seconds per point set.
    public var referenceBudgetSeconds = 0.4
    public var moves = 20_000
    /// Skips timing the reference walk, which takes minutes on large scenes.
    public var indexOnly = false

    public init() {}

    /// Times one scene. `build` makes the tree (timed as the index build) and names the toplevels.
    public func run(label: String, leaves: Int, seed: UInt64, build: () -> (SurfaceTree, [SurfaceID])) -> Report {
        let buildStart = Stopwatch.now()
        let (tree, toplevels) = build()
        let buildNanoseconds = Stopwatch.now() - buildStart
        var generator = SeededGenerator(seed: seed ^ 0x5EED)

        let outputs = tree.outputs
        let random = (0..<queries).map { _ in Self.randomPoint(on: outputs, using: &generator) }
        let misses = Self.missPoints(tree: tree, outputs: outputs, wanted: queries, using: &generator)
        var pointSets: [(String, [Point<GlobalSpace>])] = [("random", random)]
        if !misses.isEmpty { pointSets.append(("miss", misses)) }

        var index: [String: Percentiles] = [:]
        var answerCounts = (current: 0, mixed: 0)
        var reference: [String: Percentiles] = [:]
        var floor: FloorComparison?
        for (name, points) in pointSets {
            index[name] = Self.measure(points: points, runs: runs) { tree.hitTest($0)?.surface.raw ?? 0 }
            if name == "random" {
                answerCounts = tree.cachedHitTestCounts()
                floor = GridFloor(tree: tree).flatMap { Self.besideFloor(points: points, runs: runs, floor: $0) { tree.hitTest($0)?.surface.raw ?? 0 } }
            }
            index["\(name)-uncached"] = Self.measure(points: points, runs: runs, beforeEachBatch: tree.forgetCachedHitTests) {
                tree.hitTest($0)?.surface.raw ?? 0
            }
            if indexOnly { continue }
            let estimate = Self.measure(points: Array(points.prefix(Self.batch * 4)), runs: 1) { tree.referenceHitTest($0)?.surface.raw ?? 0 }
            let affordable = Int(referenceBudgetSeconds * 1e9 / max(estimate.medianNanoseconds, 1)) / max(runs, 1)
            let count = min(points.count, max(Self.batch * 8, affordable / Self.batch * Self.batch))
            reference[name] = Self.measure(points: Array(points.prefix(count)), runs: runs) { tree.referenceHitTest($0)?.surface.raw ?? 0 }
        }

        let outputRects = outputs.map(\.rect)
        let moveRandom = measureMoves(tree: tree, toplevels: toplevels, count: moves, using: &generator) { current, generator in
            let rect = outputRects[0]
            return Offset(dx: Int.random(in: 0...max(0, rect.width - 400), using: &generator), dy: Int.random(in: 0...max(0, rect.height - 300), using: &generator))
        }
        let moveDrag = measureMoves(tree: tree, toplevels: toplevels, count: moves, using: &generator) { current, generator in
            Offset(dx: current.dx + Int.random(in: -8...8, using: &generator), dy: current.dy + Int.random(in: -8...8, using: &generator))
        }

        var agreed = true
        for _ in 0..<2_000 {
            let point = Self.randomPoint(on: outputs, using: &generator)
            if tree.hitTest(point) != tree.referenceHitTest(point) { agreed = false }
        }

        return Report(
            label: label, leaves: leaves, toplevels: toplevels.count, surfaces: tree.surfaceCount, seed: seed,
            cellSize: 1 << tree.cellShift, buildMilliseconds: Double(buildNanoseconds) / 1e6,
            index: index, reference: reference, missPointsOnOutput: misses.count,
            answerCells: answerCounts.current, mixedAnswerCells: answerCounts.mixed,
            moveRandom: moveRandom, moveDrag: moveDrag, agreed: agreed, floor: floor)
    }

    /// `query` over every point and the floor over the same points, `runs` rounds of one whole
    /// run each; nil if a point is off the floor's output.
    static func besideFloor(points: [Point<GlobalSpace>], runs: Int, floor: GridFloor, _ query: (Point<GlobalSpace>) -> UInt32) -> FloorComparison? {
        guard !points.isEmpty, floor.covers(points) else { return nil }
        let copy = floor.prepared(points)
        var indexMeans: [Double] = [], floorMeans: [Double] = []
        var sink: UInt32 = 0
        var floorSink: UInt64 = 0
        points.withUnsafeBufferPointer { buffer in
            // Each timed run follows an untimed one of its own side, as each side's runs follow
            // one another when it is timed alone: the other's run would have left the caches
            // and the branch predictors to it.
            func timeIndex() {
                for i in 0..<buffer.count { sink &+= query(buffer[i]) }
                let start = Stopwatch.now()
                for i in 0..<buffer.count { sink &+= query(buffer[i]) }
                indexMeans.append(Double(Stopwatch.now() - start) / Double(buffer.count))
            }
            func timeFloor() {
                floorSink &+= floor.run(buffer, prepared: copy)
                let start = Stopwatch.now()
                floorSink &+= floor.run(buffer, prepared: copy)
                floorMeans.append(Double(Stopwatch.now() - start) / Double(buffer.count))
            }
            for round in 0..<max(runs, 1) {
                if round % 2 == 0 {
                    timeIndex()
                    timeFloor()
                } else {
                    timeFloor()
                    timeIndex()
                }
            }
        }
        Stopwatch.keep(sink &+ UInt32(truncatingIfNeeded: floorSink))
        return FloorComparison(windows: floor.windows, floorMedianNanoseconds: percentile(floorMeans, 0.5), indexMedianNanoseconds: percentile(indexMeans, 0.5))
    }

    static func randomPoint(on outputs: [OutputSnapshot], using generator: inout SeededGenerator) -> Point<GlobalSpace> {
        let rect = outputs[Int.random(in: 0..<outputs.count, using: &generator)].rect
        // Quarter-pixel steps, like touch positions after calibration.
        return Point(Double(rect.x) + Double(Int.random(in: 0..<(rect.width * 4), using: &generator)) / 4,
                     Double(rect.y) + Double(Int.random(in: 0..<(rect.height * 4), using: &generator)) / 4)
    }

    /// Points on an output that hit no surface: found with the index, confirmed by the reference.
    static func missPoints(tree: SurfaceTree, outputs: [OutputSnapshot], wanted: Int, using generator: inout SeededGenerator) -> [Point<GlobalSpace>] {
        var found: [Point<GlobalSpace>] = []
        var tries = 0
        while found.count < wanted, tries < 40_000_000 {
            tries += 1
            let point = randomPoint(on: outputs, using: &generator)
            if tree.hitTest(point) == nil { found.append(point) }
        }
        let confirmed = found.prefix(256).allSatisfy { tree.referenceHitTest($0) == nil }
        precondition(confirmed, "index and reference disagree on a miss point")
        return found
    }

    /// Times `query` over every point, `runs` times: the median of the runs' means, and p50/p99
    /// of the means of batches of `batch`. Without `beforeEachBatch`, each run is also timed
    /// whole, as the C grid times its loop, and its mean is that whole time over the points:
    /// the batches' two clock reads (about 1 ns a query here) are not the query's. With it,
    /// `beforeEachBatch` runs untimed and the run's mean is the sum of its batches'.
    static func measure(
        points: [Point<GlobalSpace>], runs: Int, beforeEachBatch: (() -> Void)? = nil, _ query: (Point<GlobalSpace>) -> UInt32
    ) -> Percentiles {
        var runMeans: [Double] = []
        var batchMeans: [Double] = []
        var sink: UInt32 = 0
        let batches = points.count / Self.batch
        let timed = max(batches * Self.batch, 1)
        points.withUnsafeBufferPointer { buffer in
            for _ in 0..<max(runs, 1) {
                var runNanoseconds: Int64 = 0
                for b in 0..<batches {
                    beforeEachBatch?()
                    let start = Stopwatch.now()
                    for i in (b * Self.batch)..<((b + 1) * Self.batch) { sink &+= query(buffer[i]) }
                    let elapsed = Stopwatch.now() - start
                    runNanoseconds += elapsed
                    batchMeans.append(Double(elapsed) / Double(Self.batch))
                }
                if beforeEachBatch == nil {
                    let start = Stopwatch.now()
                    for i in 0..<(batches * Self.batch) { sink &+= query(buffer[i]) }
                    runNanoseconds = Stopwatch.now() - start
                }
                runMeans.append(Double(runNanoseconds) / Double(timed))
            }
        }
        Stopwatch.keep(sink)
        return Percentiles(
            medianNanoseconds: Self.percentile(runMeans, 0.5), p50Nanoseconds: Self.percentile(batchMeans, 0.5),
            p99Nanoseconds: Self.percentile(batchMeans, 0.99), queries: batches * Self.batch)
    }

    func measureMoves(
        tree: SurfaceTree, toplevels: [SurfaceID], count: Int, using generator: inout SeededGenerator,
        _ destination: (Offset, inout SeededGenerator) -> Offset
    ) -> Percentiles {
        guard !toplevels.isEmpty else { return Percentiles(medianNanoseconds: 0, p50Nanoseconds: 0, p99Nanoseconds: 0, queries: 0) }
        var samples: [Double] = []
        samples.reserveCapacity(count)
        for _ in 0..<count {
            let top = toplevels[Int.random(in: 0..<toplevels.count, using: &generator)]
            let target = destination(tree.surface(top)!.position, &generator)
            let start = Stopwatch.now()
            try! tree.move(top, to: target)
            samples.append(Double(Stopwatch.now() - start))
        }
        let median = Self.percentile(samples, 0.5)
        return Percentiles(medianNanoseconds: median, p50Nanoseconds: median, p99Nanoseconds: Self.percentile(samples, 0.99), queries: count)
    }

    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
    }
}

/// Reads the monotonic clock in nanoseconds. Only benchmarks and the session read real time.
public enum Stopwatch {
    @inline(__always)
    public static func now() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) &* 1_000_000_000 &+ Int64(spec.tv_nsec)
    }

    nonisolated(unsafe) private static var kept: UInt32 = 0
    /// Keeps a result alive so the optimiser cannot drop the work that made it.
    @inline(never)
    public static func keep(_ value: UInt32) { kept &+= value }
}
