import CWaylandShim
import TouchRouterCore
#if canImport(Glibc)
import Glibc
#endif

/// What a client has: its id in the core, and its seat devices.
package final class ClientRecord {
    package let id: ClientID
    package let client: OpaquePointer
    /// Behind one pointer (`UncheckedState`): every delivered event reads it, and as a stored
    /// property of the class each read paid a dynamic exclusivity check.
    package var devices: [SeatDevice] {
        _read { yield deviceList.pointee }
        _modify { yield &deviceList.pointee }
    }
    private let deviceList = UncheckedState<[SeatDevice]>([])
    /// Its zwp_relative_pointer_v1 objects (RelativePointer.swift), each leaving as its resource goes.
    package var relativePointers: [RelativePointerObject] = []
    /// Its zwp_text_input_v3 objects (TextInput.swift), each leaving as its resource goes.
    package var textInputs: [TextInputObject] = []
    package var destroyListener: Listener?
    package var usage = ClientUsage()
    /// An app policy says `touch = false` for one of its toplevels: the router is told it has no wl_touch.
    package var touchWithheld = false
    /// Its stable xdg_wm_base, the one it made an xdg_surface from last: what pings go to.
    package weak var wmBase: RoomGlobal<any ShellHandler>?
    /// Its pings (Pings.swift); while it is hung it takes no touch or pointer.
    package var ping = PingState()
    /// The serials of the latest touch downs sent to the client, and their touches: what
    /// xdg_toplevel.move is checked against. The latest few only.
    package var touchDownSerials: [(serial: UInt32, touch: TouchID)] = []

    /// The serial of the latest button press sent to the client.
    package var buttonPressSerial: UInt32?

    package func noteTouchDown(serial: UInt32, touch: TouchID) {
        if touchDownSerials.count >= 8 { touchDownSerials.removeFirst() }
        touchDownSerials.append((serial, touch))
    }

    package init(id: ClientID, client: OpaquePointer) {
        self.id = id
        self.client = client
    }

    deinit {
        deviceList.release()
    }

    package func devices(_ kind: SeatDevice.Kind) -> [SeatDevice] { devices.filter { $0.kind == kind } }

    /// The client's process, as its socket's peer credentials say.
    package var pid: Int32 {
        var pid: pid_t = 0, uid: uid_t = 0, gid: gid_t = 0
        wl_client_get_credentials(client, &pid, &uid, &gid)
        return pid
    }

    package var capabilities: ClientCapabilities {
        var capabilities: ClientCapabilities = []
        for device in devices {
            switch device.kind {
            case .touch: if !touchWithheld, !ping.hung { capabilities.insert(.touch) }
            case .pointer: if !ping.hung { capabilities.insert(.pointer) }
            case .keyboard: capabilities.insert(.keyboard)
            }
        }
        return capabilities
    }
}

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
