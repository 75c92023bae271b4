import Testing
import TouchRouterCore

@Suite("The shell taking the pointer mid-press (an interactive move)")
struct PointerTakingTests {
    final class Motions {
        var points: [Point<GlobalSpace>] = []
        var ended = 0
    }

    /// A toplevel at (0, 0), 100×100, with a button held on it.
    private func pressed() -> Harness {
        let h = Harness()
        h.toplevel(1, 0, 0, 100, 100)
        h.pointer(50, 50)
        h.button(.pressed)
        _ = h.delivery.take()
        return h
    }

    @Test("the pressing client hears leave, then nothing: motion goes to the shell, and the release ends the take and the pointer enters again")
    func takeAndRelease() {
        let h = pressed()
        let seen = Motions()
        let client = h.client(1)
        #expect(h.router.takePointer(from: client, onMotion: { seen.points.append($0) }, ended: { seen.ended += 1 }))
        #expect(h.delivery.take() == [.pointerLeave(SurfaceID(1)), .pointerFrame(client)])
        #expect(h.router.pointerTaken)
        h.pointer(70, 80)
        h.send(.pointerMotion(device: DeviceID(1), time: .zero, dx: 5, dy: -10))
        #expect(seen.points == [Point(70, 80), Point(75, 70)])
        #expect(h.delivery.take().isEmpty, "the client gets nothing of the taken pointer")
        #expect(h.log.last == .handled(by: .shell, declined: 0))
        h.button(.released)
        #expect(seen.ended == 1)
        #expect(!h.router.pointerTaken)
        #expect(h.router.pointerFocus == SurfaceID(1), "the pointer enters what is under it")
        #expect(!h.delivery.take().contains { if case .pointerButton = $0 { true } else { false } }, "the release is the shell's too")
    }

    @Test("no button held, or held on another client's surface: nothing is taken")
    func refused() {
        let h = Harness()
        h.toplevel(1, 0, 0, 100, 100)
        h.toplevel(2, 200, 0, 100, 100)
        h.pointer(50, 50)
        #expect(!h.router.takePointer(from: h.client(1), onMotion: { _ in }, ended: {}), "no button is held")
        h.button(.pressed)
        #expect(!h.router.takePointer(from: h.client(2), onMotion: { _ in }, ended: {}), "the press is another client's")
        #expect(!h.router.pointerTaken)
    }

    @Test("beginning to ignore interaction ends the take, so that no release is needed to end it")
    func ignoringEndsTake() {
        let h = pressed()
        let seen = Motions()
        #expect(h.router.takePointer(from: h.client(1), onMotion: { seen.points.append($0) }, ended: { seen.ended += 1 }))
        h.router.beginIgnoringInteraction()
        #expect(seen.ended == 1)
        #expect(!h.router.pointerTaken)
        _ = h.router.endIgnoringInteraction()
    }
}
