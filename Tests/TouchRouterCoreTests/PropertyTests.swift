import Testing
import TouchRouterCore
import TouchRouterReplay

/// Random operations on a tree, for the property tests. Keeps the tree small enough
/// that the reference walk stays cheap, and large enough to overlap heavily.
struct TreeFuzzer {
    var random: SystemLikeGenerator
    let tree: SurfaceTree
    var nextSurface: UInt32 = 1
    var nextOutput: UInt32 = 1
    var steps = 0
    var log: [String] = []

    init(seed: UInt64, tree: SurfaceTree) {
        random = SystemLikeGenerator(seed: seed)
        self.tree = tree
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
    mutating func chance(_ percent: Int) -> Bool { int(1...100) <= percent }
    mutating func pick<T>(_ items: [T]) -> T? { items.isEmpty ? nil : items[int(0...(items.count - 1))] }

    mutating func properties() -> SurfaceProperties {
        var p = SurfaceProperties()
        p.mapped = !chance(8)
        p.hidden = chance(8)
        p.opacity = [1, 1, 1, 0.5, 0.01, 0.005, 0][int(0...6)]
        p.interactionEnabled = !chance(8)
        p.acceptsKeyboardFocus = !chance(20)
        p.exclusiveTouch = chance(15)
        p.multipleTouch = !chance(15)
        return p
    }

    mutating func region() -> Region<SurfaceSpace>? {
        if chance(40) { return nil }
        var region = Region<SurfaceSpace>()
        for _ in 0..<int(0...3) {
            let rect = Rect<SurfaceSpace>(x: int(-20...200), y: int(-20...200), width: int(0...250), height: int(0...250))
            if chance(70) { region.add(rect) } else { region.subtract(rect) }
        }
        return region
    }

    /// One random operation; it may be refused by the tree (that is fine, and checked to change nothing).
    mutating func step() {
        let surfaces = tree.allSurfaces
        let outputs = tree.outputs.map(\.id)
        let roll = int(1...100)
        steps += 1
        // Now and then the first output turns (width and height swapped), without a draw
        // from the generator, so that the other operations' sequence stays as it was.
        if steps % 397 == 0, let first = tree.outputs.first {
            let rect = Rect<GlobalSpace>(x: first.rect.x, y: first.rect.y, width: first.rect.height, height: first.rect.width)
            log.append("setOutputRect \(first.id) \(rect)")
            try? tree.setOutputRect(first.id, rect)
        }
        do {
            switch roll {
            case 1...2 where outputs.count < 3:
                let id = OutputID(nextOutput); nextOutput += 1
                let rect = Rect<GlobalSpace>(x: [0, 1000, 500, -300][int(0...3)], y: [0, 0, 300][int(0...2)], width: int(200...1000), height: int(200...1000))
                log.append("addOutput \(id) \(rect)")
                try tree.addOutput(id, name: "F\(id.raw)", rect: rect)
            case 3 where outputs.count > 1:
                let id = pick(outputs)!
                log.append("removeOutput \(id)")
                try tree.removeOutput(id)
            case 4...16 where surfaces.count < 40 && !outputs.isEmpty:
                let id = SurfaceID(nextSurface); nextSurface += 1
                let output = pick(outputs)!
                log.append("addToplevel \(id) on \(output)")
                try tree.addToplevel(id, client: ClientID(UInt32(int(1...4))), output: output, position: Offset(dx: int(-100...900), dy: int(-100...900)),
                                     size: Size(width: int(0...400), height: int(0...400)), properties: properties())
            case 17...30 where surfaces.count < 40 && !surfaces.isEmpty:
                let id = SurfaceID(nextSurface); nextSurface += 1
                let parent = pick(surfaces)!
                let below = chance(30)
                log.append("add\(roll % 3 == 0 ? "Popup" : "Subsurface") \(id) to \(parent) below:\(below)")
                if roll % 3 == 0 {
                    try tree.addPopup(id, client: tree.client(of: parent)!, parent: parent, position: Offset(dx: int(-100...300), dy: int(-100...300)),
                                      size: Size(width: int(0...300), height: int(0...300)), properties: properties())
                } else {
                    try tree.addSubsurface(id, client: tree.client(of: parent)!, parent: parent, position: Offset(dx: int(-100...300), dy: int(-100...300)),
                                           size: Size(width: int(0...300), height: int(0...300)), below: below, properties: properties())
                }
            case 31...40:
                guard let id = pick(surfaces) else { return }
                log.append("remove \(id)")
                try tree.remove(id)
            case 41...55:
                guard let id = pick(surfaces) else { return }
                let to = Offset(dx: int(-150...950), dy: int(-150...950))
                if chance(25), let output = pick(outputs) {
                    // Refused for anything but a toplevel.
                    log.append("moveToplevel \(id) to \(output) \(to)")
                    try tree.moveToplevel(id, to: output, position: to)
                } else {
                    log.append("move \(id) \(to)")
                    try tree.move(id, to: to)
                }
            case 56...62:
                guard let id = pick(surfaces) else { return }
                log.append("resize \(id)")
                try tree.resize(id, to: Size(width: int(0...400), height: int(0...400)))
            case 63...70:
                guard let id = pick(surfaces) else { return }
                log.append("raise/lower \(id)")
                if chance(50) { try tree.raise(id) } else { try tree.lower(id) }
            case 71...78:
                guard let id = pick(surfaces), let sibling = pick(surfaces) else { return }
                let above = chance(50)
                log.append("place \(id) \(above ? "above" : "below") \(sibling)")
                if above { try tree.place(id, above: sibling) } else { try tree.place(id, below: sibling) }
            case 79...88:
                guard let id = pick(surfaces) else { return }
                log.append("setInputRegion \(id)")
                try tree.setInputRegion(id, region())
            default:
                guard let id = pick(surfaces) else { return }
                log.append("setProperties \(id)")
                try tree.setProperties(id, properties())
            }
        } catch {
            log.append("  refused: \(error)")
        }
        if log.count > 40 { log.removeFirst(log.count - 40) }
    }

    /// Where a random surface lies in global space, if there is one.
    mutating func randomSurfaceFrame() -> Rect<GlobalSpace>? {
        guard let id = pick(tree.allSurfaces), let surface = tree.surface(id), let output = surface.output.flatMap({ tree.output($0) }) else { return nil }
        return Rect(x: output.rect.x + surface.originInOutput.dx, y: output.rect.y + surface.originInOutput.dy,
                    width: surface.size.width, height: surface.size.height)
    }

    /// Random points, and points on the edges of random surfaces, where rounding would show.
    mutating func probePoints() -> [Point<GlobalSpace>] {
        var points: [Point<GlobalSpace>] = []
        for _ in 0..<4 { points.append(Point(Double(int(-200...8000)) / 4, Double(int(-200...5000)) / 4)) }
        if let frame = randomSurfaceFrame() {
            for (dx, dy) in [(0.0, 0.0), (Double(frame.width) - 0.00390625, 1), (Double(frame.width), 1), (-0.00390625, 2)] {
                points.append(Point(Double(frame.x) + dx, Double(frame.y) + dy))
            }
        }
        return points
    }
}

@Suite("Properties")
struct PropertyTests {
    @Test("after each of 100,000 random tree operations (two seeds of 50,000) the index agrees with the reference walk", arguments: [UInt64(1), 2])
    func indexAgreesWithReference(seed: UInt64) throws {
        let tree = SurfaceTree()
        var fuzzer = TreeFuzzer(seed: seed, tree: tree)
        try tree.addOutput(OutputID(999), name: "BASE", rect: Rect(x: 0, y: 0, width: 1000, height: 1000))
        var checked = 0
        for step in 0..<50_000 {
            fuzzer.step()
            for point in fuzzer.probePoints() {
                let fast = tree.hitTest(point), slow = tree.referenceHitTest(point)
                checked += 1
                guard fast == slow else {
                    Issue.record("seed \(seed) step \(step): at \(point) index says \(String(describing: fast)), reference \(String(describing: slow)); last operations:\n\(fuzzer.log.joined(separator: "\n"))")
                    return
                }
            }
            if step % 16 == 0, let problem = tree.indexConsistencyProblem() {
                Issue.record("seed \(seed) step \(step): \(problem); last operations:\n\(fuzzer.log.joined(separator: "\n"))")
                return
            }
        }
        #expect(checked >= 50_000 * 4)
        #expect(tree.indexConsistencyProblem() == nil)
    }

    /// Two 512-px cells hold up to 300 windows between them, so each cell's list is long,
    /// and moves, restacks, adds and removes make and reuse vacancies at every place in it.
    @Test("windows crowding one cell: over 12,000 moves, restacks, adds and removes the cells stay sorted and agree with the reference walk")
    func crowdedCellsStayConsistent() throws {
        let tree = SurfaceTree()
        var random = SystemLikeGenerator(seed: 11)
        let output = OutputID(1)
        try tree.addOutput(output, name: "CROWD", rect: Rect(x: 0, y: 0, width: 1024, height: 512))
        var live: [SurfaceID] = []
        var next: UInt32 = 1
        func position() -> Offset { Offset(dx: Int.random(in: -100...900, using: &random), dy: Int.random(in: -100...400, using: &random)) }
        for step in 0..<12_000 {
            let roll = Int.random(in: 1...100, using: &random)
            let someone = live.isEmpty ? nil : live[Int.random(in: 0..<live.count, using: &random)]
            switch (roll, someone) {
            case (1...12, _) where live.count < 300, (_, nil):
                let id = SurfaceID(next)
                next += 1
                try tree.addToplevel(id, client: ClientID(1), output: output, position: position(),
                                     size: Size(width: Int.random(in: 20...300, using: &random), height: Int.random(in: 20...300, using: &random)))
                live.append(id)
            case (13...20, let id?):
                _ = try tree.remove(id)
                live.removeAll { $0 == id }
            case (21...30, let id?): try tree.raise(id)
            case (31...36, let id?): try tree.lower(id)
            case (37...46, let id?):
                let other = live[Int.random(in: 0..<live.count, using: &random)]
                if other != id { try tree.place(id, below: other) }
            case (47...52, let id?):
                let other = live[Int.random(in: 0..<live.count, using: &random)]
                if other != id { try tree.place(id, above: other) }
            case (_, let id?): try tree.move(id, to: position())
            }
            if step % 4 == 0, let problem = tree.indexConsistencyProblem() {
                Issue.record("step \(step): \(problem)")
                return
            }
            for _ in 0..<4 {
                let point = Point<GlobalSpace>(Double(Int.random(in: 0..<4096, using: &random)) / 4, Double(Int.random(in: 0..<2048, using: &random)) / 4)
                let fast = tree.hitTest(point), slow = tree.referenceHitTest(point)
                guard fast == slow else {
                    Issue.record("step \(step): at \(point) index says \(String(describing: fast)), reference \(String(describing: slow))")
                    return
                }
            }
        }
        #expect(live.count > 100, "the cells must have been crowded")
    }

    @Test("routing random input over a changing tree leaves nothing dangling and never breaks the protocol", arguments: [UInt64(7), 8])
    func nothingDangles(seed: UInt64) throws {
        let tree = SurfaceTree()
        let checker = ProtocolChecker()
        let clock = ManualClock()
        let router = Router(tree: tree, delivery: checker, clock: clock)
        router.focusPolicy = seed % 2 == 0 ? .onPress : .explicit
        var fuzzer = TreeFuzzer(seed: seed, tree: tree)
        try tree.addOutput(OutputID(999), name: "BASE", rect: Rect(x: 0, y: 0, width: 1000, height: 1000))
        for client: UInt32 in 1...4 {
            router.setCapabilities([ClientCapabilities.all, [.pointer, .keyboard], [.touch], []][Int(client - 1)], for: ClientID(client))
        }
        let shell = ScriptedResponder(.notHandled)
        router.attach(shell, to: .shell)
        var ignoring = 0
        var pointerMoved = false
        var dismissals = 0
        var pointerKeptFromOtherClients = 0
        for step in 0..<20_000 {
            clock.advance(byNanoseconds: 1_000_000)
            let roll = fuzzer.int(1...100)
            let id = TouchID(Int32(fuzzer.int(0...4)))
            let point = Point<GlobalSpace>(Double(fuzzer.int(-40...4400)) / 4, Double(fuzzer.int(-40...4400)) / 4)
            let device = DeviceID(UInt32(fuzzer.int(0...1)))
            // Events sometimes wait for the next, to be routed in one dispatch as a libinput
            // frame's are; anything else happens between dispatches, as in the session.
            let input = (26...86).contains(roll)
            let waits = input && fuzzer.chance(30)
            if !input, router.pendingEvents > 0 {
                router.dispatchAll()
                router.refreshPointerFocus()
            }
            switch roll {
            case 1...25: fuzzer.step()
            case 26...38: router.enqueue(.touchDown(device: device, time: clock.current, id: id, position: point))
            case 39...50: router.enqueue(.touchMotion(device: device, time: clock.current, id: id, position: point))
            case 51...60: router.enqueue(.touchUp(device: device, time: clock.current, id: id))
            case 61...62: router.enqueue(.touchCancel(device: device, time: clock.current, id: id))
            case 63...68: router.enqueue(.touchFrame(device: device, time: clock.current))
            case 69...76: router.enqueue(.pointerMotionAbsolute(device: DeviceID(5), time: clock.current, position: point))
            case 77...80: router.enqueue(.pointerButton(device: DeviceID(5), time: clock.current, button: EvdevCode.buttonLeft, state: fuzzer.chance(50) ? .pressed : .released))
            case 81...86: router.enqueue(.key(device: DeviceID(6), time: clock.current, key: UInt32(fuzzer.int(29...31)), state: fuzzer.chance(50) ? .pressed : .released))
            case 87...90: router.setKeyboardFocus(fuzzer.pick(tree.allSurfaces))
            case 91...92:
                if ignoring > 0, fuzzer.chance(85) { router.endIgnoringInteraction(); ignoring -= 1 } else { router.beginIgnoringInteraction(); ignoring += 1 }
            case 93: router.enqueue(.deviceRemoved(device: device, time: clock.current))
            case 94...96:
                if router.grabbingClient != nil, fuzzer.chance(50) {
                    router.endClientGrab()
                } else {
                    router.beginClientGrab(ClientID(UInt32(fuzzer.int(1...4)))) { dismissals += 1 }
                }
                // Onto some surface, so that the grab has a surface to keep the pointer from.
                let onto = fuzzer.randomSurfaceFrame().map { Point<GlobalSpace>(Double($0.x) + Double($0.width) / 2, Double($0.y) + Double($0.height) / 2) } ?? point
                router.enqueue(.pointerMotionAbsolute(device: DeviceID(5), time: clock.current, position: onto))
            default: router.enqueue(.pointerAxis(device: DeviceID(5), time: clock.current, axis: .vertical, value: 10, discrete: 1, source: .wheel))
            }
            if (69...76).contains(roll) || (94...96).contains(roll) { pointerMoved = true }
            if waits { continue }
            router.dispatchAll()
            // As the session does before it flushes clients.
            router.refreshPointerFocus()

            var problems = invariantProblems(router: router, tree: tree, checker: checker)
            if pointerMoved, router.pressedButtons.isEmpty, router.ignoreInteractionDepth == 0 {
                let hit = tree.hitTest(router.pointerPosition)
                let expected = hit.flatMap { hit -> SurfaceID? in
                    let client = tree.client(of: hit.surface)!
                    guard router.capabilities(of: client).contains(.pointer) else { return nil }
                    guard let grabbing = router.grabbingClient else { return hit.surface }
                    if grabbing != client { pointerKeptFromOtherClients += 1 }
                    return grabbing == client ? hit.surface : nil
                }
                if router.pointerFocus != expected { problems.append("pointer focus \(String(describing: router.pointerFocus)) where \(String(describing: expected)) is under the pointer") }
            }
            guard checker.violations.isEmpty, problems.isEmpty else {
                Issue.record("seed \(seed) step \(step): \(checker.violations + problems); last tree operations:\n\(fuzzer.log.joined(separator: "\n"))")
                return
            }
        }
        #expect(checker.deliveries > 1_500, "the run must exercise delivery, not only drop")
        #expect(dismissals > 10, "the run must exercise grabs dismissed by presses outside them")
        #expect(pointerKeptFromOtherClients > 10, "the run must exercise a grab keeping the pointer from another client's surface")
    }

    private func invariantProblems(router: Router, tree: SurfaceTree, checker: ProtocolChecker) -> [String] {
        var problems: [String] = []
        for touch in router.activeTouches {
            if let surface = touch.surface, !tree.contains(surface) { problems.append("touch \(touch.id) bound to removed \(surface)") }
            if case .surface(let surface)? = touch.responder, !tree.contains(surface) { problems.append("touch \(touch.id) held by a responder of removed \(surface)") }
        }
        if let focus = router.keyboardFocus, !tree.canTakeKeyboardFocus(focus) { problems.append("keyboard focus on \(focus), which cannot take it") }
        if router.waitingPresses > 0 { problems.append("\(router.waitingPresses) presses still wait for their raise and focus after the router returned") }
        let keyboardSeen = checker.keyboardEntered.flatMap { tree.contains($0) ? $0 : nil }
        let pointerSeen = checker.pointerEntered.flatMap { tree.contains($0) ? $0 : nil }
        if router.keyboardFocus != keyboardSeen { problems.append("router focus \(String(describing: router.keyboardFocus)) but client saw \(String(describing: checker.keyboardEntered))") }
        if let focus = router.pointerFocus, !tree.contains(focus) { problems.append("pointer focus on removed \(focus)") }
        if router.pointerFocus != pointerSeen { problems.append("router pointer focus \(String(describing: router.pointerFocus)) but client saw \(String(describing: checker.pointerEntered))") }
        return problems
    }
}

@Suite("The tree's change stamp")
struct ChangeStampTests {
    /// Everything the tree tells about itself, as text: outputs and their stacks, and each
    /// surface's snapshot, properties, parent and label.
    static func state(of tree: SurfaceTree) -> String {
        var text = "locked \(tree.isLocked) \(tree.outputs)"
        for id in tree.allSurfaces {
            text += "\n\(id) \(String(describing: tree.surface(id))) \(String(describing: tree.properties(of: id))) \(String(describing: tree.parent(of: id))) \(String(describing: tree.label(of: id)))"
        }
        return text
    }

    @Test("over 6,000 random tree operations and the lock, layers, properties and labels between them, whatever changed what the tree tells changed its change stamp", arguments: [UInt64(3), 4])
    func stampFollowsEveryChange(seed: UInt64) throws {
        let tree = SurfaceTree()
        var fuzzer = TreeFuzzer(seed: seed, tree: tree)
        try tree.addOutput(OutputID(999), name: "BASE", rect: Rect(x: 0, y: 0, width: 1000, height: 1000))
        var before = Self.state(of: tree), stamp = tree.changeStamp
        var changes = 0
        for step in 0..<3_000 {
            fuzzer.step()
            // What the fuzzer never calls, now and then: the lock, layers, properties, labels.
            let surfaces = tree.allSurfaces
            if step % 5 == 0, !surfaces.isEmpty {
                let id = surfaces[(step / 5) % surfaces.count]
                switch (step / 5) % 4 {
                case 0: tree.setLocked(!tree.isLocked)
                case 1: try? tree.setLayer(id, (step / 20) % 2 == 0 ? .top : .windows)
                case 2: try? tree.updateProperties(id) { $0.hidden.toggle() }
                default: try? tree.setLabel(id, "label \(step)")
                }
            }
            let after = Self.state(of: tree)
            if after != before {
                changes += 1
                guard tree.changeStamp != stamp else {
                    Issue.record("seed \(seed) step \(step): the tree changed and its stamp did not; last operations:\n\(fuzzer.log.suffix(3).joined(separator: "\n"))")
                    return
                }
            }
            before = after
            stamp = tree.changeStamp
        }
        #expect(changes > 1_000, "the operations changed the tree")
    }
}
