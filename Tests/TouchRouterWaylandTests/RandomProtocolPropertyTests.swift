import Foundation
import Testing
import TouchRouterConfig
import TouchRouterCore
import TouchRouterWayland

/// Seeded random sequences of valid requests across up to three clients (surfaces, xdg
/// toplevels and popups, layer surfaces, subsurfaces, buffers, selections, input,
/// disconnects), with the session's invariants checked after each step's roundtrip.
@Suite("Random protocol sequences in process: invariants after every step")
struct RandomProtocolPropertyTests {
    static let steps = 300

    @Test("each step of a seeded random sequence leaves the session answering a fresh client, no surface of a gone client anywhere, and the core's tree agreeing with what the clients hold",
          arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func randomSequence(seed: UInt64) throws {
        let run = try RandomRun(seed: seed)
        defer { run.fixture.end() }
        for step in 0..<Self.steps {
            var problems: [String]
            do {
                _ = try run.step()
                problems = try run.problems()
            } catch {
                problems = ["\(error)"]
            }
            guard problems.isEmpty else {
                Issue.record("seed \(seed), step \(step): \(problems.joined(separator: "; "))\nlast steps: \(run.log.suffix(12).joined(separator: " | "))")
                return
            }
        }
        #expect(run.log.count == Self.steps)
        #expect(run.counts.values.reduce(0, +) == Self.steps)
        #expect(run.counts.keys.count >= 10, "the steps cover most kinds of request: \(run.counts.keys.sorted())")
    }
}

/// One seeded run: a fixture, the clients it drives and their model.
final class RandomRun {
    let seed: UInt64
    let fixture: ProtocolFixture
    var random: SeededGenerator
    var clients: [ModelClient] = []
    var log: [String] = []
    var counts: [String: Int] = [:]
    private var named = 0

    /// `grants`: what every client may use beside the layer shell.
    init(seed: UInt64, grants: Set<Privilege> = []) throws {
        self.seed = seed
        random = SeededGenerator(seed: seed)
        fixture = try ProtocolFixture { options in
            options.outputs = [OutputMode(width: 800, height: 600)]
            options.grantedToEveryClient = grants.union([.layerShell])
        }
        try connect()
    }

    private func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
    private func chance(_ percent: Int) -> Bool { int(1...100) <= percent }
    private func pick<T>(_ items: [T]) -> T? { items.isEmpty ? nil : items[int(0...items.count - 1)] }

    private func connect() throws {
        named += 1
        clients.append(try ModelClient(fixture, name: "random \(named)"))
    }

    /// Picks an action that applies and sends its requests; its name.
    func step() throws -> String {
        let actions: [(name: String, weight: Int)] = [
            ("connect", clients.count < 3 ? 3 : 0), ("disconnect", clients.count < 2 ? 0 : 1), ("surface", 6), ("toplevel", 8), ("draw", 12),
            ("unmap", 3), ("toplevel request", 4), ("popup", 5), ("layer", 4), ("subsurface", 5), ("commit", 5), ("destroy", 6),
            ("selection", 3), ("input", 5),
        ]
        var roll = int(1...actions.map(\.weight).reduce(0, +))
        let name = actions.first { roll -= $0.weight; return roll <= 0 }!.name
        let done: String
        if name == "connect" || clients.isEmpty {
            try connect()
            done = "connect"
        } else if name == "disconnect" {
            let index = int(0...clients.count - 1)
            clients[index].client.disconnect()
            done = "disconnect \(clients.remove(at: index).client.name)"
        } else {
            let model = clients[int(0...clients.count - 1)]
            done = "\(model.client.name): " + (try act(name, model) ?? "nothing to \(name)")
        }
        log.append(done)
        counts[name, default: 0] += 1
        for model in clients { try fixture.roundtrip(model.client) }
        return done
    }

    /// Sends one action's requests for `model`; what it did, or nil if nothing applied.
    private func act(_ name: String, _ model: ModelClient) throws -> String? {
        let client = model.client
        switch name {
        case "surface":
            model.surfaces.append(ModelSurface(try client.createSurface()))
            return "create_surface"
        case "toplevel":
            let surface = try fresh(model)
            let xdg = try #require(client.request(try client.wmBase, "get_xdg_surface", surface.surface))
            let toplevel = try #require(client.request(xdg, "get_toplevel"))
            if chance(50) { client.request(toplevel, "set_title", "window \(int(1...99))") }
            surface.role = .toplevel(xdgSurface: xdg, toplevel: toplevel)
            client.request(surface.surface, "commit")
            return "toplevel on \(surface.surface)"
        case "draw":
            guard let surface = pick(model.surfaces.filter { ($0.xdgSurface != nil || $0.isLayer) && !$0.showsBuffer }) else { return nil }
            if surface.isLayer && !surface.committedOnce {
                client.request(surface.surface, "commit")
                surface.committedOnce = true
                try fixture.roundtrip(client)
            }
            guard let serial = model.unackedSerial(surface) ?? (surface.ackedSerial != 0 ? surface.ackedSerial : nil) else { return nil }
            if serial != surface.ackedSerial {
                client.request(surface.xdgSurface ?? layerRole(surface), "ack_configure", serial)
                surface.ackedSerial = serial
            }
            var (width, height) = (int(1...300), int(1...300))
            if case .layer(let layer) = surface.role, let configure = client.events(of: layer, named: "configure").last {
                width = min(max(Int(configure.uint(1) ?? 0), 1), 800)
                height = min(max(Int(configure.uint(2) ?? 0), 1), 600)
            }
            try show(model, surface, width: width, height: height)
            if surface.isToplevel || surface.isLayer { surface.inTree = true }
            return "draw \(surface.surface) \(width)x\(height)"
        case "unmap":
            guard let surface = pick(model.surfaces.filter { ($0.isToplevel || $0.isLayer) && $0.showsBuffer }) else { return nil }
            client.request(surface.surface, "attach", null, 0, 0)
            client.request(surface.surface, "commit")
            surface.showsBuffer = false
            if surface.isLayer {
                surface.inTree = false
                surface.committedOnce = false
            }
            return "unmap \(surface.surface)"
        case "toplevel request":
            guard let surface = pick(model.surfaces.filter(\.isToplevel)), case .toplevel(_, let toplevel) = surface.role else { return nil }
            let request = pick(["set_maximized", "unset_maximized", "set_fullscreen", "unset_fullscreen", "set_min_size", "set_app_id"])!
            switch request {
            case "set_fullscreen": client.request(toplevel, request, null)
            case "set_min_size": client.request(toplevel, request, int(0...100), int(0...100))
            case "set_app_id": client.request(toplevel, request, "app.\(int(1...9))")
            default: client.request(toplevel, request)
            }
            client.request(surface.surface, "commit")
            return "\(request) on \(surface.surface)"
        case "popup":
            let parents = model.surfaces.filter { ($0.isToplevel && $0.inTree || $0.isPopup) && $0.showsBuffer && $0.depth < 6 }
            guard let parent = pick(parents), let parentXdg = parent.xdgSurface else { return nil }
            let surface = try fresh(model)
            let positioner = try #require(client.request(try client.wmBase, "create_positioner"))
            client.request(positioner, "set_size", int(1...150), int(1...150))
            client.request(positioner, "set_anchor_rect", int(0...50), int(0...50), int(1...50), int(1...50))
            client.request(positioner, "set_anchor", int(0...8))
            client.request(positioner, "set_gravity", int(0...8))
            client.request(positioner, "set_constraint_adjustment", int(0...63))
            let xdg = try #require(client.request(try client.wmBase, "get_xdg_surface", surface.surface))
            let popup = try #require(client.request(xdg, "get_popup", parentXdg, positioner))
            client.request(positioner, "destroy")
            surface.role = .popup(xdgSurface: xdg, popup: popup, parent: parent)
            surface.parent = parent
            parent.children.append(surface)
            client.request(surface.surface, "commit")
            return "popup \(surface.surface) on \(parent.surface)"
        case "layer":
            let surface = try fresh(model)
            let anchor = UInt32(int(0...15))
            let width = anchor & 12 == 12 && chance(50) ? 0 : int(1...300)
            let height = anchor & 3 == 3 && chance(50) ? 0 : int(1...200)
            let layer = try #require(client.request(try client.global("zwlr_layer_shell_v1", version: 4), "get_layer_surface", surface.surface, null,
                                                    int(0...3), "random"))
            client.request(layer, "set_size", width, height)
            client.request(layer, "set_anchor", anchor)
            client.request(layer, "set_exclusive_zone", pick([-1, 0, 20, 100])!)
            client.request(layer, "set_margin", int(-10...30), int(-10...30), int(-10...30), int(-10...30))
            client.request(layer, "set_keyboard_interactivity", int(0...2))
            surface.role = .layer(layer)
            client.request(surface.surface, "commit")
            surface.committedOnce = true
            return "layer \(surface.surface) \(width)x\(height) anchor \(anchor)"
        case "subsurface":
            let child = try fresh(model)
            guard let parent = pick(model.surfaces.filter { $0 !== child && $0.depth < 8 }) else { return nil }
            let subsurface = try #require(client.request(try client.subcompositor, "get_subsurface", child.surface, parent.surface))
            child.role = .subsurface(subsurface, parent: parent)
            child.parent = parent
            parent.children.append(child)
            client.request(subsurface, "set_position", int(-50...250), int(-50...250))
            if chance(50) { client.request(subsurface, "set_desync") }
            try show(model, child, width: int(1...120), height: int(1...120))
            client.request(parent.surface, "commit")
            return "subsurface \(child.surface) under \(parent.surface)"
        case "commit":
            guard let surface = pick(model.surfaces.filter { !$0.hasRole || ($0.xdgSurface == nil && !$0.isLayer) }) else { return nil }
            if chance(30) { client.request(surface.surface, "frame") }
            if chance(60) {
                try show(model, surface, width: int(1...200), height: int(1...200))
            } else {
                client.request(surface.surface, "attach", null, 0, 0)
                client.request(surface.surface, "commit")
                surface.showsBuffer = false
            }
            return "commit \(surface.surface)"
        case "destroy":
            guard let surface = pick(model.surfaces) else { return nil }
            model.destroy(surface)
            return "destroy \(surface.surface)"
        case "selection":
            if let source = model.sources.first, chance(40) {
                client.request(source, "destroy")
                model.sources.removeFirst()
                return "destroy \(source)"
            }
            let source = try #require(client.request(try client.global("wl_data_device_manager", version: 3), "create_data_source"))
            client.request(source, "offer", "text/plain")
            client.request(model.dataDevice, "set_selection", source, model.latestKeyboardSerial)
            model.sources.append(source)
            return "set_selection \(source)"
        case "input":
            let (x, y) = (Double(int(0...799)), Double(int(0...599)))
            switch int(0...2) {
            case 0: fixture.tap(Int32(int(0...3)), x: x, y: y)
            case 1: fixture.server.inject(.pointerMotionAbsolute(device: WaylandServer.injectionDevice, time: fixture.now, position: Point(x: x, y: y)))
            default: fixture.type(UInt32(int(16...50)))
            }
            return "input at \(Int(x)),\(Int(y))"
        default:
            return nil
        }
    }

    /// A surface that may take any role: one the client has with none, no buffer ever and no
    /// children, or a new one.
    private func fresh(_ model: ModelClient) throws -> ModelSurface {
        if chance(70), let surface = pick(model.surfaces.filter({ !$0.hasRole && !$0.everAttached && $0.children.isEmpty })) { return surface }
        let surface = ModelSurface(try model.client.createSurface())
        model.surfaces.append(surface)
        return surface
    }

    private func layerRole(_ surface: ModelSurface) -> Proxy {
        if case .layer(let layer) = surface.role { return layer }
        return surface.surface
    }

    private func show(_ model: ModelClient, _ surface: ModelSurface, width: Int, height: Int) throws {
        try model.client.show(surface.surface, width: width, height: height, argb: UInt32(truncatingIfNeeded: int(0...0xFFFFFF)) | 0xFF00_0000)
        surface.everAttached = true
        surface.showsBuffer = true
    }

    /// The invariants, after a roundtrip of every client; what breaks them.
    func problems() throws -> [String] {
        var problems: [String] = []
        let probe = try fixture.connect("probe")
        probe.disconnect()
        for model in clients { try fixture.roundtrip(model.client) }
        // A closed socket hangs up at once, unless another thread of this test process is
        // spawning a program: its child holds a copy of every descriptor until it execs. The
        // session is served until it has heard every hang-up, for at most two seconds.
        for _ in 0..<2000 where fixture.server.fuzzingCensus.clients > clients.count {
            usleep(1000)
            fixture.serveOnce()
        }
        for model in clients where model.client.protocolError != nil {
            problems.append("\(model.client.name) was ended: \(model.client.protocolError!)")
        }
        let server = fixture.server, tree = server.tree
        let live = Set(clients.map(\.client.coreID))
        let gone = Set(fixture.clients.filter { !$0.isConnected }.map(\.coreID))
        for surface in tree.allSurfaces {
            guard let owner = tree.client(of: surface) else { continue }
            if gone.contains(owner) { problems.append("\(surface) of disconnected \(owner) is in the tree") }
            else if !live.contains(owner) { problems.append("\(surface) belongs to \(owner), no live client") }
            if let parent = tree.parent(of: surface), !tree.contains(parent) { problems.append("\(surface)'s parent \(parent) is not in the tree") }
        }
        let census = server.fuzzingCensus
        if census.clients != clients.count { problems.append("the session serves \(census.clients) clients, \(clients.count) are connected") }
        let held = clients.map(\.surfaces.count).reduce(0, +)
        if census.surfaceObjects != held { problems.append("the session has \(census.surfaceObjects) wl_surfaces, the clients hold \(held)") }
        if let problem = tree.indexConsistencyProblem() { problems.append("hit-test index: \(problem)") }
        // A frame callback waiting is on its way: the session's tick runs at the next frame
        // for those on no output, and an output's clock is awake for those on it.
        let pending = server.protocols.surface.pendingFrames
        let onNoClock = pending.filter { server.tickSendsFrames(on: tree.outputOf($0.surface)) }
        if !onNoClock.isEmpty, server.sessionTick?.arming != .frame {
            problems.append("\(onNoClock.count) frame callbacks on no output wait, and the session's tick is \(String(describing: server.sessionTick?.arming))")
        }
        for (callback, surface) in pending where !callback.destroyed {
            guard let output = tree.outputOf(surface), let clock = server.protocols.output.frameClocks[output] else { continue }
            if clock.asleep { problems.append("a frame callback of \(surface) waits on \(output), whose frame clock sleeps") }
        }
        if let focus = server.router.keyboardFocus, !tree.contains(focus) { problems.append("keyboard focus \(focus) is not in the tree") }
        if let focus = server.router.pointerFocus, !tree.contains(focus) { problems.append("pointer focus \(focus) is not in the tree") }
        for touch in server.router.activeTouches { if let surface = touch.surface, !tree.contains(surface) { problems.append("touch \(touch.id) on \(surface), not in the tree") } }
        for model in clients {
            let toplevels = tree.allSurfaces.filter { tree.client(of: $0) == model.client.coreID && tree.role(of: $0) == .toplevel }
            let windows = toplevels.filter { tree.layer(of: $0) == .windows }
            let shown = windows.filter { tree.properties(of: $0)?.mapped == true }
            if windows.count != model.xdgToplevelsInTree { problems.append("\(model.client.name): \(windows.count) windows in the tree, \(model.xdgToplevelsInTree) mapped") }
            if shown.count != model.xdgToplevelsShown { problems.append("\(model.client.name): \(shown.count) windows shown, \(model.xdgToplevelsShown) with a buffer") }
            if toplevels.count - windows.count != model.layersInTree { problems.append("\(model.client.name): \(toplevels.count - windows.count) layer surfaces in the tree, \(model.layersInTree) mapped") }
        }
        return problems
    }
}
