import CWaylandShim
import TouchRouterCore

// xdg_positioner and xdg_popup, and their v6 twins (XdgShell.swift has the shell and xdg_surface).

package final class PositionerObject: WaylandObject {
    package let flavor: XdgFlavor
    package var placement = PopupPlacement()

    package init(resource: OpaquePointer, madeBy base: WaylandObject, flavor: XdgFlavor) {
        self.flavor = flavor
        super.init(resource: resource, madeBy: base)
    }

    /// An anchor or gravity value as a side on each axis; a value the protocol does not
    /// have ends the client with invalid_input. Stable: none, top, bottom, left, right, then
    /// the corners. v6: a bitfield of top 1, bottom 2, left 4, right 8, where top with
    /// bottom or left with right is invalid.
    package func sides(_ value: UInt32, of kind: String) -> (x: PopupPlacement.Side, y: PopupPlacement.Side)? {
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

    package func setSize(_ width: Int32, _ height: Int32) {
        guard width > 0, height > 0 else {
            postError(flavor.invalidInputError, "\(name).set_size: \(width)x\(height) is not positive")
            return
        }
        placement.size = Size(width: Int(width), height: Int(height))
    }

    /// Stable xdg-shell allows an empty anchor rectangle; v6 wants it positive.
    package func setAnchorRect(_ x: Int32, _ y: Int32, _ width: Int32, _ height: Int32) {
        let valid = flavor == .stable ? width >= 0 && height >= 0 : width > 0 && height > 0
        guard valid else {
            postError(flavor.invalidInputError, "\(name).set_anchor_rect: \(width)x\(height) is \(flavor == .stable ? "negative" : "not positive")")
            return
        }
        placement.anchorRect = Rect(x: Int(x), y: Int(y), width: Int(width), height: Int(height))
    }

    package func setAnchor(_ anchor: UInt32) {
        guard let sides = sides(anchor, of: "anchor") else { return }
        (placement.anchorX, placement.anchorY) = sides
    }

    package func setGravity(_ gravity: UInt32) {
        guard let sides = sides(gravity, of: "gravity") else { return }
        (placement.gravityX, placement.gravityY) = sides
    }

    package func setConstraintAdjustment(_ adjustment: UInt32) {
        placement.adjustment = PopupPlacement.Adjustment(rawValue: adjustment & 63)
    }

    package func setOffset(_ x: Int32, _ y: Int32) { placement.offset = Offset(dx: Int(x), dy: Int(y)) }

    package nonisolated(unsafe) static let table = implementation(xdg_positioner_interface(
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

package final class XdgPopupObject: WaylandObject {
    private unowned let handler: any ShellHandler
    package let flavor: XdgFlavor
    package weak var xdgSurface: XdgSurfaceObject?
    package weak var parent: SurfaceObject?
    package var placement = PopupPlacement()
    /// Where the popup's window geometry goes, relative to its parent's, as last configured.
    package var box = Rect<SurfaceSpace>(x: 0, y: 0, width: 0, height: 0)
    package var grabbed = false

    package init(resource: OpaquePointer, xdgSurface: XdgSurfaceObject, parent: SurfaceObject?, flavor: XdgFlavor) {
        handler = xdgSurface.handler
        self.xdgSurface = xdgSurface
        self.parent = parent
        self.flavor = flavor
        super.init(resource: resource, madeBy: xdgSurface)
    }

    package override func resourceDestroyed() {
        handler.popupGone(self)
        handler.roleDestroyed(surface: xdgSurface?.surface)
    }

    package func grab() {
        guard xdgSurface?.surface?.inTree != true else {
            postError(flavor.invalidGrabError, "\(name).grab: the popup is mapped already; grab before its first commit with a buffer")
            return
        }
        grabbed = true
    }

    package nonisolated(unsafe) static let table = implementation(xdg_popup_interface(
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
