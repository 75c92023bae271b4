import TouchRouterConfig
import TouchRouterCore
import TouchRouterLibinput
import TouchRouterSeat
import TouchRouterWayland

/// The seat's input devices in a running session: libinput's udev backend on `seat`, each
/// device opened through the seat manager, added and removed as udev sees them (hotplug),
/// each touchscreen mapped by the configuration's chain and each device given its `[[input]]`
/// settings. The drm backend calls it with the SeatSession it opened its card with;
/// `touch-router run --input udev` calls it on any display backend.
///
/// When the seat is disabled (a VT switch) libinput releases every device: touches live at
/// that moment are cancelled for their clients (their devices are removed, which the router
/// turns into wl_touch.cancel) and pressed keys are released; when it is enabled again the
/// devices come back. The caller keeps the returned backend, and `watchSeat` the seat, for
/// the session's life.
func startSeatInput(session: WaylandSession, seat: SeatSession, configuration: SessionConfiguration) throws -> LibinputBackend {
    let backend = try LibinputBackend(seat: seat, absoluteArea: session.firstOutputArea ?? Rect(x: 0, y: 0, width: 1, height: 1))
    configureInput(backend, session: session, configuration: configuration)
    seat.addListener(
        disable: { [weak backend, unowned session] in
            guard let backend else { return }
            backend.suspend()
            // The removals and releases now, while the devices' clients are still current.
            backend.dispatch { session.inject($0) }
        },
        enable: { [weak backend, unowned session] in
            guard let backend else { return }
            do { try backend.resume() } catch { warn("touch-router: \(error)") }
            // libinput queues the devices' return without its descriptor becoming readable.
            backend.dispatch { session.inject($0) }
        })
    try session.addInputSource(fd: backend.fd, name: backend.name(of:), read: backend.dispatch)
    return backend
}

/// Dispatches the seat's messages (enables and disables) from the session's loop. It goes
/// through the session's input sources, which watch a descriptor and call a function; the
/// seat delivers no events of its own.
func watchSeat(_ seat: SeatSession, session: WaylandSession) throws {
    try session.addInputSource(fd: seat.fd, name: { _ in nil }, read: { _ in seat.dispatch() })
}

/// What every libinput backend gets: touchscreen mapping, per-device settings, `msg devices`.
func configureInput(_ backend: LibinputBackend, session: WaylandSession, configuration: SessionConfiguration) {
    mapTouchscreens(backend, session: session, rules: configuration.touchscreens)
    let rules = configuration.inputs
    backend.configureDevice = { device in
        let settings = InputRule.settings(for: InputRule.Device(name: device.name, vendor: device.vendor, product: device.product,
                                                                types: device.types, touchpad: device.isTouchpad), rules: rules)
        return device.apply(settings.libinput)
    }
    // The keymap's Caps, Num and Scroll Lock on every keyboard (the last backend configured).
    backend.setKeyboardLEDs(session.keyboardLEDs.rawValue)
    session.onKeyboardLEDs = { [weak backend] leds in backend?.setKeyboardLEDs(leds.rawValue) }
}

extension InputSettings {
    var libinput: DeviceSettings {
        DeviceSettings(tap: tap, naturalScroll: naturalScroll, accelerationProfile: accelerationProfile.flatMap { DeviceSettings.AccelerationProfile(rawValue: $0.rawValue) },
                       accelerationSpeed: accelerationSpeed, leftHanded: leftHanded)
    }
}
