import CWaylandShim
import TouchRouterCore

// xdg_wm_base, xdg_positioner, xdg_surface, xdg_toplevel, xdg_popup. The same objects and
// request bodies serve xdg-shell-unstable-v6 (XdgShellV6.swift); `XdgFlavor` says which
// protocol an object speaks.

/// The stable xdg-shell or xdg-shell-unstable-v6: the interfaces a request creates, the
/// implementation tables installed on them, and the error codes, each from its own header.
/// The requests and events of both have the same shapes and opcodes (v6 being xdg-shell
/// version 1), so the events go out with the stable xdg_*_send_* functions.
enum XdgFlavor {
    case stable, v6

    var positionerInterface: UnsafePointer<wl_interface> { self == .stable ? tr_xdg_positioner_interface() : tr_zxdg_positioner_v6_interface() }
    var surfaceInterface: UnsafePointer<wl_interface> { self == .stable ? tr_xdg_surface_interface() : tr_zxdg_surface_v6_interface() }
    var toplevelInterface: UnsafePointer<wl_interface> { self == .stable ? tr_xdg_toplevel_interface() : tr_zxdg_toplevel_v6_interface() }
    var popupInterface: UnsafePointer<wl_interface> { self == .stable ? tr_xdg_popup_interface() : tr_zxdg_popup_v6_interface() }

    var positionerTable: UnsafeRawPointer { self == .stable ? PositionerObject.table : PositionerObject.v6Table }
    var surfaceTable: UnsafeRawPointer { self == .stable ? XdgSurfaceObject.table : XdgSurfaceObject.v6Table }
    var toplevelTable: UnsafeRawPointer { self == .stable ? XdgToplevelObject.table : XdgToplevelObject.v6Table }
    var popupTable: UnsafeRawPointer { self == .stable ? XdgPopupObject.table : XdgPopupObject.v6Table }

    var roleError: UInt32 { self == .stable ? XDG_WM_BASE_ERROR_ROLE.rawValue : ZXDG_SHELL_V6_ERROR_ROLE.rawValue }
    var invalidSurfaceStateError: UInt32 { self == .stable ? XDG_WM_BASE_ERROR_INVALID_SURFACE_STATE.rawValue : ZXDG_SHELL_V6_ERROR_INVALID_SURFACE_STATE.rawValue }
    var invalidPositionerError: UInt32 { self == .stable ? XDG_WM_BASE_ERROR_INVALID_POSITIONER.rawValue : ZXDG_SHELL_V6_ERROR_INVALID_POSITIONER.rawValue }
    var invalidPopupParentError: UInt32 { self == .stable ? XDG_WM_BASE_ERROR_INVALID_POPUP_PARENT.rawValue : ZXDG_SHELL_V6_ERROR_INVALID_POPUP_PARENT.rawValue }
    var invalidInputError: UInt32 { self == .stable ? XDG_POSITIONER_ERROR_INVALID_INPUT.rawValue : ZXDG_POSITIONER_V6_ERROR_INVALID_INPUT.rawValue }
    var unconfiguredBufferError: UInt32 { self == .stable ? XDG_SURFACE_ERROR_UNCONFIGURED_BUFFER.rawValue : ZXDG_SURFACE_V6_ERROR_UNCONFIGURED_BUFFER.rawValue }
    var invalidGrabError: UInt32 { self == .stable ? XDG_POPUP_ERROR_INVALID_GRAB.rawValue : ZXDG_POPUP_V6_ERROR_INVALID_GRAB.rawValue }
}

enum XdgWmBaseGlobal {
    static let version: Int32 = 5

    nonisolated(unsafe) static let table = implementation(xdg_wm_base_interface(
        destroy: destroyRequest,
        create_positioner: { client, resource, id in createPositioner(client, resource, id, .stable) },
        get_xdg_surface: { client, resource, id, surfaceResource in getXdgSurface(client, resource, id, surfaceResource, .stable) },
        pong: { _, _, _ in }))

    /// xdg_wm_base.create_positioner, zxdg_shell_v6.create_positioner.
    static func createPositioner(_ client: OpaquePointer?, _ resource: OpaquePointer?, _ id: UInt32, _ flavor: XdgFlavor) {
        let base = WaylandObject.of(resource, as: BoundGlobal.self)
        guard let created = createResource(client, flavor.positionerInterface, version: base.version, id: id) else { return }
        WaylandObject.install(PositionerObject(resource: created, session: base.session, flavor: flavor), implementation: flavor.positionerTable)
    }

    /// xdg_wm_base.get_xdg_surface, zxdg_shell_v6.get_xdg_surface.
    static func getXdgSurface(_ client: OpaquePointer?, _ resource: OpaquePointer?, _ id: UInt32, _ surfaceResource: OpaquePointer?, _ flavor: XdgFlavor) {
        let base = WaylandObject.of(resource, as: BoundGlobal.self)
        let surface = WaylandObject.of(surfaceResource, as: SurfaceObject.self)
        guard surface.role == .none || surface.xdgSurface == nil && surface.role != .subsurface && surface.role != .shellSurface else {
            base.postError(flavor.roleError, "\(base.name).get_xdg_surface: wl_surface@\(wl_resource_get_id(surfaceResource)) already has the role \(surface.role.rawValue)")
            return
        }
        guard !surface.hasBuffer, !surface.pending.bufferAttached || surface.pending.bufferSize == nil else {
            base.postError(flavor.invalidSurfaceStateError, "\(base.name).get_xdg_surface: wl_surface@\(wl_resource_get_id(surfaceResource)) already has a buffer")
            return
        }
        guard let created = createResource(client, flavor.surfaceInterface, version: base.version, id: id) else { return }
        let xdg = XdgSurfaceObject(resource: created, session: base.session, surface: surface, flavor: flavor)
        WaylandObject.install(xdg, implementation: flavor.surfaceTable)
        surface.xdgSurface = xdg
    }
}

final class PositionerObject: WaylandObject {
    let flavor: XdgFlavor
    var placement = PopupPlacement()

    init(resource: OpaquePointer, session: WaylandSession, flavor: XdgFlavor) {
        self.flavor = flavor
        super.init(resource: resource, session: session)
    }

    /// An anchor or gravity value as a side on each axis; a value the protocol does not
    /// have ends the client with invalid_input. Stable: none, top, bottom, left, right, then
    /// the corners. v6: a bitfield of top 1, bottom 2, left 4, right 8, where top with
    /// bottom or left with right is invalid.
    func sides(_ value: UInt32, of kind: String) -> (x: PopupPlacement.Side, y: PopupPlacement.Side)? {
        guard let sides = flavor == .stable ? Self.sides(value) : Self.v6Sides(value) else {
            postError(flavor.invalidInputError, "\(name).set_\(kind): \(value) is not a valid \(kind)")
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

    private static func v6Sides(_ value: UInt32) -> (x: PopupPlacement.Side, y: PopupPlacement.Side)? {
        let top = ZXDG_POSITIONER_V6_ANCHOR_TOP.rawValue, bottom = ZXDG_POSITIONER_V6_ANCHOR_BOTTOM.rawValue
        let left = ZXDG_POSITIONER_V6_ANCHOR_LEFT.rawValue, right = ZXDG_POSITIONER_V6_ANCHOR_RIGHT.rawValue
        guard value & ~(top | bottom | left | right) == 0 else { return nil }
        func side(_ start: UInt32, _ end: UInt32) -> PopupPlacement.Side? {
            switch (value & start != 0, value & end != 0) {
            case (true, true): nil
            case (true, false): .start
            case (false, true): .end
            case (false, false): .middle
            }
        }
        guard let x = side(left, right), let y = side(top, bottom) else { return nil }
        return (x, y)
    }

    func setSize(_ width: Int32, _ height: Int32) {
        guard width > 0, height > 0 else {
            postError(flavor.invalidInputError, "\(name).set_size: \(width)x\(height) is not positive")
            return
        }
        placement.size = Size(width: Int(width), height: Int(height))
    }

    /// Stable xdg-shell allows an empty anchor rectangle; v6 wants it positive.
    func setAnchorRect(_ x: Int32, _ y: Int32, _ width: Int32, _ height: Int32) {
        let valid = flavor == .stable ? width >= 0 && height >= 0 : width > 0 && height > 0
        guard valid else {
            postError(flavor.invalidInputError, "\(name).set_anchor_rect: \(width)x\(height) is \(flavor == .stable ? "negative" : "not positive")")
            return
        }
        placement.anchorRect = Rect(x: Int(x), y: Int(y), width: Int(width), height: Int(height))
    }

    func setAnchor(_ anchor: UInt32) {
        guard let sides = sides(anchor, of: "anchor") else { return }
        (placement.anchorX, placement.anchorY) = sides
    }

    func setGravity(_ gravity: UInt32) {
        guard let sides = sides(gravity, of: "gravity") else { return }
        (placement.gravityX, placement.gravityY) = sides
    }

    func setConstraintAdjustment(_ adjustment: UInt32) {
        placement.adjustment = PopupPlacement.Adjustment(rawValue: adjustment & 63)
    }

    func setOffset(_ x: Int32, _ y: Int32) { placement.offset = Offset(dx: Int(x), dy: Int(y)) }

    nonisolated(unsafe) static let table = implementation(xdg_positioner_interface(
        destroy: destroyRequest,
        set_size: { _, resource, width, height in WaylandObject.of(resource, as: PositionerObject.self).setSize(width, height) },
        set_anchor_rect: { _, resource, x, y, width, height in WaylandObject.of(resource, as: PositionerObject.self).setAnchorRect(x, y, width, height) },
        set_anchor: { _, resource, anchor in WaylandObject.of(resource, as: PositionerObject.self).setAnchor(anchor) },
        set_gravity: { _, resource, gravity in WaylandObject.of(resource, as: PositionerObject.self).setGravity(gravity) },
        set_constraint_adjustment: { _, resource, adjustment in WaylandObject.of(resource, as: PositionerObject.self).setConstraintAdjustment(adjustment) },
        set_offset: { _, resource, x, y in WaylandObject.of(resource, as: PositionerObject.self).setOffset(x, y) },
        set_reactive: { _, _ in },
        set_parent_size: { _, _, _, _ in },
        set_parent_configure: { _, _, _ in }))
}

final class XdgSurfaceObject: WaylandObject {
    let flavor: XdgFlavor
    weak var surface: SurfaceObject?
    weak var toplevel: XdgToplevelObject?
    weak var popup: XdgPopupObject?
    var configured = false
    var lastConfigureSerial: UInt32 = 0
    var sentFirstConfigure = false
    var geometry: Rect<SurfaceSpace>? = nil

    init(resource: OpaquePointer, session: WaylandSession, surface: SurfaceObject, flavor: XdgFlavor) {
        self.surface = surface
        self.flavor = flavor
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

    func getToplevel(_ client: OpaquePointer?, _ id: UInt32) {
        guard let surface, surface.role == .none else {
            postError(flavor.roleError, "\(name).get_toplevel: the surface already has a role")
            return
        }
        guard let created = createResource(client, flavor.toplevelInterface, version: version, id: id) else { return }
        let toplevel = XdgToplevelObject(resource: created, session: session, xdgSurface: self, flavor: flavor)
        WaylandObject.install(toplevel, implementation: flavor.toplevelTable)
        self.toplevel = toplevel
        surface.role = .toplevel
        if flavor == .stable, toplevel.version >= 5 {
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
        sendConfigure()
    }

    /// The parent is optional in stable xdg-shell and required in v6.
    func getPopup(_ client: OpaquePointer?, _ id: UInt32, _ parentResource: OpaquePointer?, _ positionerResource: OpaquePointer?) {
        guard let surface, surface.role == .none else {
            postError(flavor.roleError, "\(name).get_popup: the surface already has a role")
            return
        }
        let positioner = WaylandObject.of(positionerResource, as: PositionerObject.self)
        guard positioner.placement.size.width > 0 else {
            postError(flavor.invalidPositionerError, "\(name).get_popup: the positioner has no size")
            return
        }
        if flavor == .v6, parentResource == nil {
            postError(flavor.invalidPopupParentError, "\(name).get_popup: a zxdg_popup_v6 needs a parent")
            return
        }
        let parent = parentResource.map { WaylandObject.of($0, as: XdgSurfaceObject.self) }
        if let parent, parent.toplevel == nil && parent.popup == nil || parent.surface == nil {
            postError(flavor.invalidPopupParentError, "\(name).get_popup: the parent \(parent.name) is neither a toplevel nor a popup")
            return
        }
        if let parentSurface = parent?.surface, !surface.fitsBelow(parentSurface) {
            endClient("\(name).get_popup", pastLimit: "nests the popup past \(ClientLimits.nestingDepth) levels, the most surfaces may nest")
            return
        }
        guard let created = createResource(client, flavor.popupInterface, version: version, id: id) else { return }
        let popup = XdgPopupObject(resource: created, session: session, xdgSurface: self, parent: parent?.surface, flavor: flavor)
        popup.placement = positioner.placement
        WaylandObject.install(popup, implementation: flavor.popupTable)
        self.popup = popup
        surface.role = .popup
    }

    /// A size that is not positive is invalid_size in stable xdg-shell; v6 has no error
    /// for it, and the request is ignored.
    func setWindowGeometry(_ x: Int32, _ y: Int32, _ width: Int32, _ height: Int32) {
        guard width > 0, height > 0 else {
            if flavor == .stable {
                postError(XDG_SURFACE_ERROR_INVALID_SIZE.rawValue, "\(name).set_window_geometry: \(width)x\(height) is not positive")
            }
            return
        }
        geometry = Rect(x: Int(x), y: Int(y), width: Int(width), height: Int(height))
    }

    /// A serial never sent is invalid_serial in stable xdg-shell; v6 has no error for it,
    /// and the ack is ignored.
    func ackConfigure(_ serial: UInt32) {
        guard sentFirstConfigure, serial <= lastConfigureSerial else {
            if flavor == .stable {
                postError(XDG_SURFACE_ERROR_INVALID_SERIAL.rawValue, "\(name).ack_configure: serial \(serial) was never sent")
            }
            return
        }
        configured = true
        toplevel?.acked(serial: serial)
    }

    nonisolated(unsafe) static let table = implementation(xdg_surface_interface(
        destroy: destroyRequest,
        get_toplevel: { client, resource, id in WaylandObject.of(resource, as: XdgSurfaceObject.self).getToplevel(client, id) },
        get_popup: { client, resource, id, parent, positioner in WaylandObject.of(resource, as: XdgSurfaceObject.self).getPopup(client, id, parent, positioner) },
        set_window_geometry: { _, resource, x, y, width, height in WaylandObject.of(resource, as: XdgSurfaceObject.self).setWindowGeometry(x, y, width, height) },
        ack_configure: { _, resource, serial in WaylandObject.of(resource, as: XdgSurfaceObject.self).ackConfigure(serial) }))
}

final class XdgToplevelObject: WaylandObject {
    let flavor: XdgFlavor
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

    /// A deliberate activation (zwlr_foreign_toplevel_handle_v1.activate), not a flip of the
    /// focus: a change waiting for an ack is configured at once.
    func sendPendingActivation() {
        guard activationPending else { return }
        activationPending = false
        xdgSurface?.sendConfigure()
    }

    init(resource: OpaquePointer, session: WaylandSession, xdgSurface: XdgSurfaceObject, flavor: XdgFlavor) {
        self.xdgSurface = xdgSurface
        self.flavor = flavor
        super.init(resource: resource, session: session)
    }

    override func resourceDestroyed() { session.roleDestroyed(surface: xdgSurface?.surface) }

    nonisolated(unsafe) static let table = implementation(xdg_toplevel_interface(
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
    func setParent(_ parentResource: OpaquePointer?) {
        guard let parentResource else {
            parent = nil
            if let surface = xdgSurface?.surface { session.foreignToplevelChanged(surface) }
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
        if let surface = xdgSurface?.surface { session.foreignToplevelChanged(surface) }
    }

    func setTitle(_ title: UnsafePointer<CChar>?) {
        self.title = title.map { String(cString: $0) } ?? ""
        session.labelChanged(self)
    }

    func setAppID(_ appID: UnsafePointer<CChar>?) {
        self.appID = appID.map { String(cString: $0) } ?? ""
        session.labelChanged(self)
        if let surface = xdgSurface?.surface { session.shell.appIDChanged(surface) }
    }

    func move(serial: UInt32) { session.beginMove(self, serial: serial) }

    func resize(serial: UInt32, edges: UInt32) {
        guard [0, 1, 2, 4, 5, 6, 8, 9, 10].contains(edges) else {
            if flavor == .stable {
                postError(XDG_TOPLEVEL_ERROR_INVALID_RESIZE_EDGE.rawValue, "\(name).resize: \(edges) is not an xdg_toplevel.resize_edge")
            }
            return
        }
        session.beginResize(self, serial: serial, edges: edges)
    }

    func setMaxSize(_ width: Int32, _ height: Int32) {
        guard checkSize(width, height, "set_max_size") else { return }
        pendingMaxSize = Size(width: Int(width), height: Int(height))
    }

    func setMinSize(_ width: Int32, _ height: Int32) {
        guard checkSize(width, height, "set_min_size") else { return }
        pendingMinSize = Size(width: Int(width), height: Int(height))
    }

    /// A negative minimum or maximum size is the protocol's invalid_size. False when posted
    /// (or, in v6, when the request is to be ignored).
    func checkSize(_ width: Int32, _ height: Int32, _ request: String) -> Bool {
        guard width < 0 || height < 0 else { return true }
        if flavor == .stable {
            postError(XDG_TOPLEVEL_ERROR_INVALID_SIZE.rawValue, "\(name).\(request): \(width)x\(height) is negative")
        }
        return false
    }

    /// A state request: always answered with a configure, changed or not, as the protocol asks.
    func change(_ update: (XdgToplevelObject) -> Void) {
        update(self)
        xdgSurface?.sendConfigure()
        if let surface = xdgSurface?.surface { session.foreignToplevelChanged(surface) }
    }

    /// set_minimized: hidden until activated or unminimized (ForeignToplevel.swift).
    func minimize() {
        if let surface = xdgSurface?.surface { session.setMinimized(surface, true) }
    }

    /// On commit: the pending minimum and maximum sizes become current, unless a maximum
    /// (where not 0, "no maximum") is below its minimum. False when that posted invalid_size;
    /// v6 has no code for it, and keeps the sizes it had.
    func commitSizes() -> Bool {
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

final class XdgPopupObject: WaylandObject {
    let flavor: XdgFlavor
    weak var xdgSurface: XdgSurfaceObject?
    weak var parent: SurfaceObject?
    var placement = PopupPlacement()
    /// Where the popup's window geometry goes, relative to its parent's, as last configured.
    var box = Rect<SurfaceSpace>(x: 0, y: 0, width: 0, height: 0)
    var grabbed = false

    init(resource: OpaquePointer, session: WaylandSession, xdgSurface: XdgSurfaceObject, parent: SurfaceObject?, flavor: XdgFlavor) {
        self.xdgSurface = xdgSurface
        self.parent = parent
        self.flavor = flavor
        super.init(resource: resource, session: session)
    }

    override func resourceDestroyed() {
        session.popupGone(self)
        session.roleDestroyed(surface: xdgSurface?.surface)
    }

    func grab() {
        guard xdgSurface?.surface?.inTree != true else {
            postError(flavor.invalidGrabError, "\(name).grab: the popup is mapped already; grab before its first commit with a buffer")
            return
        }
        grabbed = true
    }

    nonisolated(unsafe) static let table = implementation(xdg_popup_interface(
        destroy: destroyRequest,
        grab: { _, resource, _, _ in WaylandObject.of(resource, as: XdgPopupObject.self).grab() },
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
