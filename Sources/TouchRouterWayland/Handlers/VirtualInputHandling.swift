import CWaylandShim
import TouchRouterCore

/// What virtual pointers and keyboards may ask of the server (TouchRouterProtocols/VirtualInput/).
extension WaylandServer: VirtualInputHandler {
    package var virtualInputState: VirtualInputState { protocols.virtualInput }

    /// A fresh device id for a virtual pointer or keyboard, counted against its client's
    /// `ClientLimits.virtualDevices`; nil (the client ended) past it.
    package func makeVirtualDevice(for manager: WaylandObject, request: String) -> DeviceID? {
        guard let record = existingRecord(for: manager.client) else { return nil }
        guard record.usage.virtualDevices < ClientLimits.virtualDevices else {
            manager.endClient(request, pastLimit: "past \(ClientLimits.virtualDevices) virtual pointers and keyboards, the most one client may have")
            return nil
        }
        record.usage.virtualDevices += 1
        let device = DeviceID(protocols.virtualInput.nextVirtualDevice)
        // Wraps back to the first after four billion, far past any one still alive.
        protocols.virtualInput.nextVirtualDevice = protocols.virtualInput.nextVirtualDevice == UInt32.max ? VirtualDevices.first : protocols.virtualInput.nextVirtualDevice + 1
        return device
    }

    package func virtualDeviceAdded(_ device: DeviceID, capabilities: DeviceCapabilities, of object: WaylandObject) {
        let name = "\(object.name) (client \(existingRecord(for: object.client)?.pid ?? 0))"
        routeAsDevice([.deviceAdded(device: device, time: clock.now(), capabilities: capabilities)], naming: name)
    }

    package func routeVirtual(_ events: [InputEvent]) { routeAsDevice(events) }

    /// The device's last events (releases of what it held, then its removal), routed whether
    /// it was destroyed or its client died (then nothing is sent to that client).
    package func virtualDeviceRemoved(_ object: WaylandObject, events: [InputEvent]) {
        existingRecord(for: object.client)?.usage.virtualDevices -= 1
        routeAsDevice(events)
    }

    /// A point `x`, `y` of the way across the output (the layout's bounding box without one,
    /// or when it was removed), kept inside it: a fraction of 1 is its last pixel.
    package func absolutePosition(_ x: Double, _ y: Double, on output: VirtualOutput?) -> Point<GlobalSpace> {
        let area: Rect<GlobalSpace>
        if let output, !output.retired {
            area = output.rect
        } else {
            // The outputs' bounding box, in one pass and without an array: it runs for every motion.
            var left = Int.max, top = Int.max, right = Int.min, bottom = Int.min
            for output in outputs {
                let rect = output.rect
                left = min(left, rect.x)
                top = min(top, rect.y)
                right = max(right, rect.x + rect.width)
                bottom = max(bottom, rect.y + rect.height)
            }
            if left > right { (left, top, right, bottom) = (0, 0, 1, 1) }
            area = Rect(x: left, y: top, width: max(right - left, 1), height: max(bottom - top, 1))
        }
        let lastX = Double(area.x + area.width) - 1.0 / 256, lastY = Double(area.y + area.height) - 1.0 / 256
        return Point(x: min(Double(area.x) + x * Double(area.width), lastX), y: min(Double(area.y) + y * Double(area.height), lastY))
    }
}
