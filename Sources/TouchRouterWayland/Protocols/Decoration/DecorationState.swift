import CWaylandShim

// Who draws a window's title bar: xdg-decoration (protocols/xdg-decoration-unstable-v1.xml),
// which Qt, Chromium and SDL ask, and KDE's server decoration
// (protocols/server-decoration.xml), which GTK 3 and 4 ask. The session draws no decoration
// of its own. In kiosk mode it answers "server-side" to both, so that no toolkit draws a
// close button a user could tap to end the kiosk's app, nor shifts touches by a title bar's
// height. Otherwise it answers "client-side", whatever the client would prefer, so that
// windows keep the title bars they move and close by.

/// What the decoration objects may ask of the server.
protocol DecorationHandler: AnyObject {
    /// Whether windows go without client-drawn decorations (kiosk mode).
    var decoratesServerSide: Bool { get }
    /// A toplevel's decoration mode changed: its xdg_surface is to be configured again.
    func decorationModeChanged(_ toplevel: XdgToplevelObject)
}

/// The decoration protocols' state: the xdg-decoration object of each toplevel, since a
/// second one for the same toplevel is a protocol error.
final class DecorationState {
    var decorations = OnePerOwner<XdgToplevelObject, XdgToplevelDecorationObject> { $0.toplevel }

    static let globals: [ProtocolGlobal] = [
        ProtocolGlobal(interface: tr_zxdg_decoration_manager_v1_interface, version: XdgDecorationManager.version, bind: XdgDecorationManager.bind),
        ProtocolGlobal(interface: tr_org_kde_kwin_server_decoration_manager_interface, version: KdeServerDecorationManager.version, bind: KdeServerDecorationManager.bind),
    ]
}
