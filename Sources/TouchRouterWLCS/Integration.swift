import CWLCSIntegration
import TouchRouterConfig
import TouchRouterCore
import TouchRouterWayland
#if canImport(Glibc)
import Glibc
#endif

/// One WLCS test's compositor: a session with one 1920×1080 output, no socket of its
/// own, and clients and input devices made on WLCS's request. Every call after `run`
/// arrives on the session's thread, through WLCS's loop that the session serves.
final class WLCSServer {
    let server: WaylandServer

    init() throws(WaylandError) {
        var options = WaylandServer.Options()
        options.listens = false
        // WLCS's clients are threads of its own process: no executable tells them apart.
        options.grantedToEveryClient = Set(Privilege.allCases)
        server = try WaylandServer(options: options)
    }
}

func reportToStandardError(_ message: String) {
    var line = "touch-router-wlcs: \(message)\n"
    line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}

private func server(_ pointer: UnsafeMutableRawPointer?) -> WLCSServer {
    Unmanaged<WLCSServer>.fromOpaque(pointer!).takeUnretainedValue()
}

@_cdecl("tr_wlcs_create")
func wlcsCreate(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> UnsafeMutableRawPointer? {
    do {
        return Unmanaged.passRetained(try WLCSServer()).toOpaque()
    } catch {
        reportToStandardError("cannot create the session: \(error)")
        return nil
    }
}

@_cdecl("tr_wlcs_destroy")
func wlcsDestroy(_ pointer: UnsafeMutableRawPointer?) {
    Unmanaged<WLCSServer>.fromOpaque(pointer!).release()
}

@_cdecl("tr_wlcs_run")
func wlcsRun(_ pointer: UnsafeMutableRawPointer?, _ loop: UnsafeMutableRawPointer?) {
    let server = server(pointer)
    do {
        try server.server.start()
        try server.server.serve(loop: OpaquePointer(loop!))
    } catch {
        reportToStandardError("cannot start the session: \(error)")
        return
    }
    server.server.run()
    // Clients first, then the display: nothing outlives the test.
    server.server.shutdown()
}

@_cdecl("tr_wlcs_stop")
func wlcsStop(_ pointer: UnsafeMutableRawPointer?) {
    server(pointer).server.stop()
}

@_cdecl("tr_wlcs_create_client_socket")
func wlcsCreateClientSocket(_ pointer: UnsafeMutableRawPointer?) -> Int32 {
    let server = server(pointer)
    do {
        return try server.server.addClient()
    } catch {
        reportToStandardError("\(error)")
        return -1
    }
}

@_cdecl("tr_wlcs_position_window")
func wlcsPositionWindow(_ pointer: UnsafeMutableRawPointer?, _ clientFD: Int32, _ surfaceID: UInt32, _ x: Int32, _ y: Int32) {
    let server = server(pointer)
    do {
        try server.server.placeWindow(clientSocket: clientFD, surfaceID: surfaceID, x: Int(x), y: Int(y))
    } catch {
        reportToStandardError("position_window_absolute: \(error)")
    }
}

@_cdecl("tr_wlcs_add_device")
func wlcsAddDevice(_ pointer: UnsafeMutableRawPointer?, _ touch: Int32) -> UInt32 {
    server(pointer).server.addDevice(touch: touch != 0).raw
}

@_cdecl("tr_wlcs_remove_device")
func wlcsRemoveDevice(_ pointer: UnsafeMutableRawPointer?, _ device: UInt32) {
    server(pointer).server.removeDevice(DeviceID(device))
}

@_cdecl("tr_wlcs_pointer_move")
func wlcsPointerMove(_ pointer: UnsafeMutableRawPointer?, _ device: UInt32, _ x: Double, _ y: Double, _ relative: Int32) {
    let server = server(pointer).server
    let time = server.clock.now()
    if relative != 0 {
        server.inject(.pointerMotion(device: DeviceID(device), time: time, dx: x, dy: y))
    } else {
        server.inject(.pointerMotionAbsolute(device: DeviceID(device), time: time, position: Point(x, y)))
    }
}

@_cdecl("tr_wlcs_pointer_button")
func wlcsPointerButton(_ pointer: UnsafeMutableRawPointer?, _ device: UInt32, _ button: Int32, _ pressed: Int32) {
    let server = server(pointer).server
    server.inject(.pointerButton(device: DeviceID(device), time: server.clock.now(), button: UInt32(bitPattern: button),
                                  state: pressed != 0 ? .pressed : .released))
}

@_cdecl("tr_wlcs_touch")
func wlcsTouch(_ pointer: UnsafeMutableRawPointer?, _ device: UInt32, _ kind: Int32, _ x: Double, _ y: Double) {
    let server = server(pointer).server
    let device = DeviceID(device), time = server.clock.now()
    let id = TouchID(Int32(truncatingIfNeeded: device.raw))
    switch kind {
    case 0: server.inject(.touchDown(device: device, time: time, id: id, position: Point(x, y)))
    case 1: server.inject(.touchMotion(device: device, time: time, id: id, position: Point(x, y)))
    default: server.inject(.touchUp(device: device, time: time, id: id))
    }
    server.inject(.touchFrame(device: device, time: time))
}
