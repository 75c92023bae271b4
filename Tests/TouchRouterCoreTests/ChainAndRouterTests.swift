import Testing
import TouchRouterCore
import TouchRouterReplay

@Suite("Fallback chain")
struct FallbackChainTests {
    @Test("positional: surface → role → parent … → toplevel → output → shell → delegate")
    func positionalOrder() {
        let h = Harness()
        h.toplevel(1, 0, 0, 500, 500)
        h.subsurface(2, of: 1, 10, 10, 300, 300)
        h.popup(3, of: 2, 20, 20, 100, 100)
        #expect(h.router.fallbackChain(at: Point(40, 40)) == [
            .surface(SurfaceID(3)), .role(SurfaceID(3), .popup), .surface(SurfaceID(2)), .surface(SurfaceID(1)),
            .role(SurfaceID(1), .toplevel), .output(h.output), .shell, .shellDelegate,
        ])
        #expect(h.router.fallbackChain(at: Point(900, 900)) == [.output(h.output), .shell, .shellDelegate])
        #expect(h.router.fallbackChain(at: Point(5000, 5000)) == [.shell, .shellDelegate])
    }

    @Test("non-positional events start at the first responder")
    func nonPositionalOrder() {
        let h = Harness()
        h.toplevel(1, 0, 0, 500, 500)
        h.subsurface(2, of: 1, 10, 10, 300, 300)
        #expect(h.router.firstResponderChain == [.shell, .shellDelegate])
        h.router.setKeyboardFocus(SurfaceID(2))
        #expect(h.router.firstResponderChain == [
            .surface(SurfaceID(2)), .surface(SurfaceID(1)), .role(SurfaceID(1), .toplevel), .output(h.output), .shell, .shellDelegate,
        ])
    }

    @Test("each link is asked in order; the first that handles it ends the walk")
    func linksInOrder() {
        let h = Harness()
        let log = h.log
        h.toplevel(1, 0, 0, 500, 500)
        h.subsurface(2, of: 1, 10, 10, 300, 300)
        h.router.setKeyboardFocus(SurfaceID(2))
        h.router.setCapabilities([.touch, .pointer], for: h.client(1))
        let role = ScriptedResponder(.notHandled), output = ScriptedResponder(.notHandled)
        let shell = ScriptedResponder(.notHandled), delegate = ScriptedResponder(.handled)
        h.router.attach(role, to: .role(SurfaceID(1), .toplevel))
        h.router.attach(output, to: .output(h.output))
        h.router.attach(shell, to: .shell)
        h.router.attach(delegate, to: .shellDelegate)
        _ = h.delivery.take()
        h.key(30, .pressed)
        #expect(log.last == .handled(by: .shellDelegate, declined: 5))
        #expect([role, output, shell, delegate].map(\.seen.count) == [1, 1, 1, 1])
        output.answer = .handled
        h.key(30, .released)
        #expect(log.last == .handled(by: .output(h.output), declined: 3))
        #expect(shell.seen.count == 1)
        #expect(h.delivery.take().isEmpty, "the client bound no keyboard")
    }

    @Test("with nothing taking it, an event is discarded after every link")
    func discarded() {
        let h = Harness()
        let log = h.log
        h.send(.switchToggle(device: DeviceID(3), time: .zero, kind: .tabletMode, state: .on))
        #expect(log.last == .discarded(declined: 2))
        let shell = ScriptedResponder(.handled)
        h.router.attach(shell, to: .shell)
        h.send(.switchToggle(device: DeviceID(3), time: .zero, kind: .lid, state: .on))
        #expect(log.last == .handled(by: .shell, declined: 0))
    }

    @Test("touchpad gestures go to compositor responders from the surface under the pointer")
    func gestures() {
        let h = Harness()
        let log = h.log
        h.toplevel(1, 0, 0, 500, 500)
        let output = ScriptedResponder(.handled)
        h.router.attach(output, to: .output(h.output))
        h.pointer(50, 50)
        h.send(.swipe(device: DeviceID(1), time: .zero, phase: .begin, fingers: 3, dx: 0, dy: 0, cancelled: false))
        #expect(log.last == .handled(by: .output(h.output), declined: 2))
    }

    @Test("responders attached to a removed surface go with it")
    func detachOnRemove() throws {
        let h = Harness()
        let log = h.log
        h.toplevel(1, 0, 0, 500, 500)
        h.router.setCapabilities([], for: h.client(1))
        let responder = ScriptedResponder(.handled)
        h.router.attach(responder, to: .role(SurfaceID(1), .toplevel))
        h.down(0, 10, 10)
        #expect(log.last == .handled(by: .role(SurfaceID(1), .toplevel), declined: 1))
        try h.tree.remove(SurfaceID(1))
        h.move(0, 20, 20)
        #expect(log.last == .dropped(.surfaceGone))
        #expect(responder.seen.count == 1)
    }
}

@Suite("Router: queue, monitor, trace, ignoring interaction")
struct RouterTests {
    final class Monitor: EventMonitor {
        var seen: [(UInt64, String)] = []
        let delivery: RecordingDelivery
        init(_ delivery: RecordingDelivery) { self.delivery = delivery }
        func observe(_ event: InputEvent, sequence: UInt64, arrival: RouterTime) {
            seen.append((sequence, "\(EventSyntax.format(event)) before \(delivery.received.count) deliveries"))
        }
    }

    @Test("events queue in order and dispatch one at a time; the monitor sees each first")
    func fifoAndMonitor() {
        let h = Harness()
        h.toplevel(1, 0, 0, 100, 100)
        let monitor = Monitor(h.delivery)
        h.router.addMonitor(monitor)
        h.router.enqueue(.touchDown(device: DeviceID(0), time: .zero, id: TouchID(0), position: Point(10, 10)))
        h.router.enqueue(.touchUp(device: DeviceID(0), time: .zero, id: TouchID(0)))
        #expect(h.router.pendingEvents == 2)
        #expect(h.delivery.received.isEmpty)
        #expect(h.router.dispatchNext())
        #expect(h.delivery.received.count == 1)
        #expect(h.router.dispatchNext())
        #expect(!h.router.dispatchNext())
        #expect(monitor.seen.map(\.0) == [1, 2])
        #expect(monitor.seen.map(\.1) == ["touch down 0 10 10 before 0 deliveries", "touch up 0 before 1 deliveries"])
    }

    @Test("every stage is stamped by the injected clock, in order")
    func stamps() {
        let h = Harness()
        let log = h.log
        h.toplevel(1, 0, 0, 100, 100)
        h.clock.advance(to: RouterTime(nanoseconds: 5_000))
        h.router.enqueue(.touchDown(device: DeviceID(0), time: RouterTime(nanoseconds: 4_000), id: TouchID(0), position: Point(10, 10)))
        h.clock.advance(byNanoseconds: 1_000)
        h.router.dispatchAll()
        let record = try! #require(log.records.first)
        #expect(record.arrival == RouterTime(nanoseconds: 5_000))
        #expect(record.dequeued == RouterTime(nanoseconds: 6_010))
        #expect(record.decided > record.dequeued)
        #expect(record.delivered > record.decided)
        #expect(record.event.time == RouterTime(nanoseconds: 4_000))
        #expect(record.deliveries == [DeliveryRecord(kind: .touchDown, surface: SurfaceID(1), client: h.client(1), local: Point(10, 10), reason: .hit)])
    }

    @Test("ignoring interaction nests, cancels live touches, drops touch and pointer, passes keys")
    func ignoreInteraction() {
        let h = Harness()
        let log = h.log
        h.toplevel(1, 0, 0, 100, 100)
        h.router.setKeyboardFocus(SurfaceID(1))
        h.down(0, 10, 10)
        h.pointer(20, 20)
        _ = h.delivery.take()
        h.router.beginIgnoringInteraction()
        h.router.beginIgnoringInteraction()
        #expect(h.delivery.take() == [.touchCancel(h.client(1)), .pointerLeave(SurfaceID(1)), .pointerFrame(h.client(1))])
        h.move(0, 11, 11)
        h.down(1, 30, 30)
        h.pointer(40, 40)
        h.key(30, .pressed)
        #expect(h.delivery.take() == [.key(SurfaceID(1), 30, .pressed)])
        #expect(h.router.endIgnoringInteraction())
        h.down(2, 30, 30)
        #expect(log.last == .dropped(.interactionIgnored), "still one level deep")
        #expect(h.router.endIgnoringInteraction())
        #expect(!h.router.endIgnoringInteraction(), "unbalanced end is refused")
        h.up(1)
        #expect(log.last == .dropped(.interactionIgnored), "a touch that went down while ignoring stays dropped")
        h.down(3, 30, 30)
        #expect(h.delivery.take() == [.touchDown(SurfaceID(1), TouchID(3), Point(30, 30))])
        #expect(h.router.ignoredInteractionEvents == 3)
    }

    @Test("routing is deterministic: the same tree and events give the same deliveries")
    func deterministic() {
        func run() -> [RecordingDelivery.Received] {
            let h = Harness()
            h.toplevel(1, 0, 0, 300, 300)
            h.subsurface(2, of: 1, 50, 50, 100, 100)
            h.toplevel(3, 200, 200, 300, 300) { $0.exclusiveTouch = true }
            var generator = SystemLikeGenerator(seed: 7)
            for step in 0..<500 {
                let id = Int32(step % 4)
                let x = Double(generator.next() % 600), y = Double(generator.next() % 600)
                switch generator.next() % 4 {
                case 0: h.down(id, x, y)
                case 1: h.move(id, x, y)
                case 2: h.up(id)
                default: h.frame()
                }
            }
            return h.delivery.received
        }
        let first = run()
        #expect(first.count > 100)
        #expect(first == run())
    }
}

/// A tiny seeded generator for tests (SplitMix64).
struct SystemLikeGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
