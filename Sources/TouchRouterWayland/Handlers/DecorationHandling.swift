/// What the decoration protocols may ask of the session (Protocols/Decoration/).
extension WaylandSession: DecorationHandler {
    func decorationModeChanged(_ toplevel: XdgToplevelObject) { toplevel.xdgSurface?.sendConfigure() }
}
