import TouchRouterCore
import TouchRouterReplay
import Testing

@Suite("The session lock in the core: only the lock layer is shown and takes input")
struct SessionLockTests {
    @Test("locking cancels the app's live touch, takes its keyboard focus, and routes to the lock surface; what the lock surface leaves reaches nobody, not the app nor the output's responder; unlocking gives the app back")
    func lockAndUnlock() throws {
        let h = Harness()
        let app = h.toplevel(1, 0, 0, 1000, 1000)
        h.router.setKeyboardFocus(app)
        let background = ScriptedResponder(.handled)
        h.router.attach(background, to: .output(h.output))
        h.down(1, 500, 500)
        _ = h.delivery.take()
        h.router.setSessionLocked(true)
        #expect(h.delivery.take() == [.keyboardLeave(app), .touchCancel(h.client(1))])
        #expect(h.router.keyboardFocus == nil)
        #expect(!h.tree.isShown(app) && h.tree.hitTest(Point(500, 500)) == nil, "the app is off the screen and out of the hit test")
        h.move(1, 510, 500); h.up(1)
        #expect(h.delivery.take() == [], "the rest of the cancelled touch reaches nobody")

        h.down(2, 500, 500)
        #expect(h.delivery.take() == [], "no lock surface yet: nothing takes the touch")
        #expect(background.seen.isEmpty, "the output's responder is behind the lock too")
        h.up(2)

        try h.tree.addToplevel(SurfaceID(9), client: ClientID(900), output: h.output, position: Offset(dx: 0, dy: 0),
                               size: Size(width: 600, height: 1000), label: "lock", layer: .lock)
        #expect(h.router.setKeyboardFocus(SurfaceID(9)))
        #expect(!h.router.setKeyboardFocus(app), "a locked-out surface cannot take the keyboard focus")
        _ = h.delivery.take()
        h.down(3, 100, 100)
        #expect(h.delivery.take() == [.touchDown(SurfaceID(9), TouchID(3), Point(100, 100))])
        h.up(3)
        _ = h.delivery.take()
        h.down(4, 800, 100)
        #expect(h.delivery.take() == [], "beside the lock surface the app stays out of reach")
        h.up(4)

        let late = h.toplevel(5, 0, 0, 1000, 1000)
        #expect(h.tree.properties(of: late)?.lockedOut == true, "a window mapped while locked is locked out as it comes")
        h.router.setSessionLocked(false)
        try h.tree.remove(SurfaceID(9))
        #expect(h.tree.isShown(app) && h.tree.isShown(late))
        _ = h.delivery.take()
        h.down(6, 500, 500)
        #expect(h.delivery.take() == [.touchDown(late, TouchID(6), Point(500, 500))])
    }

    @Test("a key still down when the session unlocks was typed into the lock: the window given the focus back hears neither it in its enter nor its release; a key pressed again after the unlock reaches it")
    func keyHeldAcrossUnlock() throws {
        let h = Harness()
        let app = h.toplevel(1, 0, 0, 1000, 1000)
        h.router.setKeyboardFocus(app)
        h.router.setSessionLocked(true)
        try h.tree.addToplevel(SurfaceID(9), client: ClientID(900), output: h.output, position: Offset(dx: 0, dy: 0),
                               size: Size(width: 1000, height: 1000), label: "lock", layer: .lock)
        #expect(h.router.setKeyboardFocus(SurfaceID(9)))
        h.key(EvdevCode.keyLeftShift, .pressed)
        h.key(28, .pressed)
        _ = h.delivery.take()
        h.router.setSessionLocked(false)
        try h.tree.remove(SurfaceID(9))
        #expect(h.router.setKeyboardFocus(app))
        #expect(h.delivery.take().contains(.keyboardEnter(app, [])), "the enter lists no key pressed under the lock")
        #expect(h.router.modifiers.depressed == 0, "Shift held from the lock is no modifier of the app's")
        h.key(28, .released)
        h.key(EvdevCode.keyLeftShift, .released)
        #expect(h.delivery.take() == [], "the releases of keys pressed under the lock reach nobody")
        #expect(h.log.records.suffix(2).map(\.outcome) == [.dropped(.pressedUnderLock), .dropped(.pressedUnderLock)])
        h.key(28, .pressed)
        h.key(28, .released)
        #expect(h.delivery.take() == [.key(app, 28, .pressed), .key(app, 28, .released)])
    }

    @Test("a caller's properties never unlock a surface; moving a toplevel into the lock layer shows it, out of it hides it")
    func propertiesAndLayers() throws {
        let h = Harness()
        let app = h.toplevel(1, 0, 0, 100, 100)
        h.router.setSessionLocked(true)
        try h.tree.setProperties(app, SurfaceProperties())
        #expect(h.tree.properties(of: app)?.lockedOut == true)
        try h.tree.setLayer(app, .lock)
        #expect(h.tree.isShown(app))
        try h.tree.setLayer(app, .overlay)
        #expect(!h.tree.isShown(app))
    }

    @Test("no recognizer runs while locked: a pan in a hold-back zone reaches the lock surface")
    func noGestures() throws {
        let h = Harness()
        try h.gestures([spec("edge")], zones: [leftEdgeZone])
        h.router.setSessionLocked(true)
        try h.tree.addToplevel(SurfaceID(9), client: ClientID(900), output: h.output, position: Offset(dx: 0, dy: 0),
                               size: Size(width: 1000, height: 1000), label: "lock", layer: .lock)
        h.down(1, 10, 500)
        #expect(h.delivery.take() == [.touchDown(SurfaceID(9), TouchID(1), Point(10, 500))])
        #expect(h.log.arenaDecisions.isEmpty)
    }
}
