import Testing
import TouchRouterCore
import TouchRouterReplay

@Suite("Touch: bound for life, exclusive and multiple touch, removal, cancel, frames")
struct TouchTests {
    @Test("a touch stays bound to its surface while it moves outside it")
    func boundForLife() {
        let h = Harness()
        h.toplevel(1, 0, 0, 100, 100)
        h.toplevel(2, 500, 0, 100, 100)
        h.down(0, 50, 50)
        h.move(0, 550, 50)
        h.up(0)
        h.frame()
        #expect(h.delivery.take() == [
            .touchDown(SurfaceID(1), TouchID(0), Point(50, 50)),
            .touchMotion(SurfaceID(1), TouchID(0), Point(550, 50)),
            .touchUp(SurfaceID(1), TouchID(0)),
            .touchFrame(h.client(1)),
        ])
        #expect(h.router.activeTouches.isEmpty)
    }

    @Test("a frame goes once to each client that got touch events since the last one")
    func framesPerClient() {
        let h = Harness()
        h.toplevel(1, 0, 0, 100, 100)
        h.subsurface(3, of: 1, 0, 0, 10, 10)
        h.toplevel(2, 500, 0, 100, 100)
        h.down(0, 5, 5)
        h.down(1, 50, 50)
        h.down(2, 550, 50)
        _ = h.delivery.take()
        h.frame()
        #expect(h.delivery.take() == [.touchFrame(h.client(1)), .touchFrame(h.client(2))])
        h.frame()
        #expect(h.delivery.take().isEmpty)
    }

    @Test("exclusive surface: its touch is delivered only while no other surface on the output tracks one")
    func exclusiveBlockedByOthers() {
        let h = Harness()
        let log = h.log
        h.toplevel(1, 0, 0, 100, 100)
        h.toplevel(2, 500, 0, 100, 100) { $0.exclusiveTouch = true }
        h.down(0, 50, 50)
        h.down(1, 550, 50)
        #expect(log.last == .dropped(.blockedByExclusiveTouch(exclusive: SurfaceID(2), tracking: SurfaceID(1))))
        h.move(1, 560, 50)
        h.up(1)
        #expect(h.delivery.take() == [.touchDown(SurfaceID(1), TouchID(0), Point(50, 50))], "the blocked touch stays blocked for life")
        h.up(0)
        h.down(2, 550, 50)
        h.down(3, 560, 60)
        #expect(h.delivery.take() == [
            .touchUp(SurfaceID(1), TouchID(0)),
            .touchDown(SurfaceID(2), TouchID(2), Point(50, 50)),
            .touchDown(SurfaceID(2), TouchID(3), Point(60, 60)),
        ], "alone, the exclusive surface takes touches, several when multiple touch is on")
    }

    @Test("non-exclusive surface: its touch is blocked while an exclusive surface tracks one")
    func exclusiveBlocksOthers() {
        let h = Harness(outputs: [Rect(x: 0, y: 0, width: 1000, height: 1000), Rect(x: 1000, y: 0, width: 1000, height: 1000)])
        let log = h.log
        h.toplevel(1, 0, 0, 100, 100) { $0.exclusiveTouch = true }
        h.toplevel(2, 500, 0, 100, 100)
        h.toplevel(3, 0, 0, 100, 100, output: 2)
        h.down(0, 50, 50)
        h.down(1, 550, 50)
        #expect(log.last == .dropped(.blockedByExclusiveTouch(exclusive: SurfaceID(1), tracking: SurfaceID(1))))
        h.down(2, 1050, 50)
        #expect(log.last == .delivered(.hit), "another output is another window")
        h.up(0)
        h.down(3, 550, 50)
        #expect(log.last == .delivered(.hit))
    }

    @Test("a surface outside the exclusive-touch rule (an on-screen keyboard) takes touches while an exclusive surface tracks one, and its own touches block no exclusive surface")
    func ignoresExclusiveTouch() {
        let h = Harness()
        let log = h.log
        h.toplevel(1, 0, 0, 100, 100) { $0.exclusiveTouch = true }
        h.toplevel(2, 0, 800, 1000, 200) { $0.ignoresExclusiveTouch = true }
        h.toplevel(3, 500, 0, 100, 100)
        h.down(0, 50, 50)
        h.down(1, 500, 900)
        #expect(log.last == .delivered(.hit), "the keyboard's touch passes the held exclusive surface")
        h.down(2, 550, 50)
        #expect(log.last == .dropped(.blockedByExclusiveTouch(exclusive: SurfaceID(1), tracking: SurfaceID(1))), "an ordinary surface stays blocked")
        h.up(0)
        h.up(2)
        // With only the keyboard tracking, the exclusive surface takes a touch.
        h.down(3, 50, 50)
        #expect(log.last == .delivered(.hit), "the keyboard's touch does not block the exclusive surface")
        #expect(h.delivery.take().filter { if case .touchDown = $0 { true } else { false } } == [
            .touchDown(SurfaceID(1), TouchID(0), Point(50, 50)),
            .touchDown(SurfaceID(2), TouchID(1), Point(500, 100)),
            .touchDown(SurfaceID(1), TouchID(3), Point(50, 50)),
        ])
    }

    @Test("multiple touch off: the surface gets only the first touch of a sequence")
    func multipleTouchOff() {
        let h = Harness()
        let log = h.log
        h.toplevel(1, 0, 0, 100, 100) { $0.multipleTouch = false }
        h.down(0, 10, 10)
        h.down(1, 20, 20)
        #expect(log.last == .dropped(.multipleTouchDisabled(surface: SurfaceID(1))))
        h.move(1, 30, 30)
        h.up(1)
        h.up(0)
        h.down(2, 20, 20)
        #expect(h.delivery.take() == [
            .touchDown(SurfaceID(1), TouchID(0), Point(10, 10)),
            .touchUp(SurfaceID(1), TouchID(0)),
            .touchDown(SurfaceID(1), TouchID(2), Point(20, 20)),
        ])
    }

    @Test("a held touch's surface-local point follows its subsurface and its toplevel as they move between two motions, and a removed surface drops it")
    func localPointFollowsMoves() throws {
        let h = Harness()
        h.toplevel(1, 100, 100, 300, 300)
        h.subsurface(3, of: 1, 50, 50, 100, 100)
        h.toplevel(2, 500, 0, 100, 100)
        h.down(0, 160, 160)
        h.down(1, 550, 50)
        h.move(0, 161, 161)
        h.move(1, 551, 51)
        #expect(h.delivery.take().suffix(2) == [
            .touchMotion(SurfaceID(3), TouchID(0), Point(11, 11)),
            .touchMotion(SurfaceID(2), TouchID(1), Point(51, 51)),
        ])
        try h.tree.move(SurfaceID(3), to: Offset(dx: 40, dy: 40))
        h.move(0, 161, 161)
        #expect(h.delivery.take().last == .touchMotion(SurfaceID(3), TouchID(0), Point(21, 21)), "the subsurface moved")
        try h.tree.moveToplevel(SurfaceID(1), to: OutputID(1), position: Offset(dx: 90, dy: 100))
        h.move(0, 161, 161)
        #expect(h.delivery.take().last == .touchMotion(SurfaceID(3), TouchID(0), Point(31, 21)), "its toplevel moved")
        // Another surface's change counts too: nothing tells which origins it moved.
        try h.tree.move(SurfaceID(2), to: Offset(dx: 400, dy: 0))
        h.move(1, 551, 51)
        #expect(h.delivery.take().last == .touchMotion(SurfaceID(2), TouchID(1), Point(151, 51)))
        try h.tree.remove(SurfaceID(3))
        _ = h.delivery.take()
        h.move(0, 161, 161)
        #expect(h.log.last == .dropped(.surfaceGone), "a removed surface's cached origin is not used")
    }

    @Test("surface removed mid-touch: that touch ends for it, others go on, nothing dangles")
    func removedMidTouch() throws {
        let h = Harness()
        let log = h.log
        h.toplevel(1, 0, 0, 100, 100)
        h.subsurface(3, of: 1, 0, 0, 20, 20)
        h.toplevel(2, 500, 0, 100, 100)
        h.down(0, 10, 10)
        h.down(1, 550, 50)
        _ = h.delivery.take()
        try h.tree.remove(SurfaceID(1))
        #expect(h.router.activeTouches.allSatisfy { $0.surface.map(h.tree.contains) ?? true })
        #expect(h.delivery.take() == [.touchUp(SurfaceID(3), TouchID(0))],
                "the up, on the subsurface it went down on, comes at once and joins the frame still open")
        #expect(log.focusChanges.last.map { ($0.kind, $0.from, $0.to, $0.cause) } ?? (.keyboard, nil, nil, .request)
                == (.touch, SurfaceID(3), nil, .surfaceRemoved))
        h.move(0, 12, 12)
        #expect(log.last == .dropped(.surfaceGone))
        h.move(1, 560, 50)
        h.up(0)
        h.up(1)
        h.frame()
        #expect(h.delivery.take() == [
            .touchMotion(SurfaceID(2), TouchID(1), Point(60, 50)),
            .touchUp(SurfaceID(2), TouchID(1)),
            .touchFrame(ClientID(101)),
            .touchFrame(h.client(2)),
        ], "the first client still gets the frame that closes the down and the up it received")
        #expect(h.router.activeTouches.isEmpty)
        h.down(0, 10, 10)
        #expect(log.last == .discarded(declined: 3), "the id is free again; nothing is there now")
    }

    @Test("a surface removed after its touch's frame: up and a frame of their own at once, for that client only")
    func removedAfterFrame() throws {
        let h = Harness()
        h.toplevel(1, 0, 0, 100, 100)
        h.subsurface(3, of: 1, 0, 0, 50, 50)
        h.toplevel(2, 500, 0, 100, 100)
        h.down(0, 10, 10)
        h.down(1, 60, 60)
        h.down(2, 550, 50)
        h.frame()
        _ = h.delivery.take()
        try h.tree.remove(SurfaceID(3))
        #expect(h.delivery.take() == [.touchUp(SurfaceID(3), TouchID(0)), .touchFrame(h.client(1))])
        try h.tree.remove(SurfaceID(1))
        #expect(h.delivery.take() == [.touchUp(SurfaceID(1), TouchID(1)), .touchFrame(ClientID(101))])
        h.up(0)
        h.up(1)
        h.move(2, 560, 50)
        h.frame()
        #expect(h.delivery.take() == [.touchMotion(SurfaceID(2), TouchID(2), Point(60, 50)), .touchFrame(h.client(2))],
                "the ended touches get nothing more; the other client's touch goes on")
    }

    @Test("a cancelled touch cancels the client's touches once, and their rest is swallowed")
    func cancel() {
        let h = Harness()
        h.toplevel(1, 0, 0, 100, 100)
        h.toplevel(2, 500, 0, 100, 100)
        h.down(0, 10, 10)
        h.down(1, 20, 20)
        h.down(2, 550, 50)
        _ = h.delivery.take()
        h.send(.touchCancel(device: DeviceID(0), time: .zero, id: TouchID(0)))
        h.move(1, 30, 30)
        h.move(2, 560, 50)
        h.up(1)
        #expect(h.delivery.take() == [.touchCancel(h.client(1)), .touchMotion(SurfaceID(2), TouchID(2), Point(60, 50))])
    }

    @Test("removing the device cancels its touches")
    func deviceRemoved() {
        let h = Harness()
        h.toplevel(1, 0, 0, 100, 100)
        h.router.nameDevice(DeviceID(0), "panel")
        h.send(.deviceAdded(device: DeviceID(0), time: .zero, capabilities: .touch))
        #expect(h.router.deviceName(DeviceID(0)) == "panel")
        #expect(h.router.knownDevices[DeviceID(0)] == .touch)
        h.down(0, 10, 10)
        _ = h.delivery.take()
        h.send(.deviceRemoved(device: DeviceID(0), time: .zero))
        #expect(h.delivery.take() == [.touchCancel(h.client(1))])
        #expect(h.router.activeTouches.isEmpty)
        #expect(h.router.knownDevices.isEmpty)
    }

    @Test("a repeated down for a live touch id is dropped, an unknown id's motion too")
    func duplicateAndUnknown() {
        let h = Harness()
        let log = h.log
        h.toplevel(1, 0, 0, 100, 100)
        h.down(0, 10, 10)
        h.down(0, 20, 20)
        #expect(log.last == .dropped(.duplicateTouch))
        h.move(7, 1, 1)
        #expect(log.last == .dropped(.unknownTouch))
        #expect(h.router.activeTouches.count == 1)
    }
}

@Suite("Pointer emulation and the fallback chain for touch")
struct EmulationTests {
    @Test("a client with wl_pointer but no wl_touch gets its touch as pointer input; the pointer leaves where the touch lifts outside")
    func emulated() {
        let h = Harness()
        h.toplevel(1, 100, 100, 100, 100)
        h.router.setCapabilities([.pointer, .keyboard], for: h.client(1))
        h.down(0, 150, 150)
        h.move(0, 300, 300)
        h.up(0)
        let c = h.client(1)
        #expect(h.delivery.take() == [
            .pointerEnter(SurfaceID(1), Point(50, 50)), .pointerMotion(SurfaceID(1), Point(50, 50)),
            .pointerButton(SurfaceID(1), EvdevCode.buttonLeft, .pressed), .pointerFrame(c),
            .pointerMotion(SurfaceID(1), Point(200, 200)), .pointerFrame(c),
            .pointerButton(SurfaceID(1), EvdevCode.buttonLeft, .released), .pointerLeave(SurfaceID(1)), .pointerFrame(c),
        ])
    }

    @Test("only one touch at a time drives the pointer")
    func emulationBusy() {
        let h = Harness()
        let log = h.log
        h.toplevel(1, 0, 0, 100, 100)
        h.router.setCapabilities(.pointer, for: h.client(1))
        h.down(0, 10, 10)
        h.down(1, 20, 20)
        #expect(log.last == .dropped(.pointerEmulationBusy))
    }

    @Test("a client with neither passes the touch on; a compositor responder can take it for its whole sequence")
    func chainTakesTouch() {
        let h = Harness()
        let log = h.log
        h.toplevel(1, 0, 0, 100, 100)
        h.router.setCapabilities([], for: h.client(1))
        h.down(0, 10, 10)
        #expect(log.last == .discarded(declined: 5), "surface, toplevel role, output, shell, delegate")
        let outputResponder = ScriptedResponder(.handled)
        h.router.attach(outputResponder, to: .output(h.output))
        h.down(1, 10, 10)
        #expect(log.last == .handled(by: .output(h.output), declined: 2))
        h.move(1, 20, 20)
        h.up(1)
        #expect(outputResponder.seen.count == 3)
        #expect(h.delivery.take().isEmpty)
    }
}
