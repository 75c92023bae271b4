import CWaylandClientShim
import Foundation
import Testing

/// An xdg-shell window: its wl_surface, xdg_surface and xdg_toplevel.
struct Window {
    let surface: Proxy
    let xdgSurface: Proxy
    let toplevel: Proxy
}

/// The latest configure of a toplevel: xdg_toplevel's size and states, xdg_surface's serial.
struct ToplevelConfigure: Equatable {
    let width: Int32
    let height: Int32
    let states: [UInt32]
    let serial: UInt32
}

extension WireClient {
    /// The global `interface`, bound once at `version`, the same proxy at each call.
    func global(_ interface: String, version: UInt32, sourceLocation: SourceLocation = #_sourceLocation) throws -> Proxy {
        if let bound = boundGlobals[interface], isLive(bound) { return bound }
        let bound = try #require(bind(interface, version: version, sourceLocation: sourceLocation), sourceLocation: sourceLocation)
        boundGlobals[interface] = bound
        return bound
    }

    var compositor: Proxy { get throws { try global("wl_compositor", version: 5) } }
    var subcompositor: Proxy { get throws { try global("wl_subcompositor", version: 1) } }
    var shm: Proxy { get throws { try global("wl_shm", version: 1) } }
    var wmBase: Proxy { get throws { try global("xdg_wm_base", version: 5) } }
    var seat: Proxy { get throws { try global("wl_seat", version: 7) } }

    var globalNames: Set<String> { Set(globals.map(\.interface)) }

    func createSurface() throws -> Proxy {
        try #require(request(try compositor, "create_surface"))
    }

    /// A wl_shm_pool of `size` bytes on a fresh memfd (sparse: it costs nothing until written).
    func pool(size: Int) throws -> Proxy {
        let fd = trc_shm_file(size)
        guard fd >= 0 else { throw FixtureError("memfd of \(size) bytes: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        return try #require(request(try shm, "create_pool", FileDescriptor(fd: fd), Int32(truncatingIfNeeded: size)))
    }

    /// An ARGB8888 wl_buffer of `width`×`height`, every pixel `argb`, from a pool of its own
    /// (the pool is destroyed at once: the buffer keeps its memory).
    func buffer(width: Int, height: Int, argb: UInt32 = 0xFF33_6699, fill: Bool = true) throws -> Proxy {
        let size = width * height * 4
        let fd = trc_shm_file(size)
        guard fd >= 0 else { throw FixtureError("memfd of \(size) bytes: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        if fill, size > 0, let pixels = trc_map_shared(fd, size) {
            let words = pixels.bindMemory(to: UInt32.self, capacity: width * height)
            for index in 0..<(width * height) { words[index] = argb }
            trc_unmap(pixels, size)
        }
        let pool = try #require(request(try shm, "create_pool", FileDescriptor(fd: fd), Int32(size)))
        let buffer = try #require(request(pool, "create_buffer", 0, Int32(width), Int32(height), Int32(width * 4), 0))
        request(pool, "destroy")
        return buffer
    }

    /// Attaches a fresh buffer of that size and commits.
    func show(_ surface: Proxy, width: Int, height: Int, argb: UInt32 = 0xFF33_6699) throws {
        request(surface, "attach", try buffer(width: width, height: height, argb: argb), 0, 0)
        request(surface, "damage", 0, 0, Int32(width), Int32(height))
        request(surface, "commit")
    }

    /// A toplevel role for a new surface (titled and with an app id if given), committed
    /// without a buffer: the session's first configure is on its way.
    func makeToplevel(title: String? = nil, appID: String? = nil) throws -> Window {
        let surface = try createSurface()
        let xdgSurface = try #require(request(try wmBase, "get_xdg_surface", surface))
        let toplevel = try #require(request(xdgSurface, "get_toplevel"))
        if let title { request(toplevel, "set_title", title) }
        if let appID { request(toplevel, "set_app_id", appID) }
        request(surface, "commit")
        return Window(surface: surface, xdgSurface: xdgSurface, toplevel: toplevel)
    }

    /// The latest configure the window was sent, once its xdg_surface.configure came.
    func lastConfigure(of window: Window) -> ToplevelConfigure? {
        guard let serial = events(of: window.xdgSurface, named: "configure").last?.uint(0),
              let configure = events(of: window.toplevel, named: "configure").last else { return nil }
        return ToplevelConfigure(width: configure.int(0) ?? 0, height: configure.int(1) ?? 0, states: configure.words(2) ?? [], serial: serial)
    }

    /// Acks the latest configure and commits a buffer of `width`×`height`.
    func ackAndDraw(_ window: Window, width: Int, height: Int, argb: UInt32 = 0xFF33_6699) throws {
        let configure = try #require(lastConfigure(of: window), "\(window.toplevel) was never configured")
        request(window.xdgSurface, "ack_configure", configure.serial)
        try show(window.surface, width: width, height: height, argb: argb)
    }

    /// The objects of one interface this client was sent as new ids (data offers, handles).
    func newObjects(interface: String) -> [Proxy] {
        events.flatMap { event in
            event.arguments.compactMap { value -> Proxy? in
                guard case .newObject(let proxy) = value, proxy.interface == interface else { return nil }
                return proxy
            }
        }
    }
}

extension ProtocolFixture {
    /// A window mapped at `width`×`height` (its first configure acked): what a toolkit does.
    func mapToplevel(_ client: WireClient, width: Int = 200, height: Int = 200, title: String? = nil, appID: String? = nil) throws -> Window {
        let window = try client.makeToplevel(title: title, appID: appID)
        try roundtrip(client)
        try client.ackAndDraw(window, width: width, height: height)
        try roundtrip(client)
        return window
    }
}
