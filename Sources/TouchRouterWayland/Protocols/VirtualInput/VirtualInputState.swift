import TouchRouterCore

/// The devices clients' virtual pointers and keyboards make: the next device id, and the
/// virtual keyboards by their device, for the keymap their keys are read with.
final class VirtualInputState {
    var virtualKeyboards: [DeviceID: VirtualKeyboardObject] = [:]
    var nextVirtualDevice: UInt32 = VirtualDevices.first
}
