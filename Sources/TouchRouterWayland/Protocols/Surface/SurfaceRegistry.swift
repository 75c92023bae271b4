import TouchRouterCore

/// Every wl_surface by its id in the core, the next id, the surface being destroyed while it
/// leaves the tree, and the frame callbacks committed and not yet done, each with the surface
/// it was committed on.
final class SurfaceRegistry {
    var surfaces: [SurfaceID: SurfaceObject] = [:]
    /// The surface whose resource libwayland is destroying, while it leaves the tree (SurfaceMapping.swift).
    weak var surfaceBeingDestroyed: SurfaceObject?
    var nextSurface: UInt32 = 1
    var pendingFrames: [(callback: FrameCallback, surface: SurfaceID)] = []
}
