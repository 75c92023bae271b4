import Foundation
import Testing
import TouchRouterConfig
import TouchRouterCore
import TouchRouterProtocols
import TouchRouterWayland

/// What changes an output's picture besides the random clients' requests, for the property
/// tests of the quiet screen and of waiting captures: each `next` does one kind, picked by
/// its own seeded generator, in parts, with a check after each. The screen off, the VT
/// switch, the lock and the mode change each take a client step in their midst and undo
/// themselves after it, so that coming back must show what the step did and the random steps
/// run on the plain screen; dimming lasts until the next dimming event undoes it.
final class ScreenEvents {
    enum Kind: String, CaseIterable {
        case dim, off, mode, vt, lock, drag, pointer
    }

    private let run: RandomRun
    private let outputName: String
    /// The screen the VT switch takes away; none on a headless output.
    private let screen: QuietScreenPropertyTests.KeepingScreen?
    private let kinds: [Kind]
    private var random: SeededGenerator
    private let locker: WireClient
    private let dragger: WireClient
    private let draggerTouch: Proxy
    private let draggerDevice: Proxy
    /// The kinds done, each time it did what it is for (a drag that began, a lock locked and
    /// unlocked), so that a test can tell a kind that never got going.
    private(set) var done: [Kind] = []

    /// The clients need the session lock granted (`RandomRun(grants:)`).
    init(_ run: RandomRun, output: VirtualOutput, screen: QuietScreenPropertyTests.KeepingScreen?, kinds: [Kind] = Kind.allCases, seed: UInt64) throws {
        precondition(screen != nil || !kinds.contains(.vt), "a VT switch takes a screen away")
        self.run = run
        outputName = output.name
        self.screen = screen
        self.kinds = kinds
        random = SeededGenerator(seed: seed &* 7919)
        locker = try run.fixture.connect("locker")
        dragger = try run.fixture.connect("dragger")
        draggerTouch = try #require(dragger.request(try dragger.seat, "get_touch"))
        draggerDevice = try #require(dragger.request(try dragger.global("wl_data_device_manager", version: 3), "get_data_device", try dragger.seat))
        try run.fixture.roundtrip(dragger)
    }

    private var fixture: ProtocolFixture { run.fixture }
    private var server: WaylandServer { run.fixture.server }
    private var output: VirtualOutput { server.outputs.first { $0.name == outputName }! }
    private var power: OutputPower { server.protocols.output.power[output.id] ?? .on }
    private func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }

    /// Does one event; `check` runs after each of its parts and says whether to go on.
    /// False when a check failed.
    func next(_ check: (String) throws -> Bool) throws -> Bool {
        let kind = kinds[int(0...kinds.count - 1)]
        switch kind {
        case .dim:
            let dim = power == .on
            server.powerOutputs([output.id], to: dim ? .dimmed : .on, blanking: .black)
            done.append(kind)
            return try check(dim ? "dimmed" : "lit")
        case .off:
            let blanking: IdleBlanking = int(0...1) == 0 ? .powerOff : .black
            server.powerOutputs([output.id], to: .off, blanking: blanking)
            guard try check("off (\(blanking.rawValue))"), try check("while off: " + (try run.step())) else { return false }
            server.powerOutputs([output.id], to: .on, blanking: blanking)
            done.append(kind)
            return try check("on")
        case .mode:
            // Back after one step to the mode the random steps' input is aimed at.
            let size = ["1024x768", "640x480", "800x600"][int(0...2)]
            let change = OutputChange(mode: try #require(ModeText(size)), transform: int(0...2) == 0 ? .rotated90 : .normal, scale: int(1...3) == 1 ? 2 : 1)
            let mode = try server.setOutput(named: outputName, change)
            guard try check("mode \(size), transform \(mode.transform), scale \(mode.scale)"), try check("in that mode: " + (try run.step())) else { return false }
            try server.setOutput(named: outputName, OutputChange(mode: try #require(ModeText("800x600")), transform: .normal, scale: 1))
            done.append(kind)
            return try check("mode 800x600 again")
        case .vt:
            // What the drm backend's `pause` and `resume` leave the session with, without
            // their CRTC calls: no frame taken while away, everything drawn again on return.
            screen?.away = true
            guard try check("away on another VT"), try check("while away: " + (try run.step())) else { return false }
            screen?.away = false
            server.redrawPresentedOutputs()
            done.append(kind)
            return try check("back on its VT")
        case .lock:
            let lock = try SessionLockProtocolTests.lock(fixture, locker)
            guard try check("locked") else { return false }
            let (surface, role) = try SessionLockProtocolTests.lockSurface(locker, lock, fixture, argb: 0xFF00_0000 | UInt32(int(0...0xFF_FFFF)))
            guard try check("lock surface drawn"), try check("while locked: " + (try run.step())) else { return false }
            locker.request(lock, "unlock_and_destroy")
            locker.request(role, "destroy")
            locker.request(surface, "destroy")
            try fixture.roundtrip(locker)
            done.append(kind)
            return try check("unlocked")
        case .drag:
            return try drag(check)
        case .pointer:
            return try pointerOverShownCursor(check)
        }
    }

    /// The pointer moves on a quiet screen with the cursor shown already: nothing the settle
    /// compares changed (the cursor's visibility is the same), so the motion's own wake is
    /// what shows it. Tried again if the cursor hid before the screen went quiet.
    private func pointerOverShownCursor(_ check: (String) throws -> Bool) throws -> Bool {
        let clock = try #require(server.protocols.output.frameClocks[output.id])
        let rect = output.rect
        func move() -> String {
            let (x, y) = (rect.x + int(0...rect.width - 1), rect.y + int(0...rect.height - 1))
            server.inject(.pointerMotionAbsolute(device: WaylandServer.injectionDevice, time: fixture.now, position: Point(x: Double(x), y: Double(y))))
            return "pointer to \(x),\(y)"
        }
        for _ in 0..<5 {
            let first = move()
            try fixture.roundtrip(dragger)
            SessionTickTests.serve(fixture, for: 2) { clock.quiet || !server.cursor.visible }
            guard clock.quiet, server.cursor.visible else { continue }
            run.log.append(first + ", quiet with the cursor shown")
            let second = move()
            try fixture.roundtrip(dragger)
            done.append(.pointer)
            return try check(second + " with the cursor shown")
        }
        return try check("no pointer motion: the cursor hid before the screen went quiet, five times")
    }

    /// A touch drag with an icon from a fresh window of the dragger's: down, start_drag,
    /// three moves, the drop, and the window closed.
    private func drag(_ check: (String) throws -> Bool) throws -> Bool {
        let window = try fixture.mapToplevel(dragger, width: 300, height: 300)
        func close(_ done: String) throws -> Bool {
            dragger.request(window.toplevel, "destroy")
            dragger.request(window.xdgSurface, "destroy")
            dragger.request(window.surface, "destroy")
            try fixture.roundtrip(dragger)
            return try check(done)
        }
        let windowID = try #require(fixture.toplevels(of: dragger).last?.id)
        let rect = output.rect
        let points = stride(from: 10, to: rect.height, by: 20).flatMap { y in stride(from: 10, to: rect.width, by: 20).map { Point<GlobalSpace>(x: Double(rect.x + $0), y: Double(rect.y + y)) } }
        guard let start = points.first(where: { point in server.tree.hitTest(point).map { server.tree.toplevel(of: $0.surface) == windowID } ?? false }) else {
            return try close("no drag: the dragger's window is covered, and closed")
        }
        let downs = dragger.events(of: draggerTouch, named: "down").count
        fixture.touchDown(9, x: start.x, y: start.y)
        try fixture.roundtrip(dragger)
        let down = dragger.events(of: draggerTouch, named: "down")
        guard down.count == downs + 1, let serial = down.last?.uint(0) else {
            Issue.record("the dragger's window at \(Int(start.x)),\(Int(start.y)) got \(down.count - downs) touch downs, not one")
            return false
        }
        let source = try #require(dragger.request(try dragger.global("wl_data_device_manager", version: 3), "create_data_source"))
        dragger.request(source, "offer", "text/plain")
        let icon = try dragger.createSurface()
        dragger.request(draggerDevice, "start_drag", source, window.surface, icon, serial)
        try dragger.show(icon, width: 24, height: 24, argb: 0xFF00_0000 | UInt32(int(0...0xFF_FFFF)))
        try fixture.roundtrip(dragger)
        guard server.protocols.selection.dragAndDrop != nil else {
            fixture.touchUp(9)
            try fixture.roundtrip(dragger)
            Issue.record("the drag from \(Int(start.x)),\(Int(start.y)) on the dragger's window did not begin")
            return false
        }
        done.append(.drag)
        guard try check("drag from \(Int(start.x)),\(Int(start.y)) with an icon") else { return false }
        for _ in 0..<3 {
            let (x, y) = (rect.x + int(0...rect.width - 1), rect.y + int(0...rect.height - 1))
            fixture.touchMotion(9, x: Double(x), y: Double(y))
            try fixture.roundtrip(dragger)
            guard try check("drag to \(x),\(y)") else { return false }
        }
        fixture.touchUp(9)
        try fixture.roundtrip(dragger)
        guard try check("dropped") else { return false }
        dragger.request(icon, "destroy")
        dragger.request(source, "destroy")
        return try close("the dragger's window closed")
    }
}
