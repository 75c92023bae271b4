import CWaylandShim
import TouchRouterCore
import TouchRouterProtocols

extension WaylandServer {
    /// Once a second: a client whose socket has been full for `ClientLimits.unreadSeconds`
    /// is disconnected. A client that reads at all keeps room in its socket (a backlog
    /// that merely stays the same size, as steady traffic gives, is not one that is full).
    /// No error can reach it, so the log says why.
    package func disconnectClientsNotReading() {
        for record in clientRecords {
            let fd = wl_client_get_fd(record.client)
            record.usage.checksNotReading = tr_socket_is_full(fd) == 1 ? record.usage.checksNotReading + 1 : 0
            guard record.usage.checksNotReading > ClientLimits.unreadSeconds else { continue }
            var pid: pid_t = 0
            wl_client_get_credentials(record.client, &pid, nil, nil)
            report("client \(pid) ended: its socket stayed full, \(tr_socket_unread_bytes(fd)) bytes of events unread, for \(ClientLimits.unreadSeconds) s")
            // Hung by another sign: a supervising runner applies its hang policy to the process.
            let hung = hooks.onResponsiveness.map { ($0, responsiveness(of: record, reason: "socket-full")) }
            wl_client_destroy(record.client)
            if let (hear, what) = hung { hear(what, true) }
        }
    }

    /// Ends a client with wl_display's implementation error, and says so in the log.
    package func endClient(_ client: OpaquePointer, _ message: String) {
        var pid: pid_t = 0
        wl_client_get_credentials(client, &pid, nil, nil)
        report("client \(pid) ended: \(message)")
        tr_client_post_implementation_error(client, message)
    }
}
