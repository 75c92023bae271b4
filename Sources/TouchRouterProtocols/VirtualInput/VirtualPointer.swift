import CWaylandShim
import TouchRouterCore

// wlr-virtual-pointer-unstable-v1 (protocols/wlr-virtual-pointer-unstable-v1.xml), version 2,
// as sway serves it: each zwlr_virtual_pointer_v1 is a pointer device of the router, its
// requests gathered until `frame` and then routed as libinput's events are, stamped with
// the session's clock (the requests' millisecond `time` is the client's own, and wlroots
// ignores it too). A privileged global (Privileges.swift).

package enum VirtualPointerManagerGlobal {
    package static let version: Int32 = 2

    package static let bind: wl_global_bind_func_t = { client, data, version, id in
        GlobalHost.bind(client, data, version, id, tr_zwlr_virtual_pointer_manager_v1_interface(), VirtualPointerManagerGlobal.table) { $0 as any VirtualInputHandler }
    }

    package nonisolated(unsafe) static let table = implementation(zwlr_virtual_pointer_manager_v1_interface(
        create_virtual_pointer: { client, resource, _, id in create(client, resource, id, output: nil) },
        destroy: destroyRequest,
        create_virtual_pointer_with_output: { client, resource, _, output, id in create(client, resource, id, output: output) }))

    /// The seat argument is ignored: the session has one seat.
    private static func create(_ client: OpaquePointer?, _ resource: OpaquePointer?, _ id: UInt32, output: OpaquePointer?) {
        let manager = WaylandObject.of(resource, as: RoomGlobal<any VirtualInputHandler>.self)
        let request = "\(manager.name).create_virtual_pointer"
        let handler = manager.handler
        guard let device = handler.makeVirtualDevice(for: manager, request: request) else { return }
        guard let created = createResource(client, tr_zwlr_virtual_pointer_v1_interface(), version: wl_resource_get_version(resource), id: id) else { return }
        // A wl_output is always an OutputBinding; one of a removed output maps nowhere special.
        let target = output.map { WaylandObject.of($0, as: OutputBinding.self) }?.output
        let pointer = VirtualPointerObject(resource: created, madeBy: manager, handler: handler, device: device, output: target)
        WaylandObject.install(pointer, implementation: VirtualPointerObject.table)
        handler.virtualDeviceAdded(device, capabilities: [.pointer], of: pointer)
    }
}

/// One virtual pointer: what it asked for since its last frame, and the buttons it holds,
/// released when it goes (destroyed, or its client dies).
package final class VirtualPointerObject: WaylandObject {
    private unowned let handler: any VirtualInputHandler
    package let device: DeviceID
    private weak var output: VirtualOutput?
    private var pending: [Pending] = []
    private var axisSource = AxisSource.wheel
    private var heldButtons: [UInt32] = []

    package enum Pending {
        case motion(dx: Double, dy: Double)
        /// Where in the output (or layout) as fractions of its width and height, 0 to 1.
        case absolute(x: Double, y: Double)
        case button(UInt32, ButtonState)
        case axis(PointerAxis, value: Double, discrete: Int32)
    }

    package init(resource: OpaquePointer, madeBy manager: WaylandObject, handler: any VirtualInputHandler, device: DeviceID, output: VirtualOutput?) {
        self.handler = handler
        self.device = device
        self.output = output
        super.init(resource: resource, madeBy: manager)
    }

    package override func resourceDestroyed() {
        let now = handler.now
        var events: [InputEvent] = heldButtons.map { .pointerButton(device: device, time: now, button: $0, state: .released) }
        events.append(.deviceRemoved(device: device, time: now))
        handler.virtualDeviceRemoved(self, events: events)
    }

    private func gather(_ request: String, _ item: Pending) {
        if case .motion(let dx, let dy) = item, case .motion(let earlierX, let earlierY)? = pending.last {
            pending[pending.count - 1] = .motion(dx: earlierX + dx, dy: earlierY + dy)
            return
        }
        guard pending.count < ClientLimits.virtualPointerFrameRequests else {
            endClient("\(name).\(request)", pastLimit: "past \(ClientLimits.virtualPointerFrameRequests) requests without a frame, the most a virtual pointer may gather")
            return
        }
        pending.append(item)
    }

    /// The protocol's axis enum, or its invalid_axis error.
    private func axis(_ value: UInt32, _ request: String) -> PointerAxis? {
        switch value {
        case WL_POINTER_AXIS_VERTICAL_SCROLL.rawValue: return .vertical
        case WL_POINTER_AXIS_HORIZONTAL_SCROLL.rawValue: return .horizontal
        default:
            postError(ZWLR_VIRTUAL_POINTER_V1_ERROR_INVALID_AXIS.rawValue, "\(name).\(request): axis \(value) is not a wl_pointer.axis")
            return nil
        }
    }

    /// Everything gathered, in order, as the router's events, with the frame's axis source.
    private func frame() {
        guard !pending.isEmpty else { return }
        let now = handler.now
        var events: [InputEvent] = []
        events.reserveCapacity(pending.count)
        for item in pending {
            switch item {
            case .motion(let dx, let dy):
                events.append(.pointerMotion(device: device, time: now, dx: dx, dy: dy))
            case .absolute(let x, let y):
                events.append(.pointerMotionAbsolute(device: device, time: now, position: handler.absolutePosition(x, y, on: output)))
            case .button(let button, let state):
                if state == .pressed, !heldButtons.contains(button) { heldButtons.append(button) }
                if state == .released { heldButtons.removeAll { $0 == button } }
                events.append(.pointerButton(device: device, time: now, button: button, state: state))
            case .axis(let axis, let value, let discrete):
                events.append(.pointerAxis(device: device, time: now, axis: axis, value: value, discrete: discrete, source: axisSource))
            }
        }
        pending.removeAll(keepingCapacity: true)
        axisSource = .wheel
        handler.routeVirtual(events)
    }

    package nonisolated(unsafe) static let table = implementation(zwlr_virtual_pointer_v1_interface(
        motion: { _, resource, _, dx, dy in
            let pointer = WaylandObject.of(resource, as: VirtualPointerObject.self)
            pointer.gather("motion", .motion(dx: wl_fixed_to_double(dx), dy: wl_fixed_to_double(dy)))
        },
        motion_absolute: { _, resource, _, x, y, xExtent, yExtent in
            // No position within nothing: ignored, as wlroots does (the protocol has no error for it).
            guard xExtent > 0, yExtent > 0 else { return }
            let pointer = WaylandObject.of(resource, as: VirtualPointerObject.self)
            pointer.gather("motion_absolute", .absolute(x: min(Double(x) / Double(xExtent), 1), y: min(Double(y) / Double(yExtent), 1)))
        },
        button: { _, resource, _, button, state in
            let pointer = WaylandObject.of(resource, as: VirtualPointerObject.self)
            let buttonState: ButtonState
            switch state {
            case WL_POINTER_BUTTON_STATE_PRESSED.rawValue: buttonState = .pressed
            case WL_POINTER_BUTTON_STATE_RELEASED.rawValue: buttonState = .released
            default:
                pointer.handler.endClient(pointer.client, "\(pointer.name).button: state \(state) is neither released (0) nor pressed (1)")
                return
            }
            pointer.gather("button", .button(button, buttonState))
        },
        axis: { _, resource, _, axis, value in
            let pointer = WaylandObject.of(resource, as: VirtualPointerObject.self)
            guard let axis = pointer.axis(axis, "axis") else { return }
            pointer.gather("axis", .axis(axis, value: wl_fixed_to_double(value), discrete: 0))
        },
        frame: { _, resource in WaylandObject.of(resource, as: VirtualPointerObject.self).frame() },
        axis_source: { _, resource, source in
            let pointer = WaylandObject.of(resource, as: VirtualPointerObject.self)
            switch source {
            case WL_POINTER_AXIS_SOURCE_WHEEL.rawValue: pointer.axisSource = .wheel
            case WL_POINTER_AXIS_SOURCE_FINGER.rawValue: pointer.axisSource = .finger
            case WL_POINTER_AXIS_SOURCE_CONTINUOUS.rawValue: pointer.axisSource = .continuous
            case WL_POINTER_AXIS_SOURCE_WHEEL_TILT.rawValue: pointer.axisSource = .wheelTilt
            default:
                pointer.postError(ZWLR_VIRTUAL_POINTER_V1_ERROR_INVALID_AXIS_SOURCE.rawValue, "\(pointer.name).axis_source: \(source) is not a wl_pointer.axis_source")
            }
        },
        axis_stop: { _, resource, _, axis in
            let pointer = WaylandObject.of(resource, as: VirtualPointerObject.self)
            guard let axis = pointer.axis(axis, "axis_stop") else { return }
            // The core's axis of value 0 is wl_pointer.axis_stop.
            pointer.gather("axis_stop", .axis(axis, value: 0, discrete: 0))
        },
        axis_discrete: { _, resource, _, axis, value, discrete in
            let pointer = WaylandObject.of(resource, as: VirtualPointerObject.self)
            guard let axis = pointer.axis(axis, "axis_discrete") else { return }
            pointer.gather("axis_discrete", .axis(axis, value: wl_fixed_to_double(value), discrete: discrete))
        },
        destroy: destroyRequest))
}

package enum VirtualDevices {
    /// Far above libinput's devices (1001 on) and a host's (100 on).
    package static let first: UInt32 = 0x4000_0000
}
