import TouchRouterConfig
import TouchRouterCore
import TouchRouterLibinput
import TouchRouterReplay
import TouchRouterLibseat
import TouchRouterWayland

/// The seat's input devices in a running session: libinput's udev backend on `seat`, each
/// device opened through the seat manager, added and removed as udev sees them (hotplug),
/// each touchscreen mapped by the configuration's chain and each device given its `[[input]]`
/// settings. `ServerLaunch` calls it with the LibseatSession the drm backend opened its card
/// with, and for `touch-router run --input udev` on any display backend.
///
/// When the seat is disabled (a VT switch) libinput releases every device: touches live at
/// that moment are cancelled for their clients (their devices are removed, which the router
/// turns into wl_touch.cancel) and pressed keys are released; when it is enabled again the
/// devices come back. The caller keeps the returned backend, and `watchSeat` the seat, for
/// the session's life.
public func startSeatInput(server: WaylandServer, seat: LibseatSession, configuration: ServerConfiguration) throws -> LibinputBackend {
    let backend = try LibinputBackend(seat: seat, absoluteArea: server.firstOutputArea ?? Rect(x: 0, y: 0, width: 1, height: 1))
    configureInput(backend, server: server, configuration: configuration)
    seat.addListener(
        disable: { [weak backend, unowned server] in
            guard let backend else { return }
            backend.suspend()
            // The removals and releases now, while the devices' clients are still current.
            backend.dispatch { server.inject($0) }
        },
        enable: { [weak backend, unowned server] in
            guard let backend else { return }
            do { try backend.resume() } catch { warn("touch-router: \(error)") }
            // libinput queues the devices' return without its descriptor becoming readable.
            backend.dispatch { server.inject($0) }
        })
    try server.addInputSource(backend)
    return backend
}

/// Dispatches the seat's messages (enables and disables) from the session's loop, as an
/// input source that delivers no events (`SeatMessages`).
public func watchSeat(_ seat: LibseatSession, server: WaylandServer) throws(WaylandError) {
    try server.addInputSource(SeatMessages(seat))
}

/// What every libinput backend gets: touchscreen mapping, per-device settings, `msg devices`.
public func configureInput(_ backend: LibinputBackend, server: WaylandServer, configuration: ServerConfiguration) {
    mapTouchscreens(backend, server: server, rules: configuration.touchscreens)
    let rules = configuration.inputs
    backend.configureDevice = { device in
        let settings = InputRule.settings(for: InputRule.Device(name: device.name, vendor: device.vendor, product: device.product,
                                                                types: device.types, touchpad: device.isTouchpad), rules: rules)
        return device.apply(settings.libinput)
    }
    // The keymap's Caps, Num and Scroll Lock on every keyboard (the last backend configured).
    backend.setKeyboardLEDs(server.keyboardLEDs.rawValue)
    server.hooks.onKeyboardLEDs = { [weak backend] leds in backend?.setKeyboardLEDs(leds.rawValue) }
}

/// Chooses each touchscreen's mapping as it is added, and again when an output comes or goes
/// or a reload changes the rules (docs/session.md, "Mapping touchscreens to outputs"), and
/// reports every device to `msg devices`: its kinds, and for a touchscreen its mapping and why.
/// The rules are the configuration's at that moment (`rules` before the shell has one).
public func mapTouchscreens(_ backend: LibinputBackend, server: WaylandServer, rules: [TouchscreenRule]) {
    final class Reports { var byDevice: [DeviceID: String] = [:] }
    let reports = Reports()
    backend.mapTouchscreen = { [unowned server] device in
        // The shell holds the configuration in force (applied before any device is added).
        let rules = server.shell?.configuration.touchscreens ?? rules
        let assignment = TouchscreenAssignment(device: device.name, vendor: device.vendor, product: device.product, calibration: device.calibration,
                                               udevOutput: device.udevOutput, rules: rules, outputs: server.outputPlacements)
        let area = assignment.mapping.area
        reports.byDevice[device.id] = "\"output\":\(assignment.output.map(jsonString) ?? "null"),\"region\":[\(area.x),\(area.y),\(area.width),\(area.height)],"
            + "\"transform\":\(jsonString(assignment.mapping.transform.name)),\"reason\":\(jsonString(assignment.reason)),"
            + "\"calibration\":[\(assignment.mapping.calibration.array.map { "\($0)" }.joined(separator: ","))],"
            + "\"calibration_source\":\(jsonString(assignment.calibrationSource))"
        return assignment.mapping
    }
    let previous = server.hooks.onTouchscreenLayoutChanged
    server.hooks.onTouchscreenLayoutChanged = { [weak backend] in
        previous?()
        backend?.remapTouchscreens()
    }
    server.hooks.deviceReport = { [unowned backend] in
        backend.devices.map { device in
            let vendorProduct = TouchscreenMatch.vendorProduct(vendor: device.vendor, product: device.product).description
            let types = device.types.map(jsonString).joined(separator: ",")
            let kind = device.types.contains("touch") ? "touch" : device.types.first ?? "none"
            let mapping = reports.byDevice[device.id].map { "," + $0 } ?? ""
            return "{\"id\":\(device.id.raw),\"name\":\(jsonString(device.name)),\"usb\":\(jsonString(vendorProduct)),\"type\":\(jsonString(kind)),"
                + "\"types\":[\(types)],\"node\":\(jsonString("/dev/input/" + device.sysname))\(mapping)}"
        }
    }
}

extension InputSettings {
    public var libinput: DeviceSettings {
        DeviceSettings(tap: tap, naturalScroll: naturalScroll, accelerationProfile: accelerationProfile.flatMap { DeviceSettings.AccelerationProfile(rawValue: $0.rawValue) },
                       accelerationSpeed: accelerationSpeed, leftHanded: leftHanded)
    }
}
