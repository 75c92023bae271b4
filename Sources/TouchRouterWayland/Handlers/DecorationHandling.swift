/// What the decoration protocols may ask of the session (Protocols/Decoration/).
extension WaylandServer: DecorationHandler {
    var decorationState: DecorationState { protocols.decoration }

    func decorationModeChanged(_ toplevel: XdgToplevelObject) { toplevel.xdgSurface?.sendConfigure() }
}
