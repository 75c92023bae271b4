import Foundation
import Testing
import TouchRouterCore
import TouchRouterWayland

/// The clipboard (wl_data_device) and the primary selection (zwp_primary_selection_v1) in
/// process, between two clients: what ClipboardTests shows with wl-copy, wl-paste and real
/// toolkits (those stay), here at the protocol's own level.
@Suite("Selections in process: offers on focus, receive and send, cancelled and cleared sources")
struct SelectionProtocolTests {
    /// A client with a keyboard and a data device (and a primary selection device), mapped.
    struct Party {
        let client: WireClient
        let keyboard: Proxy
        let manager: Proxy
        let device: Proxy
        let primaryManager: Proxy
        let primaryDevice: Proxy
        var window: Window?

        init(_ fixture: ProtocolFixture, _ name: String, map: Bool = true) throws {
            client = try fixture.connect(name)
            keyboard = try #require(client.request(try client.seat, "get_keyboard"))
            manager = try client.global("wl_data_device_manager", version: 3)
            device = try #require(client.request(manager, "get_data_device", try client.seat))
            primaryManager = try client.global("zwp_primary_selection_device_manager_v1", version: 1)
            primaryDevice = try #require(client.request(primaryManager, "get_device", try client.seat))
            try fixture.roundtrip(client)
            if map { window = try fixture.mapToplevel(client) }
        }

        /// The serial of the latest keyboard enter or leave it was sent.
        var latestKeyboardSerial: UInt32? {
            client.events(of: keyboard).last { $0.name == "enter" || $0.name == "leave" }?.uint(0)
        }

        /// A source offering `types`, of the clipboard or the primary selection.
        func source(_ types: [String], primary: Bool = false) throws -> Proxy {
            let source = try #require(client.request(primary ? primaryManager : manager, primary ? "create_source" : "create_data_source"))
            for type in types { client.request(source, "offer", type) }
            return source
        }

        func setSelection(_ source: Proxy?, serial: UInt32, primary: Bool = false) {
            if let source {
                client.request(primary ? primaryDevice : device, "set_selection", source, serial)
            } else {
                client.request(primary ? primaryDevice : device, "set_selection", null, serial)
            }
        }

        /// The latest selection event of a device: .some(nil) for an empty selection.
        func selection(primary: Bool = false) -> Proxy?? {
            client.events(of: primary ? primaryDevice : device, named: "selection").last.map { $0.object(0) }
        }

        /// The MIME types an offer was sent.
        func types(of offer: Proxy) -> [String] {
            client.events(of: offer, named: "offer").compactMap { $0.string(0) }
        }
    }

    @Test("set_selection from one client: the other hears data_offer with the source's types and selection as it takes the keyboard focus (not before); its receive reaches the source's send, and what the source writes is what it reads")
    func offeredOnFocusAndPasted() throws {
        let fixture = try ProtocolFixture()
        defer { fixture.end() }
        let copier = try Party(fixture, "copier")
        let source = try copier.source(["text/plain;charset=utf-8", "text/plain"])
        copier.setSelection(source, serial: try #require(copier.latestKeyboardSerial))
        try fixture.roundtrip(copier.client)
        let own = try #require(copier.selection() ?? nil, "the focused copier is offered its own selection")
        #expect(copier.types(of: own) == ["text/plain;charset=utf-8", "text/plain"])

        let paster = try Party(fixture, "paster", map: false)
        #expect(paster.client.events(of: paster.device).isEmpty, "no offer without the keyboard focus")
        _ = try fixture.mapToplevel(paster.client)
        let offer = try #require(paster.selection() ?? nil, "the focus brings the selection")
        #expect(paster.client.events(of: paster.device, named: "data_offer").last?.object(0) == offer, "data_offer, then selection naming it")
        #expect(paster.types(of: offer) == ["text/plain;charset=utf-8", "text/plain"])

        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]) }
        _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
        paster.client.request(offer, "receive", "text/plain", FileDescriptor(fd: ends[1]))
        close(ends[1])
        try fixture.roundtrip(paster.client)
        try fixture.roundtrip(copier.client)
        let send = try #require(copier.client.events(of: source, named: "send").last, "the source is asked to send")
        #expect(send.string(0) == "text/plain")
        guard case .fd(let received) = send.arguments[1], let fd = copier.client.takeDescriptor(received) else {
            Issue.record("send came without a descriptor: \(send)")
            return
        }
        let text = "hello clipboard"
        _ = text.withCString { write(fd, $0, strlen($0)) }
        close(fd)
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = read(ends[0], &buffer, buffer.count)
        #expect(count > 0 && String(decoding: buffer[0..<max(count, 0)], as: UTF8.self) == text)
        #expect(read(ends[0], &buffer, buffer.count) == 0, "the paste ends: every copy of the write end is closed")
    }

    @Test("a newer selection cancels the old source and is offered to the focused client at once; a stale serial is ignored; a destroyed source, and a source's client gone, clear the selection for the focused client")
    func replacedAndCleared() throws {
        let fixture = try ProtocolFixture()
        defer { fixture.end() }
        let copier = try Party(fixture, "copier")
        let enter = try #require(copier.latestKeyboardSerial)
        let first = try copier.source(["text/plain"])
        copier.setSelection(first, serial: enter)
        try fixture.roundtrip(copier.client)
        let paster = try Party(fixture, "paster")
        #expect(paster.selection() != nil && paster.selection()! != nil, "offered on focus")

        // The copier lost the focus: its leave's serial is newer than its enter's.
        let leave = try #require(copier.latestKeyboardSerial)
        #expect(leave != enter)
        let second = try copier.source(["text/html"])
        copier.setSelection(second, serial: leave)
        try fixture.roundtrip(copier.client)
        try fixture.roundtrip(paster.client)
        #expect(copier.client.events(of: first, named: "cancelled").count == 1, "the replaced source is cancelled")
        let offer = try #require(paster.selection() ?? nil)
        #expect(paster.types(of: offer) == ["text/html"], "the focused client is offered the new selection at once")

        let stale = try copier.source(["text/stale"])
        let offersBefore = paster.client.events(of: paster.device, named: "data_offer").count
        copier.setSelection(stale, serial: enter)
        try fixture.roundtrip(copier.client)
        try fixture.roundtrip(paster.client)
        #expect(paster.client.events(of: paster.device, named: "data_offer").count == offersBefore, "an older serial than the selection's is stale")
        #expect(copier.client.events(of: second, named: "cancelled").isEmpty, "the selection kept its source")

        copier.client.request(second, "destroy")
        try fixture.roundtrip(copier.client)
        try fixture.roundtrip(paster.client)
        #expect(paster.selection().map { $0 == nil } == true, "a destroyed source leaves the selection empty")

        let third = try copier.source(["text/plain"])
        copier.setSelection(third, serial: leave)
        try fixture.roundtrip(copier.client)
        try fixture.roundtrip(paster.client)
        #expect((paster.selection() ?? nil) != nil, "a new source after an empty selection is taken")
        copier.client.disconnect()
        try fixture.roundtrip(paster.client)
        #expect(paster.selection().map { $0 == nil } == true, "the source's client gone, the selection is empty")
    }

    @Test("the primary selection is apart from the clipboard: each offered with its own source's types on its own device")
    func primaryApart() throws {
        let fixture = try ProtocolFixture()
        defer { fixture.end() }
        let copier = try Party(fixture, "copier")
        let serial = try #require(copier.latestKeyboardSerial)
        copier.setSelection(try copier.source(["text/clipboard"]), serial: serial)
        copier.setSelection(try copier.source(["text/primary"], primary: true), serial: serial, primary: true)
        try fixture.roundtrip(copier.client)
        let paster = try Party(fixture, "paster")
        let clipboard = try #require(paster.selection() ?? nil)
        let primary = try #require(paster.selection(primary: true) ?? nil)
        #expect(clipboard.interface == "wl_data_offer" && primary.interface == "zwp_primary_selection_offer_v1")
        #expect(paster.types(of: clipboard) == ["text/clipboard"])
        #expect(paster.types(of: primary) == ["text/primary"])
    }
}
