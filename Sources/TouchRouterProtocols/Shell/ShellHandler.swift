import CWaylandShim
import TouchRouterCore

/// What the shell family's objects (xdg-shell, its v6 twin and wl_shell) may ask of the
/// server (Handlers/ShellHandling.swift): the server places, configures, stacks and
/// names windows, and runs interactive moves and resizes.
package protocol ShellHandler: AnyObject {
    var nextSerial: UInt32 { get }

    // A configure's contents.
    func configureStates(for toplevel: XdgToplevelObject) -> [xdg_toplevel_state]
    func configureSize(for toplevel: XdgToplevelObject) -> Size
    /// Where a popup's window geometry goes, relative to its parent's.
    func popupBox(_ popup: XdgPopupObject) -> Rect<SurfaceSpace>
    /// The size a fullscreen or maximized wl_shell surface is asked for; nil with no output.
    func fillSize(of shellSurface: WlShellSurfaceObject) -> Size?

    // Roles ending.
    /// The role object went: the surface leaves the tree and may take a role again.
    func roleDestroyed(surface: SurfaceObject?)
    func popupGone(_ popup: XdgPopupObject)
    /// A wl_shell popup's grab ended: the seat's client grab ends if it is still the client's.
    func popupGrabEnded(by client: OpaquePointer)

    // What others see of a window (foreign-toplevel, the tree's labels, app policies).
    func windowChanged(_ surface: SurfaceObject)
    func windowMinimized(_ surface: SurfaceObject)
    func keepAboveParent(_ toplevel: XdgToplevelObject)
    func labelChanged(_ toplevel: XdgToplevelObject)
    func appIDChanged(_ toplevel: XdgToplevelObject, from before: String)
    func shellSurfaceLabelChanged(_ shellSurface: WlShellSurfaceObject)

    // Interactive moves and resizes, checked against the serial of the press that began them.
    func beginMove(_ toplevel: XdgToplevelObject, serial: UInt32)
    func beginMove(_ surface: SurfaceObject, serial: UInt32)
    func beginResize(_ toplevel: XdgToplevelObject, serial: UInt32, edges: UInt32)
    func beginShellResize(_ shellSurface: WlShellSurfaceObject, serial: UInt32, edges: UInt32)

    /// xdg_wm_base.pong: the client answered a ping (Pings.swift).
    func pong(_ client: OpaquePointer, serial: UInt32)
}
