import CWaylandClientShim
import Foundation
import Testing
import TouchRouterConfig
import TouchRouterCore
import TouchRouterWayland

/// zwlr_virtual_pointer_v1 and zwp_virtual_keyboard_v1 in process, one client sending and
/// another receiving (the last two tests were VirtualInputTests' absoluteOntoOutput and
/// virtualKeyboardErrors with Clients/virtual-input-client.c).
@Suite("Virtual input in process: a virtual pointer's and keyboard's events reach another client")
struct VirtualInputProtocolTests {
    static func fixture(outputs: [OutputMode] = [OutputMode(width: 1920, height: 1080)]) throws -> ProtocolFixture {
        try ProtocolFixture { options in
            options.grantedToEveryClient = [.virtualInput]
            options.outputs = outputs
        }
    }

    /// A client with a pointer and a keyboard, its 200×200 window mapped (and focused).
    struct Receiver {
        let client: WireClient
        let pointer: Proxy
        let keyboard: Proxy
        let window: Window
        /// The window's top left in the layout.
        let origin: Offset

        init(_ fixture: ProtocolFixture) throws {
            client = try fixture.connect("receiver")
            pointer = try #require(client.request(try client.seat, "get_pointer"))
            keyboard = try #require(client.request(try client.seat, "get_keyboard"))
            window = try fixture.mapToplevel(client)
            let node = try #require(fixture.toplevels(of: client).first)
            let outputID = try #require(node.output)
            let output = try #require(fixture.server.tree.output(outputID))
            origin = Offset(dx: output.rect.x + node.originInOutput.dx, dy: output.rect.y + node.originInOutput.dy)
        }

        /// Its wl_pointer's buttons as (button, state), in order.
        var buttons: [[UInt32]] { client.events(of: pointer, named: "button").map { [$0.uint(2) ?? 0, $0.uint(3) ?? 0] } }
        var motions: [[Double]] { client.events(of: pointer, named: "motion").map { [$0.fixed(1) ?? -1, $0.fixed(2) ?? -1] } }
        var keys: [[UInt32]] { client.events(of: keyboard, named: "key").map { [$0.uint(2) ?? 0, $0.uint(3) ?? 0] } }
    }

    @Test("a virtual pointer's absolute and relative motions, buttons and scroll reach the window under it, each frame at once, in order")
    func pointerReachesWindow() throws {
        let fixture = try Self.fixture()
        defer { fixture.end() }
        let receiver = try Receiver(fixture)
        let sender = try fixture.connect("sender")
        let manager = try sender.global("zwlr_virtual_pointer_manager_v1", version: 2)
        let pointer = try #require(sender.request(manager, "create_virtual_pointer", null))
        let (x, y) = (receiver.origin.dx + 20, receiver.origin.dy + 30)
        sender.request(pointer, "motion_absolute", 0, x, y, 1920, 1080)
        sender.request(pointer, "frame")
        try fixture.roundtrip(sender)
        try fixture.roundtrip(receiver.client)
        #expect(receiver.client.events(of: receiver.pointer, named: "enter").last?.object(1) == receiver.window.surface, "the pointer entered the window")
        #expect(receiver.motions == [[20, 30]], "absolute onto the whole layout: \(receiver.motions)")

        sender.request(pointer, "motion", 0, 5.0, 7.0)
        sender.request(pointer, "motion", 0, 1.0, 1.0)
        sender.request(pointer, "frame")
        for (button, state) in [(272, 1), (272, 0), (273, 1), (273, 0)] {
            sender.request(pointer, "button", 0, button, state)
            sender.request(pointer, "frame")
        }
        sender.request(pointer, "axis_source", 2)
        sender.request(pointer, "axis", 0, 0, 5.0)
        sender.request(pointer, "frame")
        try fixture.roundtrip(sender)
        try fixture.roundtrip(receiver.client)
        #expect(receiver.motions.last == [26, 38], "two relative motions in one frame: \(receiver.motions)")
        #expect(receiver.buttons == [[272, 1], [272, 0], [273, 1], [273, 0]])
        let axis = receiver.client.events(of: receiver.pointer, named: "axis").first
        #expect(axis?.uint(1) == 0 && axis?.fixed(2) == 5.0, "a vertical scroll of 5: \(String(describing: axis))")
        #expect(sender.protocolError == nil && receiver.client.protocolError == nil)
    }

    @Test("create_virtual_pointer_with_output maps absolute motion onto that output; without one, onto the whole layout", arguments: [true, false])
    func absoluteOntoOutput(withOutput: Bool) throws {
        let fixture = try Self.fixture(outputs: [OutputMode(width: 800, height: 600), OutputMode(width: 800, height: 600)])
        defer { fixture.end() }
        let receiver = try Receiver(fixture)
        #expect(receiver.origin == Offset(dx: 0, dy: 0))
        let sender = try fixture.connect("sender")
        let manager = try sender.global("zwlr_virtual_pointer_manager_v1", version: 2)
        let pointer: Proxy
        if withOutput {
            // The outputs are bound in the order the registry lists them: the first is HEADLESS-1.
            let output = try #require(sender.bind("wl_output", version: 4))
            pointer = try #require(sender.request(manager, "create_virtual_pointer_with_output", null, output))
        } else {
            pointer = try #require(sender.request(manager, "create_virtual_pointer", null))
        }
        // Halfway across one output is (400, 300) on it; halfway across the layout, (800, 300) on the second.
        sender.request(pointer, "motion_absolute", 0, 400, 300, 800, 600)
        sender.request(pointer, "frame")
        sender.request(pointer, "button", 0, 274, 1)
        sender.request(pointer, "frame")
        sender.request(pointer, "button", 0, 274, 0)
        sender.request(pointer, "frame")
        try fixture.roundtrip(sender)
        try fixture.roundtrip(receiver.client)
        let position = fixture.server.router.pointerPosition
        #expect([position.x, position.y] == (withOutput ? [400, 300] : [800, 300]))
        #expect(!receiver.buttons.contains([274, 1]), "the window is at (0, 0), 200×200: neither point is on it")
    }

    @Test("a virtual keyboard's key before its keymap is no_keymap, naming the object; a keymap that is not one ends its client; the session goes on")
    func keyboardErrors() throws {
        let fixture = try Self.fixture()
        defer { fixture.end() }
        let receiver = try Receiver(fixture)

        let early = try fixture.connect("early")
        let earlyKeyboard = try #require(early.request(try early.global("zwp_virtual_keyboard_manager_v1", version: 1), "create_virtual_keyboard", try early.seat))
        early.request(earlyKeyboard, "key", 0, 30, 1)
        let noKeymap = fixture.expectProtocolError(early, interface: "zwp_virtual_keyboard_v1", code: 0)
        #expect(noKeymap?.objectID == earlyKeyboard.id)
        #expect(noKeymap?.message.contains(".key: no keymap was set") == true, "\(String(describing: noKeymap))")

        let garbage = try fixture.connect("garbage")
        let keyboard = try #require(garbage.request(try garbage.global("zwp_virtual_keyboard_manager_v1", version: 1), "create_virtual_keyboard", try garbage.seat))
        let text = Array("xkb_keymap { this is not a keymap".utf8) + [0]
        let fd = trc_shm_file(text.count)
        try #require(fd >= 0)
        _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        garbage.request(keyboard, "keymap", 1, FileDescriptor(fd: fd), UInt32(text.count))
        close(fd)
        garbage.request(keyboard, "key", 0, 30, 1)
        let unreadable = fixture.expectProtocolError(garbage, interface: "wl_display", code: 3)
        #expect(unreadable?.message.contains(".keymap: xkbcommon cannot read it") == true, "\(String(describing: unreadable))")

        try fixture.roundtrip(receiver.client)
        #expect(!receiver.keys.contains { $0.first == 30 }, "no key got through")
        fixture.type(46)
        try fixture.roundtrip(receiver.client)
        #expect(receiver.keys.suffix(2) == [[46, 1], [46, 0]], "a real key after both reaches the focused window: \(receiver.keys)")
    }
}
