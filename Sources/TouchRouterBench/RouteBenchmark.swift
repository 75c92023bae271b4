import TouchRouterCore
import TouchRouterReplay

/// Times whole routing steps (enqueue, dispatch, delivery to a stand-in that discards)
/// on the synthetic scene: what one input event costs the compositor before the wire.
public struct RouteBenchmark {
    public struct Report: Sendable {
        public var leaves: Int
        /// Per event kind: median over runs of ns per event, and p99 over batches.
        public var rows: [(name: String, median: Double, p99: Double)]
    }

    public var events = 65_536
    public var runs = 7

    public init() {}

    public func run(leaves: Int, seed: UInt64) -> Report {
        let (tree, _) = SyntheticScene.build(leaves: leaves, seed: seed)
        let delivery = DiscardingDelivery()
        let router = Router(tree: tree, delivery: delivery, clock: ManualClock())
        var generator = SeededGenerator(seed: seed ^ 0xB0B)
        let points = (0..<events).map { _ in
            Point<GlobalSpace>(Double(Int.random(in: 0..<(3840 * 4), using: &generator)) / 4, Double(Int.random(in: 0..<(2160 * 4), using: &generator)) / 4)
        }
        let device = DeviceID(0)
        var rows: [(String, Double, Double)] = []

        router.enqueue(.touchDown(device: device, time: .zero, id: TouchID(0), position: Point(1920, 1080)))
        router.dispatchAll()
        rows.append(measure("touch motion (bound)", points) { point in
            router.enqueue(.touchMotion(device: device, time: .zero, id: TouchID(0), position: point))
            _ = router.dispatchNext()
        })
        rows.append(measure("touch frame", points) { _ in
            router.enqueue(.touchMotion(device: device, time: .zero, id: TouchID(0), position: Point(1920, 1080)))
            router.enqueue(.touchFrame(device: device, time: .zero))
            router.dispatchAll()
        })
        router.enqueue(.touchUp(device: device, time: .zero, id: TouchID(0)))
        router.dispatchAll()
        rows.append(measure("touch down + up + frame", points) { point in
            router.enqueue(.touchDown(device: device, time: .zero, id: TouchID(1), position: point))
            router.enqueue(.touchUp(device: device, time: .zero, id: TouchID(1)))
            router.enqueue(.touchFrame(device: device, time: .zero))
            router.dispatchAll()
        })
        rows.append(measure("pointer motion (hit test, enter/leave)", points) { point in
            router.enqueue(.pointerMotionAbsolute(device: DeviceID(1), time: .zero, position: point))
            _ = router.dispatchNext()
        })
        // The same touch motion through an arena of five recognizers that stay undecided
        // while one finger moves, on a router of its own over the same scene.
        let (arenaTree, _) = SyntheticScene.build(leaves: leaves, seed: seed)
        let arenaRouter = Router(tree: arenaTree, delivery: delivery, clock: ManualClock())
        try! arenaRouter.configureGestures(Self.fiveRecognizers)
        arenaRouter.enqueue(.touchDown(device: device, time: .zero, id: TouchID(0), position: Point(1920, 1080)))
        arenaRouter.dispatchAll()
        rows.insert(measure("touch motion (bound, 5 recognizers)", points) { point in
            arenaRouter.enqueue(.touchMotion(device: device, time: .zero, id: TouchID(0), position: point))
            _ = arenaRouter.dispatchNext()
        }, at: 1)
        Stopwatch.keep(UInt32(truncatingIfNeeded: delivery.count))
        return Report(leaves: leaves, rows: rows)
    }

    /// Pinch, rotation, two- and three-finger pans and a two-finger long press: none can
    /// decide while a single finger moves, so every motion is fed to all five.
    public static var fiveRecognizers: GestureConfiguration {
        var configuration = GestureConfiguration()
        var twoFingerPan = PanParameters()
        twoFingerPan.minimumTouches = 2
        var threeFingerPan = PanParameters()
        threeFingerPan.minimumTouches = 3
        var twoFingerPress = LongPressParameters()
        twoFingerPress.touchesRequired = 2
        twoFingerPress.allowableMovement = 100_000
        configuration.recognizers = [
            GestureSpec(name: "pinch", kind: .pinch(PinchParameters()), attachment: .shell),
            GestureSpec(name: "rotation", kind: .rotation(RotationParameters()), attachment: .shell),
            GestureSpec(name: "two-finger-pan", kind: .pan(twoFingerPan), attachment: .shell),
            GestureSpec(name: "three-finger-pan", kind: .pan(threeFingerPan), attachment: .shell),
            GestureSpec(name: "two-finger-press", kind: .longPress(twoFingerPress), attachment: .shell),
        ]
        return configuration
    }

    private func measure(_ name: String, _ points: [Point<GlobalSpace>], _ step: (Point<GlobalSpace>) -> Void) -> (String, Double, Double) {
        let timing = HitTestBenchmark.measure(points: points, runs: runs) { point in
            step(point)
            return 0
        }
        return (name, timing.medianNanoseconds, timing.p99Nanoseconds)
    }
}
