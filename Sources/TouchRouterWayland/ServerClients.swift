import CWaylandShim
import TouchRouterCore
#if canImport(Glibc)
import Glibc
#endif
import TouchRouterProtocols

/// Clients as the session knows them: a record made at a client's first bind, forgotten
/// when libwayland says the client is going.
extension WaylandServer {
    @discardableResult
    package func record(for client: OpaquePointer) -> ClientRecord {
        if let record = clients[client] { return record }
        let record = ClientRecord(id: ClientID(nextClient), client: client)
        nextClient += 1
        clients[client] = record
        clientsByID[record.id] = record
        let listener = Listener { [unowned self, unowned record] _ in self.clientDestroyed(record) }
        wl_client_add_destroy_listener(client, listener.wlListener)
        listener.didLink()
        record.destroyListener = listener
        stats.clientConnected(record.id, pid: record.pid)
        shell.clientConnected(record)
        return record
    }

    package var clientRecords: [ClientRecord] { Array(clients.values) }

    /// The record of a client that is still connected; nil once it is going, so that
    /// resources destroyed with it neither count nor make a new record.
    package func existingRecord(for client: OpaquePointer) -> ClientRecord? { clients[client] }

    /// libwayland tells this before it destroys the client's resources: from here on
    /// nothing is sent to the client, and its resources leave the tree as they go.
    private func clientDestroyed(_ record: ClientRecord) {
        record.destroyListener?.remove()
        record.destroyListener = nil
        clients[record.client] = nil
        clientsByID[record.id] = nil
        clientsBySocket = clientsBySocket.filter { $0.value != record.client }
        if protocols.xwayland.client == record.client { protocols.xwayland.client = nil }
        record.devices.removeAll()
        clientTables.pointee.touchSends.forget(record.id)
        seatDevicesChanged()
        router.forgetClient(record.id)
        router.dispatchAll()
        stats.clientDisconnected(record.id)
        protocols.screencopy.clientGone(record.id)
        shell.clientDisconnected(record)
    }
    package var clientsByID: [ClientID: ClientRecord] {
        _read { yield clientTables.pointee.byID }
        _modify { yield &clientTables.pointee.byID }
    }

    /// A client's devices of one kind, walked without making an array: every delivered
    /// event walks them.
    package func devices(_ kind: SeatDevice.Kind, of client: ClientID) -> SeatDevices {
        SeatDevices(all: clientTables.pointee.record(of: client)?.devices ?? [], kind: kind)
    }
}

/// The session's clients by their id in the core, behind one pointer (`UncheckedState`, no
/// exclusivity check per access), with the last one looked up kept: a frame's events come
/// to the same client one after the other, and a hash costs more than the event's routing.
package struct ClientTables {
    package var byID: [ClientID: ClientRecord] = [:] {
        didSet { last = nil }
    }
    private var last: ClientRecord?
    package var touchSends = TouchSendLists()

    @inline(__always)
    package mutating func record(of client: ClientID) -> ClientRecord? {
        if let last, last.id == client { return last }
        last = byID[client]
        return last
    }
}

/// The devices of one kind among a client's, as a sequence that allocates nothing.
package struct SeatDevices: Sequence {
    package let all: [SeatDevice]
    package let kind: SeatDevice.Kind

    package struct Iterator: IteratorProtocol {
        package var base: IndexingIterator<[SeatDevice]>
        package let kind: SeatDevice.Kind

        package mutating func next() -> SeatDevice? {
            while let device = base.next() {
                if device.kind == kind { return device }
            }
            return nil
        }
    }

    package func makeIterator() -> Iterator { Iterator(base: all.makeIterator(), kind: kind) }
}
