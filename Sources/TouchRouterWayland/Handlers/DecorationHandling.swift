/// What the decoration protocols may ask of the session (Protocols/Decoration/).
extension WaylandServer: DecorationHandler {
    func decorationModeChanged(_ toplevel: XdgToplevelObject) { toplevel.xdgSurface?.sendConfigure() }
}
