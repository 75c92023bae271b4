import CWaylandShim
import TouchRouterConfig
#if canImport(Glibc)
import Glibc
#endif

// Grant sockets: privileges handed out by a socket, as sway's security-context-v1 and
// Ubuntu Frame's per-app grants do, instead of by the executable (Privileges.swift).
// Debian 12's wayland-protocols 1.31 has no security-context-v1, so the session makes the
// socket itself when asked (`msg grant-socket virtual-input,layer-shell`, or `touch-router
// run --grant` for its command): a listening Unix socket in XDG_RUNTIME_DIR whose
// connections it accepts from its own loop and makes clients of with wl_client_create.
// Each such client holds that socket's grants for as long as it is connected, and sees
// exactly those privileged globals: not the others, whatever `[privileges]` says of its
// executable. `msg revoke-socket PATH` stops accepting and removes the file; clients
// already connected keep what they have, as sway's security context does once its
// close_fd is closed.

/// The session's grant sockets and the clients that came through them.
package final class PrivilegedSockets {
    /// Grant sockets open at once: each is a descriptor and a file.
    package static let maximumSockets = 64

    private unowned let server: WaylandServer
    private var sockets: [String: GrantSocket] = [:]
    /// Clients by their wl_client, each removed by its destroy listener: the pointer is
    /// never used once libwayland has said the client is going.
    private var clients: [OpaquePointer: GrantedClient] = [:]
    /// Numbers are never used twice, so a revoked socket's path never comes back.
    private var nextNumber = 1

    private final class GrantSocket {
        package let path: String
        package let fd: Int32
        package let grants: Set<Privilege>
        package var source: OpaquePointer?
        package init(path: String, fd: Int32, grants: Set<Privilege>) {
            self.path = path
            self.fd = fd
            self.grants = grants
        }
    }

    private final class GrantedClient {
        package let grants: Set<Privilege>
        /// The socket it came through; nil for a socket pair's (`run --grant`).
        package let socket: String?
        package var destroyListener: Listener?
        package init(grants: Set<Privilege>, socket: String?) {
            self.grants = grants
            self.socket = socket
        }
    }

    package init(server: WaylandServer) { self.server = server }

    /// What `client` was granted, or nil when it did not come through a grant socket (the
    /// executable rule decides for it then).
    package func grants(of client: OpaquePointer) -> Set<Privilege>? { clients[client]?.grants }

    /// A new listening socket whose clients get `grants`; its path.
    func open(_ grants: Set<Privilege>) throws(WaylandError) -> String {
        guard !grants.isEmpty else { throw WaylandError("a grant socket needs at least one privilege: \(Privilege.names)") }
        guard sockets.count < Self.maximumSockets else {
            throw WaylandError("\(Self.maximumSockets) grant sockets are open, the most the session keeps: revoke one first")
        }
        guard let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }) else {
            throw WaylandError("XDG_RUNTIME_DIR is not set: it says where grant sockets go")
        }
        let name = server.socketName.isEmpty ? "" : ".\(server.socketName)"
        let path = "\(runtime)/touch-router.\(getpid())\(name).grant-\(nextNumber).sock"
        nextNumber += 1
        let fd = try listeningSocket(at: path, named: "grant socket", replacing: .socketOnly)
        let socket = GrantSocket(path: path, fd: fd, grants: grants)
        do {
            socket.source = try server.watch(fd: fd) { [unowned self, unowned socket] _ in self.accept(on: socket) }
        } catch {
            Glibc.close(fd)
            unlink(path)
            throw WaylandError("grant socket \(path): \(error)")
        }
        sockets[path] = socket
        return path
    }

    /// Stops accepting on the socket at `path` and removes its file; returns how many of
    /// its clients are still connected (they keep their grants).
    package func revoke(_ path: String) throws(WaylandError) -> Int {
        guard let socket = sockets.removeValue(forKey: path) else {
            throw WaylandError("\(path) is not an open grant socket of this session")
        }
        close(socket)
        return clients.values.filter { $0.socket == path }.count
    }

    /// Every socket closed and its file removed, at the session's end.
    package func closeAll() {
        for socket in sockets.values { close(socket) }
        sockets.removeAll()
    }

    private func close(_ socket: GrantSocket) {
        if let source = socket.source { server.unwatch(fd: socket.fd, source: source) }
        socket.source = nil
        Glibc.close(socket.fd)
        unlink(socket.path)
    }

    /// Makes a client of every connection waiting; a connection libwayland cannot take is
    /// closed and said, and the session goes on.
    private func accept(on socket: GrantSocket) {
        while true {
            let fd: Int32
            do {
                guard let accepted = try SocketCalls.accept(socket.fd) else { return }
                fd = accepted
            } catch {
                server.report("grant socket \(socket.path): \(error)")
                return
            }
            do {
                try admit(fd, grants: socket.grants, socket: socket.path)
            } catch {
                Glibc.close(fd)
                server.report("grant socket \(socket.path): \(error)")
            }
        }
    }

    /// Serves a client on `fd` holding `grants`; the client owns `fd` from here on.
    package func admit(_ fd: Int32, grants: Set<Privilege>, socket: String?) throws(WaylandError) {
        let client = try SocketCalls.createClient(server.display.display, fd)
        let granted = GrantedClient(grants: grants, socket: socket)
        let listener = Listener { [unowned self, unowned granted] _ in
            granted.destroyListener?.remove()
            granted.destroyListener = nil
            self.clients[client] = nil
        }
        wl_client_add_destroy_listener(client, listener.wlListener)
        listener.didLink()
        granted.destroyListener = listener
        clients[client] = granted
    }
}

/// The C calls grant sockets make, each turning a failure into a thrown error that names
/// the call's object and errno's reason.
private enum SocketCalls {
    /// A waiting connection, non-blocking and close-on-exec; nil when none waits.
    package static func accept(_ fd: Int32) throws(WaylandError) -> Int32? {
        while true {
            let connection = tr_accept_nonblocking(fd)
            if connection >= 0 { return connection }
            switch errno {
            case EINTR: continue
            case EAGAIN, ECONNABORTED: return nil
            default: throw WaylandError.errno("cannot accept a connection")
            }
        }
    }

    /// libwayland's client on `fd`; on failure `fd` is still the caller's.
    package static func createClient(_ display: OpaquePointer, _ fd: Int32) throws(WaylandError) -> OpaquePointer {
        guard let client = wl_client_create(display, fd) else { throw WaylandError.errno("wl_client_create cannot serve a new client") }
        return client
    }

    /// Two connected ends, close-on-exec.
    package static func socketPair() throws(WaylandError) -> (Int32, Int32) {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw WaylandError.errno("socketpair for a granted client")
        }
        return (ends[0], ends[1])
    }
}

extension WaylandServer {
    /// The session's grant sockets, made at the first grant.
    package var grantSockets: PrivilegedSockets {
        if let privilegedSockets { return privilegedSockets }
        let sockets = PrivilegedSockets(server: self)
        privilegedSockets = sockets
        return sockets
    }

    /// `msg grant-socket`: a new socket whose clients see exactly `grants`; its path.
    public func openGrantSocket(_ grants: Set<Privilege>) throws(WaylandError) -> String {
        try grantSockets.open(grants)
    }

    /// `msg revoke-socket`: how many of its clients stay connected, with their grants.
    public func revokeGrantSocket(_ path: String) throws(WaylandError) -> Int {
        guard let privilegedSockets else { throw WaylandError("\(path) is not an open grant socket of this session") }
        return try privilegedSockets.revoke(path)
    }

    /// A client on one end of a fresh socket pair holding `grants`, for a command the
    /// session starts (`run --grant`): the other end, close-on-exec, is the caller's.
    public func addGrantedClient(_ grants: Set<Privilege>) throws(WaylandError) -> Int32 {
        let (ours, theirs) = try SocketCalls.socketPair()
        do {
            try grantSockets.admit(ours, grants: grants, socket: nil)
        } catch {
            Glibc.close(ours)
            Glibc.close(theirs)
            throw error
        }
        return theirs
    }
}
