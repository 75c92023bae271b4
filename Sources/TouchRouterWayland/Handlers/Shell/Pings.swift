import CWaylandShim
import TouchRouterCore
#if canImport(Glibc)
import Glibc
#endif

/// A client the session found hung, or found answering again (`[supervise]`'s pings).
public struct ClientResponsiveness: Sendable {
    public var client: ClientID
    public var pid: Int32
    /// The app id of its first toplevel; empty without one.
    public var appID: String
    /// "ping": an xdg_wm_base.ping went unanswered for hang-after; "socket-full": its socket
    /// stayed full (ClientLimits.unreadSeconds) and it was disconnected.
    public var reason: String
}

/// How clients are pinged, and who hears of a hung one; set by `ServerRunner` when it supervises.
package struct PingSettings {
    package var every: Int64
    package var hangAfter: Int64
}

extension WaylandServer {
    /// Pings every client that has a mapped toplevel and an xdg_wm_base (stable; zxdg_shell_v6
    /// clients are not pinged) every `every`, and calls it hung when one goes unanswered for
    /// `hangAfter` (Android's ANR rule is 5 s). While it is hung its clients' surfaces take no
    /// touch and no pointer: the router is told it has neither (`ClientRecord.capabilities`),
    /// so a touch on its window still stops there (nothing under it is reached) and travels the
    /// compositor's side of the chain (an `unhandled` event), as for a client without wl_touch.
    public func watchHangs(every: Int64, hangAfter: Int64) throws(WaylandError) {
        pingSettings = PingSettings(every: every, hangAfter: hangAfter)
        let tick = Int32(clamping: max(50, min(every, hangAfter) / 4_000_000))
        try display.every(milliseconds: tick) { [unowned self] in self.pingTick() }
    }

    package func pingTick() {
        guard let settings = pingSettings else { return }
        let now = clock.now()
        var windowed: Set<ClientID> = []
        for id in tree.outputs.flatMap(\.toplevels) {
            if let client = tree.client(of: id) { windowed.insert(client) }
        }
        for record in clientRecords where windowed.contains(record.id) {
            guard let base = record.wmBase else { continue }
            switch record.ping.tick(at: now, every: settings.every, hangAfter: settings.hangAfter) {
            case .nothing:
                break
            case .ping:
                let serial = display.nextSerial
                xdg_wm_base_send_ping(base.resource, serial)
                record.ping.sent(serial: serial, at: now)
            case .becameHung:
                router.setCapabilities(record.capabilities, for: record.id)
                router.dispatchAll()
                hooks.onResponsiveness?(responsiveness(of: record, reason: "ping"), true)
            }
        }
    }

    /// xdg_wm_base.pong.
    package func pong(_ client: OpaquePointer, serial: UInt32) {
        guard let record = existingRecord(for: client), record.ping.pong(serial: serial) else { return }
        router.setCapabilities(record.capabilities, for: record.id)
        router.dispatchAll()
        hooks.onResponsiveness?(responsiveness(of: record, reason: "ping"), false)
    }

    package func responsiveness(of record: ClientRecord, reason: String) -> ClientResponsiveness {
        var appID = ""
        for id in tree.outputs.flatMap(\.toplevels) where tree.client(of: id) == record.id {
            if let toplevel = protocols.surface.surfaces[id]?.xdgSurface?.toplevel, !toplevel.appID.isEmpty {
                appID = toplevel.appID
                break
            }
        }
        return ClientResponsiveness(client: record.id, pid: record.pid, appID: appID, reason: reason)
    }
}
