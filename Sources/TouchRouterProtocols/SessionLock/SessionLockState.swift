import CWaylandShim
import TouchRouterCore

// ext-session-lock-v1 (protocols/ext-session-lock-v1.xml, wayland-protocols' staging), as
// Debian's swaylock 1.7 binds it. While the session is locked only lock surfaces are shown
// and take input (the core's lock layer, Routing/SessionLocking.swift); the on-screen
// keyboard, for a client granted the input method, is raised above them (OnScreenKeyboard.swift).
// A lock client that dies leaves the session locked, showing the background, as the protocol
// requires; a new lock takes over. Where the protocol is silent: `locked` is sent at the
// frame tick after the lock, once a composition without the locked-out surfaces has been
// made; a lock surface is configured again when its output's size changes.

/// What the session lock may ask of the server (Handlers/SessionLockHandling.swift).
package protocol SessionLockHandler: AnyObject {
    var sessionLockState: SessionLockState { get }
    /// The session locks or unlocks: the router and the tree follow.
    func sessionLockChanged(_ locked: Bool)
    /// The output's size in the layout, nil for an output that is gone.
    func lockOutputSize(_ output: OutputID) -> Size?
    /// A lock surface's first buffer: it enters the tree in the lock layer, filling its
    /// output, and takes the keyboard focus when no lock surface has it.
    func mapLockSurface(_ surface: SurfaceObject, output: OutputID)
    /// A lock surface's role went: it leaves the tree.
    func unmapLockSurface(_ surface: SurfaceObject)
    var nextSerial: UInt32 { get }
}

package final class SessionLockState {
    package init() {}
    /// The lock in force while its client lives.
    package weak var lock: SessionLockObject?
    /// Set by the first lock, cleared only by unlock_and_destroy: a lock client that dies
    /// leaves the session locked.
    package private(set) var locked = false
    /// Locks waiting to hear `locked`, and the shown outputs that composed a frame since they locked.
    private var waiting: [(lock: SessionLockObject, composedOn: Set<OutputID>)] = []
    /// A lock waits to hear `locked`: the session's tick asks for it at each frame.
    package var awaitsFrames: Bool { !waiting.isEmpty }
    /// Where the keyboard focus was when the session locked: it goes back there at the unlock.
    package var focusBeforeLock: SurfaceID?
    /// The on-screen keyboard was moved into the lock layer, and goes back at the next flush
    /// after the unlock.
    package var keyboardOverLock = false

    package static let globals = [ProtocolGlobal(interface: tr_ext_session_lock_manager_v1_interface, version: SessionLockManager.version,
                                         bind: SessionLockManager.bind, privilege: .sessionLock)]

    /// A lock request: it takes the session unless a live lock holds it already.
    package func lock(_ lock: SessionLockObject, handler: any SessionLockHandler) {
        guard self.lock == nil else {
            lock.finish()
            return
        }
        self.lock = lock
        if !locked {
            locked = true
            handler.sessionLockChanged(true)
        }
        waiting.append((lock, []))
    }

    /// The output's size changed: its lock surface is configured to the new one.
    package func outputChanged(_ output: OutputID, handler: any SessionLockHandler) {
        lock?.surface(on: output)?.configure(handler: handler)
    }

    /// unlock_and_destroy from the lock in force.
    package func unlock(_ lock: SessionLockObject, handler: any SessionLockHandler) {
        guard self.lock === lock, locked else { return }
        self.lock = nil
        locked = false
        handler.sessionLockChanged(false)
    }

    package func lockGone(_ lock: SessionLockObject) {
        if self.lock === lock { self.lock = nil }
        waiting.removeAll { $0.lock === lock }
    }

    /// At each session tick: a lock waiting since every shown output (`shown`: those a
    /// screen shows, on or off) composed a frame under it hears `locked` once every screen has
    /// shown that frame (no page flip still on its way), so that nothing unlocked is on a
    /// screen when a client that suspends the machine on `locked` acts. A headless session
    /// has no shown output: its locks hear it at the next tick.
    package func sendLocked(screensShown: Bool, shown: Set<OutputID>) {
        guard !waiting.isEmpty, screensShown else { return }
        let isDue = { (entry: (lock: SessionLockObject, composedOn: Set<OutputID>)) in shown.isSubset(of: entry.composedOn) }
        let due = waiting.filter(isDue)
        guard !due.isEmpty else { return }
        waiting.removeAll(where: isDue)
        for (lock, _) in due where lock === self.lock { lock.sendLocked() }
    }

    /// `output` composed a frame (or, its screen off or away, had nothing to show) at its deadline.
    package func frameComposed(on output: OutputID) {
        for index in waiting.indices { waiting[index].composedOn.insert(output) }
    }
}
