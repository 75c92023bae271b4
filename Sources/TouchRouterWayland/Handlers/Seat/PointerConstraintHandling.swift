import CWaylandShim
import TouchRouterCore
import TouchRouterProtocols

extension WaylandServer {
    /// Picks the constraint that holds the pointer now, telling constraints that start or
    /// stop holding it and the core which one does. Run once a round, after the pointer's
    /// focus is settled, and when a constraint comes or goes.
    package func pointerConstraintDestroyed(_ constraint: PointerConstraintObject) {
        protocols.seat.pointerConstraints.removeAll { $0 === constraint }
        if constraint.active {
            constraint.active = false
            router.pointerConstraint = nil
        }
        updatePointerConstraint()
    }

    package func activePointerConstraintChanged(_ constraint: PointerConstraintObject) {
        router.pointerConstraint = constraint.coreConstraint
    }

    package func countRegionRectangles(of client: OpaquePointer, adding delta: Int) -> Int? {
        guard let record = existingRecord(for: client) else { return nil }
        record.usage.regionRectangles += delta
        return record.usage.regionRectangles
    }

    package func updatePointerConstraint() {
        let focused = router.pointerFocus.flatMap { protocols.surface.surfaces[$0] }
        var holding = protocols.seat.pointerConstraints.first { $0.active }
        if let current = holding, current.surface == nil || current.surface !== focused {
            current.deactivate()
            holding = nil
        }
        if holding == nil, let focused, let focus = router.pointerFocus,
           let candidate = protocols.seat.pointerConstraints.first(where: { $0.surface === focused && !$0.defunct }),
           let local = tree.localPoint(router.pointerPosition, in: focus), candidate.effectiveRegion.contains(local) {
            candidate.activate()
            holding = candidate
        }
        let wanted = holding?.coreConstraint
        if router.pointerConstraint != wanted { router.pointerConstraint = wanted }
    }

    /// A surface's commit: its constraint's pending state becomes current.
    package func pointerConstraintsCommitted(_ surface: SurfaceObject) {
        guard !protocols.seat.pointerConstraints.isEmpty else { return }
        for constraint in protocols.seat.pointerConstraints where constraint.surface === surface { constraint.surfaceCommitted() }
    }
}
