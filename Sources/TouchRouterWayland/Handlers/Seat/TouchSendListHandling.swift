import TouchRouterCore
import TouchRouterProtocols

extension WaylandServer {
    /// Where a touch event for `client` is written (see `TouchSendLists`).
    @inline(__always)
    package func touchSends(of client: ClientID) -> UnsafeBufferPointer<TouchSendLists.Entry> {
        clientTables.pointee.touchSends(of: client)
    }

    /// A client's seat devices, or a device's timestamps objects, changed.
    package func seatDevicesChanged() { clientTables.pointee.touchSends.devicesChanged() }
}

/// What a touch event for one client is written to, kept ready so that delivering it takes
/// no reference count: each of the client's wl_touch resources, each after its
/// zwp_input_timestamps_v1 objects, as plain pointers in memory the lists own.
///
/// Walking the client's `SeatDevice` objects cost three retains and three releases a touch
/// event, each an atomic read-modify-write, and about 100 instructions more (callgrind, a
/// live session at 10 clients x 10 fingers). A list is made from the objects on first use,
/// and made again after any client's wl_touch or timestamps objects change
/// (`devicesChanged`), which is rare: at a bind, a destroy, or a client's end.
package struct TouchSendLists {
    package struct Entry {
        package let resource: OpaquePointer
        /// A zwp_input_timestamps_v1 for the wl_touch that follows it, else the wl_touch.
        package let isTimestamps: Bool
    }

    private struct List {
        package var entries: UnsafeMutableBufferPointer<Entry>
        package var generation: UInt64
    }

    /// Bumped by every change to a client's seat devices or their timestamps objects.
    private var generation: UInt64 = 0
    private var lists: [ClientID: List] = [:]
    private var lastClient: ClientID?
    private var last = List(entries: UnsafeMutableBufferPointer(start: nil, count: 0), generation: 0)

    package mutating func devicesChanged() { generation &+= 1 }

    /// The client's list, if it is as new as the last change. Valid until the next change:
    /// nothing a delivery does changes a client's devices.
    @inline(__always)
    package mutating func current(_ client: ClientID) -> UnsafeBufferPointer<Entry>? {
        if lastClient == client, last.generation == generation { return UnsafeBufferPointer(last.entries) }
        guard let list = lists[client], list.generation == generation else { return nil }
        lastClient = client
        last = list
        return UnsafeBufferPointer(list.entries)
    }

    /// Makes the client's list from its record's devices; a client gone has none, and keeps none.
    package mutating func rebuild(_ client: ClientID, _ record: ClientRecord?) -> UnsafeBufferPointer<Entry> {
        forget(client)
        guard let record else { return UnsafeBufferPointer(start: nil, count: 0) }
        var entries: [Entry] = []
        for device in record.devices where device.kind == .touch {
            for timestamps in device.timestamps { entries.append(Entry(resource: timestamps.resource, isTimestamps: true)) }
            entries.append(Entry(resource: device.resource, isTimestamps: false))
        }
        let buffer = UnsafeMutableBufferPointer<Entry>.allocate(capacity: entries.count)
        _ = buffer.initialize(from: entries)
        let list = List(entries: buffer, generation: generation)
        lists[client] = list
        lastClient = client
        last = list
        return UnsafeBufferPointer(buffer)
    }

    /// The client is gone, or its list is to be made again.
    package mutating func forget(_ client: ClientID) {
        if lastClient == client { lastClient = nil }
        lists.removeValue(forKey: client)?.entries.deallocate()
    }

    /// Frees every list; the session calls this as it goes.
    package mutating func removeAll() {
        for list in lists.values { list.entries.deallocate() }
        lists.removeAll()
        lastClient = nil
    }
}

extension ClientTables {
    @inline(__always)
    package mutating func touchSends(of client: ClientID) -> UnsafeBufferPointer<TouchSendLists.Entry> {
        if let entries = touchSends.current(client) { return entries }
        return touchSends.rebuild(client, byID[client])
    }
}
