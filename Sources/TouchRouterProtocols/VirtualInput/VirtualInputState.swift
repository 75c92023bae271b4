import TouchRouterCore

/// What virtual pointers and keyboards may ask of the server (Handlers/VirtualInputHandling.swift).
package protocol VirtualInputHandler: AnyObject {
    var virtualInputState: VirtualInputState { get }
    var now: RouterTime { get }
    /// A fresh device id for a client's virtual pointer or keyboard, counted against its
    /// client's `ClientLimits.virtualDevices`; nil (the client ended) past it.
    func makeVirtualDevice(for manager: WaylandObject, request: String) -> DeviceID?
    /// The device is added, named for `msg devices` (with its client's pid).
    func virtualDeviceAdded(_ device: DeviceID, capabilities: DeviceCapabilities, of object: WaylandObject)
    /// The device's last events (releases of what it held, then its removal).
    func virtualDeviceRemoved(_ object: WaylandObject, events: [InputEvent])
    /// Routes the device's events as libinput's are.
    func routeVirtual(_ events: [InputEvent])
    /// A point `x`, `y` of the way across the output (the layout without one).
    func absolutePosition(_ x: Double, _ y: Double, on output: VirtualOutput?) -> Point<GlobalSpace>
    func virtualKeymapReplaced(_ old: Keymap?, with new: Keymap)
    func virtualModifiers(_ typing: Keymap, changed: KeyboardModifiers?)
    /// Ends a client whose request the protocol has no error for, saying why.
    func endClient(_ client: OpaquePointer, _ message: String)
}

/// The devices the server makes itself, for clients' virtual pointers and keyboards and for
/// hosts, and the virtual keyboards by their device, for the keymap their keys are read with.
package final class VirtualInputState {
    package init() {}
    package var virtualKeyboards: [DeviceID: VirtualKeyboardObject] = [:]
    package var nextVirtualDevice: UInt32 = VirtualDevices.first
    /// Devices a host made (`addDevice`, `msg play`'s touchscreen); the injection device is 1.
    package var nextHostDevice: UInt32 = 100
}
