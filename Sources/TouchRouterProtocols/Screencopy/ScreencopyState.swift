import CWaylandShim
import TouchRouterCore

// wlr-screencopy-unstable-v1 (protocols/wlr-screencopy-unstable-v1.xml, from wlroots), version
// 3, as Debian's wayvnc 0.5 binds it, for the programs `[privileges] screen-capture` names: an
// output's composed picture copied into a client's wl_shm buffer, with the damage since that
// client's previous copy of the output. Where the protocol leaves room: the one buffer format
// offered is XRGB8888 in the layout's orientation (never y-inverted), no dmabuf; the cursor is
// in the picture whatever overlay_cursor says, as the session composes it; a copy is made at
// the next frame tick, copy_with_damage at the first tick whose composition changed something
// since the client's last copy of that output. While only copy_with_damage frames wait and
// found none, the tick looks again when the picture may have changed, or after a quarter of
// a second (SessionTick.swift).

/// What screen capture may ask of the server (Handlers/ScreencopyHandling.swift).
package protocol ScreencopyHandler: AnyObject {
    var screencopyState: ScreencopyState { get }
    /// The output's picture in panel pixels and its scale; nil for an output that is gone.
    func captureSize(of output: OutputID) -> (pixels: Size, scale: Int)?
    /// Composes the output now; its framebuffer (the damage is told through `composed`).
    func composeForCapture(_ output: OutputID) -> Framebuffer?
    var now: RouterTime { get }
}

package final class ScreencopyState {
    package init() {}
    /// Frames asked to copy, waiting for the next frame tick (and, with damage, for damage).
    private var waiting: [ScreencopyFrameObject] = []
    /// What each client's frames of each output have not copied yet; a client with no entry
    /// for an output copies all of it.
    private var unsent: [OutputID: [ClientID: UnpresentedDamage]] = [:]

    package static let globals = [ProtocolGlobal(interface: tr_zwlr_screencopy_manager_v1_interface, version: ScreencopyManager.version,
                                         bind: ScreencopyManager.bind, privilege: .screenCapture)]

    package var isEmpty: Bool { waiting.isEmpty }
    /// Every waiting frame waits for damage: the session's tick need look only when the
    /// picture may have changed.
    package var awaitsOnlyDamage: Bool { waiting.allSatisfy(\.withDamage) }
    /// A waiting frame's buffer went: the next tick fails it.
    package var awaitsFailing: Bool { waiting.contains { !$0.isLive } }
    /// Frames asked for so far: a new one may have damage to copy at once (a client's first).
    package private(set) var framesAsked: UInt64 = 0

    /// Frames of one client waiting at once, at most; more fail at once.
    package static let maximumWaitingPerClient = 8

    package func waitingCount(of client: ClientID) -> Int { waiting.reduce(0) { $0 + ($1.clientID == client ? 1 : 0) } }

    package func wait(_ frame: ScreencopyFrameObject) {
        waiting.append(frame)
        framesAsked &+= 1
    }
    package func forget(_ frame: ScreencopyFrameObject) { waiting.removeAll { $0 === frame } }

    /// An output was composed, for whatever reason: every client capturing it has this more to copy.
    package func composed(_ output: OutputID, repaint: [PixelRect]?) {
        guard var clients = unsent[output] else { return }
        for key in clients.keys { clients[key]?.add(repaint) }
        unsent[output] = clients
    }

    /// At each frame tick: each waiting frame's output is composed once, and the frames whose
    /// output changed since their client's last copy (or that asked without damage) are copied.
    package func frameTick(_ handler: any ScreencopyHandler) {
        guard !waiting.isEmpty else { return }
        var framebuffers: [OutputID: Framebuffer?] = [:]
        var still: [ScreencopyFrameObject] = []
        for frame in waiting {
            guard frame.isLive else {
                frame.fail()
                continue
            }
            let output = frame.output
            if framebuffers[output] == nil { framebuffers[output] = .some(handler.composeForCapture(output)) }
            guard let framebuffer = framebuffers[output] ?? nil, handler.captureSize(of: output) != nil else {
                frame.fail()
                continue
            }
            let client = frame.clientID
            let damage = unsent[output]?[client] ?? UnpresentedDamage()
            if frame.withDamage, damage.isEmpty {
                still.append(frame)
                continue
            }
            unsent[output, default: [:]][client] = UnpresentedDamage(all: false)
            frame.copy(from: framebuffer, damage: damage.all ? nil : damage.rects, at: handler.now)
        }
        waiting = still
    }

    /// A client went: what it had not copied is forgotten.
    package func clientGone(_ id: ClientID) {
        for output in unsent.keys { unsent[output]?[id] = nil }
    }
}
