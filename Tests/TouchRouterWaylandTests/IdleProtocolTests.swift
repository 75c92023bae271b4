import Foundation
import Testing
import TouchRouterConfig
import TouchRouterCore
import TouchRouterWayland

/// ext-idle-notify-v1 and the seat's idle timer in process.
@Suite("Idle in process: ext-idle-notify's notifications, inhibitors, and the output the timer darkens")
struct IdleProtocolTests {
    /// Serves rounds until `condition` holds, 3 s at most; the frame tick checks the timers.
    static func serve(_ fixture: ProtocolFixture, until condition: () -> Bool) {
        SessionTickTests.serve(fixture, for: 3, until: condition)
    }

    /// An ext-idle notification of `client`'s after `milliseconds` without input on the seat.
    static func notification(_ client: WireClient, after milliseconds: UInt32) throws -> Proxy {
        let notifier = try client.global("ext_idle_notifier_v1", version: 1)
        return try #require(client.request(notifier, "get_idle_notification", milliseconds, try client.seat))
    }

    /// A client's mapped window holding an idle inhibitor, and an ext-idle notification of
    /// `milliseconds` on the seat, made in one roundtrip.
    static func inhibitedWindow(_ fixture: ProtocolFixture, notifyAfter milliseconds: UInt32) throws
        -> (client: WireClient, window: Window, inhibitor: Proxy, notification: Proxy) {
        let client = try fixture.connect()
        let window = try fixture.mapToplevel(client)
        let manager = try client.global("zwp_idle_inhibit_manager_v1", version: 1)
        let inhibitor = try #require(client.request(manager, "create_inhibitor", window.surface))
        let notification = try Self.notification(client, after: milliseconds)
        try fixture.roundtrip(client)
        return (client, window, inhibitor, notification)
    }

    @Test("a notification is idled after its timeout without input and resumed by a touch; one made with a later timeout is not idled with it")
    func idledAndResumed() throws {
        let fixture = try ProtocolFixture()
        defer { fixture.end() }
        let client = try fixture.connect()
        _ = try fixture.mapToplevel(client)
        let short = try Self.notification(client, after: 50)
        let long = try Self.notification(client, after: 60_000)
        try fixture.roundtrip(client)
        Self.serve(fixture) { !client.events(of: short, named: "idled").isEmpty }
        #expect(client.events(of: short).map(\.name) == ["idled"])
        #expect(client.events(of: long).isEmpty)
        fixture.tap(1, x: 50, y: 50)
        try fixture.roundtrip(client)
        #expect(client.events(of: short).map(\.name) == ["idled", "resumed"])
        #expect(client.events(of: long).isEmpty, "a notification that was not idled hears no resumed")
        Self.serve(fixture) { client.events(of: short, named: "idled").count == 2 }
        #expect(client.events(of: short).map(\.name) == ["idled", "resumed", "idled"], "idle again after another timeout without input")
    }

    @Test("an inhibitor on a shown surface holds a notification back; once destroyed, the timeout counts again and it is idled")
    func inhibited() throws {
        let fixture = try ProtocolFixture()
        defer { fixture.end() }
        let (client, _, inhibitor, notification) = try Self.inhibitedWindow(fixture, notifyAfter: 30)
        let until = Date().addingTimeInterval(0.3)
        Self.serve(fixture) { Date() > until }
        try fixture.roundtrip(client)
        #expect(client.events(of: notification).isEmpty, "held back while the inhibitor's surface is shown")
        client.request(inhibitor, "destroy")
        try fixture.roundtrip(client)
        Self.serve(fixture) { !client.events(of: notification, named: "idled").isEmpty }
        #expect(client.events(of: notification).map(\.name) == ["idled"])
    }

    @Test("[idle] blank-after darkens the output; the tap that wakes it reaches the client not at all, the next one does")
    func wakingTap() throws {
        let fixture = try ProtocolFixture()
        defer { fixture.end() }
        let client = try fixture.connect()
        _ = try fixture.mapToplevel(client)
        let touch = try #require(client.request(try client.seat, "get_touch"))
        try fixture.roundtrip(client)
        try fixture.server.shell.apply(try ServerConfiguration.parse("[idle]\nblank-after = 0.05\n", file: "idle.toml"))
        Self.serve(fixture) { !fixture.server.router.darkOutputs.isEmpty }
        #expect(fixture.server.router.darkOutputs.count == 1)
        fixture.tap(1, x: 50, y: 50)
        try fixture.roundtrip(client)
        #expect(client.events(of: touch).isEmpty, "the waking tap: \(client.events(of: touch).map(\.name))")
        #expect(fixture.server.router.darkOutputs.isEmpty)
        fixture.tap(2, x: 50, y: 50)
        try fixture.roundtrip(client)
        #expect(client.events(of: touch).map(\.name) == ["down", "frame", "up", "frame"])
    }
}
