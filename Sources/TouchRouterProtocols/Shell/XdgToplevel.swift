import CWaylandShim
import TouchRouterCore

// xdg_toplevel and zxdg_toplevel_v6 (XdgShell.swift has the shell and xdg_surface).

package final class XdgToplevelObject: WaylandObject {
    private unowned let handler: any ShellHandler
    package let flavor: XdgFlavor
    package weak var xdgSurface: XdgSurfaceObject?
    package var title = ""
    package var appID = ""
    /// The states the client asked for; each request is answered with a configure.
    package var maximized = false
    package var fullscreen = false
    package weak var parent: XdgToplevelObject?
    /// Double-buffered: set by the requests, checked against each other and made current on commit.
    package var pendingMinSize = Size(width: 0, height: 0)
    package var pendingMaxSize = Size(width: 0, height: 0)
    package var minSize = Size(width: 0, height: 0)
    package var maxSize = Size(width: 0, height: 0)
    /// Configures sent and not yet acked: whether each asked the window to fill its output.
    private var unacked: [(serial: UInt32, fill: Bool)] = []
    /// Whether the last configure the client acked asked it to fill the output.
    package private(set) var ackedFill = false
    /// Whether the window is placed filling its output now, and where it was before.
    package var filling = false
    package var restorePosition: Offset?

    package var fills: Bool { maximized || fullscreen }
    /// During an interactive resize: the size its configures ask for, with the resizing state.
    package var resizeSize: Size?

    package func sent(serial: UInt32) {
        // A client that never acks keeps only the latest few: an ack of an older one is
        // still valid, and counts as not filling.
        if unacked.count >= 16 { unacked.removeFirst() }
        unacked.append((serial, fills))
    }

    package func acked(serial: UInt32) {
        guard let index = unacked.firstIndex(where: { $0.serial == serial }) else { return }
        ackedFill = unacked[index].fill
        unacked.removeFirst(index + 1)
        if unacked.isEmpty, activationPending {
            activationPending = false
            xdgSurface?.sendConfigure()
        }
    }

    /// A change of the activated state waiting for the client to ack the configure before.
    private var activationPending = false

    /// Configures the window for a change of its activated state, unless a configure is still
    /// unacked: then once it is. Focus can flip many times between two reads of a slow
    /// client, and a configure each time made clients such as wev, which draw a new shm
    /// buffer per configure, queue more descriptors than libwayland-client can send, and die.
    package func activationChanged() {
        if unacked.isEmpty {
            xdgSurface?.sendConfigure()
        } else {
            activationPending = true
        }
    }

    /// A deliberate activation (zwlr_foreign_toplevel_handle_v1.activate), not a flip of the
    /// focus: a change waiting for an ack is configured at once.
    package func sendPendingActivation() {
        guard activationPending else { return }
        activationPending = false
        xdgSurface?.sendConfigure()
    }

    package init(resource: OpaquePointer, xdgSurface: XdgSurfaceObject, flavor: XdgFlavor) {
        handler = xdgSurface.handler
        self.xdgSurface = xdgSurface
        self.flavor = flavor
        super.init(resource: resource, madeBy: xdgSurface)
    }

    package override func resourceDestroyed() { handler.roleDestroyed(surface: xdgSurface?.surface) }

    package nonisolated(unsafe) static let table = implementation(xdg_toplevel_interface(
        destroy: destroyRequest,
        set_parent: { _, resource, parent in WaylandObject.of(resource, as: XdgToplevelObject.self).setParent(parent) },
        set_title: { _, resource, title in WaylandObject.of(resource, as: XdgToplevelObject.self).setTitle(title) },
        set_app_id: { _, resource, appID in WaylandObject.of(resource, as: XdgToplevelObject.self).setAppID(appID) },
        show_window_menu: { _, _, _, _, _, _ in },
        move: { _, resource, _, serial in WaylandObject.of(resource, as: XdgToplevelObject.self).move(serial: serial) },
        resize: { _, resource, _, serial, edges in WaylandObject.of(resource, as: XdgToplevelObject.self).resize(serial: serial, edges: edges) },
        set_max_size: { _, resource, width, height in WaylandObject.of(resource, as: XdgToplevelObject.self).setMaxSize(width, height) },
        set_min_size: { _, resource, width, height in WaylandObject.of(resource, as: XdgToplevelObject.self).setMinSize(width, height) },
        set_maximized: { _, resource in WaylandObject.of(resource, as: XdgToplevelObject.self).change { $0.maximized = true } },
        unset_maximized: { _, resource in WaylandObject.of(resource, as: XdgToplevelObject.self).change { $0.maximized = false } },
        // The output asked for is not used: the window fills the output it is on.
        set_fullscreen: { _, resource, _ in WaylandObject.of(resource, as: XdgToplevelObject.self).change { $0.fullscreen = true } },
        unset_fullscreen: { _, resource in WaylandObject.of(resource, as: XdgToplevelObject.self).change { $0.fullscreen = false } },
        set_minimized: { _, resource in WaylandObject.of(resource, as: XdgToplevelObject.self).minimize() }))
}

// The requests, shared by xdg_toplevel and zxdg_toplevel_v6. zxdg_toplevel_v6 has no error
// codes: where stable xdg-shell posts one, a v6 request is ignored instead.
extension XdgToplevelObject {
    package func setParent(_ parentResource: OpaquePointer?) {
        guard let parentResource else {
            parent = nil
            if let surface = xdgSurface?.surface { handler.windowChanged(surface) }
            return
        }
        let parent = WaylandObject.of(parentResource, as: XdgToplevelObject.self)
        // No cycles: the parent may be neither this toplevel nor one of its descendants.
        // Chains are acyclic by this check, so the walk ends.
        var ancestor: XdgToplevelObject? = parent
        while let next = ancestor {
            if next === self {
                if flavor == .stable {
                    postError(XDG_TOPLEVEL_ERROR_INVALID_PARENT.rawValue, "\(name).set_parent: \(parent.name) is this toplevel or one of its descendants")
                }
                return
            }
            ancestor = next.parent
        }
        self.parent = parent
        handler.keepAboveParent(self)
        if let surface = xdgSurface?.surface { handler.windowChanged(surface) }
    }

    package func setTitle(_ title: UnsafePointer<CChar>?) {
        self.title = title.map { String(cString: $0) } ?? ""
        handler.labelChanged(self)
    }

    package func setAppID(_ appID: UnsafePointer<CChar>?) {
        let before = self.appID
        self.appID = appID.map { String(cString: $0) } ?? ""
        handler.appIDChanged(self, from: before)
    }

    package func move(serial: UInt32) { handler.beginMove(self, serial: serial) }

    package func resize(serial: UInt32, edges: UInt32) {
        guard [0, 1, 2, 4, 5, 6, 8, 9, 10].contains(edges) else {
            if flavor == .stable {
                postError(XDG_TOPLEVEL_ERROR_INVALID_RESIZE_EDGE.rawValue, "\(name).resize: \(edges) is not an xdg_toplevel.resize_edge")
            }
            return
        }
        handler.beginResize(self, serial: serial, edges: edges)
    }

    package func setMaxSize(_ width: Int32, _ height: Int32) {
        guard checkSize(width, height, "set_max_size") else { return }
        pendingMaxSize = Size(width: Int(width), height: Int(height))
    }

    package func setMinSize(_ width: Int32, _ height: Int32) {
        guard checkSize(width, height, "set_min_size") else { return }
        pendingMinSize = Size(width: Int(width), height: Int(height))
    }

    /// A negative minimum or maximum size is the protocol's invalid_size. False when posted
    /// (or, in v6, when the request is to be ignored).
    package func checkSize(_ width: Int32, _ height: Int32, _ request: String) -> Bool {
        guard width < 0 || height < 0 else { return true }
        if flavor == .stable {
            postError(XDG_TOPLEVEL_ERROR_INVALID_SIZE.rawValue, "\(name).\(request): \(width)x\(height) is negative")
        }
        return false
    }

    /// A state request: always answered with a configure, changed or not, as the protocol asks.
    package func change(_ update: (XdgToplevelObject) -> Void) {
        update(self)
        xdgSurface?.sendConfigure()
        if let surface = xdgSurface?.surface { handler.windowChanged(surface) }
    }

    /// set_minimized: hidden until activated or unminimized (ForeignToplevel.swift).
    package func minimize() {
        if let surface = xdgSurface?.surface { handler.windowMinimized(surface) }
    }

    /// On commit: the pending minimum and maximum sizes become current, unless a maximum
    /// (where not 0, "no maximum") is below its minimum. False when that posted invalid_size;
    /// v6 has no code for it, and keeps the sizes it had.
    package func commitSizes() -> Bool {
        let min = pendingMinSize, max = pendingMaxSize
        if max.width > 0 && max.width < min.width || max.height > 0 && max.height < min.height {
            guard flavor == .stable else { return true }
            postError(XDG_TOPLEVEL_ERROR_INVALID_SIZE.rawValue, "\(name): the maximum size \(max.width)x\(max.height) is smaller than the minimum \(min.width)x\(min.height)")
            return false
        }
        (minSize, maxSize) = (min, max)
        return true
    }
}
