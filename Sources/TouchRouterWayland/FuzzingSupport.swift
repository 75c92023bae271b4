import CWaylandShim
#if canImport(Glibc)
import Glibc
#endif

/// What a fuzzer that drives the session in-process needs (Sources/Fuzz/FuzzProtocol):
/// one round of the loop without blocking, and a look at what the session still holds.
extension WaylandServer {
    /// Runs the loop until nothing is waiting on it (or `maximumRounds` rounds ran), as
    /// `run()` does for each round: settle the pointer, flush clients, dispatch. Returns
    /// false if work was still waiting after `maximumRounds` rounds (a session that keeps
    /// itself busy).
    @discardableResult
    public func dispatchPendingWork(maximumRounds: Int = 10_000) -> Bool {
        for _ in 0..<maximumRounds {
            guard display.round(timeout: 0) == .dispatched else { return true }
        }
        return false
    }

    /// Clients libwayland still serves, surfaces the session still has objects for, and
    /// surfaces in the core's tree: all zero once every client has gone.
    public var fuzzingCensus: (clients: Int, surfaceObjects: Int, treeSurfaces: Int) {
        (Int(wl_list_length(wl_display_get_client_list(display.display))), protocols.surface.surfaces.count, tree.surfaceCount)
    }
}
