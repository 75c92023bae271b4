/// What the decoration protocols may ask of the session (TouchRouterProtocols/Decoration/).
extension WaylandServer: DecorationHandler {
    package var decorationState: DecorationState { protocols.decoration }

    package func decorationModeChanged(_ toplevel: XdgToplevelObject) { toplevel.xdgSurface?.sendConfigure() }
}
