import CWaylandShim
import TouchRouterCore

// xdg_wm_base, xdg_positioner, xdg_surface, xdg_toplevel, xdg_popup.

enum XdgWmBaseGlobal {
    static let version: Int32 = 5

    nonisolated(unsafe) static let table = implementation(xdg_wm_base_interface(
        destroy: destroyRequest,
        create_positioner: { client, resource, id in
            let base = WaylandObject.of(resource, as: BoundGlobal.self)
            guard let created = createResource(client, tr_xdg_positioner_interface(), version: base.version, id: id) else { return }
            WaylandObject.install(PositionerObject(resource: created, session: base.session), implementation: PositionerObject.table)
        },
        get_xdg_surface: { client, resource, id, surfaceResource in
            let base = WaylandObject.of(resource, as: BoundGlobal.self)
            let surface = WaylandObject.of(surfaceResource, as: SurfaceObject.self)
            guard surface.role == .none || surface.xdgSurface == nil && surface.role != .subsurface && surface.role != .shellSurface else {
                base.postError(XDG_WM_BASE_ERROR_ROLE.rawValue, "xdg_wm_base@\(wl_resource_get_id(resource)).get_xdg_surface: wl_surface@\(wl_resource_get_id(surfaceResource)) already has the role \(surface.role.rawValue)")
                return
            }
            guard !surface.hasBuffer, !surface.pending.bufferAttached || surface.pending.bufferSize == nil else {
                base.postError(XDG_WM_BASE_ERROR_INVALID_SURFACE_STATE.rawValue, "xdg_wm_base@\(wl_resource_get_id(resource)).get_xdg_surface: wl_surface@\(wl_resource_get_id(surfaceResource)) already has a buffer")
                return
            }
            guard let created = createResource(client, tr_xdg_surface_interface(), version: base.version, id: id) else { return }
            let xdg = XdgSurfaceObject(resource: created, session: base.session, surface: surface)
            WaylandObject.install(xdg, implementation: XdgSurfaceObject.table)
            surface.xdgSurface = xdg
        },
        pong: { _, _, _ in }))
}

final class PositionerObject: WaylandObject {
    var placement = PopupPlacement()

    /// An anchor or gravity value (none, top, bottom, left, right, then the corners) as a
    /// side on each axis; a value the protocol does not have ends the client with invalid_input.
    func sides(_ value: UInt32, of kind: String) -> (x: PopupPlacement.Side, y: PopupPlacement.Side)? {
        guard let sides = Self.sides(value) else {
            postError(XDG_POSITIONER_ERROR_INVALID_INPUT.rawValue, "xdg_positioner@\(wl_resource_get_id(resource)).set_\(kind): \(value) is not an xdg_positioner.\(kind)")
            return nil
        }
        return sides
    }

    private static func sides(_ value: UInt32) -> (x: PopupPlacement.Side, y: PopupPlacement.Side)? {
        switch value {
        case XDG_POSITIONER_ANCHOR_NONE.rawValue: (.middle, .middle)
        case XDG_POSITIONER_ANCHOR_TOP.rawValue: (.middle, .start)
        case XDG_POSITIONER_ANCHOR_BOTTOM.rawValue: (.middle, .end)
        case XDG_POSITIONER_ANCHOR_LEFT.rawValue: (.start, .middle)
        case XDG_POSITIONER_ANCHOR_RIGHT.rawValue: (.end, .middle)
        case XDG_POSITIONER_ANCHOR_TOP_LEFT.rawValue: (.start, .start)
        case XDG_POSITIONER_ANCHOR_BOTTOM_LEFT.rawValue: (.start, .end)
        case XDG_POSITIONER_ANCHOR_TOP_RIGHT.rawValue: (.end, .start)
        case XDG_POSITIONER_ANCHOR_BOTTOM_RIGHT.rawValue: (.end, .end)
        default: nil
        }
    }

    nonisolated(unsafe) static let table = implementation(xdg_positioner_interface(
        destroy: destroyRequest,
        set_size: { _, resource, width, height in
            let positioner = WaylandObject.of(resource, as: PositionerObject.self)
            guard width > 0, height > 0 else {
                positioner.postError(XDG_POSITIONER_ERROR_INVALID_INPUT.rawValue, "xdg_positioner@\(wl_resource_get_id(resource)).set_size: \(width)x\(height) is not positive")
                return
            }
            positioner.placement.size = Size(width: Int(width), height: Int(height))
        },
        set_anchor_rect: { _, resource, x, y, width, height in
            let positioner = WaylandObject.of(resource, as: PositionerObject.self)
            guard width >= 0, height >= 0 else {
                positioner.postError(XDG_POSITIONER_ERROR_INVALID_INPUT.rawValue, "xdg_positioner@\(wl_resource_get_id(resource)).set_anchor_rect: \(width)x\(height) is negative")
                return
            }
            positioner.placement.anchorRect = Rect(x: Int(x), y: Int(y), width: Int(width), height: Int(height))
        },
        set_anchor: { _, resource, anchor in
            let positioner = WaylandObject.of(resource, as: PositionerObject.self)
            guard let sides = positioner.sides(anchor, of: "anchor") else { return }
            (positioner.placement.anchorX, positioner.placement.anchorY) = sides
        },
        set_gravity: { _, resource, gravity in
            let positioner = WaylandObject.of(resource, as: PositionerObject.self)
            guard let sides = positioner.sides(gravity, of: "gravity") else { return }
            (positioner.placement.gravityX, positioner.placement.gravityY) = sides
        },
        set_constraint_adjustment: { _, resource, adjustment in
            WaylandObject.of(resource, as: PositionerObject.self).placement.adjustment = PopupPlacement.Adjustment(rawValue: adjustment & 63)
        },
        set_offset: { _, resource, x, y in WaylandObject.of(resource, as: PositionerObject.self).placement.offset = Offset(dx: Int(x), dy: Int(y)) },
        set_reactive: { _, _ in },
        set_parent_size: { _, _, _, _ in },
        set_parent_configure: { _, _, _ in }))
}

final class XdgSurfaceObject: WaylandObject {
    weak var surface: SurfaceObject?
    weak var toplevel: XdgToplevelObject?
    weak var popup: XdgPopupObject?
    var configured = false
    var lastConfigureSerial: UInt32 = 0
    var sentFirstConfigure = false
    var geometry: Rect<SurfaceSpace>? = nil

    init(resource: OpaquePointer, session: WaylandSession, surface: SurfaceObject) {
        self.surface = surface
        super.init(resource: resource, session: session)
    }

    override func resourceDestroyed() {
        if surface?.xdgSurface === self { surface?.xdgSurface = nil }
    }

    /// Sends the role's configure, then xdg_surface.configure with a fresh serial.
    func sendConfigure() {
        let serial = session.display.nextSerial
        if let toplevel {
            var states = wl_array()
            wl_array_init(&states)
            for state in session.configureStates(for: toplevel) {
                guard let slot = wl_array_add(&states, MemoryLayout<UInt32>.size) else { continue }
                slot.storeBytes(of: state.rawValue, as: UInt32.self)
            }
            let size = session.configureSize(for: toplevel)
            xdg_toplevel_send_configure(toplevel.resource, Int32(clamping: size.width), Int32(clamping: size.height), &states)
            wl_array_release(&states)
            toplevel.sent(serial: serial)
        } else if let popup {
            // The box is computed in Int from the positioner's int32s, and can lie outside
            // int32 (an anchor at INT32_MAX with an offset): it goes out clamped, and the
            // popup then sits at the edge of what the protocol can say.
            popup.box = session.popupBox(popup).clampedToInt32
            xdg_popup_send_configure(popup.resource, Int32(popup.box.x), Int32(popup.box.y), Int32(popup.box.width), Int32(popup.box.height))
        }
        xdg_surface_send_configure(resource, serial)
        lastConfigureSerial = serial
        sentFirstConfigure = true
    }

    nonisolated(unsafe) static let table = implementation(xdg_surface_interface(
        destroy: destroyRequest,
        get_toplevel: { client, resource, id in
            let xdg = WaylandObject.of(resource, as: XdgSurfaceObject.self)
            guard let surface = xdg.surface, surface.role == .none else {
                xdg.postError(XDG_WM_BASE_ERROR_ROLE.rawValue, "xdg_surface@\(wl_resource_get_id(resource)).get_toplevel: the surface already has a role")
                return
            }
            guard let created = createResource(client, tr_xdg_toplevel_interface(), version: xdg.version, id: id) else { return }
            let toplevel = XdgToplevelObject(resource: created, session: xdg.session, xdgSurface: xdg)
            WaylandObject.install(toplevel, implementation: XdgToplevelObject.table)
            xdg.toplevel = toplevel
            surface.role = .toplevel
            if toplevel.version >= 5 {
                var capabilities = wl_array()
                wl_array_init(&capabilities)
                for capability in [XDG_TOPLEVEL_WM_CAPABILITIES_MAXIMIZE, XDG_TOPLEVEL_WM_CAPABILITIES_FULLSCREEN] {
                    guard let slot = wl_array_add(&capabilities, MemoryLayout<UInt32>.size) else { continue }
                    slot.storeBytes(of: capability.rawValue, as: UInt32.self)
                }
                xdg_toplevel_send_wm_capabilities(created, &capabilities)
                wl_array_release(&capabilities)
            }
            // Configured at once, not at the initial commit: clients that attach their
            // first buffer without waiting (WLCS's among them) then never attach unconfigured.
            xdg.sendConfigure()
        },
        get_popup: { client, resource, id, parentResource, positionerResource in
            let xdg = WaylandObject.of(resource, as: XdgSurfaceObject.self)
            guard let surface = xdg.surface, surface.role == .none else {
                xdg.postError(XDG_WM_BASE_ERROR_ROLE.rawValue, "xdg_surface@\(wl_resource_get_id(resource)).get_popup: the surface already has a role")
                return
            }
            let positioner = WaylandObject.of(positionerResource, as: PositionerObject.self)
            guard positioner.placement.size.width > 0 else {
                xdg.postError(XDG_WM_BASE_ERROR_INVALID_POSITIONER.rawValue, "xdg_surface@\(wl_resource_get_id(resource)).get_popup: the positioner has no size")
                return
            }
            let parent = parentResource.map { WaylandObject.of($0, as: XdgSurfaceObject.self) }
            if let parent, parent.toplevel == nil && parent.popup == nil || parent.surface == nil {
                xdg.postError(XDG_WM_BASE_ERROR_INVALID_POPUP_PARENT.rawValue, "xdg_surface@\(wl_resource_get_id(resource)).get_popup: the parent xdg_surface@\(wl_resource_get_id(parentResource)) is neither a toplevel nor a popup")
                return
            }
            if let parentSurface = parent?.surface, !surface.fitsBelow(parentSurface) {
                xdg.endClient("xdg_surface@\(wl_resource_get_id(resource)).get_popup", pastLimit: "nests the popup past \(ClientLimits.nestingDepth) levels, the most surfaces may nest")
                return
            }
            guard let created = createResource(client, tr_xdg_popup_interface(), version: xdg.version, id: id) else { return }
            let popup = XdgPopupObject(resource: created, session: xdg.session, xdgSurface: xdg, parent: parent?.surface)
            popup.placement = positioner.placement
            WaylandObject.install(popup, implementation: XdgPopupObject.table)
            xdg.popup = popup
            surface.role = .popup
        },
        set_window_geometry: { _, resource, x, y, width, height in
            let xdg = WaylandObject.of(resource, as: XdgSurfaceObject.self)
            guard width > 0, height > 0 else {
                xdg.postError(XDG_SURFACE_ERROR_INVALID_SIZE.rawValue, "xdg_surface@\(wl_resource_get_id(resource)).set_window_geometry: \(width)x\(height) is not positive")
                return
            }
            xdg.geometry = Rect(x: Int(x), y: Int(y), width: Int(width), height: Int(height))
        },
        ack_configure: { _, resource, serial in
            let xdg = WaylandObject.of(resource, as: XdgSurfaceObject.self)
            guard xdg.sentFirstConfigure, serial <= xdg.lastConfigureSerial else {
                xdg.postError(XDG_SURFACE_ERROR_INVALID_SERIAL.rawValue, "xdg_surface@\(wl_resource_get_id(resource)).ack_configure: serial \(serial) was never sent")
                return
            }
            xdg.configured = true
            xdg.toplevel?.acked(serial: serial)
        }))
}

final class XdgToplevelObject: WaylandObject {
    weak var xdgSurface: XdgSurfaceObject?
    var title = ""
    var appID = ""
    /// The states the client asked for; each request is answered with a configure.
    var maximized = false
    var fullscreen = false
    weak var parent: XdgToplevelObject?
    /// Double-buffered: set by the requests, checked against each other and made current on commit.
    var pendingMinSize = Size(width: 0, height: 0)
    var pendingMaxSize = Size(width: 0, height: 0)
    var minSize = Size(width: 0, height: 0)
    var maxSize = Size(width: 0, height: 0)
    /// Configures sent and not yet acked: whether each asked the window to fill its output.
    private var unacked: [(serial: UInt32, fill: Bool)] = []
    /// Whether the last configure the client acked asked it to fill the output.
    private(set) var ackedFill = false
    /// Whether the window is placed filling its output now, and where it was before.
    var filling = false
    var restorePosition: Offset?

    var fills: Bool { maximized || fullscreen }
    /// During an interactive resize: the size its configures ask for, with the resizing state.
    var resizeSize: Size?

    func sent(serial: UInt32) {
        // A client that never acks keeps only the latest few: an ack of an older one is
        // still valid, and counts as not filling.
        if unacked.count >= 16 { unacked.removeFirst() }
        unacked.append((serial, fills))
    }

    func acked(serial: UInt32) {
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
    func activationChanged() {
        if unacked.isEmpty {
            xdgSurface?.sendConfigure()
        } else {
            activationPending = true
        }
    }

    init(resource: OpaquePointer, session: WaylandSession, xdgSurface: XdgSurfaceObject) {
        self.xdgSurface = xdgSurface
        super.init(resource: resource, session: session)
    }

    override func resourceDestroyed() { session.roleDestroyed(surface: xdgSurface?.surface) }

    nonisolated(unsafe) static let table = implementation(xdg_toplevel_interface(
        destroy: destroyRequest,
        set_parent: { _, resource, parentResource in
            let toplevel = WaylandObject.of(resource, as: XdgToplevelObject.self)
            guard let parentResource else {
                toplevel.parent = nil
                return
            }
            let parent = WaylandObject.of(parentResource, as: XdgToplevelObject.self)
            // No cycles: the parent may be neither this toplevel nor one of its descendants.
            // Chains are acyclic by this check, so the walk ends.
            var ancestor: XdgToplevelObject? = parent
            while let next = ancestor {
                if next === toplevel {
                    toplevel.postError(XDG_TOPLEVEL_ERROR_INVALID_PARENT.rawValue, "\(toplevel.name).set_parent: xdg_toplevel@\(wl_resource_get_id(parentResource)) is this toplevel or one of its descendants")
                    return
                }
                ancestor = next.parent
            }
            toplevel.parent = parent
        },
        set_title: { _, resource, title in
            let toplevel = WaylandObject.of(resource, as: XdgToplevelObject.self)
            toplevel.title = title.map { String(cString: $0) } ?? ""
            toplevel.session.labelChanged(toplevel)
        },
        set_app_id: { _, resource, appID in
            let toplevel = WaylandObject.of(resource, as: XdgToplevelObject.self)
            toplevel.appID = appID.map { String(cString: $0) } ?? ""
            toplevel.session.labelChanged(toplevel)
            if let surface = toplevel.xdgSurface?.surface { toplevel.session.shell.appIDChanged(surface) }
        },
        show_window_menu: { _, _, _, _, _, _ in },
        move: { _, resource, _, serial in
            let toplevel = WaylandObject.of(resource, as: XdgToplevelObject.self)
            toplevel.session.beginMove(toplevel, serial: serial)
        },
        resize: { _, resource, _, serial, edges in
            let toplevel = WaylandObject.of(resource, as: XdgToplevelObject.self)
            guard [0, 1, 2, 4, 5, 6, 8, 9, 10].contains(edges) else {
                toplevel.postError(XDG_TOPLEVEL_ERROR_INVALID_RESIZE_EDGE.rawValue, "\(toplevel.name).resize: \(edges) is not an xdg_toplevel.resize_edge")
                return
            }
            toplevel.session.beginResize(toplevel, serial: serial, edges: edges)
        },
        set_max_size: { _, resource, width, height in
            let toplevel = WaylandObject.of(resource, as: XdgToplevelObject.self)
            guard toplevel.checkSize(width, height, "set_max_size") else { return }
            toplevel.pendingMaxSize = Size(width: Int(width), height: Int(height))
        },
        set_min_size: { _, resource, width, height in
            let toplevel = WaylandObject.of(resource, as: XdgToplevelObject.self)
            guard toplevel.checkSize(width, height, "set_min_size") else { return }
            toplevel.pendingMinSize = Size(width: Int(width), height: Int(height))
        },
        set_maximized: { _, resource in WaylandObject.of(resource, as: XdgToplevelObject.self).change { $0.maximized = true } },
        unset_maximized: { _, resource in WaylandObject.of(resource, as: XdgToplevelObject.self).change { $0.maximized = false } },
        // The output asked for is not used: the window fills the output it is on.
        set_fullscreen: { _, resource, _ in WaylandObject.of(resource, as: XdgToplevelObject.self).change { $0.fullscreen = true } },
        unset_fullscreen: { _, resource in WaylandObject.of(resource, as: XdgToplevelObject.self).change { $0.fullscreen = false } },
        set_minimized: { _, _ in }))
}

extension XdgToplevelObject {
    /// A negative minimum or maximum size is the protocol's invalid_size. False when posted.
    func checkSize(_ width: Int32, _ height: Int32, _ request: String) -> Bool {
        guard width < 0 || height < 0 else { return true }
        postError(XDG_TOPLEVEL_ERROR_INVALID_SIZE.rawValue, "\(name).\(request): \(width)x\(height) is negative")
        return false
    }

    /// A state request: always answered with a configure, changed or not, as the protocol asks.
    func change(_ update: (XdgToplevelObject) -> Void) {
        update(self)
        xdgSurface?.sendConfigure()
    }

    /// On commit: the pending minimum and maximum sizes become current, unless a maximum
    /// (where not 0, "no maximum") is below its minimum. False when that posted invalid_size.
    func commitSizes() -> Bool {
        let min = pendingMinSize, max = pendingMaxSize
        if max.width > 0 && max.width < min.width || max.height > 0 && max.height < min.height {
            postError(XDG_TOPLEVEL_ERROR_INVALID_SIZE.rawValue, "\(name): the maximum size \(max.width)x\(max.height) is smaller than the minimum \(min.width)x\(min.height)")
            return false
        }
        (minSize, maxSize) = (min, max)
        return true
    }
}

final class XdgPopupObject: WaylandObject {
    weak var xdgSurface: XdgSurfaceObject?
    weak var parent: SurfaceObject?
    var placement = PopupPlacement()
    /// Where the popup's window geometry goes, relative to its parent's, as last configured.
    var box = Rect<SurfaceSpace>(x: 0, y: 0, width: 0, height: 0)
    var grabbed = false

    init(resource: OpaquePointer, session: WaylandSession, xdgSurface: XdgSurfaceObject, parent: SurfaceObject?) {
        self.xdgSurface = xdgSurface
        self.parent = parent
        super.init(resource: resource, session: session)
    }

    override func resourceDestroyed() {
        session.popupGone(self)
        session.roleDestroyed(surface: xdgSurface?.surface)
    }

    nonisolated(unsafe) static let table = implementation(xdg_popup_interface(
        destroy: destroyRequest,
        grab: { _, resource, _, _ in
            let popup = WaylandObject.of(resource, as: XdgPopupObject.self)
            guard popup.xdgSurface?.surface?.inTree != true else {
                popup.postError(XDG_POPUP_ERROR_INVALID_GRAB.rawValue, "xdg_popup@\(wl_resource_get_id(resource)).grab: the popup is mapped already; grab before its first commit with a buffer")
                return
            }
            popup.grabbed = true
        },
        reposition: { _, resource, positionerResource, token in
            let popup = WaylandObject.of(resource, as: XdgPopupObject.self)
            let positioner = WaylandObject.of(positionerResource, as: PositionerObject.self)
            popup.placement = positioner.placement
            xdg_popup_send_repositioned(resource, token)
            popup.xdgSurface?.sendConfigure()
        }))
}

extension Rect {
    /// Each field clamped on its own into int32 (sizes into 0...INT32_MAX), as the protocol sends them.
    var clampedToInt32: Rect {
        let range = Int(Int32.min)...Int(Int32.max)
        return Rect(x: x.clamped(to: range), y: y.clamped(to: range), width: width.clamped(to: 0...Int(Int32.max)), height: height.clamped(to: 0...Int(Int32.max)))
    }
}
