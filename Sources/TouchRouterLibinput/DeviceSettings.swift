import CLibinput
import TouchRouterCore

/// libinput's per-device settings that a configuration may give; nil leaves libinput's default.
public struct DeviceSettings: Hashable, Sendable {
    public enum AccelerationProfile: String, Hashable, Sendable, CaseIterable { case flat, adaptive }

    public var tap: Bool?
    public var naturalScroll: Bool?
    public var accelerationProfile: AccelerationProfile?
    /// From -1 (slowest) to 1 (fastest).
    public var accelerationSpeed: Double?
    public var leftHanded: Bool?

    public init(tap: Bool? = nil, naturalScroll: Bool? = nil, accelerationProfile: AccelerationProfile? = nil, accelerationSpeed: Double? = nil, leftHanded: Bool? = nil) {
        self.tap = tap
        self.naturalScroll = naturalScroll
        self.accelerationProfile = accelerationProfile
        self.accelerationSpeed = accelerationSpeed
        self.leftHanded = leftHanded
    }

    /// Later settings replace earlier ones, key by key.
    public func overridden(by later: DeviceSettings) -> DeviceSettings {
        DeviceSettings(tap: later.tap ?? tap, naturalScroll: later.naturalScroll ?? naturalScroll,
                       accelerationProfile: later.accelerationProfile ?? accelerationProfile,
                       accelerationSpeed: later.accelerationSpeed ?? accelerationSpeed, leftHanded: later.leftHanded ?? leftHanded)
    }
}

/// A libinput device while it is being added: what it is, and its settings to apply.
public struct InputDeviceHandle {
    let device: OpaquePointer
    init(_ device: OpaquePointer) { self.device = device }

    public var name: String { String(cString: libinput_device_get_name(device)) }
    public var vendor: UInt16 { UInt16(truncatingIfNeeded: libinput_device_get_id_vendor(device)) }
    public var product: UInt16 { UInt16(truncatingIfNeeded: libinput_device_get_id_product(device)) }
    /// Its kinds, as InputDeviceInfo.types names them.
    public var types: [String] { InputDeviceInfo(device, id: DeviceID(0)).types }
    /// libinput's touchpad test: a pointer that has tap-to-click fingers.
    public var isTouchpad: Bool { libinput_device_config_tap_get_finger_count(device) > 0 }

    /// Applies each setting given; each one the device does not take is a line in the result
    /// ("tap: the device has no tap-to-click"), and the others still apply.
    public func apply(_ settings: DeviceSettings) -> [String] {
        var problems: [String] = []
        func status(_ key: String, _ result: libinput_config_status) {
            switch result {
            case LIBINPUT_CONFIG_STATUS_SUCCESS: break
            case LIBINPUT_CONFIG_STATUS_UNSUPPORTED: problems.append("\(key): the device does not support it")
            default: problems.append("\(key): libinput refused the value")
            }
        }
        if let tap = settings.tap {
            if libinput_device_config_tap_get_finger_count(device) == 0 {
                problems.append("tap: the device has no tap-to-click (not a touchpad)")
            } else {
                status("tap", libinput_device_config_tap_set_enabled(device, tap ? LIBINPUT_CONFIG_TAP_ENABLED : LIBINPUT_CONFIG_TAP_DISABLED))
            }
        }
        if let natural = settings.naturalScroll {
            if libinput_device_config_scroll_has_natural_scroll(device) == 0 {
                problems.append("natural-scroll: the device does not scroll")
            } else {
                status("natural-scroll", libinput_device_config_scroll_set_natural_scroll_enabled(device, natural ? 1 : 0))
            }
        }
        if settings.accelerationProfile != nil || settings.accelerationSpeed != nil, libinput_device_config_accel_is_available(device) == 0 {
            problems.append("\(settings.accelerationProfile != nil ? "accel-profile" : "accel-speed"): the device has no pointer acceleration")
        } else {
            if let profile = settings.accelerationProfile {
                status("accel-profile", libinput_device_config_accel_set_profile(device, profile == .flat ? LIBINPUT_CONFIG_ACCEL_PROFILE_FLAT : LIBINPUT_CONFIG_ACCEL_PROFILE_ADAPTIVE))
            }
            if let speed = settings.accelerationSpeed {
                status("accel-speed", libinput_device_config_accel_set_speed(device, min(max(speed, -1), 1)))
            }
        }
        if let leftHanded = settings.leftHanded {
            if libinput_device_config_left_handed_is_available(device) == 0 {
                problems.append("left-handed: the device has no left-handed mode")
            } else {
                status("left-handed", libinput_device_config_left_handed_set(device, leftHanded ? 1 : 0))
            }
        }
        return problems
    }

    /// The current values, as libinput reports them, for `msg devices`.
    public var current: DeviceSettings {
        var settings = DeviceSettings()
        if libinput_device_config_tap_get_finger_count(device) > 0 { settings.tap = libinput_device_config_tap_get_enabled(device) == LIBINPUT_CONFIG_TAP_ENABLED }
        if libinput_device_config_scroll_has_natural_scroll(device) != 0 { settings.naturalScroll = libinput_device_config_scroll_get_natural_scroll_enabled(device) != 0 }
        if libinput_device_config_accel_is_available(device) != 0 {
            settings.accelerationSpeed = libinput_device_config_accel_get_speed(device)
            switch libinput_device_config_accel_get_profile(device) {
            case LIBINPUT_CONFIG_ACCEL_PROFILE_FLAT: settings.accelerationProfile = .flat
            case LIBINPUT_CONFIG_ACCEL_PROFILE_ADAPTIVE: settings.accelerationProfile = .adaptive
            default: break
            }
        }
        if libinput_device_config_left_handed_is_available(device) != 0 { settings.leftHanded = libinput_device_config_left_handed_get(device) != 0 }
        return settings
    }
}

extension LibinputBackend {
    /// Lights each keyboard's LEDs: bit 0 Num Lock, 1 Caps Lock, 2 Scroll Lock (the session's
    /// KeyboardLEDs); keyboards added later get them as they are added.
    public func setKeyboardLEDs(_ bits: UInt8) {
        keyboardLEDs = bits
        for device in keyboardHandles { libinput_device_led_update(device, Self.libinputLEDs(bits)) }
    }

    static func libinputLEDs(_ bits: UInt8) -> libinput_led {
        var leds: UInt32 = 0
        if bits & 1 != 0 { leds |= LIBINPUT_LED_NUM_LOCK.rawValue }
        if bits & 2 != 0 { leds |= LIBINPUT_LED_CAPS_LOCK.rawValue }
        if bits & 4 != 0 { leds |= LIBINPUT_LED_SCROLL_LOCK.rawValue }
        return libinput_led(rawValue: leds)
    }
}
