import Foundation
import Testing
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

        /// The settles of the round after the one that routes `events`: the round that ends
        /// what the routing changed.
        func settlesAfterRouting(_ events: [InputEvent]) -> UInt64 {
            device.send(events)
            let display = fixture.server.display
            #expect(display.round(timeout: 0) == .dispatched, "the pipe was ready")
            let before = display.settles
            _ = display.round(timeout: 0)
            return display.settles - before
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
        let settles = session.settlesAfterRouting([
            .touchDown(device: session.device.device, time: now, id: TouchID(1), position: session.pointOnFirst),
            .touchFrame(device: session.device.device, time: now),
        ])
        #expect(settles == 1)
        #expect(session.activated(session.first, session.firstWindow), "the press's window is activated")
        #expect(!session.activated(session.second, session.secondWindow), "the other is not")
        #expect(session.first.events(of: session.firstTouch).map(\.name) == ["down", "frame"])
    }

    @Test("touch motion and its frame, in a round of their own, change nothing settling reads: no settle, and the client has them")
    func motionSkipsSettling() throws {
        let session = try Session()
        defer { session.fixture.end() }
        let now = session.fixture.now
        _ = session.settlesAfterRouting([
            .touchDown(device: session.device.device, time: now, id: TouchID(1), position: session.pointOnFirst),
            .touchFrame(device: session.device.device, time: now),
        ])
        let moved = Point<GlobalSpace>(session.pointOnFirst.x + 1, session.pointOnFirst.y)
        for _ in 0..<3 {
            let settles = session.settlesAfterRouting([
                .touchMotion(device: session.device.device, time: session.fixture.now, id: TouchID(1), position: moved),
                .touchFrame(device: session.device.device, time: session.fixture.now),
            ])
            #expect(settles == 0)
        }
        session.first.readAvailable()
        #expect(session.first.events(of: session.firstTouch).map(\.name) == ["down", "frame"] + Array(repeating: ["motion", "frame"], count: 3).flatMap { $0 })
        // A round that dispatches the loop (the client's sync) settles again.
        try session.fixture.roundtrip(session.first)
        let settles = session.settlesAfterRouting([
            .touchUp(device: session.device.device, time: session.fixture.now, id: TouchID(1)),
            .touchFrame(device: session.device.device, time: session.fixture.now),
        ])
        #expect(settles == 0, "an up moves no focus either")
    }
}
