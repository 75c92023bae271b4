import TouchRouterCore

/// The devices the server makes itself, for clients' virtual pointers and keyboards and for
/// hosts, and the virtual keyboards by their device, for the keymap their keys are read with.
final class VirtualInputState {
    var virtualKeyboards: [DeviceID: VirtualKeyboardObject] = [:]
    var nextVirtualDevice: UInt32 = VirtualDevices.first
    /// Devices a host made (`addDevice`, `msg play`'s touchscreen); the injection device is 1.
    var nextHostDevice: UInt32 = 100
}
