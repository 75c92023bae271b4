/// A client's hold on the pointer while one of its surfaces has the pointer's focus, as
/// pointer constraints give it: locked, the pointer stays where it is (relative motion
/// still reaches the client); confined, it stays inside a region of the surface. The host
/// decides when a constraint is active and sets it; the router applies it only while the
/// surface it names has the pointer's focus.
public struct PointerConstraint: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        case locked
        /// In the surface's space; the pointer is kept in it, on whole pixels at its far edges.
        case confined(Region<SurfaceSpace>)
    }

    public var surface: SurfaceID
    public var kind: Kind

    public init(surface: SurfaceID, kind: Kind) {
        self.surface = surface
        self.kind = kind
    }
}

extension Router {
    /// The constraint the host has made active (nil: none).
    public var pointerConstraint: PointerConstraint? {
        get { state.pointee.pointer.constraint }
        set { state.pointee.pointer.constraint = newValue }
    }

    /// The active constraint, if it holds the pointer now: its surface has the focus.
    var holdingConstraint: PointerConstraint? {
        guard let constraint = state.pointee.pointer.constraint, constraint.surface == pointerFocus else { return nil }
        return constraint
    }

    /// A locked pointer does not move.
    var pointerLocked: Bool {
        guard let constraint = holdingConstraint, case .locked = constraint.kind else { return false }
        return true
    }

    /// Relative motion goes to the pointer's focus as it is before the move, ahead of the
    /// motion, in the same frame.
    func deliverRelativeMotion(time: RouterTime, dx: Double, dy: Double) {
        guard !dx.isNaN, !dy.isNaN, let focus = pointerFocus, let client = pointerFocusClient else { return }
        delivery.pointerRelativeMotion(surface: focus, client: client, time: time, dx: dx, dy: dy)
        notePointerFrame(for: client)
    }

    /// A motion the lock swallows: the pointer stays, the frame of its relative motion ends.
    func lockedMotion() -> RouteOutcome {
        markDecided()
        flushPointerFrames()
        return .delivered(.pointerFocus)
    }

    /// `point` kept inside the confining region, if a confinement holds the pointer: the
    /// nearest point of the region, whole pixels inside its far edges.
    func confined(_ point: Point<GlobalSpace>) -> Point<GlobalSpace> {
        guard let constraint = holdingConstraint, case .confined(let region) = constraint.kind,
              !region.isEmpty, let local = tree.localPoint(point, in: constraint.surface), !region.contains(local) else { return point }
        var best: (x: Double, y: Double, distance: Double)?
        for rect in region.rects {
            let x = min(max(local.x, Double(rect.minX)), Double(rect.maxX - 1))
            let y = min(max(local.y, Double(rect.minY)), Double(rect.maxY - 1))
            let distance = (x - local.x) * (x - local.x) + (y - local.y) * (y - local.y)
            if best.map({ distance < $0.distance }) ?? true { best = (x, y, distance) }
        }
        guard let best else { return point }
        return Point(point.x + best.x - local.x, point.y + best.y - local.y)
    }
}
