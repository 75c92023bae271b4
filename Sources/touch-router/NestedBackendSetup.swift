import TouchRouterWayland

enum NestedBackendSetup {
    static func prepare(options: inout WaylandSession.Options, outputOptions: [String]) throws(WaylandError) -> PreparedDisplayBackend {
        throw WaylandError("the wayland backend is not built yet")
    }
}
