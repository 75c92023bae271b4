import TouchRouterCore
import TouchRouterReplay
import Testing

/// A recognizer the test moves by hand: it takes `next` at its next call, and remembers
/// what it was fed.
final class Puppet: GestureRecognizer {
    var current = GestureState.possible
    var next: GestureState?
    var due: RouterTime?
    var awaiting = false
    var began: [TouchID] = []
    var moves = 0
    var ended: [TouchID] = []
    var cancelled: [TouchID] = []
    var resets = 0

    override var state: GestureState { current }
    override var isContinuous: Bool { true }
    override var deadline: RouterTime? { due }
    override var awaitsMoreTouches: Bool { awaiting }

    private func step() {
        if current.isFinal { return }
        if let next { current = next; self.next = nil }
    }
    override func touchBegan(_ id: TouchID, at position: Point<GlobalSpace>, time: RouterTime, output: Rect<GlobalSpace>) { began.append(id); step() }
    override func touchMoved(_ id: TouchID, to position: Point<GlobalSpace>, time: RouterTime) { moves += 1; step() }
    override func touchEnded(_ id: TouchID, time: RouterTime) { ended.append(id); step() }
    override func touchCancelled(_ id: TouchID, time: RouterTime) { cancelled.append(id); step() }
    override func advance(to time: RouterTime) {
        if let due, time >= due { self.due = nil; step() }
    }
    override func reset() { current = .possible; next = nil; resets += 1 }
}

final class GestureLog: GestureObserver {
    var events: [GestureEvent] = []
    var lines: [String] { events.map { "\($0.name) \($0.state.rawValue)" } }
    func gesture(_ event: GestureEvent) { events.append(event) }
}

extension Harness {
    /// Configures recognizers played by puppets, in the order of `specs`.
    @discardableResult
    func gestures(_ specs: [GestureSpec], zones: [HoldZone] = [], fingerLimit: Int? = nil, holdLimitMs: Int64 = 300) throws -> [Puppet] {
        var configuration = GestureConfiguration()
        configuration.recognizers = specs
        configuration.holdZones = zones
        configuration.fingerLimit = fingerLimit
        configuration.holdLimit = holdLimitMs * 1_000_000
        let puppets = specs.map { _ in Puppet() }
        var next = 0
        try router.configureGestures(configuration) { _ in defer { next += 1 }; return puppets[next] }
        return puppets
    }

    func advance(ms: Int64) { clock.advance(byNanoseconds: ms * 1_000_000) }
}

func spec(_ name: String, _ attachment: GestureAttachment = .shell, simultaneous: [String] = [], requiresFailureOf: [String] = [], cancels: Bool = true) -> GestureSpec {
    var spec = GestureSpec(name: name, kind: .pan(PanParameters()), attachment: attachment)
    spec.simultaneousWith = simultaneous
    spec.requiresFailureOf = requiresFailureOf
    spec.cancelsTouchesInView = cancels
    return spec
}

let leftEdgeZone = HoldZone(area: .edges([.left], width: 30))

@Suite("The gesture arena")
struct ArenaTests {
    @Test("outside a zone the client gets the down at once, then wl_touch.cancel when a recognizer wins, and nothing more")
    func winOutsideZone() throws {
        let h = Harness()
        let app = h.toplevel(1, 0, 0, 1000, 1000)
        let gestures = GestureLog()
        h.router.gestureObserver = gestures
        let puppets = try h.gestures([spec("pan")])
        h.down(1, 500, 500); h.frame()
        #expect(h.delivery.take() == [.touchDown(app, TouchID(1), Point(500, 500)), .touchFrame(h.client(1))])
        puppets[0].next = .began
        h.move(1, 520, 500); h.frame()
        #expect(h.delivery.take() == [.touchCancel(h.client(1))])
        puppets[0].next = .changed
        h.move(1, 540, 500); h.frame()
        puppets[0].next = .ended
        h.up(1); h.frame()
        #expect(h.delivery.take() == [])
        #expect(gestures.lines == ["pan began", "pan changed", "pan ended"])
        #expect(h.log.arenaDecisions == ["joined pan", "won pan", "cancelled", "reported pan", "reported pan", "reported pan", "closed"])
        #expect(h.router.activeTouches.isEmpty)
    }

    @Test("in a hold-back zone nothing reaches the client until every recognizer fails; then every held event, in order, with its own time")
    func heldThenReleased() throws {
        let h = Harness()
        let app = h.toplevel(1, 0, 0, 1000, 1000)
        h.clock.tickPerRead = 0
        let puppets = try h.gestures([spec("edge")], zones: [leftEdgeZone])
        let t0 = h.clock.current
        h.down(1, 10, 500); h.frame()
        h.advance(ms: 16)
        h.move(1, 12, 520); h.frame()
        #expect(h.delivery.take() == [])
        #expect(h.log.records.filter { if case .touchFrame = $0.event { false } else { true } }.map(\.outcome) == [.held, .held])
        h.advance(ms: 16)
        puppets[0].next = .failed
        h.move(1, 14, 560); h.frame()
        let client = h.client(1)
        #expect(h.delivery.take() == [
            .touchDown(app, TouchID(1), Point(10, 500)), .touchFrame(client),
            .touchMotion(app, TouchID(1), Point(12, 520)), .touchFrame(client),
            .touchMotion(app, TouchID(1), Point(14, 560)), .touchFrame(client),
        ])
        #expect(h.delivery.touchTimes == [t0, RouterTime(nanoseconds: t0.nanoseconds + 16_000_000), RouterTime(nanoseconds: t0.nanoseconds + 32_000_000)])
        #expect(h.log.arenaDecisions.contains("released"))
    }

    @Test("a touch held in a zone and claimed by the winner never reaches the client at all")
    func heldThenClaimed() throws {
        let h = Harness()
        h.toplevel(1, 0, 0, 1000, 1000)
        let gestures = GestureLog()
        h.router.gestureObserver = gestures
        let puppets = try h.gestures([spec("edge")], zones: [leftEdgeZone])
        h.down(1, 5, 500); h.frame()
        puppets[0].next = .began
        h.move(1, 60, 500); h.frame()
        h.move(1, 90, 500); h.frame()
        puppets[0].next = .ended
        h.up(1); h.frame()
        #expect(h.delivery.take() == [])
        #expect(gestures.lines.first == "edge began")
        #expect(h.log.arenaDecisions.contains("discarded"))
        #expect(h.router.activeTouches.isEmpty)
    }

    @Test("all recognizers failing outside a zone changes nothing for the client")
    func allFail() throws {
        let h = Harness()
        let app = h.toplevel(1, 0, 0, 1000, 1000)
        let puppets = try h.gestures([spec("a"), spec("b")])
        puppets[0].next = .failed
        puppets[1].next = .failed
        h.down(1, 500, 500); h.move(1, 510, 500); h.up(1); h.frame()
        #expect(h.delivery.take() == [.touchDown(app, TouchID(1), Point(500, 500)), .touchMotion(app, TouchID(1), Point(510, 500)), .touchUp(app, TouchID(1)), .touchFrame(h.client(1))])
        #expect(h.log.arenaDecisions == ["joined a", "joined b", "failed a", "failed b", "closed"])
    }

    @Test("recognizers declared simultaneous both win; a third fails when the first wins")
    func simultaneous() throws {
        let h = Harness()
        h.toplevel(1, 0, 0, 1000, 1000)
        let gestures = GestureLog()
        h.router.gestureObserver = gestures
        let puppets = try h.gestures([spec("pinch", simultaneous: ["rotate"]), spec("rotate"), spec("pan")])
        h.down(1, 400, 400); h.down(2, 600, 600)
        puppets[0].next = .began
        puppets[1].next = .began
        puppets[2].next = .began
        h.move(1, 380, 380)
        #expect(h.log.arenaDecisions.filter { $0.hasPrefix("won") } == ["won pinch", "won rotate"])
        #expect(h.log.arenaDecisions.contains("failed pan"))
        #expect(gestures.lines == ["pinch began", "rotate began"])
    }

    @Test("one that requires another to fail waits for it, and wins when it fails")
    func requireToFailThenWin() throws {
        let h = Harness()
        h.toplevel(1, 0, 0, 1000, 1000)
        let puppets = try h.gestures([spec("single", requiresFailureOf: ["double"]), spec("double")])
        puppets[0].next = .recognized
        h.down(1, 500, 500)
        #expect(h.log.arenaDecisions.last == "waiting single")
        puppets[1].next = .failed
        h.up(1)
        #expect(h.log.arenaDecisions.suffix(5) == ["failed double", "won single", "cancelled", "reported single", "closed"])
        #expect(h.delivery.take() == [.touchDown(SurfaceID(1), TouchID(1), Point(500, 500)), .touchCancel(h.client(1))], "the tap's client gets cancel, not up")
    }

    @Test("one that requires another to fail fails when that one wins")
    func requireToFailThenLose() throws {
        let h = Harness()
        h.toplevel(1, 0, 0, 1000, 1000)
        let puppets = try h.gestures([spec("single", requiresFailureOf: ["double"]), spec("double")])
        puppets[0].next = .recognized
        h.down(1, 500, 500)
        puppets[1].next = .recognized
        h.up(1)
        #expect(h.log.arenaDecisions.contains("won double"))
        #expect(h.log.arenaDecisions.contains("failed single"))
        #expect(!h.log.arenaDecisions.contains("won single"))
    }

    @Test("a cycle of failure requirements is a configuration error naming the cycle, and the old configuration stays")
    func cycle() throws {
        let h = Harness()
        try h.gestures([spec("keep")])
        var configuration = GestureConfiguration()
        configuration.recognizers = [spec("a", requiresFailureOf: ["b"]), spec("b", requiresFailureOf: ["c"]), spec("c", requiresFailureOf: ["a"])]
        #expect(throws: GestureConfigurationError.failureCycle(["a", "b", "c"])) { try h.router.configureGestures(configuration) }
        #expect(h.router.gestureConfiguration.recognizers.map(\.name) == ["keep"])
        #expect(GestureConfigurationError.failureCycle(["a", "b", "c"]).description.contains("a → b → c → a"))
    }

    @Test("the hold limit releases held touches when no recognizer has begun, and later events go straight through")
    func holdLimit() throws {
        let h = Harness()
        let app = h.toplevel(1, 0, 0, 1000, 1000)
        h.clock.tickPerRead = 0
        try h.gestures([spec("edge")], zones: [leftEdgeZone], holdLimitMs: 100)
        h.down(1, 10, 500); h.frame()
        #expect(h.router.nextGestureDeadline == RouterTime(nanoseconds: h.clock.current.nanoseconds + 100_000_000))
        h.advance(ms: 99)
        h.router.advanceTime(to: h.clock.current)
        #expect(h.delivery.take() == [])
        h.advance(ms: 1)
        h.router.advanceTime(to: h.clock.current)
        #expect(h.delivery.take() == [.touchDown(app, TouchID(1), Point(10, 500)), .touchFrame(h.client(1))])
        h.move(1, 20, 500); h.frame()
        #expect(h.delivery.take() == [.touchMotion(app, TouchID(1), Point(20, 500)), .touchFrame(h.client(1))])
    }

    @Test("a client that dies while its touch is held gets nothing, and nothing dangles")
    func clientDiesWhileHeld() throws {
        let h = Harness()
        h.toplevel(1, 0, 0, 1000, 1000)
        let puppets = try h.gestures([spec("edge")], zones: [leftEdgeZone])
        h.down(1, 10, 500); h.frame()
        _ = try h.tree.remove(SurfaceID(1))
        h.router.forgetClient(ClientID(101))
        puppets[0].next = .failed
        h.move(1, 12, 500); h.up(1); h.frame()
        #expect(h.delivery.take() == [])
        #expect(h.log.outcomes.contains(.dropped(.surfaceGone)))
        #expect(h.router.activeTouches.isEmpty)
        #expect(h.router.nextGestureDeadline == nil)
    }

    @Test("the finger rule: a sequence that reaches N fingers never reaches the app, not even its first fingers")
    func fingerRule() throws {
        let h = Harness()
        let app = h.toplevel(1, 0, 0, 1000, 1000)
        try h.gestures([], fingerLimit: 3, holdLimitMs: 300)
        h.down(1, 100, 100); h.frame()
        h.down(2, 200, 100); h.frame()
        h.down(3, 300, 100); h.frame()
        h.move(1, 110, 100); h.up(1); h.up(2); h.up(3); h.frame()
        #expect(h.delivery.take() == [])
        #expect(h.log.outcomes.contains(.dropped(.fingerLimit)))
        // A plain tap afterwards is held only until its finger lifts, then delivered whole.
        h.down(4, 500, 500); h.frame()
        #expect(h.delivery.take() == [])
        h.up(4); h.frame()
        #expect(h.delivery.take() == [.touchDown(app, TouchID(4), Point(500, 500)), .touchFrame(h.client(1)), .touchUp(app, TouchID(4)), .touchFrame(h.client(1))])
    }

    @Test("wl_touch.cancel has no id: a client holding two fingers, one claimed, loses both, the trace says so, and its next touch starts fresh")
    func twoFingersOneClaimed() throws {
        let h = Harness()
        let left = h.toplevel(1, 0, 0, 500, 1000, client: 7)
        let right = h.toplevel(2, 500, 0, 500, 1000, client: 7)
        h.router.setAppID("panel", for: left)
        let puppets = try h.gestures([spec("panel-pan", .appID("panel"))])
        h.down(1, 100, 100); h.down(2, 700, 100); h.frame()
        _ = h.delivery.take()
        puppets[0].next = .began
        h.move(1, 150, 100); h.frame()
        h.move(2, 710, 100); h.frame()
        #expect(h.delivery.take() == [.touchCancel(ClientID(7))])
        let cancelled = try #require(h.log.arena.first { $0.decision == .cancelled })
        #expect(cancelled.touches == [TouchID(1), TouchID(2)])
        #expect(cancelled.detail.contains("touch 2 ends with it"))
        h.up(1); h.up(2); h.frame()
        h.down(3, 700, 200); h.frame()
        #expect(h.delivery.take() == [.touchDown(right, TouchID(3), Point(200, 200)), .touchFrame(ClientID(7))])
    }

    @Test("a claimed touch that drove an emulated pointer gets its button released, and nothing more")
    func emulatedPointerClaimed() throws {
        let h = Harness()
        let app = h.toplevel(1, 0, 0, 1000, 1000)
        h.router.setCapabilities([.pointer], for: h.client(1))
        let puppets = try h.gestures([spec("pan")])
        h.down(1, 500, 500)
        _ = h.delivery.take()
        puppets[0].next = .began
        h.move(1, 600, 500)
        #expect(h.delivery.take() == [.pointerButton(app, EvdevCode.buttonLeft, .released), .pointerFrame(h.client(1))])
        h.move(1, 650, 500); h.up(1)
        #expect(h.delivery.take() == [])
    }

    @Test("a client that rejects a touch gets wl_touch.cancel, and the sequence goes on to the responder behind it")
    func rejection() throws {
        let h = Harness()
        h.toplevel(1, 0, 0, 1000, 1000)
        let output = ScriptedResponder(.handled)
        h.router.attach(output, to: .output(h.output))
        h.down(1, 500, 500); h.frame()
        _ = h.delivery.take()
        #expect(h.router.rejectTouch(TouchID(1), by: h.client(1)))
        #expect(h.delivery.take() == [.touchCancel(h.client(1))])
        h.move(1, 520, 500); h.up(1)
        #expect(output.seen.map { EventSyntax.format($0.0) } == ["touch down 1 500 500", "touch motion 1 520 500", "touch up 1"])
        #expect(h.log.arena.last?.decision == .rejected)
        #expect(!h.router.rejectTouch(TouchID(1), by: h.client(1)), "a touch the client no longer has cannot be rejected")
    }

    @Test("a client's deferral region keeps an edge recognizer out, but only up to the cap along the edge")
    func deferral() throws {
        let h = Harness()
        let app = h.toplevel(1, 0, 0, 1000, 1000)
        var edge = GestureSpec(name: "edge", kind: .screenEdgePan(ScreenEdgePanParameters()), attachment: .shell)
        edge.cancelsTouchesInView = true
        try h.gestures([edge])
        h.router.setGestureDeferral([Rect(x: 0, y: 0, width: 40, height: 1000)], on: app)
        h.down(1, 5, 900)
        #expect(!h.log.arenaDecisions.contains("joined edge"), "the bottom-most 200 px are the app's")
        h.up(1)
        h.down(2, 5, 100)
        #expect(h.log.arenaDecisions.contains("joined edge"), "above the cap the edge is the kiosk's")
    }

    @Test("an edge recognizer that is not deferrable joins even inside a client's deferral region")
    func notDeferrable() throws {
        let h = Harness()
        let app = h.toplevel(1, 0, 0, 1000, 1000)
        var exit = GestureSpec(name: "exit", kind: .screenEdgePan(ScreenEdgePanParameters()), attachment: .shell)
        exit.deferrable = false
        try h.gestures([exit])
        h.router.setGestureDeferral([Rect(x: 0, y: 0, width: 40, height: 1000)], on: app)
        h.down(1, 5, 900)
        #expect(h.log.arenaDecisions.contains("joined exit"), "the kiosk's exit gesture cannot be deferred")
    }

    @Test("a new configuration waits for the open sequence to close")
    func reconfigureWhileOpen() throws {
        let h = Harness()
        h.toplevel(1, 0, 0, 1000, 1000)
        let old = try h.gestures([spec("old")])
        h.down(1, 500, 500)
        let new = try h.gestures([spec("new")])
        #expect(old[0].began == [TouchID(1)])
        h.up(1)
        h.down(2, 500, 500)
        #expect(new[0].began == [TouchID(2)])
        #expect(old[0].began == [TouchID(1)])
    }
}
