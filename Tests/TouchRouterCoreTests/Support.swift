import Testing
import TouchRouterCore
import TouchRouterReplay

/// Every pixel centre of the 16-px answer cell at (x0, y0) against the reference walk: an
/// issue at the first that differs.
func agreesEverywhere(_ tree: SurfaceTree, _ x0: Int, _ y0: Int, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
    for y in y0..<(y0 + 16) {
        for x in x0..<(x0 + 16) {
            let point = Point<GlobalSpace>(x: Double(x) + 0.5, y: Double(y) + 0.5)
            let fast = tree.hitTest(point), slow = tree.referenceHitTest(point)
            guard fast == slow else {
                Issue.record("at \(point) the index says \(String(describing: fast)), the reference \(String(describing: slow))", sourceLocation: sourceLocation)
                return
            }
        }
    }
}

/// A router over a fresh tree with one 1000×1000 output, recording every delivery and outcome.
final class Harness {
    let tree: SurfaceTree
    let delivery = RecordingDelivery()
    let log = OutcomeLog()
    let clock = ManualClock(start: RouterTime(nanoseconds: 1_000), tickPerRead: 10)
    let router: Router
    let output = OutputID(1)
    private var nextClient: UInt32 = 100

    init(outputs: [Rect<GlobalSpace>] = [Rect(x: 0, y: 0, width: 1000, height: 1000)]) {
        tree = SurfaceTree()
        for (i, rect) in outputs.enumerated() { try! tree.addOutput(OutputID(UInt32(i + 1)), name: "OUT-\(i + 1)", rect: rect) }
        router = Router(tree: tree, delivery: delivery, clock: clock)
        router.traceSink = log
    }

    /// Adds a toplevel owned by a new client (or `client`), returning its id.
    @discardableResult
    func toplevel(_ id: UInt32, _ x: Int, _ y: Int, _ w: Int, _ h: Int, client: UInt32? = nil, output: UInt32 = 1,
                  _ change: (inout SurfaceProperties) -> Void = { _ in }) -> SurfaceID {
        var properties = SurfaceProperties()
        change(&properties)
        let owner = client ?? { nextClient += 1; return nextClient }()
        try! tree.addToplevel(SurfaceID(id), client: ClientID(owner), output: OutputID(output), position: Offset(dx: x, dy: y),
                              size: Size(width: w, height: h), properties: properties, label: "s\(id)")
        return SurfaceID(id)
    }

    @discardableResult
    func subsurface(_ id: UInt32, of parent: UInt32, _ x: Int, _ y: Int, _ w: Int, _ h: Int, below: Bool = false,
                    _ change: (inout SurfaceProperties) -> Void = { _ in }) -> SurfaceID {
        var properties = SurfaceProperties()
        change(&properties)
        let client = tree.client(of: SurfaceID(parent))!
        try! tree.addSubsurface(SurfaceID(id), client: client, parent: SurfaceID(parent), position: Offset(dx: x, dy: y),
                                size: Size(width: w, height: h), below: below, properties: properties, label: "s\(id)")
        return SurfaceID(id)
    }

    @discardableResult
    func popup(_ id: UInt32, of parent: UInt32, _ x: Int, _ y: Int, _ w: Int, _ h: Int) -> SurfaceID {
        let client = tree.client(of: SurfaceID(parent))!
        try! tree.addPopup(SurfaceID(id), client: client, parent: SurfaceID(parent), position: Offset(dx: x, dy: y),
                           size: Size(width: w, height: h), label: "s\(id)")
        return SurfaceID(id)
    }

    func client(_ surface: UInt32) -> ClientID { tree.client(of: SurfaceID(surface))! }

    func send(_ events: InputEvent...) {
        for event in events { router.enqueue(event) }
        router.dispatchAll()
    }

    func down(_ id: Int32, _ x: Double, _ y: Double) { send(.touchDown(device: DeviceID(0), time: clock.current, id: TouchID(id), position: Point(x, y))) }
    func move(_ id: Int32, _ x: Double, _ y: Double) { send(.touchMotion(device: DeviceID(0), time: clock.current, id: TouchID(id), position: Point(x, y))) }
    func up(_ id: Int32) { send(.touchUp(device: DeviceID(0), time: clock.current, id: TouchID(id))) }
    func frame() { send(.touchFrame(device: DeviceID(0), time: clock.current)) }
    func pointer(_ x: Double, _ y: Double) { send(.pointerMotionAbsolute(device: DeviceID(1), time: clock.current, position: Point(x, y))) }
    func button(_ state: ButtonState) { send(.pointerButton(device: DeviceID(1), time: clock.current, button: EvdevCode.buttonLeft, state: state)) }
    func key(_ code: UInt32, _ state: KeyState) { send(.key(device: DeviceID(2), time: clock.current, key: code, state: state)) }

    func hit(_ x: Double, _ y: Double) -> SurfaceID? {
        let point = Point<GlobalSpace>(x, y)
        let fast = tree.hitTest(point)
        precondition(fast == tree.referenceHitTest(point), "index and reference disagree at \(x),\(y)")
        return fast?.surface
    }
}

/// Records every routed event's outcome.
final class OutcomeLog: RoutingTraceSink {
    var records: [RouteRecord] = []
    var focusChanges: [FocusChangeRecord] = []
    var outcomes: [RouteOutcome] { records.map(\.outcome) }
    var last: RouteOutcome? { records.last?.outcome }
    func routed(_ record: RouteRecord) { records.append(record) }
    func focusChanged(_ record: FocusChangeRecord) { focusChanges.append(record) }
    var arena: [ArenaRecord] = []
    func arenaDecided(_ record: ArenaRecord) { arena.append(record) }
    /// "decision recognizer" for each arena record, e.g. "won edge".
    var arenaDecisions: [String] { arena.map { "\($0.decision.rawValue)\($0.recognizer.map { " " + $0 } ?? "")" } }
}

/// A compositor responder that answers as told and remembers what it was asked.
final class ScriptedResponder: CompositorResponder {
    var answer: ResponderAnswer
    var seen: [(InputEvent, Responder)] = []
    init(_ answer: ResponderAnswer) { self.answer = answer }
    func respond(to event: InputEvent, at link: Responder) -> ResponderAnswer {
        seen.append((event, link))
        return answer
    }
}

extension Point {
    static func at(_ x: Double, _ y: Double) -> Point { Point(x, y) }
}
