import TouchRouterWayland

enum DRMBackendSetup {
    static func seatAvailable(environment: [String: String]) -> Bool { false }

    static func prepare(options: inout WaylandSession.Options, outputOptions: [String]) throws(WaylandError) -> PreparedDisplayBackend {
        throw WaylandError("the drm backend is not built yet")
    }
}
