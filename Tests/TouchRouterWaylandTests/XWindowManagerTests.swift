import Foundation
import Testing
import TouchRouterCore
import TouchRouterWayland
import TouchRouterXWayland

/// The X11 window manager in process: its events decoded from wire bytes, its properties
/// parsed with their bounds, and windows paired with a fixture client's surfaces (the
/// client standing in for Xwayland) into the session's tree.
@Suite("X11 window manager: wire decoding, property bounds, pairing with surfaces, popups, focus, random event sequences")
struct XWindowManagerTests {
    /// A fixture whose client `xwayland` is the session's Xwayland, and a window manager over recorded requests.
    final class Setup {
        let fixture: ProtocolFixture
        let xwayland: WireClient
        let requests = RecordedRequests()
        let manager: XWindowManager

        /// `owners`: the X11 selections' owners before the manager starts.
        init(kiosk: Bool = false, owners: [AtomName: X11Window] = [:]) throws {
            fixture = try ProtocolFixture { $0.kiosk = kiosk }
            xwayland = try fixture.connect("xwayland")
            let server = fixture.server
            server.protocols.xwayland.client = server.clientsByID[xwayland.coreID]?.client
            for (selection, owner) in owners { requests.selectionOwners[requests.atoms[selection]] = owner }
            manager = XWindowManager(requests: requests, handler: server, ownWindow: 0x1)
            server.protocols.xwayland.windowManager = manager
        }

        var atoms: X11Atoms { requests.atoms }

        /// A managed window as an X11 client makes one: created, asked to map, mapped.
        func window(_ id: X11Window, x: Int16, y: Int16, width: UInt16, height: UInt16, overrideRedirect: Bool = false) {
            manager.handle(.createNotify(window: id, parent: requests.root, x: x, y: y, width: width, height: height, overrideRedirect: overrideRedirect))
            if !overrideRedirect { manager.handle(.mapRequest(window: id, parent: requests.root)) }
            manager.handle(.mapNotify(window: id, overrideRedirect: overrideRedirect))
        }

        func surfaceID(_ window: X11Window, _ surface: Proxy) {
            manager.handle(.clientMessage(window: window, type: atoms[.WL_SURFACE_ID], format: 32, data: [surface.id, 0, 0, 0, 0]))
        }

        func end() { fixture.end() }
    }

    @Test("a selection an X11 client owned before the manager started is bridged: its TARGETS asked for at once, and once they come, the seat's primary selection is X11's; the clipboard, owned by nobody, is left alone")
    func selectionOwnedBeforeStart() throws {
        let setup = try Setup(owners: [.PRIMARY: 0x400001])
        defer { setup.end() }
        let atoms = setup.atoms
        #expect(setup.requests.requests.contains(.convert(atoms[.PRIMARY], target: atoms[.TARGETS], property: atoms[._TOUCH_ROUTER_SELECTION])), "\(setup.requests.requests)")
        #expect(!setup.requests.requests.contains { if case .convert(atoms[.CLIPBOARD], _, _) = $0 { return true } else { return false } })
        #expect(setup.fixture.server.selection(.primary) == nil)
        let targets = [atoms[.UTF8_STRING]].flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) } }
        setup.requests.selectionData = X11PropertyValue(type: atoms[.ATOM], format: 32, bytes: targets)
        setup.manager.handle(.selectionNotify(time: 0, requestor: 0x1, selection: atoms[.PRIMARY], target: atoms[.TARGETS], property: atoms[._TOUCH_ROUTER_SELECTION]))
        let primary = try #require(setup.fixture.server.selection(.primary))
        #expect(primary.mimeTypes.contains("text/plain;charset=utf-8"), "\(primary.mimeTypes)")
        #expect(setup.fixture.server.selection(.clipboard) == nil)
    }

    @Test("events decode from their wire bytes field by field; a short or unknown one is .other")
    func decoding() {
        var create = [UInt8](repeating: 0, count: 32)
        create[0] = 16
        create[4...7] = [0x00, 0x01, 0, 0]
        create[8...11] = [0x01, 0x00, 0x20, 0x00]
        create[12...13] = [0xF6, 0xFF]
        create[14...15] = [20, 0]
        create[16...17] = [0x20, 0x03]
        create[18...19] = [0x58, 0x02]
        create[22] = 1
        #expect(X11Event(wire: create) == .createNotify(window: 0x200001, parent: 0x100, x: -10, y: 20, width: 800, height: 600, overrideRedirect: true))
        var message = [UInt8](repeating: 0, count: 32)
        message[0] = 33 | 0x80
        message[1] = 32
        message[4...7] = [5, 0, 0, 0]
        message[8...11] = [0xE8, 0x03, 0, 0]
        message[12...15] = [42, 0, 0, 0]
        #expect(X11Event(wire: message) == .clientMessage(window: 5, type: 1000, format: 32, data: [42, 0, 0, 0, 0]), "a sent event's high bit is ignored")
        #expect(X11Event(wire: [UInt8](repeating: 16, count: 31)) == .other(code: 0xff))
        var fixes = [UInt8](repeating: 0, count: 32)
        fixes[0] = 87
        fixes[8...11] = [9, 0, 0, 0]
        #expect(X11Event(wire: fixes, xfixesFirstEvent: 87) == .selectionOwnerChanged(owner: 9, selection: 0, time: 0))
        #expect(X11Event(wire: fixes) == .other(code: 87))
    }

    @Test("properties are read only in their format and within their bounds: WM_CLASS, titles in Latin-1 and UTF-8, WM_HINTS and size hints, and an oversized one cut")
    func properties() {
        let wmClass = X11PropertyValue(type: 31, format: 8, bytes: Array("xterm\0XTerm\0".utf8))
        #expect(wmClass.windowClass?.instance == "xterm" && wmClass.windowClass?.class == "XTerm")
        #expect(X11PropertyValue(type: 31, format: 8, bytes: Array("lonely".utf8)).windowClass?.class == "lonely", "a missing class is the instance")
        #expect(X11PropertyValue(type: 31, format: 32, bytes: Array("xterm\0XTerm\0".utf8)).windowClass == nil, "format 32 is no WM_CLASS")
        #expect(X11PropertyValue(type: 31, format: 8, bytes: [0x63, 0x61, 0x66, 0xE9]).text(utf8: false) == "café", "STRING is Latin-1")
        #expect(X11PropertyValue(type: 31, format: 8, bytes: [0x61, 0xFF, 0x62, 0, 0x63]).text(utf8: true) == "a\u{FFFD}b", "invalid UTF-8 replaced, cut at NUL")
        #expect(X11PropertyValue(type: 4, format: 32, bytes: [1, 0, 0, 0]).acceptsInput == nil, "WM_HINTS shorter than its input field")
        #expect(X11PropertyValue(type: 4, format: 32, bytes: [1, 0, 0, 0, 0, 0, 0, 0]).acceptsInput == false)
        #expect(X11PropertyValue(type: 4, format: 32, bytes: [1, 2, 3]).words == [], "a partial word is dropped")
        var hints = [UInt8](repeating: 0, count: 72)
        hints[0] = 16 | 32
        hints[20] = 100; hints[24] = 50; hints[28] = 200; hints[32] = 150
        #expect(X11PropertyValue(type: 41, format: 32, bytes: hints).sizeHints.minimum! == (100, 50))
        #expect(X11PropertyValue(type: 41, format: 32, bytes: hints).sizeHints.maximum! == (200, 150))
        #expect(X11PropertyValue(type: 31, format: 8, bytes: [UInt8](repeating: 65, count: 100_000)).bytes.count == X11PropertyValue.maximumBytes)
    }

    @Test("a window named by WL_SURFACE_ID maps into the tree where X11 placed it, labelled x11:CLASS: title, takes the keyboard, and the X11 focus follows; unmapped, it leaves")
    func pairing() throws {
        let setup = try Setup()
        defer { setup.end() }
        let client = setup.xwayland
        setup.requests.set(0x200001, .WM_CLASS, text: "demo\0Demo\0")
        setup.requests.set(0x200001, ._NET_WM_NAME, type: .UTF8_STRING, text: "Hello")
        setup.window(0x200001, x: 50, y: 60, width: 300, height: 200)
        #expect(setup.requests.requests.contains(.configure(0x200001, x: 50, y: 60, width: 300, height: 200)), "placed as it asked outside kiosk mode")
        #expect(setup.requests.requests.contains(.map(0x200001)))
        let surface = try client.createSurface()
        try client.show(surface, width: 300, height: 200)
        try setup.fixture.roundtrip(client)
        #expect(setup.fixture.toplevels(of: client).isEmpty, "a surface no WL_SURFACE_ID named is not mapped")
        setup.surfaceID(0x200001, surface)
        let windows = setup.fixture.toplevels(of: client)
        #expect(windows.map(\.position) == [Offset(dx: 50, dy: 60)] && windows.map(\.label) == ["x11:Demo: Hello"], "\(windows)")
        #expect(setup.fixture.server.router.keyboardFocus == windows.first?.id)
        #expect(setup.requests.requests.contains(.focus(0x200001)), "SetInputFocus follows the session's keyboard focus: \(setup.requests.requests)")

        setup.manager.handle(.configureNotify(window: 0x200001, x: 80, y: 90, width: 300, height: 200, overrideRedirect: false))
        #expect(setup.fixture.toplevels(of: client).map(\.position) == [Offset(dx: 80, dy: 90)], "a move in X11 moves it in the tree")
        setup.manager.handle(.unmapNotify(window: 0x200001))
        #expect(setup.fixture.toplevels(of: client).isEmpty)
    }

    @Test("WL_SURFACE_ID may come before the session has read the surface's creation: the window is paired when the surface comes")
    func surfaceAfterMessage() throws {
        let setup = try Setup()
        defer { setup.end() }
        let client = setup.xwayland
        setup.window(0x200002, x: 0, y: 0, width: 100, height: 100)
        // The id the client's next new object takes: one past the newest.
        let probe = try client.createSurface()
        try setup.fixture.roundtrip(client)
        setup.manager.handle(.clientMessage(window: 0x200002, type: setup.atoms[.WL_SURFACE_ID], format: 32, data: [probe.id + 1, 0, 0, 0, 0]))
        #expect(setup.manager.windows[0x200002]?.surface == nil, "no such surface yet")
        let surface = try client.createSurface()
        #expect(surface.id == probe.id + 1)
        try client.show(surface, width: 100, height: 100)
        try setup.fixture.roundtrip(client)
        #expect(setup.fixture.toplevels(of: client).count == 1)
    }

    @Test("an override-redirect window (a menu) maps as a popup of the focused X11 window, where X11 put it, and never takes the focus")
    func overrideRedirectPopup() throws {
        let setup = try Setup()
        defer { setup.end() }
        let client = setup.xwayland
        setup.window(0x200001, x: 100, y: 100, width: 400, height: 300)
        let main = try client.createSurface()
        try client.show(main, width: 400, height: 300)
        try setup.fixture.roundtrip(client)
        setup.surfaceID(0x200001, main)
        setup.requests.clear()
        setup.window(0x200003, x: 130, y: 180, width: 120, height: 60, overrideRedirect: true)
        let menu = try client.createSurface()
        try client.show(menu, width: 120, height: 60)
        try setup.fixture.roundtrip(client)
        setup.surfaceID(0x200003, menu)
        let tree = setup.fixture.server.tree
        let top = try #require(setup.fixture.toplevels(of: client).first)
        let popups = tree.children(of: top.id).compactMap { tree.surface($0) }
        #expect(popups.map(\.role) == [.popup] && popups.map(\.position) == [Offset(dx: 30, dy: 80)], "\(popups)")
        #expect(!setup.requests.requests.contains { if case .configure(0x200003, _, _, _, _) = $0 { true } else { false } }, "an override-redirect window is never configured")
        #expect(!setup.requests.requests.contains(.focus(0x200003)))
        #expect(setup.fixture.server.router.keyboardFocus == top.id)
    }

    @Test("kiosk mode: a normal window is configured to fill the output whatever it asks; a dialog keeps its size, centred; _NET_WM_STATE fullscreen is honoured")
    func kioskPlacement() throws {
        let setup = try Setup(kiosk: true)
        defer { setup.end() }
        setup.window(0x200001, x: 10, y: 10, width: 300, height: 200)
        #expect(setup.requests.requests.contains(.configure(0x200001, x: 0, y: 0, width: 1920, height: 1080)), "\(setup.requests.requests)")
        setup.manager.handle(.configureRequest(window: 0x200001, x: 5, y: 5, width: 640, height: 480, mask: 15, stackMode: 0))
        #expect(setup.requests.requests.filter { $0 == .configure(0x200001, x: 0, y: 0, width: 1920, height: 1080) }.count == 2, "a request to shrink is answered with the output again")
        setup.requests.set(0x200002, ._NET_WM_WINDOW_TYPE, words: [setup.atoms[._NET_WM_WINDOW_TYPE_DIALOG]])
        setup.window(0x200002, x: 0, y: 0, width: 400, height: 200)
        #expect(setup.requests.requests.contains(.configure(0x200002, x: 760, y: 440, width: 400, height: 200)), "\(setup.requests.requests)")
        setup.manager.handle(.clientMessage(window: 0x200002, type: setup.atoms[._NET_WM_STATE], format: 32, data: [1, setup.atoms[._NET_WM_STATE_FULLSCREEN], 0, 1, 0]))
        #expect(setup.requests.requests.last { if case .configure(0x200002, _, _, _, _) = $0 { true } else { false } } == .configure(0x200002, x: 0, y: 0, width: 1920, height: 1080))
        #expect(setup.requests.requests.contains(.setProperty(0x200002, setup.atoms[._NET_WM_STATE], words: [setup.atoms[._NET_WM_STATE_FULLSCREEN]], bytes: nil)))
    }

    @Test("an X11 dialog (WM_TRANSIENT_FOR) stays above its window when that window is raised; a transient-for cycle ends the walk")
    func dialogAboveParent() throws {
        let setup = try Setup()
        defer { setup.end() }
        let client = setup.xwayland
        var surfaces: [X11Window: Proxy] = [:]
        func show(_ window: X11Window, transientFor parent: X11Window?) throws {
            if let parent { setup.requests.set(window, .WM_TRANSIENT_FOR, type: .WINDOW, words: [parent]) }
            setup.window(window, x: 10, y: 10, width: 100, height: 100)
            let surface = try client.createSurface()
            try client.show(surface, width: 100, height: 100)
            try setup.fixture.roundtrip(client)
            setup.surfaceID(window, surface)
            surfaces[window] = surface
        }
        try show(0x200001, transientFor: nil)
        try show(0x200002, transientFor: 0x200001)
        try show(0x200003, transientFor: nil)
        let server = setup.fixture.server
        func id(_ window: X11Window) -> SurfaceID? { setup.manager.windows[window]?.surface?.id }
        func stack() -> [SurfaceID] { server.tree.outputs.first?.toplevels ?? [] }
        #expect(stack() == [id(0x200001), id(0x200002), id(0x200003)].compactMap { $0 })
        server.raiseWindow(try #require(id(0x200001)))
        #expect(stack() == [id(0x200003), id(0x200001), id(0x200002)].compactMap { $0 }, "the dialog is raised with its window, above it")
        // A cycle: the first window transient for the dialog too.
        setup.requests.set(0x200001, .WM_TRANSIENT_FOR, type: .WINDOW, words: [0x200002])
        setup.manager.handle(.propertyNotify(window: 0x200001, atom: setup.atoms[.WM_TRANSIENT_FOR], deleted: false))
        server.raiseWindow(try #require(id(0x200003)))
        server.raiseWindow(try #require(id(0x200001)))
        #expect(stack().last == id(0x200002) || stack().last == id(0x200001), "the walk ends: \(stack())")
    }

    @Test("close: WM_DELETE_WINDOW to a window that takes it, KillClient to one that does not")
    func close() throws {
        let setup = try Setup()
        defer { setup.end() }
        setup.requests.set(0x200001, .WM_PROTOCOLS, words: [setup.atoms[.WM_DELETE_WINDOW]])
        setup.window(0x200001, x: 0, y: 0, width: 10, height: 10)
        setup.window(0x200002, x: 0, y: 0, width: 10, height: 10)
        setup.manager.close(try #require(setup.manager.windows[0x200001]))
        setup.manager.close(try #require(setup.manager.windows[0x200002]))
        #expect(setup.requests.requests.contains(.clientMessage(0x200001, type: setup.atoms[.WM_PROTOCOLS], data: [setup.atoms[.WM_DELETE_WINDOW], 0, 0, 0, 0])))
        #expect(setup.requests.requests.contains(.kill(0x200002)))
    }

    @Test("random event sequences against real surfaces: after every step each mapped X11 surface belongs to a live, mapped window, X11 sizes stay in range, and Xwayland's end leaves nothing in the tree")
    func randomSequences() throws {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<20 {
            let setup = try Setup(kiosk: round % 2 == 0)
            defer { setup.end() }
            let client = setup.xwayland
            var surfaces: [Proxy] = []
            let ids: [X11Window] = (1...6).map { 0x200000 + $0 }
            for _ in 0..<60 {
                let window = ids.randomElement(using: &generator)!
                switch Int.random(in: 0..<11, using: &generator) {
                case 0: setup.manager.handle(.createNotify(window: window, parent: Bool.random() ? setup.requests.root : 0x5, x: .random(in: -50...2000), y: .random(in: -50...1200),
                                                           width: .random(in: 0...3000), height: .random(in: 0...3000), overrideRedirect: Bool.random()))
                case 1: setup.manager.handle(.mapRequest(window: window, parent: setup.requests.root))
                case 2: setup.manager.handle(.mapNotify(window: window, overrideRedirect: Bool.random()))
                case 3: setup.manager.handle(.unmapNotify(window: window))
                case 4: setup.manager.handle(.destroyNotify(window: window))
                case 5: setup.manager.handle(.configureNotify(window: window, x: .random(in: .min ... .max), y: .random(in: .min ... .max), width: .random(in: 0...UInt16.max), height: .random(in: 0...UInt16.max), overrideRedirect: Bool.random()))
                case 6: setup.manager.handle(.configureRequest(window: window, x: .random(in: .min ... .max), y: .random(in: .min ... .max), width: .random(in: 0...UInt16.max), height: .random(in: 0...UInt16.max), mask: .random(in: 0...127), stackMode: 0))
                case 7:
                    let surface = try client.createSurface()
                    try client.show(surface, width: .random(in: 1...64), height: .random(in: 1...64))
                    surfaces.append(surface)
                    try setup.fixture.roundtrip(client)
                case 8: if let surface = surfaces.randomElement(using: &generator) { setup.surfaceID(window, surface) }
                case 9: setup.manager.handle(.clientMessage(window: window, type: setup.atoms[._NET_WM_STATE], format: 32, data: [.random(in: 0...2), setup.atoms[._NET_WM_STATE_FULLSCREEN], setup.atoms[._NET_WM_STATE_MAXIMIZED_VERT], 0, 0]))
                default:
                    if let surface = surfaces.popLast() {
                        client.request(surface, "destroy")
                        try setup.fixture.roundtrip(client)
                    }
                }
                try setup.fixture.roundtrip(client)
                for snapshot in setup.fixture.treeSurfaces(of: client).compactMap({ setup.fixture.server.tree.surface($0) }) {
                    let object = try #require(setup.fixture.server.protocols.surface.surfaces[snapshot.id])
                    let window = try #require(object.x11, "every Xwayland surface in the tree is an X11 window's")
                    #expect(window.mapped && setup.manager.windows[window.window] === window && window.surface === object)
                }
                for request in setup.requests.requests {
                    if case let .configure(_, x, y, width, height) = request {
                        #expect((Int(Int16.min)...Int(Int16.max)).contains(x) && (Int(Int16.min)...Int(Int16.max)).contains(y) && (1...32767).contains(width) && (1...32767).contains(height))
                    }
                }
                setup.requests.clear()
            }
            setup.manager.disconnected()
            #expect(setup.fixture.treeSurfaces(of: client).isEmpty, "Xwayland gone: none of its windows is left")
        }
    }
}
