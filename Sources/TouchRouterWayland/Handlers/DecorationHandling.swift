/// What the decoration protocols may ask of the session (Protocols/Decoration/).
extension WaylandSession: DecorationHandler {
    var decoratesServerSide: Bool { options.kiosk }

    func decorationModeChanged(_ toplevel: XdgToplevelObject) { toplevel.xdgSurface?.sendConfigure() }
}
