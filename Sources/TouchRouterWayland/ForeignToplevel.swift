import CWaylandShim
import TouchRouterCore

// wlr-foreign-toplevel-management-unstable-v1 (protocols/wlr-foreign-toplevel-management-
// unstable-v1.xml) at version 3: task bars and docks list the windows of every client and
// maximize, fullscreen, minimize, activate and close them. Every bound manager gets a handle
// per mapped toplevel (xdg_toplevel, zxdg_toplevel_v6, and a wl_shell_surface mapped as a
// window) with its title, app_id, output, states and parent, each batch ended by done; the
// handle is told closed when the window unmaps or goes. Privileged: it lets a client close
// and activate others' windows, so only the programs `[privileges] foreign-toplevel` names
// see it (Privileges.swift). Minimizing hides the window in the core's tree (no input, no
// keyboard focus) until it is unminimized or activated.
//
// Handles refer to their window weakly, and windows to their handles weakly: libwayland
// destroys a dying client's resources in id order, the server-made handles last.

enum ForeignToplevelManagerGlobal {
    static let version: Int32 = 3

    static let bind: wl_global_bind_func_t = { client, data, version, id in
        let session = Unmanaged<WaylandSession>.fromOpaque(data!).takeUnretainedValue()
        guard let client, session.mayBind(client, "zwlr_foreign_toplevel_manager_v1"),
              // At most the global's version: libwayland refuses a bind above it.
              let resource = createResource(client, tr_zwlr_foreign_toplevel_manager_v1_interface(), version: Int32(clamping: version), id: id) else { return }
        session.record(for: client)
        let manager = ForeignToplevelManagerObject(resource: resource, session: session)
        WaylandObject.install(manager, implementation: ForeignToplevelManagerObject.table)
        session.foreignToplevelManagers.append(manager)
        session.announceForeignToplevels(to: manager)
    }
}

/// One mapped window as foreign toplevel management sees it: its handles in every manager,
/// and whether it is minimized. Made when the window maps, dropped when it unmaps.
final class ForeignToplevel {
    /// Map order, in which a new manager is told of the windows.
    let order: UInt64
    weak var surface: SurfaceObject?
    var handles: [WeakForeignHandle] = []
    var minimized = false

    init(order: UInt64, surface: SurfaceObject) {
        self.order = order
        self.surface = surface
    }

    var liveHandles: [ForeignToplevelHandleObject] {
        handles.removeAll { $0.handle == nil }
        return handles.compactMap(\.handle)
    }
}

struct WeakForeignHandle {
    weak var handle: ForeignToplevelHandleObject?
}

final class ForeignToplevelManagerObject: WaylandObject {
    /// Tells a manager's handles from another's, for the parent event.
    let serial: UInt64
    var stopped = false

    override init(resource: OpaquePointer, session: WaylandSession) {
        serial = session.nextForeignSerial()
        super.init(resource: resource, session: session)
    }

    override func resourceDestroyed() {
        session.foreignToplevelManagers.removeAll { $0 === self }
    }

    nonisolated(unsafe) static let table = implementation(zwlr_foreign_toplevel_manager_v1_interface(
        stop: { _, resource in
            let manager = WaylandObject.of(resource, as: ForeignToplevelManagerObject.self)
            guard !manager.stopped else { return }
            manager.stopped = true
            manager.session.foreignToplevelManagers.removeAll { $0 === manager }
            // The protocol has the server destroy the object right after finished.
            zwlr_foreign_toplevel_manager_v1_send_finished(resource)
            wl_resource_destroy(resource)
        }))
}

final class ForeignToplevelHandleObject: WaylandObject {
    /// Nil once closed was sent: the handle then only waits for its destroy.
    weak var surface: SurfaceObject?
    let managerSerial: UInt64
    // What the client was last told, to send only what changed.
    var sentTitle: String?
    var sentAppID: String?
    var sentStates: [UInt32]?
    weak var sentOutput: VirtualOutput?
    weak var sentParent: ForeignToplevelHandleObject?
    /// set_rectangle's last box, in the given surface's coordinates (kept, not used: the
    /// session has no minimize animation).
    var rectangle: Rect<SurfaceSpace>?

    init(resource: OpaquePointer, session: WaylandSession, surface: SurfaceObject, managerSerial: UInt64) {
        self.surface = surface
        self.managerSerial = managerSerial
        super.init(resource: resource, session: session)
    }

    private static func act(_ resource: OpaquePointer?, _ action: (WaylandSession, SurfaceObject) -> Void) {
        let handle = WaylandObject.of(resource, as: ForeignToplevelHandleObject.self)
        guard let surface = handle.surface else { return }
        action(handle.session, surface)
    }

    nonisolated(unsafe) static let table = implementation(zwlr_foreign_toplevel_handle_v1_interface(
        set_maximized: { _, resource in act(resource) { $0.foreignSet(\.maximized, true, on: $1) } },
        unset_maximized: { _, resource in act(resource) { $0.foreignSet(\.maximized, false, on: $1) } },
        set_minimized: { _, resource in act(resource) { $0.setMinimized($1, true) } },
        unset_minimized: { _, resource in act(resource) { $0.setMinimized($1, false) } },
        activate: { _, resource, _ in act(resource) { $0.activateWindow($1) } },
        close: { _, resource in
            act(resource) { _, surface in
                // zxdg_toplevel_v6.close has xdg_toplevel.close's opcode (XdgFlavor); wl_shell has no close.
                if let toplevel = surface.xdgSurface?.toplevel { xdg_toplevel_send_close(toplevel.resource) }
            }
        },
        set_rectangle: { _, resource, _, x, y, width, height in
            let handle = WaylandObject.of(resource, as: ForeignToplevelHandleObject.self)
            guard width >= 0, height >= 0 else {
                handle.postError(ZWLR_FOREIGN_TOPLEVEL_HANDLE_V1_ERROR_INVALID_RECTANGLE.rawValue,
                                 "\(handle.name).set_rectangle: \(width)x\(height) is negative")
                return
            }
            handle.rectangle = width == 0 && height == 0 ? nil : Rect(x: Int(x), y: Int(y), width: Int(width), height: Int(height))
        },
        destroy: destroyRequest,
        // The output asked for is not used: the window fills the output it is on.
        set_fullscreen: { _, resource, _ in act(resource) { $0.foreignSet(\.fullscreen, true, on: $1) } },
        unset_fullscreen: { _, resource in act(resource) { $0.foreignSet(\.fullscreen, false, on: $1) } }))
}

/// What a window shows to foreign toplevel management.
private struct ForeignInfo {
    var title: String
    var appID: String
    var maximized: Bool
    var fullscreen: Bool
    var parent: SurfaceObject?
}

extension WaylandSession {
    func nextForeignSerial() -> UInt64 {
        foreignSerial &+= 1
        return foreignSerial
    }

    /// Whether a surface in the tree is a window foreign toplevel management lists: an
    /// xdg toplevel, or a wl_shell surface mapped as a window (not a layer surface).
    private func isForeignCandidate(_ surface: SurfaceObject) -> Bool {
        guard surface.inTree, tree.role(of: surface.id) == .toplevel, surface.hasBuffer else { return false }
        return surface.xdgSurface?.toplevel != nil || surface.wlShellSurface != nil
    }

    private func foreignInfo(_ surface: SurfaceObject) -> ForeignInfo? {
        if let toplevel = surface.xdgSurface?.toplevel {
            return ForeignInfo(title: toplevel.title, appID: toplevel.appID, maximized: toplevel.maximized,
                               fullscreen: toplevel.fullscreen, parent: toplevel.parent?.xdgSurface?.surface)
        }
        if let shellSurface = surface.wlShellSurface {
            return ForeignInfo(title: shellSurface.title, appID: shellSurface.className, maximized: shellSurface.kind == .maximized,
                               fullscreen: shellSurface.kind == .fullscreen, parent: shellSurface.kind == .transient ? shellSurface.parent : nil)
        }
        return nil
    }

    /// A window mapped (or mapped again): every manager gets a handle for it. Does nothing
    /// for a surface that is not a window, or one already listed.
    func foreignToplevelMapped(_ surface: SurfaceObject) {
        guard foreignToplevels[surface.id] == nil, isForeignCandidate(surface) else { return }
        let entry = ForeignToplevel(order: nextForeignSerial(), surface: surface)
        foreignToplevels[surface.id] = entry
        for manager in foreignToplevelManagers { makeHandle(for: entry, in: manager) }
        // Windows naming this one as their parent can say so now.
        refreshAllForeignToplevels()
    }

    /// A window unmapped or went: its handles are told closed, and it is minimized no longer.
    func foreignToplevelUnmapped(_ surface: SurfaceObject) {
        guard let entry = foreignToplevels.removeValue(forKey: surface.id) else { return }
        if entry.minimized, surface.inTree { try? tree.updateProperties(surface.id) { $0.hidden = false } }
        for handle in entry.liveHandles {
            handle.surface = nil
            zwlr_foreign_toplevel_handle_v1_send_closed(handle.resource)
        }
        // Children that named it as their parent now have none.
        refreshAllForeignToplevels()
    }

    /// Something a handle shows may have changed: each handle is sent what did, then done.
    func foreignToplevelChanged(_ surface: SurfaceObject) {
        guard let entry = foreignToplevels[surface.id] else { return }
        for handle in entry.liveHandles { refresh(handle, of: entry) }
    }

    /// The keyboard focus's window, as the activated state has it, after each round.
    func foreignActivationChanged() {
        let active = router.keyboardFocus.flatMap { tree.toplevel(of: $0) }
        guard active != foreignActive else { return }
        let previous = foreignActive
        foreignActive = active
        for id in [previous, active].compactMap({ $0 }) {
            if let surface = foreignToplevels[id]?.surface { foreignToplevelChanged(surface) }
        }
    }

    private func refreshAllForeignToplevels() {
        for entry in foreignToplevels.values.sorted(by: { $0.order < $1.order }) {
            for handle in entry.liveHandles { refresh(handle, of: entry) }
        }
    }

    /// A new manager is told of every window mapped now, oldest first; the handles all
    /// exist before any is described, so that parents can be named.
    func announceForeignToplevels(to manager: ForeignToplevelManagerObject) {
        let entries = foreignToplevels.values.sorted { $0.order < $1.order }
        let handles = entries.compactMap { makeHandle(for: $0, in: manager, describe: false).map { ($0, $1) } }
        for (handle, entry) in handles { refresh(handle, of: entry) }
    }

    @discardableResult
    private func makeHandle(for entry: ForeignToplevel, in manager: ForeignToplevelManagerObject, describe: Bool = true) -> (ForeignToplevelHandleObject, ForeignToplevel)? {
        guard let surface = entry.surface, !manager.stopped,
              let resource = createResource(manager.client, tr_zwlr_foreign_toplevel_handle_v1_interface(), version: manager.version, id: 0) else { return nil }
        let handle = ForeignToplevelHandleObject(resource: resource, session: self, surface: surface, managerSerial: manager.serial)
        WaylandObject.install(handle, implementation: ForeignToplevelHandleObject.table)
        entry.handles.append(WeakForeignHandle(handle: handle))
        zwlr_foreign_toplevel_manager_v1_send_toplevel(manager.resource, resource)
        if describe { refresh(handle, of: entry) }
        return (handle, entry)
    }

    /// Sends a handle what changed since it was last told, then done if anything did.
    private func refresh(_ handle: ForeignToplevelHandleObject, of entry: ForeignToplevel) {
        guard let surface = entry.surface, handle.surface === surface, let info = foreignInfo(surface) else { return }
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
        let output = tree.outputOf(surface.id).flatMap { id in outputs.first { $0.id == id } }
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
        if foreignActive == surface.id { states.append(ZWLR_FOREIGN_TOPLEVEL_HANDLE_V1_STATE_ACTIVATED.rawValue) }
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
            let parent = info.parent.flatMap { foreignToplevels[$0.id] }?.liveHandles.first { $0.managerSerial == handle.managerSerial }
            if parent !== handle.sentParent {
                handle.sentParent = parent
                zwlr_foreign_toplevel_handle_v1_send_parent(handle.resource, parent?.resource)
                changed = true
            }
        }
        if changed { zwlr_foreign_toplevel_handle_v1_send_done(handle.resource) }
    }

    // MARK: Requests

    /// set_maximized and the like: as the window's own request (answered with a configure);
    /// a minimized window is shown again. A wl_shell window cannot be asked, and is left be.
    fileprivate func foreignSet(_ state: ReferenceWritableKeyPath<XdgToplevelObject, Bool>, _ value: Bool, on surface: SurfaceObject) {
        guard let toplevel = surface.xdgSurface?.toplevel else { return }
        if value, foreignToplevels[surface.id]?.minimized == true { setMinimized(surface, false) }
        toplevel.change { $0[keyPath: state] = value }
    }

    /// Minimizes a window (hidden in the tree: no input, and the keyboard focus falls back
    /// to the window before) or shows it again, raised and focused.
    func setMinimized(_ surface: SurfaceObject, _ minimized: Bool) {
        guard let entry = foreignToplevels[surface.id], entry.minimized != minimized else { return }
        entry.minimized = minimized
        do { try tree.updateProperties(surface.id) { $0.hidden = minimized } } catch { report("minimizing \(surface.id): \(error)") }
        if minimized {
            router.dispatchAll()
            updateActivatedToplevel()
            foreignToplevelChanged(surface)
        } else {
            activateWindow(surface)
        }
    }

    /// activate: the window is shown if minimized, raised, and given the keyboard focus.
    func activateWindow(_ surface: SurfaceObject) {
        guard surface.inTree else { return }
        if let entry = foreignToplevels[surface.id], entry.minimized {
            entry.minimized = false
            try? tree.updateProperties(surface.id) { $0.hidden = false }
        }
        raiseWindow(surface.id)
        if !exclusiveLayerHoldsKeyboard { router.setKeyboardFocus(surface.id) }
        router.dispatchAll()
        updateActivatedToplevel()
        surface.xdgSurface?.toplevel?.sendPendingActivation()
        foreignToplevelChanged(surface)
    }
}
