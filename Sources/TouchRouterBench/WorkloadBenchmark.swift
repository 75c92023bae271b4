import TouchRouterCore
import TouchRouterReplay

/// Times routing a workload from a file (a `libinput record` recording's decoded events) on
/// the synthetic scene: each run routes every event once, in order, on a router of its own
/// (so each run starts with no touch down), each event enqueued and dispatched at once.
public struct WorkloadBenchmark {
    public var runs = 7

    public init() {}

    /// The median over runs of ns per event, and the slowest run's.
    public func run(events: [InputEvent], leaves: Int, seed: UInt64) -> (median: Double, worst: Double) {
        guard !events.isEmpty else { return (0, 0) }
        let delivery = DiscardingDelivery()
        var perEvent: [Double] = []
        for _ in 0..<runs {
            let (tree, _) = SyntheticScene.build(leaves: leaves, seed: seed)
            let router = Router(tree: tree, delivery: delivery, clock: ManualClock())
            let start = Stopwatch.now()
            for event in events {
                router.enqueue(event)
                router.dispatchAll()
            }
            perEvent.append(Double(Stopwatch.now() - start) / Double(events.count))
        }
        Stopwatch.keep(UInt32(truncatingIfNeeded: delivery.count))
        perEvent.sort()
        return (perEvent[perEvent.count / 2], perEvent[perEvent.count - 1])
    }

    /// The output the synthetic scene lays its windows on, for mapping touchscreens.
    public static let outputArea = Rect<GlobalSpace>(x: 0, y: 0, width: 3840, height: 2160)
}
