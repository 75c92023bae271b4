import CWaylandShim
import TouchRouterCore

/// What foreign toplevel management may ask of the server (Handlers/ForeignToplevelHandling.swift).
package protocol ForeignToplevelHandler: AnyObject {
    /// Whether the surface is a window task bars list: in the tree as a toplevel with a
    /// buffer, and an xdg toplevel or a wl_shell surface mapped as a window.
    func isListedWindow(_ surface: SurfaceObject) -> Bool
    /// The output the window is on.
    func output(showing surface: SurfaceObject) -> VirtualOutput?
    /// The window holding the keyboard focus.
    var focusedWindow: SurfaceID? { get }
    /// Hides the window (no input, no keyboard focus, not shown) or shows it again.
    func setWindowHidden(_ surface: SurfaceObject, _ hidden: Bool)
    /// A window was hidden: the keyboard focus and the activated toplevel follow.
    func windowHidden(_ surface: SurfaceObject)
    /// Shows the window if it is hidden, raises it, and gives it the keyboard focus.
    func activateWindow(_ surface: SurfaceObject)
}

/// Mapped windows as foreign toplevel management lists them, the managers bound, and which
/// window the handles last said is activated.
package final class ForeignToplevelState {
    package init() {}
    package unowned(unsafe) var handler: (any ForeignToplevelHandler)!
    private var managers: [ForeignToplevelManagerObject] = []
    private var windows: [SurfaceID: ForeignToplevel] = [:]
    private var active: SurfaceID?
    private var serial: UInt64 = 0

    package func nextSerial() -> UInt64 {
        serial &+= 1
        return serial
    }

    /// A new manager is told of every window mapped now, oldest first; the handles all
    /// exist before any is described, so that parents can be named.
    package func managerBound(_ manager: ForeignToplevelManagerObject) {
        managers.append(manager)
        let entries = windows.values.sorted { $0.order < $1.order }
        let handles = entries.compactMap { makeHandle(for: $0, in: manager, describe: false).map { ($0, $1) } }
        for (handle, entry) in handles { refresh(handle, of: entry) }
    }

    package func managerGone(_ manager: ForeignToplevelManagerObject) {
        managers.removeAll { $0 === manager }
    }

    /// A window mapped (or mapped again): every manager gets a handle for it. Does nothing
    /// for a surface that is not a window, or one already listed.
    package func windowMapped(_ surface: SurfaceObject) {
        guard windows[surface.id] == nil, handler.isListedWindow(surface) else { return }
        let entry = ForeignToplevel(order: nextSerial(), surface: surface)
        windows[surface.id] = entry
        for manager in managers { makeHandle(for: entry, in: manager) }
        // Windows naming this one as their parent can say so now.
        refreshAll()
    }

    /// A window unmapped or went: its handles are told closed, and it is minimized no longer.
    package func windowUnmapped(_ surface: SurfaceObject) {
        guard let entry = windows.removeValue(forKey: surface.id) else { return }
        if entry.minimized, surface.inTree { handler.setWindowHidden(surface, false) }
        for handle in entry.liveHandles {
            handle.surface = nil
            zwlr_foreign_toplevel_handle_v1_send_closed(handle.resource)
        }
        // Children that named it as their parent now have none.
        refreshAll()
    }

    /// Something a handle shows may have changed: each handle is sent what did, then done.
    package func windowChanged(_ surface: SurfaceObject) {
        guard let entry = windows[surface.id] else { return }
        for handle in entry.liveHandles { refresh(handle, of: entry) }
    }

    /// The keyboard focus's window, as the activated state has it, after each round.
    package func activationChanged() {
        let now = handler.focusedWindow
        guard now != active else { return }
        let previous = active
        active = now
        for id in [previous, now].compactMap({ $0 }) {
            if let surface = windows[id]?.surface { windowChanged(surface) }
        }
    }

    /// Shows a minimized window again, without telling the handles (the caller does); true if it was minimized.
    package func unminimize(_ surface: SurfaceObject) -> Bool {
        guard let entry = windows[surface.id], entry.minimized else { return false }
        entry.minimized = false
        return true
    }

    // MARK: Requests

    /// set_maximized and the like: as the window's own request (answered with a configure);
    /// a minimized window is shown again. A wl_shell window cannot be asked, and is left be.
    package func set(_ state: ReferenceWritableKeyPath<XdgToplevelObject, Bool>, _ value: Bool, on surface: SurfaceObject) {
        guard let toplevel = surface.xdgSurface?.toplevel else { return }
        if value, windows[surface.id]?.minimized == true { setMinimized(surface, false) }
        toplevel.change { $0[keyPath: state] = value }
    }

    /// Minimizes a window (hidden: no input, and the keyboard focus falls back to the
    /// window before) or shows it again, raised and focused.
    package func setMinimized(_ surface: SurfaceObject, _ minimized: Bool) {
        guard let entry = windows[surface.id], entry.minimized != minimized else { return }
        entry.minimized = minimized
        handler.setWindowHidden(surface, minimized)
        if minimized {
            handler.windowHidden(surface)
            windowChanged(surface)
        } else {
            handler.activateWindow(surface)
        }
    }

    // MARK: Handles

    private func refreshAll() {
        for entry in windows.values.sorted(by: { $0.order < $1.order }) {
            for handle in entry.liveHandles { refresh(handle, of: entry) }
        }
    }

    @discardableResult
    private func makeHandle(for entry: ForeignToplevel, in manager: ForeignToplevelManagerObject, describe: Bool = true) -> (ForeignToplevelHandleObject, ForeignToplevel)? {
        guard let surface = entry.surface, !manager.stopped,
              let resource = createResource(manager.client, tr_zwlr_foreign_toplevel_handle_v1_interface(), version: manager.version, id: 0) else { return nil }
        let handle = ForeignToplevelHandleObject(resource: resource, madeBy: manager, state: self, surface: surface, managerSerial: manager.serial)
        WaylandObject.install(handle, implementation: ForeignToplevelHandleObject.table)
        entry.handles.append(WeakForeignHandle(handle: handle))
        zwlr_foreign_toplevel_manager_v1_send_toplevel(manager.resource, resource)
        if describe { refresh(handle, of: entry) }
        return (handle, entry)
    }

    /// Sends a handle what changed since it was last told, then done if anything did.
    private func refresh(_ handle: ForeignToplevelHandleObject, of entry: ForeignToplevel) {
        guard let surface = entry.surface, handle.surface === surface, let info = ForeignInfo(surface) else { return }
        var changed = false
        if handle.sentTitle != info.title {
            handle.sentTitle = info.title
            zwlr_foreign_toplevel_handle_v1_send_title(handle.resource, info.title)
            changed = true
        }
        if handle.sentAppID != info.appID {
            handle.sentAppID = info.appID
            zwlr_foreign_toplevel_handle_v1_send_app_id(handle.resource, info.appID)
            changed = true
        }
        let output = handler.output(showing: surface)
        if output !== handle.sentOutput {
            if let old = handle.sentOutput {
                for binding in old.bindings(of: handle.client) { zwlr_foreign_toplevel_handle_v1_send_output_leave(handle.resource, binding) }
            }
            if let output {
                for binding in output.bindings(of: handle.client) { zwlr_foreign_toplevel_handle_v1_send_output_enter(handle.resource, binding) }
            }
            handle.sentOutput = output
            changed = true
        }
        var states: [UInt32] = []
        if info.maximized { states.append(ZWLR_FOREIGN_TOPLEVEL_HANDLE_V1_STATE_MAXIMIZED.rawValue) }
        if entry.minimized { states.append(ZWLR_FOREIGN_TOPLEVEL_HANDLE_V1_STATE_MINIMIZED.rawValue) }
        if active == surface.id { states.append(ZWLR_FOREIGN_TOPLEVEL_HANDLE_V1_STATE_ACTIVATED.rawValue) }
        if info.fullscreen, handle.version >= 2 { states.append(ZWLR_FOREIGN_TOPLEVEL_HANDLE_V1_STATE_FULLSCREEN.rawValue) }
        if handle.sentStates != states {
            handle.sentStates = states
            var array = wl_array()
            wl_array_init(&array)
            for state in states {
                guard let slot = wl_array_add(&array, MemoryLayout<UInt32>.size) else { continue }
                slot.storeBytes(of: state, as: UInt32.self)
            }
            zwlr_foreign_toplevel_handle_v1_send_state(handle.resource, &array)
            wl_array_release(&array)
            changed = true
        }
        if handle.version >= 3 {
            let parent = info.parent.flatMap { windows[$0.id] }?.liveHandles.first { $0.managerSerial == handle.managerSerial }
            if parent !== handle.sentParent {
                handle.sentParent = parent
                zwlr_foreign_toplevel_handle_v1_send_parent(handle.resource, parent?.resource)
                changed = true
            }
        }
        if changed { zwlr_foreign_toplevel_handle_v1_send_done(handle.resource) }
    }
}

/// What a window shows to foreign toplevel management.
private struct ForeignInfo {
    package var title: String
    package var appID: String
    package var maximized: Bool
    package var fullscreen: Bool
    package var parent: SurfaceObject?

    package init?(_ surface: SurfaceObject) {
        if let toplevel = surface.xdgSurface?.toplevel {
            self.init(title: toplevel.title, appID: toplevel.appID, maximized: toplevel.maximized,
                      fullscreen: toplevel.fullscreen, parent: toplevel.parent?.xdgSurface?.surface)
        } else if let shellSurface = surface.wlShellSurface {
            self.init(title: shellSurface.title, appID: shellSurface.className, maximized: shellSurface.kind == .maximized,
                      fullscreen: shellSurface.kind == .fullscreen, parent: shellSurface.kind == .transient ? shellSurface.parent : nil)
        } else {
            return nil
        }
    }

    private init(title: String, appID: String, maximized: Bool, fullscreen: Bool, parent: SurfaceObject?) {
        (self.title, self.appID, self.maximized, self.fullscreen, self.parent) = (title, appID, maximized, fullscreen, parent)
    }
}
