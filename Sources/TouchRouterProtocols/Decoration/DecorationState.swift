import CWaylandShim

// Who draws a window's title bar: xdg-decoration (protocols/xdg-decoration-unstable-v1.xml),
// which Qt, Chromium, foot and SDL ask, and KDE's server decoration
// (protocols/server-decoration.xml), which GTK 3 and 4 ask. The session draws no decoration
// of its own. A kiosk offers both and answers "server-side" (to xdg-decoration always; KDE's
// protocol grants a mode the client requests, see KdeServerDecoration.swift), so that no
// toolkit draws a close button a user could tap to end the kiosk's app, nor shifts touches
// by a title bar's height. Without --kiosk neither global is offered: clients decorate their
// windows themselves, as under Weston. (Offering them and answering "client-side" was tried:
// foot 1.13 then keeps the window geometry it set before the answer, which leaves out the
// title bar it draws above it, so the bar landed above the output.)

/// What the decoration objects may ask of the server.
package protocol DecorationHandler: AnyObject {
    var decorationState: DecorationState { get }
    /// The decoration mode was sent: the toplevel's xdg_surface is to be configured again.
    func decorationModeChanged(_ toplevel: XdgToplevelObject)
}

/// The decoration protocols' state: the xdg-decoration object of each toplevel, since a
/// second one for the same toplevel is a protocol error.
package final class DecorationState {
    package init() {}
    package var decorations = OnePerOwner<XdgToplevelObject, XdgToplevelDecorationObject> { $0.toplevel }

    package static let globals: [ProtocolGlobal] = [
        ProtocolGlobal(interface: tr_zxdg_decoration_manager_v1_interface, version: XdgDecorationManager.version, bind: XdgDecorationManager.bind, kioskOnly: true),
        ProtocolGlobal(interface: tr_org_kde_kwin_server_decoration_manager_interface, version: KdeServerDecorationManager.version, bind: KdeServerDecorationManager.bind, kioskOnly: true),
    ]
}
