import Foundation
import Testing
import TouchRouterConfig
import TouchRouterCore
import TouchRouterWayland

/// A press raises the window it went to, with the router's hit test as the only one: the
/// session's raise hears the surface routing chose (`PressObserver`) instead of asking the
/// tree again before routing.
@Suite("A press: one hit test, and the window it went to raised")
struct PressTests {
    /// A session with two overlapping windows of two clients that take touch and pointer
    /// input: `lower` at (0, 0) and `upper` over its right half.
    struct Windows {
        let server: WaylandServer
        let lower = SurfaceID(900_001), upper = SurfaceID(900_002)
        let output: OutputID

        init(kiosk: Bool = false) throws {
            var options = WaylandServer.Options()
            options.listens = false
            options.kiosk = kiosk
            server = try WaylandServer(options: options)
            output = try #require(server.tree.outputs.first).id
            let tree = server.tree
            try tree.addToplevel(lower, client: ClientID(900_001), output: output, position: Offset(dx: 0, dy: 0), size: Size(width: 400, height: 300))
            try tree.addToplevel(upper, client: ClientID(900_002), output: output, position: Offset(dx: 200, dy: 0), size: Size(width: 400, height: 300))
            server.router.setCapabilities([.touch, .pointer], for: ClientID(900_001))
            server.router.setCapabilities([.touch, .pointer], for: ClientID(900_002))
            tree.settleIndex()
        }

        var stack: [SurfaceID] { server.tree.output(output)?.toplevels ?? [] }
    }

    @Test("a touch down on the lower window raises it, and the press asks the tree one hit test")
    func touchRaisesWithOneHitTest() throws {
        let windows = try Windows()
        defer { windows.server.shutdown() }
        #expect(windows.stack == [windows.lower, windows.upper])
        let before = windows.server.tree.hitTestCount
        windows.server.inject(.touchDown(device: WaylandServer.injectionDevice, time: windows.server.clock.now(), id: TouchID(1), position: Point(100, 100)))
        #expect(windows.server.tree.hitTestCount - before == 1)
        #expect(windows.stack == [windows.upper, windows.lower])
        #expect(windows.server.router.keyboardFocus == windows.lower)
        windows.server.inject(.touchUp(device: WaylandServer.injectionDevice, time: windows.server.clock.now(), id: TouchID(1)))
        #expect(windows.server.tree.hitTestCount - before == 1, "an up asks no hit test: the touch is bound to its surface")
    }

    @Test("with a recognizer in the gesture arena, a down the arena lets through is hit-tested once: the arena's answer is the routing's")
    func arenaShareItsHitTest() throws {
        let windows = try Windows()
        defer { windows.server.shutdown() }
        try windows.server.shell.apply(try ServerConfiguration.parse("""
            [[recognizer]]
            name = "swipe-up"
            kind = "swipe"
            directions = ["up"]
            [[bind]]
            gesture = "swipe-up"
            action = "emit"
            event = "up"
            """, file: "press.toml"))
        let before = windows.server.tree.hitTestCount
        windows.server.inject(.touchDown(device: WaylandServer.injectionDevice, time: windows.server.clock.now(), id: TouchID(1), position: Point(100, 100)))
        #expect(windows.server.tree.hitTestCount - before == 1)
        #expect(windows.stack == [windows.upper, windows.lower], "routed to the lower window, which was raised")
        #expect(windows.server.router.keyboardFocus == windows.lower)
        windows.server.inject(.touchUp(device: WaylandServer.injectionDevice, time: windows.server.clock.now(), id: TouchID(1)))
        // The same slot again at another point, the tree unchanged: a new hit test, not the last answer.
        let second = windows.server.tree.hitTestCount
        windows.server.inject(.touchDown(device: WaylandServer.injectionDevice, time: windows.server.clock.now(), id: TouchID(1), position: Point(550, 100)))
        #expect(windows.server.tree.hitTestCount - second == 1)
        #expect(windows.server.router.keyboardFocus == windows.upper)
    }

    @Test("the fingers of one frame are hit-tested against the stack they went down on; their windows are raised in order after it")
    func frameOfPresses() throws {
        let windows = try Windows()
        defer { windows.server.shutdown() }
        let device = WaylandServer.injectionDevice, now = windows.server.clock.now()
        // The second finger is where the windows overlap: the upper one was on top when it went down.
        for event in [InputEvent.touchDown(device: device, time: now, id: TouchID(1), position: Point(100, 100)),
                      .touchDown(device: device, time: now, id: TouchID(2), position: Point(300, 100)),
                      .touchFrame(device: device, time: now)] {
            windows.server.router.enqueue(event)
        }
        windows.server.router.dispatchAll()
        #expect(windows.server.router.activeTouches.map(\.surface) == [windows.lower, windows.upper])
        #expect(windows.stack == [windows.lower, windows.upper], "lower raised, then upper")
        #expect(windows.server.router.keyboardFocus == windows.upper, "the last press has the focus")
    }

    @Test("a touch on the window already on top raises nothing and still asks one hit test")
    func touchOnTopWindow() throws {
        let windows = try Windows()
        defer { windows.server.shutdown() }
        let before = windows.server.tree.hitTestCount
        windows.server.inject(.touchDown(device: WaylandServer.injectionDevice, time: windows.server.clock.now(), id: TouchID(1), position: Point(500, 100)))
        #expect(windows.server.tree.hitTestCount - before == 1)
        #expect(windows.stack == [windows.lower, windows.upper])
    }

    @Test("a pointer button pressed over the lower window raises it, with no hit test beyond the motion's")
    func buttonRaises() throws {
        let windows = try Windows()
        defer { windows.server.shutdown() }
        let device = WaylandServer.injectionDevice
        windows.server.inject(.pointerMotionAbsolute(device: device, time: windows.server.clock.now(), position: Point(100, 100)))
        let afterMotion = windows.server.tree.hitTestCount
        windows.server.inject(.pointerButton(device: device, time: windows.server.clock.now(), button: 0x110, state: .pressed))
        #expect(windows.server.tree.hitTestCount == afterMotion, "the press goes to the pointer's focus, picked at the motion")
        #expect(windows.stack == [windows.upper, windows.lower])
    }

    @Test("in a kiosk, a press raises nothing")
    func kioskKeepsStacking() throws {
        let windows = try Windows(kiosk: true)
        defer { windows.server.shutdown() }
        windows.server.inject(.touchDown(device: WaylandServer.injectionDevice, time: windows.server.clock.now(), id: TouchID(1), position: Point(100, 100)))
        #expect(windows.stack == [windows.lower, windows.upper])
    }

    @Test("a touch that no surface takes raises nothing")
    func missRaisesNothing() throws {
        let windows = try Windows()
        defer { windows.server.shutdown() }
        let before = windows.server.tree.hitTestCount
        windows.server.inject(.touchDown(device: WaylandServer.injectionDevice, time: windows.server.clock.now(), id: TouchID(1), position: Point(1000, 800)))
        #expect(windows.server.tree.hitTestCount - before == 1)
        #expect(windows.stack == [windows.lower, windows.upper])
    }
}
