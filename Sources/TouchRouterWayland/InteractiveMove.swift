import CWaylandShim
import TouchRouterCore

// xdg_toplevel.move started by a touch. The serial must be that of the latest touch down
// the client was sent for that touch, on the toplevel itself or one of its surfaces, and
// the touch must still be down on it. The touch is then taken from the client with the
// core's touch rejection (the client gets wl_touch.cancel, and nothing more of it) and
// lands on its output's `MoveResponder`, which drags the window by the finger's travel
// until the finger lifts. A window or client that goes away mid-move leaves the finger
// with the responder, moving nothing, until it lifts.

/// A touch that drags a window.
struct TouchMove {
    weak var surface: SurfaceObject?
    /// The window's position on its output when the move began.
    var startWindow: Offset
    /// Where the finger was when the responder took it.
    var startFinger: Point<GlobalSpace>? = nil
}

extension WaylandSession {
    /// xdg_toplevel.move: by a touch whose down had `serial`, a touch grab; anything
    /// else (a pointer's press, a stale or made-up serial, --kiosk) is ignored, as the
    /// protocol allows.
    func beginMove(_ toplevel: XdgToplevelObject, serial: UInt32) {
        guard !options.kiosk, let surface = toplevel.xdgSurface?.surface, surface.inTree, !toplevel.filling,
              let record = existingRecord(for: surface.client),
              let press = record.touchDownSerials.last(where: { $0.serial == serial }),
              record.touchDownSerials.last(where: { $0.touch == press.touch })?.serial == serial,
              touchMoves[press.touch] == nil,
              let touch = router.activeTouches.first(where: { $0.id == press.touch }), !touch.emulatingPointer,
              let touched = touch.surface, tree.toplevel(of: touched) == surface.id,
              let position = tree.surface(surface.id)?.position else { return }
        touchMoves[press.touch] = TouchMove(surface: surface, startWindow: position)
        if !router.rejectTouch(press.touch, by: record.id) { touchMoves[press.touch] = nil }
        router.dispatchAll()
    }

    /// The finger of a move is at `position`: the window follows it.
    func drag(_ id: TouchID, to position: Point<GlobalSpace>) {
        guard let move = touchMoves[id], let start = move.startFinger, let surface = move.surface, surface.inTree,
              position.x.isFinite, position.y.isFinite else { return }
        // Positions are on an output, so the travel fits an Int with room to spare.
        let dx = (position.x - start.x).rounded(), dy = (position.y - start.y).rounded()
        guard abs(dx) < 1e9, abs(dy) < 1e9 else { return }
        let target = Offset(dx: move.startWindow.dx + Int(dx), dy: move.startWindow.dy + Int(dy))
        guard tree.surface(surface.id)?.position != target else { return }
        do { try tree.move(surface.id, to: target) } catch { report("moving \(surface.id): \(error)") }
    }
}

/// An output's link: takes the touches that `beginMove` gave back from their clients.
final class MoveResponder: CompositorResponder {
    unowned let session: WaylandSession
    let output: String
    init(session: WaylandSession, output: String) {
        self.session = session
        self.output = output
    }

    func respond(to event: InputEvent, at link: Responder) -> ResponderAnswer {
        switch event {
        case .touchDown(_, _, let id, let position):
            guard session.touchMoves[id] != nil else { return .notHandled }
            session.touchMoves[id]?.startFinger = position
            return .handled
        case .touchMotion(_, _, let id, let position):
            guard session.touchMoves[id] != nil else { return .notHandled }
            session.drag(id, to: position)
            return .handled
        case .touchUp(_, _, let id), .touchCancel(_, _, let id):
            return session.touchMoves.removeValue(forKey: id) != nil ? .handled : .notHandled
        default:
            return .notHandled
        }
    }
}
