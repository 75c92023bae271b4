import TouchRouterCore
import TouchRouterProtocols

/// The window manager of Xwayland's X11 windows: it keeps each window's facts (ICCCM and
/// EWMH properties, geometry, override-redirect), pairs it with the wl_surface Xwayland
/// shows it with (`WL_SURFACE_ID`), places what it manages, and gives the keyboard focus
/// the server chose to the X11 window behind it. It reads decoded events and sends
/// requests through `X11Requests`, so it runs the same over xcb, in tests and in the fuzzer.
package final class XWindowManager: X11WindowManaging {
    private let requests: any X11Requests
    private unowned let handler: any XWaylandHandler
    private var atoms: X11Atoms { requests.atoms }
    package private(set) var windows: [X11Window: X11Surface] = [:]
    /// The most windows one Xwayland may have the manager track: X11 clients make windows
    /// freely, and each costs the session a record.
    package static let maximumWindows = 4096
    /// Its own window, which holds the EWMH check and the selections it owns.
    private let ownWindow: X11Window
    private weak var focused: X11Surface?
    package private(set) var ignoredErrors = 0
    private let selections: XSelectionBridge

    package init(requests: any X11Requests, handler: any XWaylandHandler, ownWindow: X11Window) {
        self.requests = requests
        self.handler = handler
        self.ownWindow = ownWindow
        selections = XSelectionBridge(requests: requests, handler: handler, ownWindow: ownWindow)
    }

    // MARK: Events

    package func handle(_ event: X11Event) {
        defer { requests.flush() }
        if selections.handle(event) { return }
        switch event {
        case let .createNotify(window, parent, x, y, width, height, overrideRedirect):
            created(window, parent: parent, Rect(x: Int(x), y: Int(y), width: Int(width), height: Int(height)), overrideRedirect: overrideRedirect)
        case .destroyNotify(let window): destroyed(window)
        case .unmapNotify(let window): unmapped(window)
        case let .mapNotify(window, overrideRedirect): mappedByServer(window, overrideRedirect: overrideRedirect)
        case let .mapRequest(window, _): mapRequested(window)
        case let .reparentNotify(window, parent, x, y, overrideRedirect):
            // A window reparented away from the root is no toplevel; one reparented to it becomes one.
            if parent == requests.root { created(window, parent: parent, Rect(x: Int(x), y: Int(y), width: 1, height: 1), overrideRedirect: overrideRedirect) }
            else { destroyed(window) }
        case let .configureNotify(window, x, y, width, height, overrideRedirect):
            configured(window, Rect(x: Int(x), y: Int(y), width: Int(width), height: Int(height)), overrideRedirect: overrideRedirect)
        case let .configureRequest(window, x, y, width, height, mask, _):
            configureRequested(window, x: x, y: y, width: width, height: height, mask: mask)
        case let .propertyNotify(window, atom, _): propertyChanged(window, atom)
        case let .clientMessage(window, type, format, data): clientMessage(window, type: type, format: format, data: data)
        case let .focusIn(window, mode, _): focusTaken(window, mode: mode)
        case let .error(code, major, resource):
            // BadWindow (3) for a window that went between an event and a request about it is
            // the ordinary race of a window manager; anything else is worth a line.
            ignoredErrors += 1
            if code != 3 { handler.report("xwayland: X11 error \(code) for request \(major) on 0x\(String(resource, radix: 16))") }
        case .selectionRequest, .selectionNotify, .selectionClear, .selectionOwnerChanged, .other:
            break
        }
    }

    private func created(_ id: X11Window, parent: X11Window, _ rect: Rect<GlobalSpace>, overrideRedirect: Bool) {
        guard parent == requests.root, id != ownWindow, windows[id] == nil else { return }
        guard windows.count < Self.maximumWindows else {
            handler.report("xwayland: window 0x\(String(id, radix: 16)) ignored: past \(Self.maximumWindows) windows, the most the window manager tracks")
            return
        }
        let window = X11Surface(window: id, geometry: rect, overrideRedirect: overrideRedirect)
        windows[id] = window
        requests.watchWindow(id)
        readProperties(window)
    }

    private func destroyed(_ id: X11Window) {
        guard let window = windows.removeValue(forKey: id) else { return }
        if window.surface != nil { handler.x11WindowUnmapped(window) }
        window.surface = nil
        window.surfaceID = nil
        if focused === window { focused = nil }
    }

    private func unmapped(_ id: X11Window) {
        guard let window = windows[id] else { return }
        window.mapped = false
        if !window.overrideRedirect { requests.setProperty(id, atoms[.WM_STATE], type: atoms[.WM_STATE], words: [0, 0]) }
        // Xwayland destroys the surface of a window it unmaps, and names a new one when it maps again.
        if window.surface != nil { handler.x11WindowUnmapped(window) }
        window.surface = nil
        window.surfaceID = nil
    }

    private func mappedByServer(_ id: X11Window, overrideRedirect: Bool) {
        guard let window = windows[id] else { return }
        window.mapped = true
        window.overrideRedirect = overrideRedirect
        if window.surface != nil { handler.x11SurfacePaired(window) }
    }

    /// A managed window asks to be shown: placed where the session puts it, its ICCCM
    /// state Normal, then mapped.
    private func mapRequested(_ id: X11Window) {
        guard let window = windows[id] else { return }
        place(window, requested: window.geometry)
        requests.setProperty(id, atoms[.WM_STATE], type: atoms[.WM_STATE], words: [1, 0])
        writeState(window)
        requests.map(id)
    }

    private func place(_ window: X11Surface, requested: Rect<GlobalSpace>) {
        let placed = handler.x11Placement(of: window, requested: requested)
        let rect = Self.clamped(placed)
        window.geometry = Rect(x: rect.x, y: rect.y, width: rect.width, height: rect.height)
        requests.configure(window.window, rect)
        requests.sendConfigureNotify(window.window, rect)
    }

    /// X11's own ranges: positions are 16-bit signed, sizes 1 to 32767.
    static func clamped(_ rect: Rect<GlobalSpace>) -> (x: Int, y: Int, width: Int, height: Int) {
        (min(max(rect.x, Int(Int16.min)), Int(Int16.max)), min(max(rect.y, Int(Int16.min)), Int(Int16.max)),
         min(max(rect.width, 1), 32767), min(max(rect.height, 1), 32767))
    }

    private func configured(_ id: X11Window, _ rect: Rect<GlobalSpace>, overrideRedirect: Bool) {
        guard let window = windows[id] else { return }
        window.overrideRedirect = overrideRedirect
        guard window.geometry != rect else { return }
        window.geometry = rect
        if window.surface != nil { handler.x11WindowChanged(window) }
    }

    /// A managed window asks for another geometry: given what the session allows (in kiosk
    /// mode, its output), and told where it ended up. Stacking requests are not followed:
    /// the session stacks windows by focus.
    private func configureRequested(_ id: X11Window, x: Int16, y: Int16, width: UInt16, height: UInt16, mask: UInt16) {
        guard let window = windows[id] else { return }
        var wanted = window.geometry
        if mask & X11Event.configureX != 0 { wanted.x = Int(x) }
        if mask & X11Event.configureY != 0 { wanted.y = Int(y) }
        if mask & X11Event.configureWidth != 0 { wanted.width = Int(width) }
        if mask & X11Event.configureHeight != 0 { wanted.height = Int(height) }
        place(window, requested: wanted)
        if window.surface != nil { handler.x11WindowChanged(window) }
    }

    private func propertyChanged(_ id: X11Window, _ atom: X11Atom) {
        guard let window = windows[id] else { return }
        guard let name = atoms.name(of: atom), name == .WM_NAME || Self.propertiesUsed.contains(name) else { return }
        readProperty(name, of: window)
        if window.surface != nil { handler.x11WindowChanged(window) }
    }

    private func clientMessage(_ id: X11Window, type: X11Atom, format: UInt8, data: [UInt32]) {
        guard format == 32, data.count == 5 else { return }
        switch atoms.name(of: type) {
        case .WL_SURFACE_ID:
            guard let window = windows[id] else { return }
            window.surfaceID = data[0]
            pair(window)
        case ._NET_WM_STATE:
            guard let window = windows[id] else { return }
            changeState(window, action: data[0], data[1], data[2])
        case ._NET_ACTIVE_WINDOW:
            guard let window = windows[id], window.surface != nil, !window.isPopup else { return }
            handler.x11ActivationRequested(window)
        case ._NET_CLOSE_WINDOW:
            guard let window = windows[id] else { return }
            close(window)
        default: break
        }
    }

    /// _NET_WM_STATE's client message: 0 removes, 1 adds, 2 toggles (EWMH).
    private func changeState(_ window: X11Surface, action: UInt32, _ first: UInt32, _ second: UInt32) {
        func apply(_ value: Bool) -> Bool { action == 2 ? !value : action == 1 }
        let before = (window.fullscreen, window.maximized)
        for atom in [first, second] where atom != 0 {
            switch atoms.name(of: atom) {
            case ._NET_WM_STATE_FULLSCREEN: window.fullscreen = apply(before.0)
            case ._NET_WM_STATE_MAXIMIZED_VERT, ._NET_WM_STATE_MAXIMIZED_HORZ: window.maximized = apply(before.1)
            default: break
            }
        }
        guard (window.fullscreen, window.maximized) != before else { return }
        writeState(window)
        if !window.overrideRedirect { place(window, requested: window.geometry) }
        if window.surface != nil { handler.x11WindowChanged(window) }
    }

    private func writeState(_ window: X11Surface) {
        var state: [UInt32] = []
        if window.fullscreen { state.append(atoms[._NET_WM_STATE_FULLSCREEN]) }
        if window.maximized { state += [atoms[._NET_WM_STATE_MAXIMIZED_VERT], atoms[._NET_WM_STATE_MAXIMIZED_HORZ]] }
        if focused === window { state.append(atoms[._NET_WM_STATE_FOCUSED]) }
        requests.setProperty(window.window, atoms[._NET_WM_STATE], type: atoms[.ATOM], words: state)
    }

    /// A client took the X11 focus for itself: it goes back where the session put it, as
    /// wlroots' window manager does, so that keys follow the surface that holds the keyboard.
    private func focusTaken(_ id: X11Window, mode: UInt8) {
        // NotifyGrab (1) and NotifyUngrab (2) come with grabs, not with a client's SetInputFocus.
        guard mode == 0 || mode == 3, let focused, focused.window != id, windows[id] != nil else { return }
        focusWindow(focused)
    }

    // MARK: Pairing

    /// One surface shows one window: a surface another window holds is refused, and a window
    /// named with a new surface lets its old one go first.
    private func pair(_ window: X11Surface) {
        guard let id = window.surfaceID, let surface = handler.xwaylandSurface(id: id) else { return }
        window.surfaceID = nil
        if let other = surface.x11, other !== window {
            handler.report("xwayland: window 0x\(String(window.window, radix: 16)) named wl_surface@\(id), which shows window 0x\(String(other.window, radix: 16)); ignored")
            return
        }
        if let old = window.surface, old !== surface {
            handler.x11WindowUnmapped(window)
        }
        window.surface = surface
        surface.x11 = window
        handler.x11SurfacePaired(window)
    }

    package func surfaceCreated(id: UInt32) {
        guard let window = windows.values.first(where: { $0.surfaceID == id }) else { return }
        pair(window)
    }

    // MARK: Properties

    /// The ICCCM and EWMH properties the session uses (WM_NAME goes with `_NET_WM_NAME`).
    private static let propertiesUsed: [AtomName] = [.WM_CLASS, ._NET_WM_NAME, .WM_HINTS, .WM_PROTOCOLS, .WM_TRANSIENT_FOR, ._NET_WM_WINDOW_TYPE, ._NET_WM_PID]

    /// Reads every one: once, when the window is made and watched, so that a later change
    /// comes as a PropertyNotify and is read alone.
    private func readProperties(_ window: X11Surface) {
        for name in Self.propertiesUsed { readProperty(name, of: window) }
    }

    /// Reads one property, bounded by `X11PropertyValue.maximumBytes` and checked for its format.
    private func readProperty(_ name: AtomName, of window: X11Surface) {
        let id = window.window
        switch name {
        case .WM_CLASS:
            if let value = requests.property(id, atoms[.WM_CLASS]), let names = value.windowClass {
                (window.instance, window.windowClass) = names
            }
        case .WM_NAME, ._NET_WM_NAME:
            if let value = requests.property(id, atoms[._NET_WM_NAME]), let title = value.text(utf8: true) {
                window.title = title
            } else if let value = requests.property(id, atoms[.WM_NAME]), let title = value.text(utf8: value.type == atoms[.UTF8_STRING]) {
                window.title = title
            }
        case .WM_HINTS:
            if let value = requests.property(id, atoms[.WM_HINTS]), let input = value.acceptsInput { window.acceptsInput = input }
        case .WM_PROTOCOLS:
            if let words = requests.property(id, atoms[.WM_PROTOCOLS])?.words {
                window.takesFocus = words.contains(atoms[.WM_TAKE_FOCUS])
                window.deletable = words.contains(atoms[.WM_DELETE_WINDOW])
            }
        case .WM_TRANSIENT_FOR:
            if let parent = requests.property(id, atoms[.WM_TRANSIENT_FOR])?.words?.first {
                window.transientFor = parent == id ? nil : windows[parent]
            }
        case ._NET_WM_WINDOW_TYPE:
            if let words = requests.property(id, atoms[._NET_WM_WINDOW_TYPE])?.words {
                window.type = words.lazy.compactMap { self.windowType($0) }.first ?? .normal
            }
        case ._NET_WM_PID:
            if let pid = requests.property(id, atoms[._NET_WM_PID])?.words?.first { window.pid = Int32(bitPattern: pid) }
        default:
            break
        }
    }

    private func windowType(_ atom: X11Atom) -> X11WindowType? {
        switch atoms.name(of: atom) {
        case ._NET_WM_WINDOW_TYPE_NORMAL: .normal
        case ._NET_WM_WINDOW_TYPE_DIALOG: .dialog
        case ._NET_WM_WINDOW_TYPE_UTILITY: .utility
        case ._NET_WM_WINDOW_TYPE_TOOLBAR: .toolbar
        case ._NET_WM_WINDOW_TYPE_SPLASH: .splash
        case ._NET_WM_WINDOW_TYPE_MENU: .menu
        case ._NET_WM_WINDOW_TYPE_DROPDOWN_MENU: .dropdownMenu
        case ._NET_WM_WINDOW_TYPE_POPUP_MENU: .popupMenu
        case ._NET_WM_WINDOW_TYPE_TOOLTIP: .tooltip
        case ._NET_WM_WINDOW_TYPE_NOTIFICATION: .notification
        case ._NET_WM_WINDOW_TYPE_COMBO: .combo
        case ._NET_WM_WINDOW_TYPE_DND: .dnd
        default: nil
        }
    }

    // MARK: What the server asks

    package func focus(_ window: X11Surface?) {
        let previous = focused
        guard let window, !window.overrideRedirect else {
            focused = nil
            requests.setInputFocus(nil)
            requests.setProperty(requests.root, atoms[._NET_ACTIVE_WINDOW], type: atoms[.WINDOW], words: [0])
            if let previous { writeState(previous) }
            requests.flush()
            return
        }
        focused = window
        focusWindow(window)
        if let previous, previous !== window { writeState(previous) }
        writeState(window)
        requests.flush()
    }

    /// ICCCM 4.1.7: SetInputFocus where the client takes input, WM_TAKE_FOCUS where it asks
    /// for it; the window raised so that X11's stacking matches the session's.
    private func focusWindow(_ window: X11Surface) {
        if window.acceptsInput { requests.setInputFocus(window.window) }
        if window.takesFocus { requests.sendClientMessage(window.window, type: atoms[.WM_PROTOCOLS], data: [atoms[.WM_TAKE_FOCUS], 0, 0, 0, 0]) }
        requests.setProperty(requests.root, atoms[._NET_ACTIVE_WINDOW], type: atoms[.WINDOW], words: [window.window])
        requests.raise(window.window)
    }

    package func close(_ window: X11Surface) {
        if window.deletable {
            requests.sendClientMessage(window.window, type: atoms[.WM_PROTOCOLS], data: [atoms[.WM_DELETE_WINDOW], 0, 0, 0, 0])
        } else {
            requests.killClient(window.window)
        }
        requests.flush()
    }

    package func placementsChanged() {
        for window in windows.values where window.mapped && !window.isPopup {
            place(window, requested: window.geometry)
            if window.surface != nil { handler.x11WindowChanged(window) }
        }
        requests.flush()
    }

    package func selectionChanged(_ kind: SelectionKind) { selections.selectionChanged(kind) }

    /// Xwayland went: every window's surface left with its client, and X11's selections with it.
    package func disconnected() {
        selections.disconnected()
        for window in windows.values where window.surface != nil {
            handler.x11WindowUnmapped(window)
            window.surface = nil
        }
        windows.removeAll()
    }
}
