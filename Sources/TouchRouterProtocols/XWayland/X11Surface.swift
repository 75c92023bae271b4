import TouchRouterCore

/// What an X11 window's `_NET_WM_WINDOW_TYPE` makes of it (EWMH, "_NET_WM_WINDOW_TYPE").
package enum X11WindowType: String {
    case normal, dialog, utility, toolbar, splash, menu, dropdownMenu = "dropdown-menu", popupMenu = "popup-menu"
    case tooltip, notification, combo, dnd

    /// Shown above its parent and never given the keyboard: what menus and tooltips are,
    /// mapped or not with override-redirect.
    package var isPopup: Bool { [.menu, .dropdownMenu, .popupMenu, .tooltip, .notification, .combo, .dnd].contains(self) }
}

/// An X11 window as the window manager knows it (TouchRouterXWayland), and the surface
/// Xwayland shows it with once `WL_SURFACE_ID` named it. Geometry is the X root window's,
/// which is the session's global space: Xwayland lays its screen out from the outputs.
package final class X11Surface {
    package let window: UInt32
    package var geometry: Rect<GlobalSpace>
    /// Placed by the client itself (menus, tooltips): never configured, never focused.
    package var overrideRedirect: Bool
    /// The X server has it mapped (MapNotify came, UnmapNotify did not).
    package var mapped = false
    package var instance = ""
    package var windowClass = ""
    package var title = ""
    package var type = X11WindowType.normal
    package weak var transientFor: X11Surface?
    package var fullscreen = false
    package var maximized = false
    /// WM_HINTS' input field (absent: true, as ICCCM's "passive" default).
    package var acceptsInput = true
    /// WM_PROTOCOLS lists WM_TAKE_FOCUS / WM_DELETE_WINDOW.
    package var takesFocus = false
    package var deletable = false
    package var pid: Int32 = 0
    /// The wl_surface id Xwayland's WL_SURFACE_ID message named, until that surface is paired.
    package var surfaceID: UInt32?
    package weak var surface: SurfaceObject?

    package init(window: UInt32, geometry: Rect<GlobalSpace>, overrideRedirect: Bool) {
        self.window = window
        self.geometry = geometry
        self.overrideRedirect = overrideRedirect
    }

    /// What `[app."x11:CLASS"]` matches: WM_CLASS's class, as Weston's kiosk-shell matches x11-wm-class.
    package var appID: String { windowClass.isEmpty ? "" : "x11:\(windowClass)" }

    /// The tree's label: class and title, as `msg tree` shows them.
    package var label: String {
        let name = appID.isEmpty ? "x11" : appID
        return title.isEmpty ? name : "\(name): \(title)"
    }

    /// A popup of another window: override-redirect, or typed as a menu or tooltip.
    package var isPopup: Bool { overrideRedirect || type.isPopup }
}

/// What the window manager may ask of the server (Handlers/XWaylandHandling.swift).
package protocol XWaylandHandler: AnyObject {
    /// Xwayland's end of its Wayland socket pair became a client; this is its wl_client.
    func xwaylandConnected(socket: Int32) throws(WaylandError) -> OpaquePointer
    /// The surface Xwayland's client made with this id, if it has made it yet.
    func xwaylandSurface(id: UInt32) -> SurfaceObject?
    /// WL_SURFACE_ID paired the window with its surface: it maps once both are ready.
    func x11SurfacePaired(_ window: X11Surface)
    /// Its geometry, title, class or state changed.
    func x11WindowChanged(_ window: X11Surface)
    /// Unmapped or destroyed: its surface leaves the tree.
    func x11WindowUnmapped(_ window: X11Surface)
    /// Where a managed window goes, given what it asked for: in kiosk mode, or fullscreen,
    /// its output (or the usable area); otherwise as asked, kept on some output.
    func x11Placement(of window: X11Surface, requested: Rect<GlobalSpace>) -> Rect<GlobalSpace>
    /// A client asked for the window to be activated (_NET_ACTIVE_WINDOW).
    func x11ActivationRequested(_ window: X11Surface)
    /// X11's selection owner changed: `origin` holds the seat's selection now (nil: nothing does).
    func x11SelectionChanged(_ kind: SelectionKind, to origin: (any SelectionOrigin)?)
    /// What holds the seat's selection, for X11 clients that ask for it.
    func selection(_ kind: SelectionKind) -> (any SelectionOrigin)?
    /// Watches a descriptor in the session's loop (`writable`: for writing, else reading).
    func watch(fd: Int32, writable: Bool, _ callback: @escaping () -> Void) throws(WaylandError) -> OpaquePointer
    func unwatch(fd: Int32, source: OpaquePointer)
    /// Says in the session's log.
    func report(_ message: String)
}

/// What the server tells the window manager.
package protocol X11WindowManaging: AnyObject {
    /// The keyboard focus moved to this window's surface (nil: to no X11 window).
    func focus(_ window: X11Surface?)
    /// `msg close` or a binding: WM_DELETE_WINDOW where the client takes it, else KillClient.
    func close(_ window: X11Surface)
    /// Xwayland's client made a surface: a window waiting for it is paired.
    func surfaceCreated(id: UInt32)
    /// Outputs changed: windows that fill one are placed again.
    func placementsChanged()
    /// The seat's selection changed hands (not to X11's own): X11 clients are offered it.
    func selectionChanged(_ kind: SelectionKind)
}

/// The room's state: which client is Xwayland, and its window manager.
package final class XWaylandState {
    package var client: OpaquePointer?
    package weak var windowManager: (any X11WindowManaging)?
    /// The X11 window the keyboard focus was last reported on.
    package weak var focused: X11Surface?

    package init() {}
}
