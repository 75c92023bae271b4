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
