import TouchRouterCore

/// Every wl_surface by its id in the core, the next id, the surface being destroyed while it
/// leaves the tree, and the frame callbacks committed and not yet done, each with the surface
/// it was committed on.
package final class SurfaceRegistry {
    package init() {}
    package var surfaces: [SurfaceID: SurfaceObject] = [:]
    /// The surface whose resource libwayland is destroying, while it leaves the tree (SurfaceMapping.swift).
    package weak var surfaceBeingDestroyed: SurfaceObject?
    package var nextSurface: UInt32 = 1
    package var pendingFrames: [(callback: FrameCallback, surface: SurfaceID)] = []
}
