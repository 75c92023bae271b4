import TouchRouterCore
import TouchRouterProtocols

/// What the session's settling reads, as the last settle left it. A round of input alone
/// (LoopRounds.swift) that leaves all of it as it was has nothing to settle: no focus
/// moved, no press raised or lowered a window, no gesture's deadline moved, nothing was
/// locked. Touch motion and its frames, the common case, change none of it.
final class SettledReading: SettleWatch {
    private struct Reading: Equatable {
        var keyboardFocus: SurfaceID?
        var pointerFocus: SurfaceID?
        var gestureDeadline: RouterTime?
        var treeStamp: UInt64
        var locked: Bool
    }

    // Unmanaged, read through guaranteed references: the server owns all four, and the
    // display that owns this and asks it only while the server runs. Checked references
    // paid an atomic retain and release on every read, more than the reads themselves.
    private let router: Unmanaged<Router>
    private let tree: Unmanaged<SurfaceTree>
    private let seat: Unmanaged<SeatState>
    private let layerShell: Unmanaged<LayerShellState>
    private let settled = UncheckedState<Reading?>(nil)

    init(router: Router, tree: SurfaceTree, seat: SeatState, layerShell: LayerShellState) {
        self.router = .passUnretained(router)
        self.tree = .passUnretained(tree)
        self.seat = .passUnretained(seat)
        self.layerShell = .passUnretained(layerShell)
    }

    deinit { settled.release() }

    private func read() -> Reading {
        let treeStamp = tree._withUnsafeGuaranteedRef { $0.changeStamp }
        return router._withUnsafeGuaranteedRef { router in
            Reading(keyboardFocus: router.keyboardFocus, pointerFocus: router.pointerFocus, gestureDeadline: router.nextGestureDeadline,
                    treeStamp: treeStamp, locked: router.sessionLocked)
        }
    }

    /// Settling's work that is waiting whatever the reading: the pointer to be given again
    /// (a popup grab's end asks for it without changing the tree), a pointer constraint,
    /// a layer to arrange.
    private var workWaits: Bool {
        router._withUnsafeGuaranteedRef { $0.pointerFocusStale || $0.pointerConstraint != nil }
            || seat._withUnsafeGuaranteedRef { !$0.pointerConstraints.isEmpty }
            || layerShell._withUnsafeGuaranteedRef { !$0.outputsToArrange.isEmpty }
    }

    func settleEnded() { settled.pointee = read() }

    func needsSettling() -> Bool { workWaits || read() != settled.pointee }
}
