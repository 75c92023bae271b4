import CWaylandShim
import TouchRouterCore

// touch-router-input-v1 (protocols/touch-router-input-v1.xml): per-surface touch policies,
// edge-gesture deferral and touch rejection. The policies ride in the surface's own
// double-buffered state (`SurfaceState.inputPolicy`), so a synchronized subsurface caches
// them with the rest of its state; this file turns a commit of them into the core's terms.

package enum TouchInputManagerGlobal {
    package static let version: Int32 = 3

    package static let bind: wl_global_bind_func_t = { client, data, version, id in
        GlobalHost.bind(client, data, version, id, tr_touch_router_input_manager_v1_interface(), TouchInputManagerGlobal.table) { $0 as any TouchInputHandler }
    }

    package nonisolated(unsafe) static let table = implementation(touch_router_input_manager_v1_interface(
        destroy: destroyRequest,
        get_surface_input: { client, resource, id, surfaceResource in
            let manager = WaylandObject.of(resource, as: RoomGlobal<any TouchInputHandler>.self)
            let surface = WaylandObject.of(surfaceResource, as: SurfaceObject.self)
            guard surface.touchInput == nil else {
                manager.postError(TOUCH_ROUTER_INPUT_MANAGER_V1_ERROR_ALREADY_EXISTS.rawValue,
                                  "\(manager.name).get_surface_input: \(surface.name) already has a touch_router_surface_input_v1")
                return
            }
            guard let created = createResource(client, tr_touch_router_surface_input_v1_interface(), version: wl_resource_get_version(resource), id: id) else { return }
            let input = TouchInputSurfaceObject(resource: created, madeBy: manager, handler: manager.handler, surface: surface)
            surface.touchInput = input
            WaylandObject.install(input, implementation: TouchInputSurfaceObject.table)
        },
        received: { client, resource, eventHigh, eventLow, eventNanoseconds, receiptHigh, receiptLow, receiptNanoseconds in
            let manager = WaylandObject.of(resource, as: RoomGlobal<any TouchInputHandler>.self)
            guard let eventTime = nanoseconds(eventHigh, eventLow, eventNanoseconds) else {
                manager.postError(TOUCH_ROUTER_INPUT_MANAGER_V1_ERROR_INVALID_TIME.rawValue,
                                  "\(manager.name).received: the event time \(describe(eventHigh, eventLow, eventNanoseconds)) \(invalidTime)")
                return
            }
            guard let receipt = nanoseconds(receiptHigh, receiptLow, receiptNanoseconds) else {
                manager.postError(TOUCH_ROUTER_INPUT_MANAGER_V1_ERROR_INVALID_TIME.rawValue,
                                  "\(manager.name).received: the receipt time \(describe(receiptHigh, receiptLow, receiptNanoseconds)) \(invalidTime)")
                return
            }
            guard client != nil, let record = manager.clientRecord else { return }
            manager.handler.inputReceived(by: record.id, eventTime: eventTime, receipt: receipt)
        }))

    private static let invalidTime = "is not a time: nanoseconds past 999999999, or seconds past what 64-bit nanoseconds hold"
    private static func describe(_ high: UInt32, _ low: UInt32, _ nanoseconds: UInt32) -> String {
        "(sec_hi \(high), sec_lo \(low), nsec \(nanoseconds))"
    }

    /// A time in the protocol's form (seconds in two halves, nanoseconds), in nanoseconds;
    /// nil when it is not a time or is past what Int64 nanoseconds hold.
    package static func nanoseconds(_ high: UInt32, _ low: UInt32, _ nanoseconds: UInt32) -> Int64? {
        guard nanoseconds < 1_000_000_000 else { return nil }
        let seconds = UInt64(high) << 32 | UInt64(low)
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow, scaled <= UInt64(Int64.max) - UInt64(nanoseconds) else { return nil }
        return Int64(scaled + UInt64(nanoseconds))
    }
}

/// Changes to a surface's input policies; nil leaves a policy as it was. Pending and cached
/// state hold what the client changed since the last commit; current state holds every
/// policy the client ever set (nil: the core's default).
package struct InputPolicyChange {
    package var exclusiveTouch: Bool?
    package var multipleTouch: Bool?
    package var interactionEnabled: Bool?
    package var acceptsKeyboardFocus: Bool?
    package var gestureDeferral: [Rect<SurfaceSpace>]?

    /// What destroying the object asks for: each policy the client set, back to the core's
    /// default. Those it never set are left alone, to whatever else sets them.
    package static func resetting(_ set: InputPolicyChange) -> InputPolicyChange {
        let core = SurfaceProperties()
        return InputPolicyChange(exclusiveTouch: set.exclusiveTouch.map { _ in core.exclusiveTouch },
                                 multipleTouch: set.multipleTouch.map { _ in core.multipleTouch },
                                 interactionEnabled: set.interactionEnabled.map { _ in core.interactionEnabled },
                                 acceptsKeyboardFocus: set.acceptsKeyboardFocus.map { _ in core.acceptsKeyboardFocus },
                                 gestureDeferral: set.gestureDeferral.map { _ in [] })
    }

    package var changesProperties: Bool { exclusiveTouch != nil || multipleTouch != nil || interactionEnabled != nil || acceptsKeyboardFocus != nil }
    package var isEmpty: Bool { !changesProperties && gestureDeferral == nil }

    /// A later change over this one, as commits and subsurface caches fold state.
    package mutating func merge(_ later: InputPolicyChange) {
        exclusiveTouch = later.exclusiveTouch ?? exclusiveTouch
        multipleTouch = later.multipleTouch ?? multipleTouch
        interactionEnabled = later.interactionEnabled ?? interactionEnabled
        acceptsKeyboardFocus = later.acceptsKeyboardFocus ?? acceptsKeyboardFocus
        gestureDeferral = later.gestureDeferral ?? gestureDeferral
    }

    package func apply(to properties: inout SurfaceProperties) {
        if let exclusiveTouch { properties.exclusiveTouch = exclusiveTouch }
        if let multipleTouch { properties.multipleTouch = multipleTouch }
        if let interactionEnabled { properties.interactionEnabled = interactionEnabled }
        if let acceptsKeyboardFocus { properties.acceptsKeyboardFocus = acceptsKeyboardFocus }
    }
}

extension SurfaceObject {
    /// The properties the surface enters the core's tree with: its committed policies are
    /// there from the start, so a surface that refuses keyboard focus is never given it.
    package var propertiesOnEntry: SurfaceProperties {
        var properties = SurfaceProperties()
        current.inputPolicy.apply(to: &properties)
        return properties
    }
}

/// What a surface's touch-router-input object may ask of the server (Handlers/TouchInputHandling.swift).
package protocol TouchInputHandler: AnyObject {
    /// touch_router_input_manager_v1.received: the client's receipt of an event goes into the
    /// timeline (`msg stats`), and to a benchmark listening.
    func inputReceived(by client: ClientID, eventTime: Int64, receipt: Int64)
    /// The ids of the touches down now.
    var liveTouchIDs: Set<Int32> { get }
    /// Rejects `touch` for the client, if it is down on `surface` and given to it as touches
    /// (not driving its pointer); false when it is not, and nothing happened.
    func rejectTouch(_ touch: TouchID, on surface: SurfaceID, by client: OpaquePointer) -> Bool
}

/// A touch_router_surface_input_v1: the client's handle on one surface's policies.
package final class TouchInputSurfaceObject: WaylandObject {
    private unowned let handler: any TouchInputHandler
    /// Nil once the wl_surface is destroyed; from then on only destroy is allowed.
    package private(set) weak var surface: SurfaceObject?
    private var surfaceListener: Listener?
    /// Whether the surface was in the core's tree at its last commit (see `inputPolicyCommitted`).
    package var surfaceWasInTree: Bool
    /// The serial of the wl_touch.down of each touch the surface was given, so that a
    /// reject that crossed the touch's up cannot hit a later touch that reuses the id.
    private var downSerials: [Int32: UInt32] = [:]

    package init(resource: OpaquePointer, madeBy manager: WaylandObject, handler: any TouchInputHandler, surface: SurfaceObject) {
        self.handler = handler
        self.surface = surface
        surfaceWasInTree = surface.inTree
        super.init(resource: resource, madeBy: manager)
        let listener = Listener { [weak self] _ in
            self?.surface = nil
            self?.surfaceListener?.remove()
        }
        wl_resource_add_destroy_listener(surface.resource, listener.wlListener)
        listener.didLink()
        surfaceListener = listener
    }

    package override func resourceDestroyed() {
        surfaceListener?.remove()
        guard let surface else { return }
        if surface.touchInput === self { surface.touchInput = nil }
        var set = surface.current.inputPolicy
        if let cached = surface.cached { set.merge(cached.inputPolicy) }
        set.merge(surface.pending.inputPolicy)
        surface.pending.inputPolicy = .resetting(set)
    }

    /// The surface, or nil after ending the client with surface_destroyed.
    private func liveSurface(_ request: String) -> SurfaceObject? {
        if let surface { return surface }
        postError(TOUCH_ROUTER_SURFACE_INPUT_V1_ERROR_SURFACE_DESTROYED.rawValue, "\(name).\(request): its wl_surface was destroyed")
        return nil
    }

    private func set(_ policy: WritableKeyPath<InputPolicyChange, Bool?>, _ setting: UInt32, _ request: String) {
        guard let surface = liveSurface(request) else { return }
        switch setting {
        case TOUCH_ROUTER_SURFACE_INPUT_V1_SETTING_OFF.rawValue: surface.pending.inputPolicy[keyPath: policy] = false
        case TOUCH_ROUTER_SURFACE_INPUT_V1_SETTING_ON.rawValue: surface.pending.inputPolicy[keyPath: policy] = true
        default: postError(TOUCH_ROUTER_SURFACE_INPUT_V1_ERROR_INVALID_SETTING.rawValue, "\(name).\(request): \(setting) is neither off (0) nor on (1)")
        }
    }

    /// Reads the client's array of int32 quadruples; every count and size is checked
    /// before any rectangle is made, and sizes go into Int, where x + width cannot overflow.
    private func setGestureDeferral(_ array: UnsafeMutablePointer<wl_array>?) {
        let request = "set_gesture_deferral"
        guard let surface = liveSurface(request) else { return }
        let quadruple = 4 * MemoryLayout<Int32>.size
        let bytes = array?.pointee.size ?? 0
        guard bytes % quadruple == 0 else {
            postError(TOUCH_ROUTER_SURFACE_INPUT_V1_ERROR_INVALID_RECTANGLE.rawValue, "\(name).\(request): \(bytes) bytes are not whole rectangles of four int32")
            return
        }
        let count = bytes / quadruple
        guard count <= ClientLimits.gestureDeferralRectangles else {
            postError(TOUCH_ROUTER_SURFACE_INPUT_V1_ERROR_TOO_MANY_RECTANGLES.rawValue,
                      "\(name).\(request): \(count) rectangles, past \(ClientLimits.gestureDeferralRectangles), the most one surface may defer")
            return
        }
        var rects: [Rect<SurfaceSpace>] = []
        if count > 0, let data = array?.pointee.data {
            rects.reserveCapacity(count)
            for i in 0..<count {
                let field = { (n: Int) in Int(data.loadUnaligned(fromByteOffset: i * quadruple + n * MemoryLayout<Int32>.size, as: Int32.self)) }
                let (x, y, width, height) = (field(0), field(1), field(2), field(3))
                guard width >= 1, height >= 1 else {
                    postError(TOUCH_ROUTER_SURFACE_INPUT_V1_ERROR_INVALID_RECTANGLE.rawValue, "\(name).\(request): rectangle \(i) is \(width)x\(height), not at least 1x1")
                    return
                }
                rects.append(Rect(x: x, y: y, width: width, height: height))
            }
        }
        surface.pending.inputPolicy.gestureDeferral = rects
    }

    /// wl_touch.down of `id` went to this surface with `serial` (called by the delivery).
    package func touchWentDown(_ id: TouchID, serial: UInt32) {
        // Ids are seat slots, so few; a session injecting ever new ids is bounded here.
        if downSerials.count >= 256 {
            let live = handler.liveTouchIDs
            downSerials = downSerials.filter { live.contains($0.key) }
        }
        downSerials[id.raw] = serial
    }

    /// XInput 2.2's touch reject, for a sequence this surface has now; anything else is a
    /// request that crossed the sequence's end, and is ignored.
    private func rejectTouch(serial: UInt32, id: Int32) {
        guard let surface = liveSurface("reject_touch"), downSerials[id] == serial else { return }
        // Forgotten before the reject is routed: what routing delivers may be a new down of the id here.
        downSerials[id] = nil
        if !handler.rejectTouch(TouchID(id), on: surface.id, by: client) { downSerials[id] = serial }
    }

    /// The next commit shows the client's answer to the event with this time (double-buffered).
    private func answer(_ high: UInt32, _ low: UInt32, _ nanoseconds: UInt32) {
        guard let surface = liveSurface("answer") else { return }
        guard let eventTime = TouchInputManagerGlobal.nanoseconds(high, low, nanoseconds) else {
            postError(TOUCH_ROUTER_SURFACE_INPUT_V1_ERROR_INVALID_TIME.rawValue,
                      "\(name).answer: the event time (sec_hi \(high), sec_lo \(low), nsec \(nanoseconds)) is not a time: nanoseconds past 999999999, or seconds past what 64-bit nanoseconds hold")
            return
        }
        surface.pending.addAnswer(eventTime)
    }

    package nonisolated(unsafe) static let table = implementation(touch_router_surface_input_v1_interface(
        destroy: destroyRequest,
        set_exclusive_touch: { _, resource, setting in
            WaylandObject.of(resource, as: TouchInputSurfaceObject.self).set(\.exclusiveTouch, setting, "set_exclusive_touch")
        },
        set_multiple_touch: { _, resource, setting in
            WaylandObject.of(resource, as: TouchInputSurfaceObject.self).set(\.multipleTouch, setting, "set_multiple_touch")
        },
        set_interaction_enabled: { _, resource, setting in
            WaylandObject.of(resource, as: TouchInputSurfaceObject.self).set(\.interactionEnabled, setting, "set_interaction_enabled")
        },
        set_accepts_keyboard_focus: { _, resource, setting in
            WaylandObject.of(resource, as: TouchInputSurfaceObject.self).set(\.acceptsKeyboardFocus, setting, "set_accepts_keyboard_focus")
        },
        set_gesture_deferral: { _, resource, rectangles in
            WaylandObject.of(resource, as: TouchInputSurfaceObject.self).setGestureDeferral(rectangles)
        },
        reject_touch: { _, resource, serial, id in
            WaylandObject.of(resource, as: TouchInputSurfaceObject.self).rejectTouch(serial: serial, id: id)
        },
        answer: { _, resource, high, low, nanoseconds in
            WaylandObject.of(resource, as: TouchInputSurfaceObject.self).answer(high, low, nanoseconds)
        }))
}
