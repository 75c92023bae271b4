import TouchRouterCore
import TouchRouterReplay
import Testing

/// A recognizer that moves along UIKit's transitions at random.
final class RandomRecognizer: GestureRecognizer {
    private var current = GestureState.possible
    private let continuous: Bool
    private var due: RouterTime?
    private var awaiting = false
    private var random: SystemLikeGenerator
    private var down = 0

    init(seed: UInt64, continuous: Bool) {
        random = SystemLikeGenerator(seed: seed)
        self.continuous = continuous
    }

    override var state: GestureState { current }
    override var isContinuous: Bool { continuous }
    override var deadline: RouterTime? { due }
    override var awaitsMoreTouches: Bool { awaiting }

    private func roll() -> Int { Int.random(in: 1...100, using: &random) }

    private func step() {
        let r = roll()
        switch current {
        case .possible:
            if r <= 6 { current = continuous ? .began : .recognized } else if r <= 14 { current = .failed }
        case .began, .changed:
            current = r <= 85 ? .changed : r <= 95 ? .ended : .cancelled
        default:
            break
        }
    }

    override func touchBegan(_ id: TouchID, at position: Point<GlobalSpace>, time: RouterTime, output: Rect<GlobalSpace>) {
        down += 1
        step()
        awaiting = false
        due = RouterTime(nanoseconds: time.nanoseconds &+ 50_000_000)
    }
    override func touchMoved(_ id: TouchID, to position: Point<GlobalSpace>, time: RouterTime) { step() }
    override func touchEnded(_ id: TouchID, time: RouterTime) {
        down -= 1
        step()
        // Now and then it waits for another tap, as a double tap does.
        if down == 0, current == .possible, roll() <= 30 {
            awaiting = true
            due = RouterTime(nanoseconds: time.nanoseconds &+ 30_000_000)
        }
    }
    override func touchCancelled(_ id: TouchID, time: RouterTime) {
        down -= 1
        if current == .possible { current = .failed } else if !current.isFinal { current = .cancelled }
    }
    override func advance(to time: RouterTime) {
        guard let due, time >= due else { return }
        self.due = nil
        if awaiting, current == .possible { current = .failed; awaiting = false } else { step() }
    }
    override func reset() { current = .possible; awaiting = false; due = nil; down = 0 }
}

@Suite("The gesture arena, at random")
struct ArenaPropertyTests {
    @Test("60,000 random steps of touch streams over random recognizers, zones and finger rules: every client sees a well-formed wl_touch stream, and nothing held is lost", arguments: [UInt64(11), 12, 13])
    func wellFormed(seed: UInt64) throws {
        var random = SystemLikeGenerator(seed: seed)
        func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
        let tree = SurfaceTree()
        let checker = ProtocolChecker()
        let clock = ManualClock()
        let router = Router(tree: tree, delivery: checker, clock: clock)
        try tree.addOutput(OutputID(1), name: "OUT-1", rect: Rect(x: 0, y: 0, width: 1000, height: 1000))
        var nextSurface: UInt32 = 1
        func addToplevel() throws {
            let client = ClientID(UInt32(int(1...3)))
            try tree.addToplevel(SurfaceID(nextSurface), client: client, output: OutputID(1), position: Offset(dx: int(-100...800), dy: int(-100...800)),
                                 size: Size(width: int(50...900), height: int(50...900)), properties: SurfaceProperties(), label: "s\(nextSurface)")
            if int(1...3) == 1 { router.setAppID("app\(int(1...2))", for: SurfaceID(nextSurface)) }
            nextSurface += 1
        }
        router.setCapabilities([.pointer], for: ClientID(3))
        for _ in 0..<4 { try addToplevel() }
        let shell = ScriptedResponder(.notHandled)
        router.attach(shell, to: .shell)
        var recognizerSeed = seed &* 1000
        var configurations = 0
        var held = 0, claimed = 0, released = 0
        let log = CountingArenaSink()
        router.traceSink = log

        func configure() throws {
            var configuration = GestureConfiguration()
            let count = int(0...5)
            for i in 0..<count {
                let attachment: GestureAttachment = [.shell, .output("OUT-1"), .appID("app1"), .role(.toplevel)][int(0...3)]
                var spec = GestureSpec(name: "g\(i)", kind: .pan(PanParameters()), attachment: attachment)
                spec.cancelsTouchesInView = int(1...4) != 1
                if i > 0, int(1...3) == 1 { spec.requiresFailureOf = ["g\(int(0...(i - 1)))"] }
                if i > 0, int(1...3) == 1 { spec.simultaneousWith = ["g\(int(0...(i - 1)))"] }
                configuration.recognizers.append(spec)
            }
            if int(1...2) == 1 { configuration.holdZones = [HoldZone(area: .edges([.left, .bottom], width: Double(int(10...300))))] }
            if int(1...4) == 1 { configuration.fingerLimit = int(2...4) }
            configuration.holdLimit = Int64(int(20...200)) * 1_000_000
            try router.configureGestures(configuration) { _ in
                recognizerSeed &+= 1
                return RandomRecognizer(seed: recognizerSeed, continuous: recognizerSeed % 3 != 0)
            }
            configurations += 1
        }
        try configure()
        var down: Set<Int32> = []
        for step in 0..<60_000 {
            clock.advance(byNanoseconds: Int64(int(1...20)) * 1_000_000)
            let id = Int32(int(0...4))
            let point = Point<GlobalSpace>(Double(int(0...999)), Double(int(0...999)))
            var event: InputEvent?
            switch int(1...100) {
            case 1...20: if !down.contains(id) { event = .touchDown(device: DeviceID(0), time: clock.current, id: TouchID(id), position: point); down.insert(id) }
            case 21...45: if down.contains(id) { event = .touchMotion(device: DeviceID(0), time: clock.current, id: TouchID(id), position: point) }
            case 46...68: if down.contains(id) { event = .touchUp(device: DeviceID(0), time: clock.current, id: TouchID(id)); down.remove(id) }
            case 69...70: if down.contains(id) { event = .touchCancel(device: DeviceID(0), time: clock.current, id: TouchID(id)); down.remove(id) }
            case 71...73: router.advanceTime(to: clock.current)
            case 74: if let victim = tree.allSurfaces.randomElement(using: &random) { _ = try tree.remove(victim); try addToplevel() }
            case 75: try configure()
            case 76: router.rejectTouch(TouchID(id), by: ClientID(UInt32(int(1...3))))
            default: break
            }
            if let event {
                router.enqueue(event)
                router.enqueue(.touchFrame(device: DeviceID(0), time: clock.current))
                router.dispatchAll()
                if !checker.unframedTouchClients.isEmpty {
                    Issue.record("seed \(seed) step \(step): a frame left \(checker.unframedTouchClients) with unframed touch events")
                    return
                }
            }
            if !checker.violations.isEmpty {
                Issue.record("seed \(seed) step \(step): \(checker.violations)")
                return
            }
            // Once every finger is up and time has run past every deadline, nothing may be held or open.
            if down.isEmpty, int(1...10) == 1 {
                clock.advance(byNanoseconds: 1_000_000_000)
                router.advanceTime(to: clock.current)
                let open = checker.openTouches.filter { !$0.value.isEmpty }
                if !router.heldTouches.isEmpty || router.gestureArenaIsOpen || !open.isEmpty || !router.activeTouches.isEmpty {
                    Issue.record("seed \(seed) step \(step): after the sequence: held \(router.heldTouches), arena open \(router.gestureArenaIsOpen), clients' open touches \(open), router's \(router.activeTouches)")
                    return
                }
            }
        }
        held = log.counts[.held, default: 0]; claimed = log.counts[.discarded, default: 0] + log.counts[.cancelled, default: 0]; released = log.counts[.released, default: 0]
        #expect(configurations > 100)
        #expect(held > 50 && claimed > 20 && released > 20, "held \(held), claimed \(claimed), released \(released): the run must exercise every path")
        #expect(log.counts[.won, default: 0] > 50 && log.counts[.waiting, default: 0] > 5 && log.counts[.rejected, default: 0] > 5, "\(log.counts)")
        #expect(checker.deliveries > 3_000)
    }
}

final class CountingArenaSink: RoutingTraceSink {
    var counts: [ArenaDecision: Int] = [:]
    func routed(_ record: RouteRecord) {}
    func arenaDecided(_ record: ArenaRecord) { counts[record.decision, default: 0] += 1 }
}
