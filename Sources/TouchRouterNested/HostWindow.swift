import CWaylandClientShim
import TouchRouterCore
import TouchRouterWayland
#if canImport(Glibc)
import Glibc
#endif

/// One output shown as a window on the host: an xdg_toplevel whose surface gets the output's
/// composed frames in wl_shm buffers of the mode's size (the panel's orientation; the
/// output's transform is applied while copying). A frame is offered only when the host's
/// frame callback for the previous one is done and a buffer the host does not hold is free.
final class HostWindow: OutputPresenter {
    unowned let backend: NestedBackend
    let name: String
    let mode: OutputMode
    let surface: OpaquePointer
    private var xdgSurface: OpaquePointer?
    private var toplevel: OpaquePointer?
    /// The output's rectangle in the session's layout, once attached.
    var layoutRect: Rect<GlobalSpace>?
    private(set) var configured = false
    private var frameCallback: OpaquePointer?
    private var buffers: [HostBuffer] = []
    /// Enough for the host to hold one while another is written and a third waits.
    static let maxBuffers = 3
    /// The size the host last suggested (0 when it leaves it to us); the window keeps its
    /// mode's, since the session's outputs do not change size.
    private(set) var suggestedSize = (width: 0, height: 0)

    init(backend: NestedBackend, index: Int, mode: OutputMode) throws(WaylandError) {
        self.backend = backend
        self.name = NestedBackend.identity(of: index).name
        self.mode = mode
        guard let compositor = backend.compositor, let wmBase = backend.wmBase,
              let surface = wl_compositor_create_surface(compositor) else { throw backend.hostError("wl_compositor.create_surface") }
        self.surface = surface
        guard let xdgSurface = xdg_wm_base_get_xdg_surface(wmBase, surface) else { throw backend.hostError("xdg_wm_base.get_xdg_surface") }
        self.xdgSurface = xdgSurface
        xdg_surface_add_listener(xdgSurface, Listeners.xdgSurface, unretained)
        guard let toplevel = xdg_surface_get_toplevel(xdgSurface) else { throw backend.hostError("xdg_surface.get_toplevel") }
        self.toplevel = toplevel
        xdg_toplevel_add_listener(toplevel, Listeners.toplevel, unretained)
        xdg_toplevel_set_title(toplevel, "TouchRouter - \(name)")
        xdg_toplevel_set_app_id(toplevel, "touch-router")
        // The first commit, without a buffer, asks for the first configure.
        wl_surface_commit(surface)
    }

    var unretained: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    // MARK: xdg-shell

    func configure(serial: UInt32) {
        xdg_surface_ack_configure(xdgSurface, serial)
        // A configure after the window mapped is answered by a commit of the same frame;
        // the first is answered by the first frame.
        if configured { wl_surface_commit(surface) }
        configured = true
    }

    func configureToplevel(width: Int32, height: Int32) {
        // Host numbers, clamped where they enter; not used for the size (see suggestedSize).
        suggestedSize = (Int(max(0, min(width, 16384))), Int(max(0, min(height, 16384))))
    }

    func close() { backend.windowClosed(self) }

    // MARK: Frames

    var frameInFlight: Bool { configured && backend.failure == nil && frameCallback != nil }

    var readyForFrame: Bool {
        backend.flushIfBehind()
        guard configured, backend.failure == nil, frameCallback == nil else { return false }
        return buffers.contains { !$0.busy } || buffers.count < Self.maxBuffers
    }

    func present(_ framebuffer: Framebuffer, damage: [PixelRect]?) -> Bool {
        guard configured, backend.failure == nil, frameCallback == nil else { return false }
        let buffer: HostBuffer
        if let free = buffers.first(where: { !$0.busy }) {
            buffer = free
        } else if buffers.count < Self.maxBuffers {
            do {
                buffer = try HostBuffer(backend: backend, width: mode.width, height: mode.height)
            } catch {
                backend.hostFailed(error)
                return false
            }
            buffers.append(buffer)
        } else {
            return false
        }
        // Every buffer now lacks this frame's change; the one written gets all it lacks.
        for other in buffers { other.addStale(damage) }
        framebuffer.copy(into: buffer.pixels, width: mode.width, height: mode.height, stride: buffer.stride,
                         transform: mode.transform, damage: buffer.stale)
        buffer.stale = []
        wl_surface_attach(surface, buffer.proxy, 0, 0)
        // Damage in buffer pixels; a turned output's is not turned here, so all of it.
        if let damage, mode.transform == .normal {
            for rect in damage where rect.width > 0 && rect.height > 0 {
                wl_surface_damage_buffer(surface, Int32(clamping: rect.x), Int32(clamping: rect.y), Int32(clamping: rect.width), Int32(clamping: rect.height))
            }
        } else {
            wl_surface_damage_buffer(surface, 0, 0, Int32(clamping: mode.width), Int32(clamping: mode.height))
        }
        frameCallback = wl_surface_frame(surface)
        if let frameCallback { wl_callback_add_listener(frameCallback, Listeners.frame, unretained) }
        wl_surface_commit(surface)
        buffer.busy = true
        do { try backend.flush() } catch {
            backend.hostFailed(error)
            return false
        }
        return true
    }

    var onShown: ((RouterTime?) -> Void)?

    /// The host sent no frame callback in time (a hidden window may get none): the next
    /// frame goes without waiting for it.
    func abandonFlip() {
        if let frameCallback { wl_callback_destroy(frameCallback) }
        frameCallback = nil
    }

    /// The host's frame callback: the host shows our last frame, and wants the next.
    func frameDone(_ callback: OpaquePointer?) {
        if let callback { wl_callback_destroy(callback) }
        guard callback == frameCallback else { return }
        frameCallback = nil
        onShown?(nil)
    }

    // MARK: Input

    /// A point of the window's surface (surface-local, the panel's orientation) in the
    /// session's layout: through the output's transform, then to its rectangle.
    func layoutPoint(_ x: wl_fixed_t, _ y: wl_fixed_t) -> Point<GlobalSpace>? {
        guard let rect = layoutRect else { return nil }
        let u = min(max(wl_fixed_to_double(x) / Double(mode.width), 0), 1)
        let v = min(max(wl_fixed_to_double(y) / Double(mode.height), 0), 1)
        let (lx, ly) = mode.transform.apply(u, v)
        return Point(x: Double(rect.x) + lx * Double(rect.width), y: Double(rect.y) + ly * Double(rect.height))
    }

    func destroy() {
        if let frameCallback { wl_callback_destroy(frameCallback) }
        frameCallback = nil
        for buffer in buffers { buffer.destroy() }
        buffers.removeAll()
        if let toplevel { xdg_toplevel_destroy(toplevel) }
        if let xdgSurface { xdg_surface_destroy(xdgSurface) }
        toplevel = nil
        xdgSurface = nil
        wl_surface_destroy(surface)
    }
}

/// A wl_shm buffer of XRGB8888 on its own memfd, mapped for as long as it lives.
final class HostBuffer {
    let proxy: OpaquePointer
    let pixels: UnsafeMutableRawPointer
    let stride: Int
    private let size: Int
    /// Between attach and wl_buffer.release the host may read it: not written then.
    var busy = false
    /// What frames presented since this buffer was last written changed, in layout pixels;
    /// nil for all of it (a fresh buffer).
    var stale: [PixelRect]? = nil

    init(backend: NestedBackend, width: Int, height: Int) throws(WaylandError) {
        stride = width * 4
        size = stride * height
        guard let shm = backend.shm else { throw WaylandError("the host's wl_shm is gone") }
        let fd = trc_shm_file(size)
        guard fd >= 0 else { throw WaylandError("a \(width)x\(height) buffer for the host window: memfd: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard let pixels = trc_map_shared(fd, size) else { throw WaylandError("a \(width)x\(height) buffer for the host window: mmap: \(String(cString: strerror(errno)))") }
        guard let pool = wl_shm_create_pool(shm, fd, Int32(clamping: size)) else {
            trc_unmap(pixels, size)
            throw backend.hostError("wl_shm.create_pool")
        }
        defer { wl_shm_pool_destroy(pool) }
        guard let proxy = wl_shm_pool_create_buffer(pool, 0, Int32(clamping: width), Int32(clamping: height), Int32(clamping: stride), WL_SHM_FORMAT_XRGB8888.rawValue) else {
            trc_unmap(pixels, size)
            throw backend.hostError("wl_shm_pool.create_buffer")
        }
        self.pixels = pixels
        self.proxy = proxy
        wl_buffer_add_listener(proxy, Listeners.buffer, Unmanaged.passUnretained(self).toOpaque())
    }

    func addStale(_ damage: [PixelRect]?) {
        guard let current = stale, let damage else { stale = nil; return }
        stale = current.count + damage.count > 64 ? nil : current + damage
    }

    func destroy() {
        wl_buffer_destroy(proxy)
        trc_unmap(pixels, size)
    }
}
