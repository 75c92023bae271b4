import TouchRouterCore
import TouchRouterReplay

/// Fingers moving together at a panel's report rate over the synthetic scene: each report
/// moves every finger, then a touch frame closes it, with device times 1/rate apart, as a
/// multitouch panel's frames reach the router. Nothing is flushed per event (delivery is a
/// stand-in that discards), so the figure is the router's own cost per routed motion.
public struct MultiFingerBenchmark {
    public struct Result: Sendable {
        public var leaves: Int
        public var fingers: Int
        public var rateHz: Int
        /// Per routed motion event, the frame's share included: median over runs, p99 over batches.
        public var medianNanoseconds: Double
        public var p99Nanoseconds: Double
        /// Routed motion events a second on one core, from the median.
        public var eventsPerSecond: Double { medianNanoseconds > 0 ? 1e9 / medianNanoseconds : 0 }
    }

    public var frames = 8192
    public var runs = 7

    public init() {}

    /// The scene and a router with `fingers` fingers down, spread over the scene.
    public struct Setup {
        public let router: Router
        let clock: ManualClock
        /// The router's clock when it is not `clock` (a real one, for per-stage figures).
        let liveClock: (any RouterClock)?
        let fingers: Int
        let periodNanoseconds: Int64
        /// Each report's positions, finger after finger.
        let positions: [Point<GlobalSpace>]
        var time: Int64 = 0

        /// Routes `count` reports; returns the motions routed.
        public mutating func route(reports count: Int) -> Int {
            let device = DeviceID(0)
            let reportsHeld = positions.count / fingers
            for r in 0..<count {
                time &+= periodNanoseconds
                let now = RouterTime(nanoseconds: time)
                clock.advance(to: now)
                let base = (r % reportsHeld) * fingers
                for finger in 0..<fingers {
                    router.enqueue(.touchMotion(device: device, time: now, id: TouchID(Int32(finger)), position: positions[base + finger]))
                }
                router.enqueue(.touchFrame(device: device, time: now))
                router.dispatchAll()
            }
            return count * fingers
        }

        /// Routes `count` reports on the live clock given to `setUp`: each report's device
        /// time is that clock's time when it is made, and `afterReport` runs after each
        /// report's dispatch (where the session's loop flushes its clients). Returns the motions routed.
        public mutating func routeLive(reports count: Int, afterReport: () -> Void) -> Int {
            guard let liveClock else { preconditionFailure("routeLive needs the clock given to setUp") }
            let device = DeviceID(0)
            let reportsHeld = positions.count / fingers
            for r in 0..<count {
                let now = liveClock.now()
                let base = (r % reportsHeld) * fingers
                for finger in 0..<fingers {
                    router.enqueue(.touchMotion(device: device, time: now, id: TouchID(Int32(finger)), position: positions[base + finger]))
                }
                router.enqueue(.touchFrame(device: device, time: now))
                router.dispatchAll()
                afterReport()
            }
            return count * fingers
        }
    }

    /// With `liveClock`, the router reads that clock instead of the manual one (`routeLive`).
    public static func setUp(leaves: Int, fingers: Int, rateHz: Int, seed: UInt64, liveClock: (any RouterClock)? = nil) -> Setup {
        let (tree, _) = SyntheticScene.build(leaves: leaves, seed: seed)
        let clock = ManualClock()
        let router = Router(tree: tree, delivery: DiscardingDelivery(), clock: liveClock ?? clock)
        var generator = SeededGenerator(seed: seed ^ 0xF1)
        // Each finger starts somewhere on the 3840x2160 scene and wanders within 40 px of it.
        let starts = (0..<fingers).map { _ in
            Point<GlobalSpace>(Double(Int.random(in: 40..<3800, using: &generator)), Double(Int.random(in: 40..<2120, using: &generator)))
        }
        let device = DeviceID(0)
        for (finger, start) in starts.enumerated() {
            router.enqueue(.touchDown(device: device, time: .zero, id: TouchID(Int32(finger)), position: start))
        }
        router.enqueue(.touchFrame(device: device, time: .zero))
        router.dispatchAll()
        let held = 4096
        var positions: [Point<GlobalSpace>] = []
        positions.reserveCapacity(held * fingers)
        for _ in 0..<held {
            for start in starts {
                positions.append(Point(start.x + Double(Int.random(in: -160...160, using: &generator)) / 4,
                                       start.y + Double(Int.random(in: -160...160, using: &generator)) / 4))
            }
        }
        return Setup(router: router, clock: clock, liveClock: liveClock, fingers: fingers, periodNanoseconds: Int64(1_000_000_000 / max(rateHz, 1)), positions: positions)
    }

    public func run(leaves: Int, fingers: Int, rateHz: Int, seed: UInt64) -> Result {
        var setup = Self.setUp(leaves: leaves, fingers: fingers, rateHz: rateHz, seed: seed)
        _ = setup.route(reports: 256)
        let batch = 64
        var runMeans: [Double] = [], batchMeans: [Double] = []
        for _ in 0..<max(runs, 1) {
            var total: Int64 = 0, motions = 0
            for _ in 0..<(max(frames, batch) / batch) {
                let start = Stopwatch.now()
                let routed = setup.route(reports: batch)
                let elapsed = Stopwatch.now() - start
                total += elapsed
                motions += routed
                batchMeans.append(Double(elapsed) / Double(routed))
            }
            runMeans.append(Double(total) / Double(max(motions, 1)))
        }
        return Result(leaves: leaves, fingers: fingers, rateHz: rateHz, medianNanoseconds: HitTestBenchmark.percentile(runMeans, 0.5),
                      p99Nanoseconds: HitTestBenchmark.percentile(batchMeans, 0.99))
    }
}
