import CWaylandShim
import TouchRouterCore

package enum ScreencopyManager {
    package static let version: Int32 = 3

    package static let bind: wl_global_bind_func_t = { client, data, version, id in
        GlobalHost.bind(client, data, version, id, tr_zwlr_screencopy_manager_v1_interface(), table) { $0 as any ScreencopyHandler }
    }

    package nonisolated(unsafe) static let table = implementation(zwlr_screencopy_manager_v1_interface(
        capture_output: { client, resource, id, _, outputResource in
            capture(client, resource, id, outputResource, region: nil)
        },
        capture_output_region: { client, resource, id, _, outputResource, x, y, width, height in
            capture(client, resource, id, outputResource, region: (x, y, width, height))
        },
        destroy: destroyRequest))

    private static func capture(_ client: OpaquePointer?, _ resource: OpaquePointer?, _ id: UInt32, _ outputResource: OpaquePointer?,
                                region: (Int32, Int32, Int32, Int32)?) {
        let manager = WaylandObject.of(resource, as: RoomGlobal<any ScreencopyHandler>.self)
        guard let created = createResource(client, tr_zwlr_screencopy_frame_v1_interface(), version: wl_resource_get_version(resource), id: id) else { return }
        let handler = manager.handler
        let output = WaylandObject.of(outputResource, as: OutputBinding.self).output.flatMap { $0.retired ? nil : $0 }
        let size = output.flatMap { handler.captureSize(of: $0.id) }
        // The region, in the output's layout pixels (its logical ones) made panel pixels by its
        // scale, clipped to it; empty or outside: nothing to capture.
        var rect = Rect<GlobalSpace>(x: 0, y: 0, width: size?.pixels.width ?? 0, height: size?.pixels.height ?? 0)
        if let (x, y, width, height) = region {
            let scale = size?.scale ?? 1
            let asked = Rect<GlobalSpace>(x: Int(x) * scale, y: Int(y) * scale, width: Int(max(width, 0)) * scale, height: Int(max(height, 0)) * scale)
            rect = asked.intersection(rect) ?? Rect(x: 0, y: 0, width: 0, height: 0)
        }
        let frame = ScreencopyFrameObject(resource: created, madeBy: manager, state: handler.screencopyState,
                                          output: output?.id ?? OutputID(0), rect: rect)
        WaylandObject.install(frame, implementation: ScreencopyFrameObject.table)
        guard output != nil, rect.width > 0, rect.height > 0 else {
            frame.fail()
            return
        }
        zwlr_screencopy_frame_v1_send_buffer(created, WL_SHM_FORMAT_XRGB8888.rawValue, UInt32(rect.width), UInt32(rect.height), UInt32(rect.width * 4))
        if frame.version >= 3 { zwlr_screencopy_frame_v1_send_buffer_done(created) }
    }
}

/// zwlr_screencopy_frame_v1: one picture of an output (or a region of it), copied once into
/// a buffer the client gives; ready or failed ends it.
package final class ScreencopyFrameObject: WaylandObject {
    private unowned let state: ScreencopyState
    package let output: OutputID
    package let rect: Rect<GlobalSpace>
    package private(set) var withDamage = false
    /// The client's buffer, let go of when the client destroys it.
    private var buffer: BufferReference?
    private var used = false
    private var ended = false
    /// What it has not copied is kept per client.
    package let clientID: ClientID

    package init(resource: OpaquePointer, madeBy manager: WaylandObject, state: ScreencopyState, output: OutputID, rect: Rect<GlobalSpace>) {
        self.state = state
        self.output = output
        self.rect = rect
        clientID = manager.clientRecord?.id ?? ClientID(0)
        super.init(resource: resource, madeBy: manager)
    }

    package var isLive: Bool { !ended && buffer?.resource != nil }

    package func fail() {
        guard !ended else { return }
        ended = true
        state.forget(self)
        zwlr_screencopy_frame_v1_send_failed(resource)
    }

    /// Writes the picture into the client's buffer, then flags, damage and ready.
    package func copy(from framebuffer: Framebuffer, damage: [PixelRect]?, at time: RouterTime) {
        // A buffer destroyed since the copy request fails the frame.
        guard !ended, let bufferResource = buffer?.resource, let shm = ShmBuffer.behind(bufferResource) else { return fail() }
        let written = framebuffer.pixels.withUnsafeBufferPointer { pixels -> Bool in
            let start = rect.y * framebuffer.width + rect.x
            guard rect.maxX <= framebuffer.width, rect.maxY <= framebuffer.height else { return false }
            return shm.write(from: UnsafeBufferPointer(rebasing: pixels[start...]), sourceStride: framebuffer.width, rowWords: rect.width, rows: rect.height)
        }
        guard written else { return fail() }
        ended = true
        zwlr_screencopy_frame_v1_send_flags(resource, 0)
        if version >= 2 {
            let whole = PixelRect(x: rect.x, y: rect.y, width: rect.width, height: rect.height)
            for area in damage ?? [whole] {
                // In the frame's own coordinates: the region's corner is its origin.
                let x0 = max(area.x, rect.x), y0 = max(area.y, rect.y)
                let x1 = min(area.x + area.width, rect.maxX), y1 = min(area.y + area.height, rect.maxY)
                guard x1 > x0, y1 > y0 else { continue }
                zwlr_screencopy_frame_v1_send_damage(resource, UInt32(x0 - rect.x), UInt32(y0 - rect.y), UInt32(x1 - x0), UInt32(y1 - y0))
            }
        }
        let seconds = UInt64(max(time.nanoseconds, 0)) / 1_000_000_000
        zwlr_screencopy_frame_v1_send_ready(resource, UInt32(truncatingIfNeeded: seconds >> 32), UInt32(truncatingIfNeeded: seconds),
                                            UInt32(UInt64(max(time.nanoseconds, 0)) % 1_000_000_000))
    }

    package override func resourceDestroyed() { state.forget(self) }

    /// copy and copy_with_damage: the buffer must be a wl_shm one of the frame's size and
    /// format, and a frame copies once.
    private func copyRequest(_ bufferResource: OpaquePointer?, withDamage: Bool) {
        let request = withDamage ? "copy_with_damage" : "copy"
        guard !used else {
            postError(ZWLR_SCREENCOPY_FRAME_V1_ERROR_ALREADY_USED.rawValue, "\(name).\(request): the frame was copied already")
            return
        }
        guard let bufferResource, let shm = ShmBuffer.behind(bufferResource) else {
            postError(ZWLR_SCREENCOPY_FRAME_V1_ERROR_INVALID_BUFFER.rawValue, "\(name).\(request): not a wl_shm buffer")
            return
        }
        guard shm.format == WL_SHM_FORMAT_XRGB8888.rawValue || shm.format == WL_SHM_FORMAT_ARGB8888.rawValue,
              shm.size.width == rect.width, shm.size.height == rect.height, shm.stride >= rect.width * 4 else {
            postError(ZWLR_SCREENCOPY_FRAME_V1_ERROR_INVALID_BUFFER.rawValue,
                      "\(name).\(request): a \(shm.size.width)x\(shm.size.height) buffer, stride \(shm.stride), format \(shm.format); the frame is \(rect.width)x\(rect.height), XRGB8888, stride \(rect.width * 4)")
            return
        }
        used = true
        guard !ended else { return }
        guard state.waitingCount(of: clientID) < ScreencopyState.maximumWaitingPerClient else {
            // Each waiting frame costs a copy of its region at a tick: a client's are bounded.
            fail()
            return
        }
        buffer = BufferReference(bufferResource)
        self.withDamage = withDamage
        state.wait(self)
    }

    package nonisolated(unsafe) static let table = implementation(zwlr_screencopy_frame_v1_interface(
        copy: { _, resource, buffer in
            WaylandObject.of(resource, as: ScreencopyFrameObject.self).copyRequest(buffer, withDamage: false)
        },
        destroy: destroyRequest,
        copy_with_damage: { _, resource, buffer in
            WaylandObject.of(resource, as: ScreencopyFrameObject.self).copyRequest(buffer, withDamage: true)
        }))
}
