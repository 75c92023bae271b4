import Foundation
import Testing
import TouchRouterConfig
import TouchRouterCore
import TouchRouterProtocols
import TouchRouterWayland

/// Input sources are read in rounds of their own, ahead of the loop's other sources, and a
/// round of input that changed nothing settling reads skips the settling (LoopRounds.swift).
@Suite("Input rounds: a touch's motion settles nothing, a press that moves focus settles")
struct InputRoundTests {
    /// A session whose one input source is a pipe: each byte written to it delivers the
    /// events queued by then, as a libinput context's descriptor does.
    final class PipeDevice {
        let readEnd: Int32, writeEnd: Int32
        var queued: [InputEvent] = []
        let device = DeviceID(77)

        init() throws {
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { throw FixtureError("pipe: \(String(cString: strerror(errno)))") }
            readEnd = ends[0]
            writeEnd = ends[1]
            _ = fcntl(readEnd, F_SETFL, O_NONBLOCK)
        }

        deinit {
            close(readEnd)
            close(writeEnd)
        }

        func read(_ deliver: (InputEvent) -> Void) {
            var bytes = [UInt8](repeating: 0, count: 64)
            while Glibc.read(readEnd, &bytes, bytes.count) > 0 {}
            for event in queued { deliver(event) }
            queued.removeAll()
        }

        /// Queues the events and makes the descriptor readable.
        func send(_ events: [InputEvent]) {
            queued += events
            var byte: UInt8 = 1
            _ = write(writeEnd, &byte, 1)
        }
    }

    /// Two clients' windows, the second mapped last, and a point only the first covers.
    struct Session {
        let fixture: ProtocolFixture
        let device: PipeDevice
        let first: WireClient, second: WireClient
        let firstWindow: Window, secondWindow: Window
        let firstTouch: Proxy
        let pointOnFirst: Point<GlobalSpace>

        init() throws {
            device = try PipeDevice()
            fixture = try ProtocolFixture()
            first = try fixture.connect("first")
            second = try fixture.connect("second")
            firstWindow = try fixture.mapToplevel(first, width: 400, height: 300)
            secondWindow = try fixture.mapToplevel(second, width: 100, height: 100)
            firstTouch = try #require(first.request(try first.seat, "get_touch"))
            try fixture.roundtrip()
            // Every configure acked, so that an activation's is sent at once, not held for an ack.
            var acked: [UInt32?] = [nil, nil]
            for _ in 0..<8 {
                for (i, (client, window)) in [(first, firstWindow), (second, secondWindow)].enumerated() {
                    let configure = try #require(client.lastConfigure(of: window))
                    guard configure.serial != acked[i] else { continue }
                    acked[i] = configure.serial
                    client.request(window.xdgSurface, "ack_configure", configure.serial)
                    client.request(window.surface, "commit")
                }
                try fixture.roundtrip()
            }
            let output = try #require(fixture.server.tree.outputs.first)
            let firstID = try #require(output.toplevels.first)
            let tree = fixture.server.tree
            let point = stride(from: 0, to: 1080, by: 10).lazy.flatMap { y in stride(from: 0, to: 1920, by: 10).lazy.map { x in Point<GlobalSpace>(Double(x), Double(y)) } }
                .first { tree.hitTest($0).map { tree.toplevel(of: $0.surface) } == firstID }
            pointOnFirst = try #require(point)
            let device = self.device
            try fixture.server.addInputSource(fd: device.readEnd, name: { _ in "test pipe" }, read: device.read)
            device.send([.deviceAdded(device: device.device, time: fixture.now, capabilities: [.touch])])
            _ = fixture.server.dispatchPendingWork()
        }

        /// What routing `events` in a round of input did: whether the settle watch then said
        /// the round needs settling (what it says does not depend on the loop's timers),
        /// whether the loop was dispatched in that round too (then the next settles anyway),
        /// and how many times the next round settled.
        struct Routed {
            var needsSettling: Bool
            var loopDispatched: Bool
            var settles: UInt64
        }

        func route(_ events: [InputEvent]) -> Routed {
            device.send(events)
            let display = fixture.server.display
            #expect(display.round(timeout: 0) == .dispatched, "the pipe was ready")
            let needs = display.settleWatch?.needsSettling() ?? true
            let loopDispatched = display.loopDispatchedLastRound
            let before = display.settles
            _ = display.round(timeout: 0)
            return Routed(needsSettling: needs, loopDispatched: loopDispatched, settles: display.settles - before)
        }

        func activated(_ client: WireClient, _ window: Window) -> Bool {
            client.readAvailable()
            return client.lastConfigure(of: window)?.states.contains(4) == true
        }
    }

    @Test("a touch down that moves the keyboard focus settles once: the window it went to is activated, the other is not")
    func pressSettles() throws {
        let session = try Session()
        defer { session.fixture.end() }
        #expect(!session.activated(session.first, session.firstWindow), "the window mapped first does not have the focus")
        let now = session.fixture.now
        let routed = session.route([
            .touchDown(device: session.device.device, time: now, id: TouchID(1), position: session.pointOnFirst),
            .touchFrame(device: session.device.device, time: now),
        ])
        #expect(routed.needsSettling)
        #expect(routed.settles == 1)
        #expect(session.activated(session.first, session.firstWindow), "the press's window is activated")
        #expect(!session.activated(session.second, session.secondWindow), "the other is not")
        #expect(session.first.events(of: session.firstTouch).map(\.name) == ["down", "frame"])
    }

    @Test("touch motion and its frame, in a round of their own, change nothing settling reads: no settle, and the client has them")
    func motionSkipsSettling() throws {
        let session = try Session()
        defer { session.fixture.end() }
        let now = session.fixture.now
        _ = session.route([
            .touchDown(device: session.device.device, time: now, id: TouchID(1), position: session.pointOnFirst),
            .touchFrame(device: session.device.device, time: now),
        ])
        let moved = Point<GlobalSpace>(session.pointOnFirst.x + 1, session.pointOnFirst.y)
        var skipsSeen = 0
        for _ in 0..<5 {
            let routed = session.route([
                .touchMotion(device: session.device.device, time: session.fixture.now, id: TouchID(1), position: moved),
                .touchFrame(device: session.device.device, time: session.fixture.now),
            ])
            #expect(!routed.needsSettling)
            // A frame timer that came due in the same round dispatched the loop, which settles.
            if !routed.loopDispatched {
                #expect(routed.settles == 0)
                skipsSeen += 1
            }
        }
        #expect(skipsSeen > 0, "every round also dispatched the loop")
        session.first.readAvailable()
        #expect(session.first.events(of: session.firstTouch).map(\.name) == ["down", "frame"] + Array(repeating: ["motion", "frame"], count: 5).flatMap { $0 })
        let up = session.route([
            .touchUp(device: session.device.device, time: session.fixture.now, id: TouchID(1)),
            .touchFrame(device: session.device.device, time: session.fixture.now),
        ])
        #expect(!up.needsSettling, "an up moves no focus either")
    }

    @Test("a touch down on the window that has the focus needs no settle, unless a long-press recognizer then waits on a deadline")
    func gestureDeadlineSettles() throws {
        let session = try Session()
        defer { session.fixture.end() }
        let tree = session.fixture.server.tree
        let output = try #require(tree.outputs.first)
        let focused = try #require(session.fixture.server.router.keyboardFocus.flatMap { tree.toplevel(of: $0) })
        #expect(focused == output.toplevels.last, "the window on top has the focus")
        let origin = try #require(tree.globalOrigin(of: focused))
        let onFocused = Point<GlobalSpace>(Double(origin.dx) + 5, Double(origin.dy) + 5)
        try #require(tree.hitTest(onFocused).map { tree.toplevel(of: $0.surface) } == focused)
        let device = session.device.device
        var now = session.fixture.now
        let plain = session.route([.touchDown(device: device, time: now, id: TouchID(1), position: onFocused), .touchFrame(device: device, time: now)])
        #expect(!plain.needsSettling, "no focus moved, nothing raised, no deadline")
        now = session.fixture.now
        _ = session.route([.touchUp(device: device, time: now, id: TouchID(1)), .touchFrame(device: device, time: now)])
        try session.fixture.server.shell.apply(try ServerConfiguration.parse("""
            [[recognizer]]
            name = "hold"
            kind = "long-press"
            [[bind]]
            gesture = "hold"
            action = "emit"
            event = "held"
            """, file: "hold.toml"))
        _ = session.fixture.server.dispatchPendingWork()
        now = session.fixture.now
        let held = session.route([.touchDown(device: device, time: now, id: TouchID(2), position: onFocused), .touchFrame(device: device, time: now)])
        #expect(session.fixture.server.router.nextGestureDeadline != nil, "the long press waits on its deadline")
        #expect(held.needsSettling, "the gesture timer is to be armed")
        #expect(held.settles == 1)
    }
}
