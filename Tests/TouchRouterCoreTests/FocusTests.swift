import Testing
import TouchRouterCore
import TouchRouterReplay

@Suite("Keyboard focus: the first responder")
struct KeyboardFocusTests {
    @Test("only a shown surface that accepts keyboard focus can become first responder")
    func canBecome() throws {
        let h = Harness()
        h.toplevel(1, 0, 0, 100, 100) { $0.acceptsKeyboardFocus = false }
        h.toplevel(2, 0, 0, 100, 100) { $0.hidden = true }
        h.toplevel(3, 0, 0, 100, 100)
        #expect(!h.router.setKeyboardFocus(SurfaceID(1)))
        #expect(!h.router.setKeyboardFocus(SurfaceID(2)))
        #expect(!h.router.setKeyboardFocus(SurfaceID(99)))
        #expect(h.router.keyboardFocus == nil)
        #expect(h.router.setKeyboardFocus(SurfaceID(3)))
        #expect(h.delivery.take() == [.keyboardEnter(SurfaceID(3), []), .modifiers(SurfaceID(3), KeyboardModifiers())])
    }

    @Test("keys go to the first responder, with modifiers when they change and held keys on enter")
    func keys() {
        let h = Harness()
        h.toplevel(1, 0, 0, 100, 100)
        h.toplevel(2, 0, 0, 100, 100)
        h.router.setKeyboardFocus(SurfaceID(1))
        _ = h.delivery.take()
        h.key(EvdevCode.keyLeftShift, .pressed)
        h.key(30, .pressed)
        var shift = KeyboardModifiers()
        shift.depressed = KeyboardModifiers.shift
        #expect(h.delivery.take() == [
            .key(SurfaceID(1), EvdevCode.keyLeftShift, .pressed), .modifiers(SurfaceID(1), shift), .key(SurfaceID(1), 30, .pressed),
        ])
        h.router.setKeyboardFocus(SurfaceID(2))
        #expect(h.delivery.take() == [
            .keyboardLeave(SurfaceID(1)), .keyboardEnter(SurfaceID(2), [EvdevCode.keyLeftShift, 30]), .modifiers(SurfaceID(2), shift),
        ])
        h.key(EvdevCode.keyCapsLock, .pressed)
        #expect(h.router.modifiers.locked == KeyboardModifiers.capsLock)
    }

    @Test("when the focused surface is unmapped, focus falls back to the previously focused one")
    func fallBackOnUnmap() throws {
        let h = Harness()
        let log = h.log
        h.toplevel(1, 0, 0, 100, 100)
        h.toplevel(2, 0, 0, 100, 100)
        h.toplevel(3, 0, 0, 100, 100)
        h.router.setKeyboardFocus(SurfaceID(1))
        h.router.setKeyboardFocus(SurfaceID(2))
        h.router.setKeyboardFocus(SurfaceID(3))
        try h.tree.updateProperties(SurfaceID(2)) { $0.mapped = false }
        #expect(h.router.keyboardFocus == SurfaceID(3), "unmapping another surface leaves focus alone")
        _ = h.delivery.take()
        try h.tree.updateProperties(SurfaceID(3)) { $0.mapped = false }
        #expect(h.router.keyboardFocus == SurfaceID(1), "2 is unmapped, so the one before it")
        #expect(h.delivery.take().prefix(2) == [.keyboardLeave(SurfaceID(3)), .keyboardEnter(SurfaceID(1), [])])
        #expect(log.focusChanges.last?.cause == .surfaceCannotTakeFocus)
    }

    @Test("when the focused surface is removed it hears its leave, and its nearest ancestor that can takes focus, else history")
    func fallBackOnRemove() throws {
        let h = Harness()
        h.toplevel(1, 0, 0, 100, 100)
        h.toplevel(2, 0, 0, 100, 100)
        h.subsurface(3, of: 2, 0, 0, 10, 10)
        h.router.setKeyboardFocus(SurfaceID(1))
        h.router.setKeyboardFocus(SurfaceID(3))
        try h.tree.remove(SurfaceID(3))
        #expect(h.router.keyboardFocus == SurfaceID(2))
        _ = h.delivery.take()
        try h.tree.remove(SurfaceID(2))
        #expect(h.router.keyboardFocus == SurfaceID(1))
        #expect(h.delivery.take().prefix(2) == [.keyboardLeave(SurfaceID(2)), .keyboardEnter(SurfaceID(1), [])],
                "a removed surface hears its leave: its client may still hold it (the Wayland layer drops it for a destroyed one)")
        try h.tree.remove(SurfaceID(1))
        #expect(h.router.keyboardFocus == nil)
        #expect(h.delivery.take() == [.keyboardLeave(SurfaceID(1))])
    }

    @Test("with the on-press policy a touch or click focuses the nearest surface that can take focus")
    func focusOnPress() {
        let h = Harness()
        h.router.focusPolicy = .onPress
        h.toplevel(1, 0, 0, 100, 100)
        h.subsurface(2, of: 1, 0, 0, 50, 50) { $0.acceptsKeyboardFocus = false }
        h.toplevel(3, 500, 0, 100, 100)
        h.down(0, 10, 10)
        #expect(h.router.keyboardFocus == SurfaceID(1))
        h.pointer(550, 50)
        h.button(.pressed)
        #expect(h.router.keyboardFocus == SurfaceID(3))
    }

    @Test("a frame's presses move the focus once, to the last, after the frame's touches are written")
    func framePressesFocusOnce() throws {
        let h = Harness()
        let log = h.log
        h.router.focusPolicy = .onPress
        h.toplevel(1, 0, 0, 100, 100)
        h.toplevel(3, 500, 0, 100, 100)
        h.send(
            .touchDown(device: DeviceID(0), time: h.clock.current, id: TouchID(0), position: Point(10, 10)),
            .touchDown(device: DeviceID(0), time: h.clock.current, id: TouchID(1), position: Point(550, 50)),
            .touchFrame(device: DeviceID(0), time: h.clock.current))
        let writes = h.delivery.writes
        #expect(h.delivery.take() == [
            .touchDown(SurfaceID(1), TouchID(0), Point(10, 10)), .touchDown(SurfaceID(3), TouchID(1), Point(50, 50)),
            .touchFrame(h.client(1)), .touchFrame(h.client(3)),
            .keyboardEnter(SurfaceID(3), []), .modifiers(SurfaceID(3), KeyboardModifiers()),
        ])
        #expect(writes == [4], "the frame is written before the focus moves")
        #expect(log.focusChanges.map(\.to) == [SurfaceID(3)])
        #expect(log.focusChanges.last?.cause == .press)
    }

    @Test("a press whose frame has not come yet moves the focus before the next key, and when the router returns")
    func pressBeforeItsFrame() {
        let h = Harness()
        h.router.focusPolicy = .onPress
        h.toplevel(1, 0, 0, 100, 100)
        h.toplevel(3, 500, 0, 100, 100)
        h.send(.touchDown(device: DeviceID(0), time: h.clock.current, id: TouchID(0), position: Point(10, 10)),
               .key(device: DeviceID(2), time: h.clock.current, key: 30, state: .pressed))
        #expect(h.delivery.take() == [
            .touchDown(SurfaceID(1), TouchID(0), Point(10, 10)),
            .keyboardEnter(SurfaceID(1), []), .modifiers(SurfaceID(1), KeyboardModifiers()), .key(SurfaceID(1), 30, .pressed),
        ])
        h.down(1, 550, 50)
        #expect(h.router.keyboardFocus == SurfaceID(3), "the router returned without the frame")
        #expect(h.delivery.writes.isEmpty, "only a frame's end writes")
    }
}

@Suite("The keyboard focus unit: a window in Wayland, any surface in UIKit")
struct KeyboardFocusUnitTests {
    /// A toplevel with a subsurface (a browser's page), an ungrabbed popup (its dropdown) with a
    /// subsurface of its own, and a second window beside it; the first window holds the focus.
    private func scene(_ unit: KeyboardFocusUnit) -> Harness {
        let h = Harness()
        h.router.focusPolicy = .onPress
        h.router.keyboardFocusUnit = unit
        h.toplevel(1, 0, 0, 200, 200)
        h.subsurface(2, of: 1, 0, 0, 100, 100)
        h.popup(3, of: 1, 150, 150, 100, 100)
        h.subsurface(4, of: 3, 0, 0, 20, 20)
        h.toplevel(5, 500, 0, 100, 100)
        h.router.setKeyboardFocus(SurfaceID(1))
        _ = h.delivery.take()
        return h
    }

    @Test("a press on a subsurface or an ungrabbed popup leaves the focus with its window: no leave, no enter",
          arguments: [(10.0, 10.0), (200.0, 200.0), (155.0, 155.0)])
    func pressInsideWindow(x: Double, y: Double) {
        let h = scene(.window)
        h.down(0, x, y)
        h.up(0)
        h.pointer(x, y)
        h.button(.pressed)
        h.button(.released)
        #expect(h.router.keyboardFocus == SurfaceID(1))
        #expect(!h.delivery.take().contains { if case .keyboardLeave = $0 { true } else if case .keyboardEnter = $0 { true } else { false } },
                "the window keeps its focus: a browser that hears a leave closes its dropdown")
    }

    @Test("a press on another window's popup or subsurface focuses that window")
    func pressOnOtherWindowsChild() {
        let h = scene(.window)
        h.router.setKeyboardFocus(SurfaceID(5))
        h.down(0, 155, 155)
        #expect(h.router.keyboardFocus == SurfaceID(1))
        h.router.setKeyboardFocus(SurfaceID(5))
        h.down(1, 10, 10)
        #expect(h.router.keyboardFocus == SurfaceID(1))
    }

    @Test("with the surface unit (UIKit's first responder) a press focuses the surface it hits")
    func surfaceUnit() {
        let h = scene(.surface)
        h.down(0, 10, 10)
        #expect(h.router.keyboardFocus == SurfaceID(2))
        h.down(1, 155, 155)
        #expect(h.router.keyboardFocus == SurfaceID(4))
    }

    @Test("a grabbing popup keeps the focus; when the grab ends, the focus goes back to its window")
    func grabEnds() throws {
        let h = scene(.window)
        h.router.beginClientGrab(h.client(1)) {}
        h.router.setKeyboardFocus(SurfaceID(3))
        h.down(0, 10, 10)
        h.up(0)
        #expect(h.router.keyboardFocus == SurfaceID(3), "the grab keeps the keys with the popup")
        h.router.endClientGrab()
        #expect(h.router.keyboardFocus == SurfaceID(1))
        #expect(h.log.focusChanges.last?.cause == .grabEnded)
    }

    @Test("a nested grabbing popup removed gives the focus to its parent popup while the grab lasts, else to the window")
    func nestedGrab() throws {
        let h = scene(.window)
        h.popup(6, of: 3, 10, 10, 50, 50)
        h.router.beginClientGrab(h.client(1)) {}
        h.router.setKeyboardFocus(SurfaceID(6))
        _ = try h.tree.remove(SurfaceID(6))
        #expect(h.router.keyboardFocus == SurfaceID(3))
        _ = try h.tree.remove(SurfaceID(3))
        #expect(h.router.keyboardFocus == SurfaceID(1))
    }

    @Test("a focused subsurface removed (focused by request) gives the focus to its window, not to the window before")
    func subsurfaceRemoved() throws {
        let h = scene(.window)
        h.router.setKeyboardFocus(SurfaceID(5))
        h.router.setKeyboardFocus(SurfaceID(2))
        _ = try h.tree.remove(SurfaceID(2))
        #expect(h.router.keyboardFocus == SurfaceID(1))
    }
}

@Suite("Pointer focus")
struct PointerFocusTests {
    @Test("enter and leave follow the surface under the pointer, each group ends with a frame")
    func enterLeave() {
        let h = Harness()
        h.toplevel(1, 0, 0, 100, 100)
        h.toplevel(2, 200, 0, 100, 100)
        h.pointer(50, 50)
        h.pointer(250, 50)
        h.pointer(500, 500)
        let (c1, c2) = (h.client(1), h.client(2))
        #expect(h.delivery.take() == [
            .pointerEnter(SurfaceID(1), Point(50, 50)), .pointerMotion(SurfaceID(1), Point(50, 50)), .pointerFrame(c1),
            .pointerLeave(SurfaceID(1)), .pointerEnter(SurfaceID(2), Point(50, 50)), .pointerMotion(SurfaceID(2), Point(50, 50)),
            .pointerFrame(c1), .pointerFrame(c2),
            .pointerLeave(SurfaceID(2)), .pointerFrame(c2),
        ])
        #expect(h.router.pointerFocus == nil)
    }

    @Test("while a button is held the pointer stays with the surface it was pressed on")
    func implicitGrab() {
        let h = Harness()
        h.toplevel(1, 0, 0, 100, 100)
        h.toplevel(2, 200, 0, 100, 100)
        h.pointer(50, 50)
        h.button(.pressed)
        h.pointer(250, 50)
        _ = h.delivery.take()
        h.pointer(260, 50)
        #expect(h.delivery.take() == [.pointerMotion(SurfaceID(1), Point(260, 50)), .pointerFrame(h.client(1))])
        h.button(.released)
        h.pointer(270, 50)
        #expect(h.router.pointerFocus == SurfaceID(2))
    }

    @Test("relative motion is clamped to the output")
    func clamped() {
        let h = Harness()
        h.send(.pointerMotion(device: DeviceID(1), time: .zero, dx: -50, dy: 5000))
        #expect(h.router.pointerPosition.x == 0)
        #expect(h.router.pointerPosition.y < 1000 && h.router.pointerPosition.y > 999)
    }

    @Test("relative motion of any size, infinite or not a number (as no device should send), keeps the pointer on the output",
          arguments: [(1e300, -1e300), (Double.infinity, -Double.infinity), (Double.nan, 5), (-Double.greatestFiniteMagnitude, Double.nan)] as [(Double, Double)])
    func hugeMotion(dx: Double, dy: Double) {
        let h = Harness()
        h.toplevel(1, 0, 0, 1000, 1000)
        h.pointer(500, 500)
        h.send(.pointerMotion(device: DeviceID(1), time: .zero, dx: dx, dy: dy))
        let position = h.router.pointerPosition
        #expect(position.x >= 0 && position.x < 1000 && position.y >= 0 && position.y < 1000, "\(position)")
        h.send(.pointerMotion(device: DeviceID(1), time: .zero, dx: -1, dy: -1))
        #expect(h.router.pointerFocus == SurfaceID(1))
    }

    @Test("a touch far outside every output, as a device reporting past its range gives, is dropped and leaves nothing behind")
    func touchFarOutside() {
        let h = Harness()
        h.toplevel(1, 0, 0, 1000, 1000)
        h.down(0, 1e15, -1e15)
        h.move(0, 500, 500)
        h.up(0)
        h.frame()
        #expect(h.delivery.take().isEmpty)
        #expect(h.router.activeTouches.isEmpty)
        h.down(1, 500, 500)
        #expect(h.log.last == .delivered(.hit))
    }

    @Test("a surface that moves away from a still pointer gets a leave, the one now under it an enter")
    func sceneChangeRepicks() throws {
        let h = Harness()
        h.toplevel(1, 0, 0, 100, 100)
        h.toplevel(2, 200, 0, 100, 100)
        h.pointer(50, 50)
        _ = h.delivery.take()
        h.router.refreshPointerFocus()
        #expect(h.delivery.take().isEmpty, "nothing changed, nothing is sent")
        #expect(!h.router.pointerFocusStale)
        try h.tree.move(SurfaceID(1), to: Offset(dx: 500, dy: 0))
        try h.tree.move(SurfaceID(2), to: Offset(dx: 40, dy: 40))
        #expect(h.router.pointerFocusStale, "the session's settle has work: the scene moved under the pointer")
        h.router.refreshPointerFocus()
        #expect(!h.router.pointerFocusStale)
        let (c1, c2) = (h.client(1), h.client(2))
        #expect(h.delivery.take() == [
            .pointerLeave(SurfaceID(1)), .pointerEnter(SurfaceID(2), Point(10, 10)), .pointerFrame(c1), .pointerFrame(c2),
        ])
        #expect(h.router.pointerFocus == SurfaceID(2))
        #expect(h.log.focusChanges.last?.cause == .sceneChanged)
    }

    @Test("a focus that moves but stays under the pointer hears its new local position as motion")
    func sceneChangeMotion() throws {
        let h = Harness()
        h.toplevel(1, 0, 0, 100, 100)
        h.pointer(50, 50)
        _ = h.delivery.take()
        try h.tree.move(SurfaceID(1), to: Offset(dx: 20, dy: 10))
        h.router.refreshPointerFocus()
        #expect(h.delivery.take() == [.pointerMotion(SurfaceID(1), Point(30, 40)), .pointerFrame(h.client(1))])
        try h.tree.resize(SurfaceID(1), to: Size(width: 300, height: 300))
        h.router.refreshPointerFocus()
        #expect(h.delivery.take().isEmpty, "a resize that leaves the local point alone sends nothing")
    }

    @Test("a held button keeps the focus when its surface moves away; it hears where the pointer now is")
    func sceneChangeKeepsGrab() throws {
        let h = Harness()
        h.toplevel(1, 0, 0, 100, 100)
        h.toplevel(2, 200, 0, 100, 100)
        h.pointer(50, 50)
        h.button(.pressed)
        _ = h.delivery.take()
        try h.tree.move(SurfaceID(2), to: Offset(dx: 0, dy: 0))
        try h.tree.move(SurfaceID(1), to: Offset(dx: 25, dy: 0))
        h.router.refreshPointerFocus()
        #expect(h.delivery.take() == [.pointerMotion(SurfaceID(1), Point(25, 50)), .pointerFrame(h.client(1))])
        #expect(h.router.pointerFocus == SurfaceID(1))
        h.button(.released)
        #expect(h.delivery.take() == [
            .pointerButton(SurfaceID(1), EvdevCode.buttonLeft, .released), .pointerLeave(SurfaceID(1)),
            .pointerEnter(SurfaceID(2), Point(50, 50)), .pointerFrame(h.client(1)), .pointerFrame(h.client(2)),
        ], "the grab's end gives the pointer to the surface now under it")
        try h.tree.raise(SurfaceID(1))
        h.router.refreshPointerFocus()
        #expect(h.router.pointerFocus == SurfaceID(1))
    }

    @Test("a pointer that never moved focuses nothing when surfaces appear under it")
    func unplacedPointer() {
        let h = Harness()
        h.toplevel(1, 0, 0, 100, 100)
        h.router.refreshPointerFocus()
        #expect(h.delivery.take().isEmpty)
        #expect(h.router.pointerFocus == nil)
    }

    @Test("a pointer focus that leaves the tree hears its leave (its client may still hold it), and nothing after")
    func removedFocus() throws {
        let h = Harness()
        h.toplevel(1, 0, 0, 100, 100)
        h.pointer(50, 50)
        let client = h.client(1)
        _ = h.delivery.take()
        try h.tree.remove(SurfaceID(1))
        #expect(h.router.pointerFocus == nil)
        #expect(h.delivery.take() == [.pointerLeave(SurfaceID(1)), .pointerFrame(client)])
        #expect(h.log.focusChanges.last?.deliveries.map(\.kind) == [.pointerLeave, .pointerFrame])
        h.pointer(60, 60)
        #expect(h.delivery.take().isEmpty)
    }
}

@Suite("Client grabs: what xdg_popup.grab asks of the seat")
struct ClientGrabTests {
    /// A toplevel with a popup of client A, and another client's toplevel beside it.
    private func scene() -> (Harness, dismissals: Counter) {
        let h = Harness()
        h.toplevel(1, 0, 0, 100, 100)
        h.popup(2, of: 1, 50, 50, 100, 100)
        h.toplevel(3, 300, 0, 100, 100)
        let counter = Counter()
        h.router.beginClientGrab(h.client(1)) { counter.count += 1 }
        return (h, counter)
    }

    final class Counter { var count = 0 }

    @Test("a press on the grabbing client's surfaces is delivered and keeps the grab, and the keyboard stays with the popup")
    func insidePress() {
        let (h, dismissals) = scene()
        h.router.focusPolicy = .onPress
        h.router.setKeyboardFocus(SurfaceID(2))
        h.pointer(120, 120)
        h.button(.pressed)
        h.button(.released)
        #expect(dismissals.count == 0)
        #expect(h.router.grabbingClient == h.client(1))
        #expect(h.delivery.take().contains(.pointerButton(SurfaceID(2), EvdevCode.buttonLeft, .pressed)))
        h.down(0, 10, 10)
        #expect(h.log.last == .delivered(.hit))
        #expect(dismissals.count == 0)
        #expect(h.router.keyboardFocus == SurfaceID(2), "a touch on the popup's parent leaves the keys with the popup")
        h.up(0)
        h.router.endClientGrab()
        h.down(1, 10, 10)
        #expect(h.router.keyboardFocus == SurfaceID(1), "with the grab over, a press focuses again")
    }

    @Test("a click on another client's surface is dropped and dismisses the grab; the pointer may enter there after")
    func outsideClick() {
        let (h, dismissals) = scene()
        h.pointer(350, 50)
        #expect(h.router.pointerFocus == nil, "the pointer enters only the grabbing client's surfaces")
        #expect(h.delivery.take().isEmpty)
        h.button(.pressed)
        #expect(h.log.last == .dropped(.outsideGrab))
        #expect(dismissals.count == 1)
        #expect(h.router.grabbingClient == nil)
        h.button(.released)
        h.router.refreshPointerFocus()
        #expect(h.router.pointerFocus == SurfaceID(3), "with the grab gone the pointer goes to what is under it")
        #expect(!h.delivery.take().contains { if case .pointerButton = $0 { true } else { false } }, "no half click reaches anyone")
    }

    @Test("a touch down outside (even on nothing) dismisses the grab; the rest of that touch is dropped")
    func outsideTouch() {
        let (h, dismissals) = scene()
        h.down(4, 900, 900)
        #expect(h.log.last == .dropped(.outsideGrab))
        #expect(dismissals.count == 1)
        h.move(4, 10, 10)
        h.up(4)
        #expect(h.log.outcomes.suffix(2) == [.dropped(.outsideGrab), .dropped(.outsideGrab)])
        #expect(h.delivery.take().isEmpty)
        #expect(h.router.activeTouches.isEmpty)
    }

    @Test("the grab ends without a dismissal when its client ends it or goes away")
    func ended() {
        let (h, dismissals) = scene()
        h.router.endClientGrab()
        #expect(h.router.grabbingClient == nil)
        h.router.beginClientGrab(h.client(1)) { dismissals.count += 1 }
        h.router.forgetClient(h.client(1))
        #expect(h.router.grabbingClient == nil)
        h.down(0, 350, 50)
        #expect(dismissals.count == 0)
        #expect(h.log.last == .delivered(.hit))
    }
}

@Suite("A button held on a surface that leaves the tree")
struct ButtonOnGoneSurfaceTests {
    @Test("its release reaches no one, not the surface now under the pointer, which never saw the press; the next click is whole")
    func releaseGoesNowhere() throws {
        let h = Harness()
        h.toplevel(1, 0, 0, 500, 500)
        h.toplevel(2, 100, 100, 100, 100)
        h.pointer(150, 150)
        h.button(.pressed)
        #expect(h.delivery.take().contains(.pointerButton(SurfaceID(2), EvdevCode.buttonLeft, .pressed)))
        try h.tree.remove(SurfaceID(2))
        h.router.refreshPointerFocus()
        #expect(h.router.pointerFocus == SurfaceID(1))
        _ = h.delivery.take()
        h.button(.released)
        #expect(h.log.last == .dropped(.surfaceGone))
        #expect(!h.delivery.take().contains { if case .pointerButton = $0 { true } else { false } }, "no release without its press")
        h.button(.pressed)
        h.button(.released)
        #expect(h.delivery.take().filter { if case .pointerButton = $0 { true } else { false } } == [
            .pointerButton(SurfaceID(1), EvdevCode.buttonLeft, .pressed), .pointerButton(SurfaceID(1), EvdevCode.buttonLeft, .released),
        ])
    }
}
