import Foundation
import Testing
import TouchRouterConfig
import TouchRouterCore
import TouchRouterWayland

/// zwlr_foreign_toplevel_manager_v1 in process (the first test was
/// Tests/TouchRouterCLITests/ForeignToplevelTests.swift with raw-client.py's `foreign`).
@Suite("Foreign toplevel management in process: handles, titles, states, close, unmap")
struct ForeignToplevelProtocolTests {
    static func fixture() throws -> ProtocolFixture {
        try ProtocolFixture { $0.grantedToEveryClient = [.foreignToplevel] }
    }

    /// The handles a manager was sent, in order.
    static func handles(_ client: WireClient, of manager: Proxy) -> [Proxy] {
        client.events(of: manager, named: "toplevel").compactMap { $0.object(0) }
    }

    @Test("a handle for the client's own mapped window, with its title, activated, ended by done; close reaches the window; a negative rectangle is invalid_rectangle")
    func ownWindow() throws {
        let fixture = try Self.fixture()
        defer { fixture.end() }
        let client = try fixture.connect()
        let window = try client.makeToplevel(title: "raw window")
        try fixture.roundtrip(client)
        try client.ackAndDraw(window, width: 100, height: 100)
        try fixture.roundtrip(client)
        let manager = try client.global("zwlr_foreign_toplevel_manager_v1", version: 3)
        try fixture.roundtrip(client)
        let handles = Self.handles(client, of: manager)
        try #require(handles.count == 1, "one handle: \(handles)")
        let handle = handles[0]
        #expect(client.events(of: handle, named: "title").last?.string(0) == "raw window")
        #expect(client.events(of: handle, named: "state").last?.words(0) == [2], "activated")
        #expect(client.events(of: handle).last?.name == "done", "the handle's description ends with done: \(client.events(of: handle))")

        client.request(handle, "close")
        try fixture.roundtrip(client)
        #expect(client.events(of: window.toplevel, named: "close").count == 1, "close through the handle reaches the window")

        client.request(handle, "set_rectangle", window.surface, 0, 0, -1, 10)
        let report = fixture.expectProtocolError(client, interface: "zwlr_foreign_toplevel_handle_v1", code: 0)
        #expect(report?.objectID == handle.id)
        #expect(report?.message == "zwlr_foreign_toplevel_handle_v1@\(handle.id).set_rectangle: -1x10 is negative", "\(String(describing: report))")
    }

    @Test("another client's window appears as a handle with its title and app id once mapped (not before), changes are sent with done, and the handle is closed when it unmaps and when its client goes")
    func otherClientsWindows() throws {
        let fixture = try Self.fixture()
        defer { fixture.end() }
        let panel = try fixture.connect("panel")
        let manager = try panel.global("zwlr_foreign_toplevel_manager_v1", version: 3)
        let app = try fixture.connect("app")

        let window = try app.makeToplevel(title: "Editor", appID: "org.example.editor")
        try fixture.roundtrip(app)
        try fixture.roundtrip(panel)
        #expect(Self.handles(panel, of: manager).isEmpty, "a window with no buffer yet is not listed")
        try app.ackAndDraw(window, width: 120, height: 80)
        try fixture.roundtrip(app)
        try fixture.roundtrip(panel)
        let handle = try #require(Self.handles(panel, of: manager).first)
        #expect(panel.events(of: handle, named: "title").last?.string(0) == "Editor")
        #expect(panel.events(of: handle, named: "app_id").last?.string(0) == "org.example.editor")

        app.request(window.toplevel, "set_title", "Editor — notes")
        app.request(window.surface, "commit")
        try fixture.roundtrip(app)
        try fixture.roundtrip(panel)
        #expect(panel.events(of: handle, named: "title").last?.string(0) == "Editor — notes", "a new title is sent")
        #expect(panel.events(of: handle).last?.name == "done")

        // Unmapped (a null buffer committed): closed; mapped again: a new handle.
        app.request(window.surface, "attach", null, 0, 0)
        app.request(window.surface, "commit")
        try fixture.roundtrip(app)
        try fixture.roundtrip(panel)
        #expect(panel.events(of: handle, named: "closed").count == 1, "unmapping closes the handle")
        let second = try fixture.mapToplevel(app, width: 50, height: 50, title: "Second")
        _ = second
        try fixture.roundtrip(panel)
        let handles = Self.handles(panel, of: manager)
        #expect(handles.count == 2, "the second window has a handle of its own: \(handles)")
        let secondHandle = try #require(handles.last)
        #expect(panel.events(of: secondHandle, named: "title").last?.string(0) == "Second")

        app.disconnect()
        try fixture.roundtrip(panel)
        #expect(panel.events(of: secondHandle, named: "closed").count == 1, "the client's going closes its handles")
        #expect(panel.protocolError == nil)
    }
}
