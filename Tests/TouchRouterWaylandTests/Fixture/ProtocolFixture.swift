import CWaylandClientShim
import Foundation
import Testing
import TouchRouterCore
import TouchRouterWayland

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A session and its clients in one process and one thread, as niri's src/tests/fixture.rs
/// has them: each client a libwayland-client connection on a socket pair the session
/// serves (`WaylandServer.addClient`), the session's loop run one round at a time
/// (`dispatchPendingWork`), so that nothing blocks and a test reads like a script.
final class ProtocolFixture {
    let server: WaylandServer
    private(set) var clients: [WireClient] = []
    /// The session numbers clients from 1 as they come (`ClientID`), and only `connect`
    /// brings any here: the n-th client connected is the core's client n.
    private var clientsAdded: UInt32 = 0
    private var ended = false

    /// A started session with no listening socket; `configure` sets its options.
    init(_ configure: (inout WaylandServer.Options) -> Void = { _ in }) throws {
        _ = ClientLog.installed
        var options = WaylandServer.Options()
        options.listens = false
        configure(&options)
        server = try WaylandServer(options: options)
        try server.start()
    }

    deinit { end() }

    /// Disconnects every client, then ends the session.
    func end() {
        guard !ended else { return }
        ended = true
        for client in clients { client.disconnect() }
        server.shutdown()
    }

    /// A new client with its registry read: `globals` lists what the session offers it.
    func connect(_ name: String = "client") throws -> WireClient {
        let fd = try server.addClient()
        clientsAdded += 1
        guard let display = wl_display_connect_to_fd(fd) else {
            close(fd)
            throw FixtureError("wl_display_connect_to_fd failed: \(String(cString: strerror(errno)))")
        }
        let client = WireClient(fixture: self, display: display, coreID: ClientID(clientsAdded), name: name)
        clients.append(client)
        client.getRegistry()
        try roundtrip(client)
        return client
    }

    var connectedClients: [WireClient] { clients.filter(\.isConnected) }

    /// One round: the session reads and answers what was sent, then every client reads
    /// what it was sent.
    func serveOnce() {
        for client in clients where client.isConnected { client.flush() }
        server.dispatchPendingWork()
        for client in clients where client.isConnected { client.readAvailable() }
    }

    /// wl_display.sync, then rounds until its done comes back: every request sent before it
    /// has been handled and every event sent before the answer dispatched. Throws if the
    /// session ended the client (the error says why), or if no answer comes.
    func roundtrip(_ client: WireClient) throws {
        if let error = client.protocolError { throw FixtureError("\(client.name) was ended earlier: \(error)") }
        guard let callback = client.sync() else { throw FixtureError("\(client.name) is disconnected") }
        for round in 0..<500 {
            serveOnce()
            if client.doneCallbacks.contains(callback.serial) { return }
            if let error = client.protocolError { throw FixtureError("\(client.name) ended by a protocol error: \(error)") }
            if client.connectionError != 0 {
                throw FixtureError("\(client.name)'s connection failed: \(String(cString: strerror(client.connectionError)))")
            }
            // The answer is written at the end of the session's round; only a session kept
            // busy (a timer) needs another, and a little time.
            if round >= 4 { usleep(1000) }
        }
        throw FixtureError("\(client.name): no answer to wl_display.sync after 500 rounds")
    }

    /// A roundtrip of every connected client.
    func roundtrip() throws {
        for client in connectedClients { try roundtrip(client) }
    }

    /// A roundtrip that must end with the session ending `client` with a protocol error of
    /// `code` on an object of `interface`: the error, or nil (and an issue) if it did not.
    @discardableResult
    func expectProtocolError(_ client: WireClient, interface: String, code: UInt32, sourceLocation: SourceLocation = #_sourceLocation) -> ProtocolErrorReport? {
        do {
            try roundtrip(client)
            Issue.record("\(client.name) was not ended: no \(interface) error \(code)", sourceLocation: sourceLocation)
            return nil
        } catch {
            guard let report = client.protocolError else {
                Issue.record("\(client.name): \(error), not a protocol error", sourceLocation: sourceLocation)
                return nil
            }
            #expect(report.interface == interface && report.code == code, "\(report)", sourceLocation: sourceLocation)
            return report
        }
    }

    // MARK: Input, as a device of the session's would give it

    var now: RouterTime { server.clock.now() }

    func touchDown(_ id: Int32, x: Double, y: Double) {
        server.inject(.touchDown(device: WaylandServer.injectionDevice, time: now, id: TouchID(id), position: Point(x: x, y: y)))
        server.inject(.touchFrame(device: WaylandServer.injectionDevice, time: now))
    }

    func touchMotion(_ id: Int32, x: Double, y: Double) {
        server.inject(.touchMotion(device: WaylandServer.injectionDevice, time: now, id: TouchID(id), position: Point(x: x, y: y)))
        server.inject(.touchFrame(device: WaylandServer.injectionDevice, time: now))
    }

    func touchUp(_ id: Int32) {
        server.inject(.touchUp(device: WaylandServer.injectionDevice, time: now, id: TouchID(id)))
        server.inject(.touchFrame(device: WaylandServer.injectionDevice, time: now))
    }

    func tap(_ id: Int32, x: Double, y: Double) {
        touchDown(id, x: x, y: y)
        touchUp(id)
    }

    /// A key pressed and released (evdev code: KEY_A is 30).
    func type(_ key: UInt32) {
        server.inject(.key(device: WaylandServer.injectionDevice, time: now, key: key, state: .pressed))
        server.inject(.key(device: WaylandServer.injectionDevice, time: now, key: key, state: .released))
    }

    // MARK: The core's tree

    /// The core's toplevels (windows and layer surfaces) of `client`, bottom to top.
    func toplevels(of client: WireClient) -> [SurfaceSnapshot] {
        server.tree.outputs.flatMap(\.toplevels).compactMap { server.tree.surface($0) }.filter { $0.client == client.coreID }
    }

    /// Every surface in the core's tree of `client`.
    func treeSurfaces(of client: WireClient) -> [SurfaceID] {
        server.tree.allSurfaces.filter { server.tree.client(of: $0) == client.coreID }
    }
}
