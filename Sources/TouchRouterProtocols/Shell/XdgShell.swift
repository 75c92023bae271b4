import CWaylandShim
import TouchRouterCore

// xdg_wm_base and xdg_surface (the toplevel in XdgToplevel.swift, the positioner and popup in
// XdgPopup.swift). The same objects and request bodies serve xdg-shell-unstable-v6
// (XdgShellV6.swift); `XdgFlavor` says which protocol an object speaks.

/// The stable xdg-shell or xdg-shell-unstable-v6: the interfaces a request creates, the
/// implementation tables installed on them, and the error codes, each from its own header.
/// The requests and events of both have the same shapes and opcodes (v6 being xdg-shell
/// version 1), so the events go out with the stable xdg_*_send_* functions.
package enum XdgFlavor {
    case stable, v6

    package var positionerInterface: UnsafePointer<wl_interface> { self == .stable ? tr_xdg_positioner_interface() : tr_zxdg_positioner_v6_interface() }
    package var surfaceInterface: UnsafePointer<wl_interface> { self == .stable ? tr_xdg_surface_interface() : tr_zxdg_surface_v6_interface() }
    package var toplevelInterface: UnsafePointer<wl_interface> { self == .stable ? tr_xdg_toplevel_interface() : tr_zxdg_toplevel_v6_interface() }
    package var popupInterface: UnsafePointer<wl_interface> { self == .stable ? tr_xdg_popup_interface() : tr_zxdg_popup_v6_interface() }

    package var positionerTable: UnsafeRawPointer { self == .stable ? PositionerObject.table : PositionerObject.v6Table }
    package var surfaceTable: UnsafeRawPointer { self == .stable ? XdgSurfaceObject.table : XdgSurfaceObject.v6Table }
    package var toplevelTable: UnsafeRawPointer { self == .stable ? XdgToplevelObject.table : XdgToplevelObject.v6Table }
    package var popupTable: UnsafeRawPointer { self == .stable ? XdgPopupObject.table : XdgPopupObject.v6Table }

    package var roleError: UInt32 { self == .stable ? XDG_WM_BASE_ERROR_ROLE.rawValue : ZXDG_SHELL_V6_ERROR_ROLE.rawValue }
    package var invalidSurfaceStateError: UInt32 { self == .stable ? XDG_WM_BASE_ERROR_INVALID_SURFACE_STATE.rawValue : ZXDG_SHELL_V6_ERROR_INVALID_SURFACE_STATE.rawValue }
    package var invalidPositionerError: UInt32 { self == .stable ? XDG_WM_BASE_ERROR_INVALID_POSITIONER.rawValue : ZXDG_SHELL_V6_ERROR_INVALID_POSITIONER.rawValue }
    package var invalidPopupParentError: UInt32 { self == .stable ? XDG_WM_BASE_ERROR_INVALID_POPUP_PARENT.rawValue : ZXDG_SHELL_V6_ERROR_INVALID_POPUP_PARENT.rawValue }
    package var invalidInputError: UInt32 { self == .stable ? XDG_POSITIONER_ERROR_INVALID_INPUT.rawValue : ZXDG_POSITIONER_V6_ERROR_INVALID_INPUT.rawValue }
    package var unconfiguredBufferError: UInt32 { self == .stable ? XDG_SURFACE_ERROR_UNCONFIGURED_BUFFER.rawValue : ZXDG_SURFACE_V6_ERROR_UNCONFIGURED_BUFFER.rawValue }
    package var invalidGrabError: UInt32 { self == .stable ? XDG_POPUP_ERROR_INVALID_GRAB.rawValue : ZXDG_POPUP_V6_ERROR_INVALID_GRAB.rawValue }
}

package enum XdgWmBaseGlobal {
    package static let version: Int32 = 5

    package nonisolated(unsafe) static let table = implementation(xdg_wm_base_interface(
        destroy: destroyRequest,
        create_positioner: { client, resource, id in createPositioner(client, resource, id, .stable) },
        get_xdg_surface: { client, resource, id, surfaceResource in getXdgSurface(client, resource, id, surfaceResource, .stable) },
        pong: { client, resource, serial in
            guard let client else { return }
            WaylandObject.of(resource, as: RoomGlobal<any ShellHandler>.self).handler.pong(client, serial: serial)
        }))

    /// xdg_wm_base.create_positioner, zxdg_shell_v6.create_positioner.
    package static func createPositioner(_ client: OpaquePointer?, _ resource: OpaquePointer?, _ id: UInt32, _ flavor: XdgFlavor) {
        let base = WaylandObject.of(resource, as: RoomGlobal<any ShellHandler>.self)
        guard let created = createResource(client, flavor.positionerInterface, version: base.version, id: id) else { return }
        WaylandObject.install(PositionerObject(resource: created, madeBy: base, flavor: flavor), implementation: flavor.positionerTable)
    }

    /// xdg_wm_base.get_xdg_surface, zxdg_shell_v6.get_xdg_surface.
    package static func getXdgSurface(_ client: OpaquePointer?, _ resource: OpaquePointer?, _ id: UInt32, _ surfaceResource: OpaquePointer?, _ flavor: XdgFlavor) {
        let base = WaylandObject.of(resource, as: RoomGlobal<any ShellHandler>.self)
        let surface = WaylandObject.of(surfaceResource, as: SurfaceObject.self)
        guard surface.role == .none || surface.xdgSurface == nil && surface.role != .subsurface && surface.role != .shellSurface && surface.role != .dndIcon else {
            base.postError(flavor.roleError, "\(base.name).get_xdg_surface: wl_surface@\(wl_resource_get_id(surfaceResource)) already has the role \(surface.role.rawValue)")
            return
        }
        guard !surface.hasBuffer, !surface.pending.bufferAttached || surface.pending.bufferSize == nil else {
            base.postError(flavor.invalidSurfaceStateError, "\(base.name).get_xdg_surface: wl_surface@\(wl_resource_get_id(surfaceResource)) already has a buffer")
            return
        }
        guard let created = createResource(client, flavor.surfaceInterface, version: base.version, id: id) else { return }
        let xdg = XdgSurfaceObject(resource: created, madeBy: base, handler: base.handler, surface: surface, flavor: flavor)
        WaylandObject.install(xdg, implementation: flavor.surfaceTable)
        surface.xdgSurface = xdg
        if flavor == .stable { base.clientRecord?.wmBase = base }
    }
}

package final class XdgSurfaceObject: WaylandObject {
    /// Also the toplevel's and popup's, which it makes.
    package unowned let handler: any ShellHandler
    package let flavor: XdgFlavor
    package weak var surface: SurfaceObject?
    package weak var toplevel: XdgToplevelObject?
    package weak var popup: XdgPopupObject?
    package var configured = false
    package var lastConfigureSerial: UInt32 = 0
    package var sentFirstConfigure = false
    package var geometry: Rect<SurfaceSpace>? = nil

    package init(resource: OpaquePointer, madeBy base: WaylandObject, handler: any ShellHandler, surface: SurfaceObject, flavor: XdgFlavor) {
        self.handler = handler
        self.surface = surface
        self.flavor = flavor
        super.init(resource: resource, madeBy: base)
    }

    package override func resourceDestroyed() {
        if surface?.xdgSurface === self { surface?.xdgSurface = nil }
    }

    /// Sends the role's configure, then xdg_surface.configure with a fresh serial.
    package func sendConfigure() {
        let serial = handler.nextSerial
        if let toplevel {
            var states = wl_array()
            wl_array_init(&states)
            for state in handler.configureStates(for: toplevel) {
                guard let slot = wl_array_add(&states, MemoryLayout<UInt32>.size) else { continue }
                slot.storeBytes(of: state.rawValue, as: UInt32.self)
            }
            let size = handler.configureSize(for: toplevel)
            xdg_toplevel_send_configure(toplevel.resource, Int32(clamping: size.width), Int32(clamping: size.height), &states)
            wl_array_release(&states)
            toplevel.sent(serial: serial)
        } else if let popup {
            // The box is computed in Int from the positioner's int32s, and can lie outside
            // int32 (an anchor at INT32_MAX with an offset): it goes out clamped, and the
            // popup then sits at the edge of what the protocol can say.
            popup.box = handler.popupBox(popup).clampedToInt32
            xdg_popup_send_configure(popup.resource, Int32(popup.box.x), Int32(popup.box.y), Int32(popup.box.width), Int32(popup.box.height))
        }
        xdg_surface_send_configure(resource, serial)
        lastConfigureSerial = serial
        sentFirstConfigure = true
    }

    package func getToplevel(_ client: OpaquePointer?, _ id: UInt32) {
        guard let surface, surface.role == .none else {
            postError(flavor.roleError, "\(name).get_toplevel: the surface already has a role")
            return
        }
        guard let created = createResource(client, flavor.toplevelInterface, version: version, id: id) else { return }
        let toplevel = XdgToplevelObject(resource: created, xdgSurface: self, flavor: flavor)
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
    package func getPopup(_ client: OpaquePointer?, _ id: UInt32, _ parentResource: OpaquePointer?, _ positionerResource: OpaquePointer?) {
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
        let popup = XdgPopupObject(resource: created, xdgSurface: self, parent: parent?.surface, flavor: flavor)
        popup.placement = positioner.placement
        WaylandObject.install(popup, implementation: flavor.popupTable)
        self.popup = popup
        surface.role = .popup
    }

    /// A size that is not positive is invalid_size in stable xdg-shell; v6 has no error
    /// for it, and the request is ignored.
    package func setWindowGeometry(_ x: Int32, _ y: Int32, _ width: Int32, _ height: Int32) {
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
    package func ackConfigure(_ serial: UInt32) {
        guard sentFirstConfigure, serial <= lastConfigureSerial else {
            if flavor == .stable {
                postError(XDG_SURFACE_ERROR_INVALID_SERIAL.rawValue, "\(name).ack_configure: serial \(serial) was never sent")
            }
            return
        }
        configured = true
        toplevel?.acked(serial: serial)
    }

    package nonisolated(unsafe) static let table = implementation(xdg_surface_interface(
        destroy: destroyRequest,
        get_toplevel: { client, resource, id in WaylandObject.of(resource, as: XdgSurfaceObject.self).getToplevel(client, id) },
        get_popup: { client, resource, id, parent, positioner in WaylandObject.of(resource, as: XdgSurfaceObject.self).getPopup(client, id, parent, positioner) },
        set_window_geometry: { _, resource, x, y, width, height in WaylandObject.of(resource, as: XdgSurfaceObject.self).setWindowGeometry(x, y, width, height) },
        ack_configure: { _, resource, serial in WaylandObject.of(resource, as: XdgSurfaceObject.self).ackConfigure(serial) }))
}

extension Rect {
    /// Each field clamped on its own into int32 (sizes into 0...INT32_MAX), as the protocol sends them.
    package var clampedToInt32: Rect {
        let range = Int(Int32.min)...Int(Int32.max)
        return Rect(x: x.clamped(to: range), y: y.clamped(to: range), width: width.clamped(to: 0...Int(Int32.max)), height: height.clamped(to: 0...Int(Int32.max)))
    }
}
