import Foundation
import Testing
import TouchRouterConfig
import TouchRouterCore
import TouchRouterWayland

/// ext-session-lock-v1 in process: the lock, its surfaces, what it hides, and its errors.
@Suite("The session lock in process: locked, lock surfaces, nothing else shown or reached, and every error")
struct SessionLockProtocolTests {
    static func fixture() throws -> ProtocolFixture { try ProtocolFixture { $0.grantedToEveryClient = [.sessionLock] } }

    /// A lock, once `locked` has come.
    static func lock(_ fixture: ProtocolFixture, _ client: WireClient) throws -> Proxy {
        let lock = try #require(client.request(try client.global("ext_session_lock_manager_v1", version: 1), "lock"))
        try fixture.roundtrip(client)
        IdleProtocolTests.serve(fixture) { !client.events(of: lock, named: "locked").isEmpty }
        try #require(client.events(of: lock).map(\.name) == ["locked"])
        return lock
    }

    /// A lock surface on the first output, acked and drawn at the configured size.
    static func lockSurface(_ client: WireClient, _ lock: Proxy, _ fixture: ProtocolFixture, argb: UInt32 = 0xFF11_2233) throws -> (surface: Proxy, role: Proxy) {
        let surface = try client.createSurface()
        let role = try #require(client.request(lock, "get_lock_surface", surface, try client.global("wl_output", version: 4)))
        try fixture.roundtrip(client)
        let configure = try #require(client.events(of: role, named: "configure").last)
        client.request(role, "ack_configure", configure.uint(0)!)
        try client.show(surface, width: Int(configure.uint(1)!), height: Int(configure.uint(2)!), argb: argb)
        try fixture.roundtrip(client)
        return (surface, role)
    }

    @Test("locked hides every window from the screen and from input; the lock surface fills the output, takes touches and the keyboard; unlock_and_destroy gives the window back its focus")
    func lockAndUnlock() throws {
        let fixture = try Self.fixture()
        defer { fixture.end() }
        let app = try fixture.connect("app")
        let window = try fixture.mapToplevel(app)
        let appTouch = try #require(app.request(try app.seat, "get_touch"))
        try fixture.roundtrip(app)
        let appWindow = try #require(fixture.toplevels(of: app).first?.id)
        #expect(fixture.server.router.keyboardFocus == appWindow)

        let locker = try fixture.connect("locker")
        let lock = try Self.lock(fixture, locker)
        #expect(fixture.server.router.sessionLocked)
        #expect(fixture.server.router.keyboardFocus == nil, "the window lost the keyboard")
        #expect(!fixture.server.tree.isShown(appWindow))
        let (_, role) = try Self.lockSurface(locker, lock, fixture)
        let configure = try #require(locker.events(of: role, named: "configure").last)
        #expect(configure.uint(1) == 1920 && configure.uint(2) == 1080, "the output's size")
        let lockID = try #require(fixture.toplevels(of: locker).first?.id)
        #expect(fixture.server.tree.layer(of: lockID) == .lock)
        #expect(fixture.server.router.keyboardFocus == lockID)
        let lockTouch = try #require(locker.request(try locker.seat, "get_touch"))
        try fixture.roundtrip(locker)
        fixture.tap(1, x: 50, y: 50)
        try fixture.roundtrip()
        #expect(locker.events(of: lockTouch).map(\.name) == ["down", "frame", "up", "frame"])
        #expect(app.events(of: appTouch).isEmpty)
        #expect(try fixture.server.compose().framebuffer.pixel(60, 60) == 0xFF11_2233, "the lock surface is what the screen shows")

        locker.request(lock, "unlock_and_destroy")
        try fixture.roundtrip(locker)
        #expect(!fixture.server.router.sessionLocked)
        #expect(fixture.server.router.keyboardFocus == appWindow, "the keyboard goes back to the window")
        #expect(fixture.toplevels(of: locker).isEmpty, "the lock surface left the screen")
        fixture.tap(2, x: 50, y: 50)
        try fixture.roundtrip(app)
        #expect(app.events(of: appTouch).map(\.name) == ["down", "frame", "up", "frame"])
        _ = window
    }

    @Test("a lock client that dies leaves the session locked, the background shown; a second lock meanwhile hears finished; a new lock after the death takes over")
    func lockClientDies() throws {
        let fixture = try Self.fixture()
        defer { fixture.end() }
        let app = try fixture.connect("app")
        _ = try fixture.mapToplevel(app)
        let first = try fixture.connect("first")
        let lock = try Self.lock(fixture, first)
        _ = try Self.lockSurface(first, lock, fixture)
        let second = try fixture.connect("second")
        let refused = try #require(second.request(try second.global("ext_session_lock_manager_v1", version: 1), "lock"))
        try fixture.roundtrip(second)
        #expect(second.events(of: refused).map(\.name) == ["finished"], "one lock at a time")

        // The refused lock's surface is inert: never configured, never shown.
        let inert = try second.createSurface()
        let inertRole = try #require(second.request(refused, "get_lock_surface", inert, try second.global("wl_output", version: 4)))
        try fixture.roundtrip(second)
        #expect(second.events(of: inertRole).isEmpty, "no configure for a finished lock's surface")
        first.disconnect()
        try fixture.roundtrip(second)
        #expect(fixture.server.router.sessionLocked, "the session stays locked")
        let appWindow = try #require(fixture.toplevels(of: app).first?.id)
        #expect(!fixture.server.tree.isShown(appWindow))
        let pixel = try fixture.server.compose().framebuffer.pixel(60, 60)
        #expect(pixel != 0xFF33_6699, "the window is not drawn: \(String(describing: pixel))")

        let third = try fixture.connect("third")
        let takeover = try Self.lock(fixture, third)
        _ = try Self.lockSurface(third, takeover, fixture, argb: 0xFF44_5566)
        #expect(try fixture.server.compose().framebuffer.pixel(60, 60) == 0xFF44_5566)
        third.request(takeover, "unlock_and_destroy")
        try fixture.roundtrip(third)
        #expect(!fixture.server.router.sessionLocked)
        #expect(fixture.server.tree.isShown(appWindow))
    }

    @Test("errors: a surface with a role, a second surface on an output, unlock before locked, destroy while locked, commit before ack, a null buffer, a wrong size, an unknown serial",
          arguments: ["role", "duplicate_output", "invalid_unlock", "invalid_destroy", "commit_before_first_ack", "null_buffer", "dimensions_mismatch", "invalid_serial"])
    func errors(_ kind: String) throws {
        let fixture = try Self.fixture()
        defer { fixture.end() }
        let client = try fixture.connect()
        let manager = try client.global("ext_session_lock_manager_v1", version: 1)
        let output = try client.global("wl_output", version: 4)
        if kind == "invalid_unlock" {
            let lock = try #require(client.request(manager, "lock"))
            client.request(lock, "unlock_and_destroy")
            let report = fixture.expectProtocolError(client, interface: "ext_session_lock_v1", code: 1)
            #expect(report?.message.contains("before the locked event") == true, "\(String(describing: report))")
            return
        }
        let lock = try Self.lock(fixture, client)
        switch kind {
        case "role":
            let window = try client.makeToplevel()
            client.request(lock, "get_lock_surface", window.surface, output)
            let report = fixture.expectProtocolError(client, interface: "ext_session_lock_v1", code: 2)
            #expect(report?.message.contains("already has the role toplevel") == true, "\(String(describing: report))")
        case "duplicate_output":
            _ = try Self.lockSurface(client, lock, fixture)
            client.request(lock, "get_lock_surface", try client.createSurface(), output)
            fixture.expectProtocolError(client, interface: "ext_session_lock_v1", code: 3)
        case "invalid_destroy":
            // destroy is a destructor: libwayland-client forgets the proxy as it sends it, so the
            // error comes back on an object it no longer knows, without interface or text.
            client.request(lock, "destroy")
            #expect(throws: FixtureError.self) { try fixture.roundtrip(client) }
            #expect(client.protocolError?.code == 0, "invalid_destroy: \(String(describing: client.protocolError))")
        case "commit_before_first_ack":
            let surface = try client.createSurface()
            client.request(lock, "get_lock_surface", surface, output)
            try client.show(surface, width: 1920, height: 1080)
            fixture.expectProtocolError(client, interface: "ext_session_lock_surface_v1", code: 0)
        case "null_buffer", "dimensions_mismatch", "invalid_serial":
            let surface = try client.createSurface()
            let role = try #require(client.request(lock, "get_lock_surface", surface, output))
            try fixture.roundtrip(client)
            let serial = try #require(client.events(of: role, named: "configure").last?.uint(0))
            if kind == "invalid_serial" {
                client.request(role, "ack_configure", serial &+ 1000)
                fixture.expectProtocolError(client, interface: "ext_session_lock_surface_v1", code: 3)
                return
            }
            client.request(role, "ack_configure", serial)
            if kind == "null_buffer" {
                client.request(surface, "commit")
                fixture.expectProtocolError(client, interface: "ext_session_lock_surface_v1", code: 1)
            } else {
                try client.show(surface, width: 100, height: 100)
                let report = fixture.expectProtocolError(client, interface: "ext_session_lock_surface_v1", code: 2)
                #expect(report?.message.contains("100x100") == true && report?.message.contains("1920x1080") == true, "\(String(describing: report))")
            }
        default:
            Issue.record("no case \(kind)")
        }
        #expect(fixture.server.router.sessionLocked, "a lock client ended by an error leaves the session locked")
    }
}
