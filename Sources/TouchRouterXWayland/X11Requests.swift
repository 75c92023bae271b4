/// The atoms the window manager uses, interned once per connection.
package enum AtomName: String, CaseIterable {
    case WL_SURFACE_ID, WM_PROTOCOLS, WM_DELETE_WINDOW, WM_TAKE_FOCUS, WM_STATE, WM_CLASS, WM_NAME, WM_HINTS
    case WM_NORMAL_HINTS, WM_TRANSIENT_FOR, UTF8_STRING, STRING, ATOM, WINDOW, CARDINAL
    case _NET_WM_NAME, _NET_WM_PID, _NET_WM_STATE, _NET_WM_STATE_FULLSCREEN, _NET_WM_STATE_MAXIMIZED_VERT
    case _NET_WM_STATE_MAXIMIZED_HORZ, _NET_WM_STATE_FOCUSED, _NET_WM_WINDOW_TYPE
    case _NET_WM_WINDOW_TYPE_NORMAL, _NET_WM_WINDOW_TYPE_DIALOG, _NET_WM_WINDOW_TYPE_UTILITY, _NET_WM_WINDOW_TYPE_TOOLBAR
    case _NET_WM_WINDOW_TYPE_SPLASH, _NET_WM_WINDOW_TYPE_MENU, _NET_WM_WINDOW_TYPE_DROPDOWN_MENU
    case _NET_WM_WINDOW_TYPE_POPUP_MENU, _NET_WM_WINDOW_TYPE_TOOLTIP, _NET_WM_WINDOW_TYPE_NOTIFICATION
    case _NET_WM_WINDOW_TYPE_COMBO, _NET_WM_WINDOW_TYPE_DND
    case _NET_ACTIVE_WINDOW, _NET_SUPPORTED, _NET_SUPPORTING_WM_CHECK, _NET_WM_MOVERESIZE, _NET_CLOSE_WINDOW
    case WM_S0, _NET_WM_CM_S0
    case CLIPBOARD, PRIMARY, TARGETS, TIMESTAMP, TEXT, INCR, _TOUCH_ROUTER_SELECTION
    case text_plain_utf8 = "text/plain;charset=utf-8", text_plain = "text/plain"
}

/// Interned atoms by name, and names by atom.
package struct X11Atoms {
    private let byName: [AtomName: X11Atom]
    private let byAtom: [X11Atom: AtomName]

    package init(_ byName: [AtomName: X11Atom]) {
        self.byName = byName
        byAtom = Dictionary(byName.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })
    }

    package subscript(_ name: AtomName) -> X11Atom { byName[name] ?? 0 }
    package func name(of atom: X11Atom) -> AtomName? { byAtom[atom] }
}

/// What the window manager sends the X server, one method a request. The xcb connection
/// (XCBConnection.swift) sends them; tests and the fuzzer record them instead.
package protocol X11Requests: AnyObject {
    var root: X11Window { get }
    var atoms: X11Atoms { get }
    /// Sizes are clamped to 1...32767 and positions to Int16, X11's own ranges.
    func configure(_ window: X11Window, _ rect: (x: Int, y: Int, width: Int, height: Int))
    /// ICCCM 4.1.5: a synthetic ConfigureNotify in root coordinates, so that a client whose
    /// request was changed or ignored learns where it is.
    func sendConfigureNotify(_ window: X11Window, _ rect: (x: Int, y: Int, width: Int, height: Int))
    func raise(_ window: X11Window)
    func map(_ window: X11Window)
    func setInputFocus(_ window: X11Window?)
    /// A ClientMessage of format 32 to `window`, with no event mask (it goes to the window's owner).
    func sendClientMessage(_ window: X11Window, type: X11Atom, data: [UInt32])
    func killClient(_ window: X11Window)
    func setProperty(_ window: X11Window, _ property: X11Atom, type: X11Atom, words: [UInt32])
    func setProperty(_ window: X11Window, _ property: X11Atom, type: X11Atom, bytes: [UInt8])
    /// At most `X11PropertyValue.maximumBytes`; nil when the window is gone or the reply failed.
    func property(_ window: X11Window, _ property: X11Atom) -> X11PropertyValue?
    /// PropertyChange and FocusChange on a window the manager tracks.
    func watchWindow(_ window: X11Window)
    func flush()

    // Selections (XSelectionBridge.swift).
    func setSelectionOwner(_ selection: X11Atom, owner: X11Window)
    /// Asks the selection's owner to put it as `target` on `requestor`'s `property`.
    func convertSelection(_ selection: X11Atom, target: X11Atom, property: X11Atom, requestor: X11Window)
    /// Tells a requestor its conversion is done (`property` 0: refused).
    func sendSelectionNotify(requestor: X11Window, selection: X11Atom, target: X11Atom, property: X11Atom, time: UInt32)
    /// An atom's name (at most 256 bytes), nil when the server has none.
    func atomName(_ atom: X11Atom) -> String?
    func intern(_ name: String) -> X11Atom?
    /// A conversion's result on the manager's own window, read whole up to
    /// `XSelectionBridge.maximumBytes`, and deleted.
    func takeSelectionData(_ property: X11Atom) -> X11PropertyValue?
    /// XFIXES' selection owner events for CLIPBOARD and PRIMARY, on the manager's own window.
    func watchSelections()
    /// The selection's owner now (0 for none): a round trip, asked once as the manager starts.
    func selectionOwner(_ selection: X11Atom) -> X11Window
}
