import Benchmark
import TouchRouterBench
import TouchRouterCore
import TouchRouterReplay
import TouchRouterStats

/// Allocation counts on the hot paths: a hit test, a routed touch motion (plain and
/// through an arena of five recognizers) and a routed pointer motion, each on the synthetic 10,000-leaf scene. `.ci/run` checks every
/// allocation count is zero; times are reported, never checked.
let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: [.mallocCountTotal, .wallClock],
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 200)

    Benchmark("allocations: hit test, 10000 leaves", configuration: configuration) { benchmark in
        let (tree, _) = SyntheticScene.build(leaves: 10_000, seed: 1)
        var generator = SeededGenerator(seed: 9)
        let points = (0..<1024).map { _ in Point<GlobalSpace>(Double(Int.random(in: 0..<3840, using: &generator)), Double(Int.random(in: 0..<2160, using: &generator))) }
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            blackHole(tree.hitTest(points[i & 1023]))
        }
        benchmark.stopMeasurement()
    }

    Benchmark("allocations: routed touch motion, 10000 leaves", configuration: configuration) { benchmark in
        measureTouchMotion(benchmark, gestures: nil)
    }

    Benchmark("allocations: touch motion through an arena of 5 recognizers, 10000 leaves", configuration: configuration) { benchmark in
        measureTouchMotion(benchmark, gestures: RouteBenchmark.fiveRecognizers)
    }

    Benchmark("allocations: routed touch motion with its timeline kept in HDR histograms, 10000 leaves", configuration: configuration) { benchmark in
        measureTouchMotion(benchmark, gestures: nil, statistics: true)
    }

    Benchmark("allocations: routed pointer motion, 10000 leaves", configuration: configuration) { benchmark in
        let (tree, _) = SyntheticScene.build(leaves: 10_000, seed: 1)
        let delivery = DiscardingDelivery()
        let router = Router(tree: tree, delivery: delivery, clock: ManualClock())
        var generator = SeededGenerator(seed: 11)
        let points = (0..<1024).map { _ in Point<GlobalSpace>(Double(Int.random(in: 0..<3840, using: &generator)), Double(Int.random(in: 0..<2160, using: &generator))) }
        router.enqueue(.pointerMotionAbsolute(device: DeviceID(1), time: .zero, position: points[0]))
        router.dispatchAll()
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            router.enqueue(.pointerMotionAbsolute(device: DeviceID(1), time: .zero, position: points[i & 1023]))
            router.dispatchAll()
        }
        benchmark.stopMeasurement()
        blackHole(delivery.count)
    }
}

/// One finger down on the synthetic 10,000-leaf scene, then motions with their frames,
/// through a router with `gestures` configured (none: the plain path); with `statistics`,
/// every event's timeline goes into `msg stats`'s histograms and each step ends with the
/// flush stamp the session's loop gives them.
private func measureTouchMotion(_ benchmark: Benchmark, gestures: GestureConfiguration?, statistics: Bool = false) {
    let (tree, _) = SyntheticScene.build(leaves: 10_000, seed: 1)
    let delivery = DiscardingDelivery()
    let clock = ManualClock()
    let router = Router(tree: tree, delivery: delivery, clock: clock)
    if let gestures { try! router.configureGestures(gestures) }
    let stats = statistics ? LatencyStats() : nil
    router.timelineObserver = stats
    let device = DeviceID(0), id = TouchID(0)
    router.enqueue(.touchDown(device: device, time: .zero, id: id, position: Point(1920, 1080)))
    router.enqueue(.touchFrame(device: device, time: .zero))
    router.dispatchAll()
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations {
        let step = Double(i & 255)
        router.enqueue(.touchMotion(device: device, time: .zero, id: id, position: Point(1700 + step, 1000 + step)))
        router.enqueue(.touchFrame(device: device, time: .zero))
        router.dispatchAll()
        if let stats {
            clock.advance(to: RouterTime(nanoseconds: Int64(i) &* 1000 &+ 1000))
            stats.flushed(at: clock.now())
        }
    }
    benchmark.stopMeasurement()
    blackHole(delivery.count)
}
