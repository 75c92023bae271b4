import CWaylandShim
import TouchRouterCore
import TouchRouterProtocols

extension WaylandServer {
    /// The core's relative motion, to each live relative pointer of the focused client.
    public func pointerRelativeMotion(surface: SurfaceID, client: ClientID, time: RouterTime, dx: Double, dy: Double) {
        guard let record = clientsByID[client], !record.relativePointers.isEmpty else { return }
        // Microseconds of the event's clock, in two halves; a time before its zero goes as zero.
        let microseconds = UInt64(max(time.nanoseconds, 0) / 1000)
        let high = UInt32(truncatingIfNeeded: microseconds >> 32), low = UInt32(truncatingIfNeeded: microseconds)
        let fx = wl_fixed_from_double(dx), fy = wl_fixed_from_double(dy)
        for relative in record.relativePointers where relative.pointer != nil {
            zwp_relative_pointer_v1_send_relative_motion(relative.resource, high, low, fx, fy, fx, fy)
        }
    }
}

extension WaylandServer {
    package func relativePointerDestroyed(_ relative: RelativePointerObject) {
        existingRecord(for: relative.client)?.relativePointers.removeAll { $0 === relative }
    }
}
