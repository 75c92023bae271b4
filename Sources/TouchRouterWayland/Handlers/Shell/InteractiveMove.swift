import CWaylandShim
import TouchRouterCore

// xdg_toplevel.move started by a pointer button: the serial must be that of the latest
// press sent to the client, with a button still held on one of the toplevel's surfaces.
// The core takes the pointer from the client (`Router.takePointer`: wl_pointer.leave,
// then nothing until the last button is up) and the window follows the pointer.
//
// xdg_toplevel.move started by a touch. The serial must be that of the latest touch down
// the client was sent for that touch, on the toplevel itself or one of its surfaces, and
// the touch must still be down on it. The touch is then taken from the client with the
// core's touch rejection (the client gets wl_touch.cancel, and nothing more of it) and
// lands on its output's `MoveResponder`, which drags the window by the finger's travel
// until the finger lifts. A window or client that goes away mid-move leaves the finger
// with the responder, moving nothing, until it lifts.
//
// xdg_toplevel.resize is checked and taken the same ways, by a pointer button or by a
// touch; the finger or the pointer then resizes the window instead of moving it.

/// A touch that drags a window, or resizes it when `resize` says by which edges.
package struct TouchMove {
    package weak var surface: SurfaceObject?
    /// The window's position on its output when the move began.
    package var startWindow: Offset
    /// Where the finger was when the responder took it.
    package var startFinger: Point<GlobalSpace>? = nil
    package var resize: ResizeGrab? = nil
}

/// A resize under way: the toplevel, the edges its client asked for, and its window
/// geometry when the resize began.
package struct ResizeGrab {
    package weak var toplevel: XdgToplevelObject?
    package let edges: UInt32
    package let geometry: Rect<SurfaceSpace>
}

extension WaylandServer {
    /// xdg_toplevel.move: by a touch whose down had `serial`, a touch grab; anything
    /// else (a pointer's press, a stale or made-up serial, --kiosk) is ignored, as the
    /// protocol allows.
    package func beginMove(_ toplevel: XdgToplevelObject, serial: UInt32) {
        guard !toplevel.filling, let surface = toplevel.xdgSurface?.surface else { return }
        beginMove(surface, serial: serial)
    }

    /// The move of a toplevel's surface, by xdg_toplevel.move or wl_shell_surface.move.
    package func beginMove(_ surface: SurfaceObject, serial: UInt32) {
        guard !options.kiosk, surface.inTree, let record = existingRecord(for: surface.client) else { return }
        if record.buttonPressSerial == serial {
            beginPointerMove(surface, record)
            return
        }
        beginTouchGrab(surface, record, serial: serial, resize: nil)
    }

    /// Takes the touch whose latest down the client was sent with `serial`, if it is still
    /// down on `surface`'s toplevel, and hands it to the output's MoveResponder.
    private func beginTouchGrab(_ surface: SurfaceObject, _ record: ClientRecord, serial: UInt32, resize: ResizeGrab?) {
        guard let press = record.touchDownSerials.last(where: { $0.serial == serial }),
              record.touchDownSerials.last(where: { $0.touch == press.touch })?.serial == serial,
              protocols.shell.touchMoves[press.touch] == nil,
              let touch = router.activeTouches.first(where: { $0.id == press.touch }), !touch.emulatingPointer,
              let touched = touch.surface, tree.toplevel(of: touched) == surface.id,
              let position = tree.surface(surface.id)?.position else { return }
        protocols.shell.touchMoves[press.touch] = TouchMove(surface: surface, startWindow: position, resize: resize)
        let rejected = router.rejectTouch(press.touch, by: record.id)
        // Taken by the output's MoveResponder, which noted where the finger was; else (no
        // output under the finger) nothing drags, and no later touch of that id may.
        if !rejected || protocols.shell.touchMoves[press.touch]?.startFinger == nil { protocols.shell.touchMoves[press.touch] = nil }
        router.dispatchAll()
    }

    private func beginPointerMove(_ surface: SurfaceObject, _ record: ClientRecord) {
        guard let focus = router.pointerFocus, tree.toplevel(of: focus) == surface.id,
              let position = tree.surface(surface.id)?.position else { return }
        let start = router.pointerPosition
        router.takePointer(from: record.id, onMotion: { [unowned self, weak surface] point in
            guard let surface else { return }
            self.dragWindow(surface, from: position, by: start, to: point)
        }, ended: {})
    }

    /// xdg_toplevel.resize, by the pointer with the latest press's serial and a button held
    /// on the toplevel, or by a touch as for a move: the pointer or the finger is taken as
    /// for a move, and each motion asks the client for the window geometry grown or shrunk
    /// by the travel on the edges given (within its minimum and maximum sizes), with the
    /// resizing state. A left or top edge moves the window at once, so that the opposite
    /// edge stays where it was once the client takes the size. With the button up or the
    /// finger lifted, a last configure drops the resizing state.
    package func beginResize(_ toplevel: XdgToplevelObject, serial: UInt32, edges: UInt32) {
        guard edges != 0, !options.kiosk, !toplevel.filling, let surface = toplevel.xdgSurface?.surface, surface.inTree,
              let record = existingRecord(for: surface.client) else { return }
        let geometry = surface.xdgSurface?.geometry ?? Rect(x: 0, y: 0, width: surface.size.width, height: surface.size.height)
        let grab = ResizeGrab(toplevel: toplevel, edges: edges, geometry: geometry)
        guard record.buttonPressSerial == serial else {
            beginTouchGrab(surface, record, serial: serial, resize: grab)
            return
        }
        guard let focus = router.pointerFocus, tree.toplevel(of: focus) == surface.id,
              let position = tree.surface(surface.id)?.position else { return }
        let start = router.pointerPosition
        router.takePointer(from: record.id, onMotion: { [unowned self] point in
            self.resizeWindow(grab, from: position, by: start, to: point)
        }, ended: { [unowned self] in self.endResize(grab) })
    }

    /// One step of a resize begun at `start` with the window at `window`: the size the
    /// travel to `point` asks for, and the window moved for a left or top edge.
    private func resizeWindow(_ grab: ResizeGrab, from window: Offset, by start: Point<GlobalSpace>, to point: Point<GlobalSpace>) {
        guard let toplevel = grab.toplevel, let surface = toplevel.xdgSurface?.surface, surface.inTree,
              point.x.isFinite, point.y.isFinite, abs(point.x - start.x) < 1e9, abs(point.y - start.y) < 1e9 else { return }
        let dx = Int((point.x - start.x).rounded()), dy = Int((point.y - start.y).rounded())
        let edges = grab.edges, geometry = grab.geometry
        let (top, bottom, left, right) = (edges & 1 != 0, edges & 2 != 0, edges & 4 != 0, edges & 8 != 0)
        func clamp(_ value: Int, _ minimum: Int, _ maximum: Int) -> Int {
            let low = max(1, minimum)
            return maximum > 0 ? min(max(value, low), max(maximum, low)) : max(value, low)
        }
        let width = clamp(geometry.width + (right ? dx : left ? -dx : 0), toplevel.minSize.width, toplevel.maxSize.width)
        let height = clamp(geometry.height + (bottom ? dy : top ? -dy : 0), toplevel.minSize.height, toplevel.maxSize.height)
        toplevel.resizeSize = Size(width: width, height: height)
        toplevel.xdgSurface?.sendConfigure()
        let target = Offset(dx: left ? window.dx + geometry.width - width : window.dx,
                            dy: top ? window.dy + geometry.height - height : window.dy)
        if tree.surface(surface.id)?.position != target {
            do { try tree.move(surface.id, to: target) } catch { report("resizing \(surface.id): \(error)") }
        }
    }

    private func endResize(_ grab: ResizeGrab) {
        guard let toplevel = grab.toplevel, toplevel.resizeSize != nil else { return }
        toplevel.resizeSize = nil
        toplevel.xdgSurface?.sendConfigure()
    }

    /// The finger of a move or resize is at `position`: the window follows it.
    package func drag(_ id: TouchID, to position: Point<GlobalSpace>) {
        guard let move = protocols.shell.touchMoves[id], let start = move.startFinger else { return }
        if let resize = move.resize {
            resizeWindow(resize, from: move.startWindow, by: start, to: position)
        } else if let surface = move.surface {
            dragWindow(surface, from: move.startWindow, by: start, to: position)
        }
    }

    /// The finger of a move or resize lifted, or its touch was cancelled.
    package func endTouchGrab(_ id: TouchID) -> Bool {
        guard let move = protocols.shell.touchMoves.removeValue(forKey: id) else { return false }
        if let resize = move.resize { endResize(resize) }
        return true
    }

    /// Moves a window that was at `window` when the drag began at `start`, by the travel to `position`.
    private func dragWindow(_ surface: SurfaceObject, from window: Offset, by start: Point<GlobalSpace>, to position: Point<GlobalSpace>) {
        guard surface.inTree, position.x.isFinite, position.y.isFinite, start.x.isFinite, start.y.isFinite else { return }
        // Positions are on an output, so the travel fits an Int with room to spare.
        let dx = (position.x - start.x).rounded(), dy = (position.y - start.y).rounded()
        guard abs(dx) < 1e9, abs(dy) < 1e9 else { return }
        let target = Offset(dx: window.dx + Int(dx), dy: window.dy + Int(dy))
        guard tree.surface(surface.id)?.position != target else { return }
        do { try tree.move(surface.id, to: target) } catch { report("moving \(surface.id): \(error)") }
    }
}

/// An output's link: takes the touches that `beginMove` and `beginResize` took from their clients.
package final class MoveResponder: CompositorResponder {
    package unowned let server: WaylandServer
    package let output: String
    package init(server: WaylandServer, output: String) {
        self.server = server
        self.output = output
    }

    package func respond(to event: InputEvent, at link: Responder) -> ResponderAnswer {
        switch event {
        case .touchDown(_, _, let id, let position):
            guard server.protocols.shell.touchMoves[id] != nil else { return .notHandled }
            server.protocols.shell.touchMoves[id]?.startFinger = position
            return .handled
        case .touchMotion(_, _, let id, let position):
            guard server.protocols.shell.touchMoves[id] != nil else { return .notHandled }
            server.drag(id, to: position)
            return .handled
        case .touchUp(_, _, let id), .touchCancel(_, _, let id):
            return server.endTouchGrab(id) ? .handled : .notHandled
        default:
            return .notHandled
        }
    }
}
