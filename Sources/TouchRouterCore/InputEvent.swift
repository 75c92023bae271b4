/// A touch point's id: libinput's seat slot, unique across every device of the seat,
/// which is what wl_touch's id must be. A down for an id already down is dropped.
public struct TouchID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var raw: Int32
    @inlinable public init(_ raw: Int32) { self.raw = raw }
    public static func < (a: TouchID, b: TouchID) -> Bool { a.raw < b.raw }
    public var description: String { "\(raw)" }
}

public enum KeyState: String, Sendable { case pressed, released }
public enum ButtonState: String, Sendable { case pressed, released }
public enum PointerAxis: String, Sendable, CaseIterable { case vertical, horizontal }
/// wl_pointer.axis_source.
public enum AxisSource: String, Sendable, CaseIterable { case wheel, finger, continuous, wheelTilt = "wheel-tilt" }
public enum GesturePhase: String, Sendable { case begin, update, end }
public enum SwitchKind: String, Sendable, CaseIterable { case lid, tabletMode = "tablet-mode" }
public enum SwitchState: String, Sendable { case on, off }

public struct DeviceCapabilities: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let keyboard = DeviceCapabilities(rawValue: 1 << 0)
    public static let pointer = DeviceCapabilities(rawValue: 1 << 1)
    public static let touch = DeviceCapabilities(rawValue: 1 << 2)
    public static let gesture = DeviceCapabilities(rawValue: 1 << 3)
    public static let `switch` = DeviceCapabilities(rawValue: 1 << 4)
    public static let all: DeviceCapabilities = [.keyboard, .pointer, .touch, .gesture, .switch]
}

/// One input event as libinput (or replay, or injection) supplies it: plain data, so
/// queueing and copying it never counts references. Positions are in
/// the global layout, already mapped from the device to its output. `time` is the
/// device's own timestamp; the router stamps arrival separately.
public enum InputEvent: Sendable {
    case touchDown(device: DeviceID, time: RouterTime, id: TouchID, position: Point<GlobalSpace>)
    case touchMotion(device: DeviceID, time: RouterTime, id: TouchID, position: Point<GlobalSpace>)
    case touchUp(device: DeviceID, time: RouterTime, id: TouchID)
    /// The device lost this touch (libinput's per-slot TOUCH_CANCEL).
    case touchCancel(device: DeviceID, time: RouterTime, id: TouchID)
    case touchFrame(device: DeviceID, time: RouterTime)
    /// `key` is an evdev code (KEY_A is 30).
    case key(device: DeviceID, time: RouterTime, key: UInt32, state: KeyState)
    case pointerMotion(device: DeviceID, time: RouterTime, dx: Double, dy: Double)
    case pointerMotionAbsolute(device: DeviceID, time: RouterTime, position: Point<GlobalSpace>)
    /// `button` is an evdev code (BTN_LEFT is 0x110).
    case pointerButton(device: DeviceID, time: RouterTime, button: UInt32, state: ButtonState)
    case pointerAxis(device: DeviceID, time: RouterTime, axis: PointerAxis, value: Double, discrete: Int32, source: AxisSource)
    case swipe(device: DeviceID, time: RouterTime, phase: GesturePhase, fingers: Int32, dx: Double, dy: Double, cancelled: Bool)
    case pinch(device: DeviceID, time: RouterTime, phase: GesturePhase, fingers: Int32, dx: Double, dy: Double, scale: Double, rotation: Double, cancelled: Bool)
    case hold(device: DeviceID, time: RouterTime, phase: GesturePhase, fingers: Int32, cancelled: Bool)
    case switchToggle(device: DeviceID, time: RouterTime, kind: SwitchKind, state: SwitchState)
    /// The device's name, which would make every event costly to copy, is given with `Router.nameDevice`.
    case deviceAdded(device: DeviceID, time: RouterTime, capabilities: DeviceCapabilities)
    case deviceRemoved(device: DeviceID, time: RouterTime)

    public var device: DeviceID {
        switch self {
        case .touchDown(let d, _, _, _), .touchMotion(let d, _, _, _), .touchUp(let d, _, _), .touchCancel(let d, _, _),
             .touchFrame(let d, _), .key(let d, _, _, _), .pointerMotion(let d, _, _, _), .pointerMotionAbsolute(let d, _, _),
             .pointerButton(let d, _, _, _), .pointerAxis(let d, _, _, _, _, _), .swipe(let d, _, _, _, _, _, _),
             .pinch(let d, _, _, _, _, _, _, _, _), .hold(let d, _, _, _, _), .switchToggle(let d, _, _, _),
             .deviceAdded(let d, _, _), .deviceRemoved(let d, _):
            d
        }
    }

    public var time: RouterTime {
        switch self {
        case .touchDown(_, let t, _, _), .touchMotion(_, let t, _, _), .touchUp(_, let t, _), .touchCancel(_, let t, _),
             .touchFrame(_, let t), .key(_, let t, _, _), .pointerMotion(_, let t, _, _), .pointerMotionAbsolute(_, let t, _),
             .pointerButton(_, let t, _, _), .pointerAxis(_, let t, _, _, _, _), .swipe(_, let t, _, _, _, _, _),
             .pinch(_, let t, _, _, _, _, _, _, _), .hold(_, let t, _, _, _), .switchToggle(_, let t, _, _),
             .deviceAdded(_, let t, _), .deviceRemoved(_, let t):
            t
        }
    }

    /// Touch, pointer and touchpad-gesture events: what "ignore interaction" drops.
    public var isInteraction: Bool {
        switch self {
        case .touchDown, .touchMotion, .touchUp, .touchCancel, .touchFrame, .pointerMotion, .pointerMotionAbsolute,
             .pointerButton, .pointerAxis, .swipe, .pinch, .hold:
            true
        case .key, .switchToggle, .deviceAdded, .deviceRemoved:
            false
        }
    }
}

/// Well-known evdev codes the core itself needs.
public enum EvdevCode {
    public static let buttonLeft: UInt32 = 0x110
    public static let keyLeftShift: UInt32 = 42
    public static let keyRightShift: UInt32 = 54
    public static let keyLeftCtrl: UInt32 = 29
    public static let keyRightCtrl: UInt32 = 97
    public static let keyLeftAlt: UInt32 = 56
    public static let keyRightAlt: UInt32 = 100
    public static let keyLeftMeta: UInt32 = 125
    public static let keyRightMeta: UInt32 = 126
    public static let keyCapsLock: UInt32 = 58
    public static let keyNumLock: UInt32 = 69
}

/// Modifier masks as xkbcommon's default keymap numbers them, so the Wayland layer
/// can forward them until it tracks them with xkbcommon itself.
public struct KeyboardModifiers: Hashable, Sendable {
    public var depressed: UInt32 = 0
    public var latched: UInt32 = 0
    public var locked: UInt32 = 0
    public var group: UInt32 = 0
    public init() {}
    public init(depressed: UInt32, latched: UInt32, locked: UInt32, group: UInt32) {
        self.depressed = depressed
        self.latched = latched
        self.locked = locked
        self.group = group
    }

    public static let shift: UInt32 = 1 << 0
    public static let capsLock: UInt32 = 1 << 1
    public static let control: UInt32 = 1 << 2
    public static let alt: UInt32 = 1 << 3
    public static let numLock: UInt32 = 1 << 4
    public static let logo: UInt32 = 1 << 6
}
