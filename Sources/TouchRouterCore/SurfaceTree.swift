/// Outputs and their surface trees: the model every routing decision reads.
///
/// Each output is a root, like a UIWindow; toplevels are stacked on it; each surface
/// carries subsurfaces below and above it and popups above everything of its own.
/// Every change updates the hit-test index in place, so `hitTest` and
/// `referenceHitTest` always agree.
public final class SurfaceTree {
    private let tables = UncheckedState<(nodes: [SurfaceID: SurfaceNode], outputs: [OutputNode], geometryStamp: UInt64, changeStamp: UInt64, hitTests: UInt64)>(([:], [], 0, 0, 0))
    private var nodes: [SurfaceID: SurfaceNode] { _read { yield tables.pointee.nodes } _modify { yield &tables.pointee.nodes } }
    private var outputNodes: [OutputNode] { _read { yield tables.pointee.outputs } _modify { yield &tables.pointee.outputs } }

    /// Changes whenever a surface's origin in the layout may have changed, or a surface may
    /// have gone: an output added or removed, a surface added, moved or removed. What
    /// `globalOrigin(of:)` said stands as long as this stays the same.
    public var geometryStamp: UInt64 { tables.pointee.geometryStamp }
    private func geometryChanged() { tables.pointee.geometryStamp &+= 1 }
    /// Changes with every call that may change the tree, whatever it changed: what was read
    /// of the tree stands as long as this stays the same.
    public var changeStamp: UInt64 { tables.pointee.changeStamp }
    private func treeChanged() { tables.pointee.changeStamp &+= 1 }
    /// How many times `hitTest` was asked, for the tests that hold an event to one.
    public var hitTestCount: UInt64 { tables.pointee.hitTests }

    deinit {
        tables.release()
    }
    let index: HitTestIndex
    public weak var observer: (any SurfaceTreeObserver)?

    /// How deep subsurfaces and popups may nest below a toplevel. Every change to a
    /// toplevel walks its whole tree, and clients never nest more than a few levels
    /// (GTK's menus in menus, a video's subsurface): the bound keeps every walk short.
    public static let maximumDepth = 32

    /// `cellShift` sets the index's cell size to 2^cellShift pixels.
    public init(cellShift: Int = HitTestIndex.defaultCellShift) {
        index = HitTestIndex(cellShift: cellShift)
    }

    // MARK: Reading

    public var outputs: [OutputSnapshot] {
        outputNodes.map { OutputSnapshot(id: $0.id, name: $0.name, rect: $0.rect, toplevels: $0.toplevels.map(\.id)) }
    }

    public var surfaceCount: Int { nodes.count }

    /// The index's cells are 2^cellShift pixels square.
    public var cellShift: Int { index.cellShift }

    /// Checks the index's own bookkeeping; nil when sound, else what is wrong.
    public func indexConsistencyProblem() -> String? {
        let exclusive = nodes.values.count { $0.properties.exclusiveTouch }
        if exclusive != exclusiveTouchSurfaces { return "\(exclusive) surfaces have exclusive touch, counted \(exclusiveTouchSurfaces)" }
        return index.checkConsistency()
    }

    /// How many surfaces have exclusive touch. With none, a touch going down can be blocked
    /// by no other (unless its own surface is exclusive), and the rule need not look at the
    /// touches already down.
    public private(set) var exclusiveTouchSurfaces = 0

    /// Drops the index's cached answers, as a change over every output would; the next
    /// queries walk the grid. For benchmarks that time queries with nothing cached.
    public func forgetCachedHitTests() { index.forgetAllAnswers() }

    /// How many of the index's answer cells hold a cached answer, and how many of those
    /// are mixed (their queries walk the grid).
    public func cachedHitTestCounts() -> (current: Int, mixed: Int) { index.answerCounts() }

    /// The index's cached answer for the 16-px cell holding `point`, if it has a current one
    /// and it is not mixed: for tests of what the answers hold.
    public func cachedHitTestAnswer(at point: Point<GlobalSpace>) -> CachedAnswerSummary? { index.cachedAnswer(at: point) }

    public var allSurfaces: [SurfaceID] { nodes.keys.sorted() }

    public func contains(_ id: SurfaceID) -> Bool { nodes[id] != nil }

    /// Changes whenever a hit test could answer differently: a surface added, removed,
    /// moved, resized, restacked, shown or hidden, or its input region changed.
    public var hitTestRevision: UInt64 { index.revision }

    /// Brings the index up to date with every change now, as the next hit test would: for a
    /// host that wants the work done before a measured or latency-bound stretch.
    public func settleIndex() { index.settle() }

    /// How many times the index flattened a toplevel: changes inside one between two hit
    /// tests cost one flattening, however many there were.
    public var hitTestFlattenings: Int { index.flattenings }

    public func output(_ id: OutputID) -> OutputSnapshot? {
        outputNode(id).map { OutputSnapshot(id: $0.id, name: $0.name, rect: $0.rect, toplevels: $0.toplevels.map(\.id)) }
    }

    public func surface(_ id: SurfaceID) -> SurfaceSnapshot? {
        guard let node = nodes[id] else { return nil }
        let top = node.toplevel
        return SurfaceSnapshot(
            id: id, role: node.role, client: node.client, label: node.label, parent: node.parent?.id,
            output: top.output?.id, position: node.position, size: node.size, inputRegion: node.inputRegion,
            properties: node.properties, originInOutput: top.position + node.offsetInToplevel, layer: top.layer)
    }

    public func client(of id: SurfaceID) -> ClientID? { nodes[id]?.client }
    public func label(of id: SurfaceID) -> String? { nodes[id]?.label }
    public func role(of id: SurfaceID) -> SurfaceRole? { nodes[id]?.role }
    public func parent(of id: SurfaceID) -> SurfaceID? { nodes[id]?.parent?.id }
    public func properties(of id: SurfaceID) -> SurfaceProperties? { nodes[id]?.properties }
    public func toplevel(of id: SurfaceID) -> SurfaceID? { nodes[id]?.toplevel.id }
    /// The toplevel of `id` when a press on it would raise it: on an output and not the front
    /// of that output's stack. One lookup, no copy of the stack, for every finger going down.
    public func toplevelBehind(of id: SurfaceID) -> SurfaceID? {
        guard let top = nodes[id]?.toplevel, let output = top.output, output.toplevels.last !== top else { return nil }
        return top.id
    }
    public func outputOf(_ id: SurfaceID) -> OutputID? { nodes[id]?.toplevel.output?.id }
    /// The layer of the surface's toplevel.
    public func layer(of id: SurfaceID) -> StackingLayer? { nodes[id]?.toplevel.layer }

    /// Children front to back: popups, subsurfaces above, subsurfaces below.
    public func children(of id: SurfaceID) -> [SurfaceID] {
        nodes[id]?.childrenFrontToBack.map(\.id) ?? []
    }

    /// Subsurfaces of `id`, each list bottom first.
    public func subsurfaces(of id: SurfaceID) -> (below: [SurfaceID], above: [SurfaceID]) {
        guard let node = nodes[id] else { return ([], []) }
        return (node.below.map(\.id), node.above.map(\.id))
    }

    /// True when the surface and every ancestor are mapped and not hidden.
    public func isShown(_ id: SurfaceID) -> Bool {
        var node = nodes[id]
        while let current = node {
            if !current.properties.isShown { return false }
            node = current.parent
        }
        return nodes[id]?.toplevel.output != nil
    }

    /// UIKit's canBecomeFirstResponder, with the surface on screen.
    public func canTakeKeyboardFocus(_ id: SurfaceID) -> Bool {
        guard let node = nodes[id], node.properties.acceptsKeyboardFocus else { return false }
        return isShown(id)
    }

    /// `point` in the space of `id`, through outputs, toplevels and subsurface offsets:
    /// the same arithmetic as the hit tests.
    /// Where a surface's (0, 0) is in the layout; nil for a surface unknown or not on an
    /// output. `localPoint(p, in: id)` is `p.relative(to: globalOrigin(of: id))`.
    public func globalOrigin(of id: SurfaceID) -> Offset? {
        guard let node = nodes[id] else { return nil }
        let top = node.toplevel
        guard let output = top.output else { return nil }
        return output.rect.origin + top.position + node.offsetInToplevel
    }

    public func localPoint(_ point: Point<GlobalSpace>, in id: SurfaceID) -> Point<SurfaceSpace>? {
        guard let node = nodes[id] else { return nil }
        let top = node.toplevel
        guard let output = top.output else { return nil }
        let inOutput: Point<OutputSpace> = point.relative(to: output.rect.origin)
        let inToplevel: Point<SurfaceSpace> = inOutput.relative(to: top.position)
        return inToplevel.relative(to: node.offsetInToplevel)
    }

    /// The output whose rectangle holds `point`; the first listed wins where outputs overlap.
    public func output(at point: Point<GlobalSpace>) -> OutputID? {
        outputNodeIndex(at: point).map { outputNodes[$0].id }
    }

    /// The output holding `point` with its rectangle and name, without copying its toplevels.
    public func outputPlacement(at point: Point<GlobalSpace>) -> (id: OutputID, rect: Rect<GlobalSpace>, name: String)? {
        outputNodeIndex(at: point).map { (outputNodes[$0].id, outputNodes[$0].rect, outputNodes[$0].name) }
    }

    // MARK: Hit testing

    /// The fast path: the incremental index.
    public func hitTest(_ point: Point<GlobalSpace>) -> HitResult? {
        tables.pointee.hitTests &+= 1
        return index.hitTest(point)
    }

    /// The reference: a plain recursive walk, front to back, as UIKit's hitTest:withEvent:.
    /// Unlike UIKit, a surface's bounds do not clip its children: Wayland subsurfaces and
    /// popups take input outside their parent, as wlroots, Weston and WLCS expect.
    public func referenceHitTest(_ point: Point<GlobalSpace>) -> HitResult? {
        guard let outputIndex = outputNodeIndex(at: point) else { return nil }
        let output = outputNodes[outputIndex]
        let inOutput: Point<OutputSpace> = point.relative(to: output.rect.origin)
        for top in output.toplevels.reversed() {
            let inToplevel: Point<SurfaceSpace> = inOutput.relative(to: top.position)
            if let (node, origin) = Self.walk(top, isToplevel: true, offset: .zero, inToplevel) {
                // One subtraction of the surface's whole offset, so the local point is exact
                // whenever the point is, however far the toplevel lies from the output's origin.
                return HitResult(surface: node.id, output: output.id, local: inOutput.relative(to: top.position + origin))
            }
        }
        return nil
    }

    /// The surface holding the point, and its origin in its toplevel.
    private static func walk(_ node: SurfaceNode, isToplevel: Bool, offset: Offset, _ inToplevel: Point<SurfaceSpace>) -> (SurfaceNode, Offset)? {
        guard node.properties.takesPointerInput else { return nil }
        let origin = isToplevel ? Offset.zero : offset + node.position
        for child in node.popups.reversed() {
            if let hit = walk(child, isToplevel: false, offset: origin, inToplevel) { return hit }
        }
        for child in node.above.reversed() {
            if let hit = walk(child, isToplevel: false, offset: origin, inToplevel) { return hit }
        }
        for rect in node.inputRects {
            let inToplevelRect: Rect<SurfaceSpace> = rect.absolute(from: origin)
            if inToplevelRect.contains(inToplevel) { return (node, origin) }
        }
        for child in node.below.reversed() {
            if let hit = walk(child, isToplevel: false, offset: origin, inToplevel) { return hit }
        }
        return nil
    }

    private func outputNodeIndex(at point: Point<GlobalSpace>) -> Int? {
        for (i, output) in outputNodes.enumerated() where output.rect.contains(point) { return i }
        return nil
    }

    private func outputNode(_ id: OutputID) -> OutputNode? {
        outputNodes.first { $0.id == id }
    }

    private func node(_ id: SurfaceID) throws(SurfaceTreeError) -> SurfaceNode {
        guard let node = nodes[id] else { throw .unknownSurface(id) }
        return node
    }

    // MARK: Outputs

    public func addOutput(_ id: OutputID, name: String, rect: Rect<GlobalSpace>) throws(SurfaceTreeError) {
        treeChanged()
        geometryChanged()
        guard outputNode(id) == nil else { throw .duplicateOutput(id) }
        guard rect.width >= 0, rect.height >= 0 else { throw .negativeSize(Size(width: rect.width, height: rect.height)) }
        let grid = index.addOutput(id, rect: rect)
        outputNodes.append(OutputNode(id: id, name: name, rect: rect, grid: grid))
    }

    /// Gives an output a new place or size (a mode, transform or scale set while it runs).
    /// Its toplevels keep their positions in it; the index is rebuilt for them.
    public func setOutputRect(_ id: OutputID, _ rect: Rect<GlobalSpace>) throws(SurfaceTreeError) {
        treeChanged()
        guard let output = outputNode(id) else { throw .unknownOutput(id) }
        guard rect.width >= 0, rect.height >= 0 else { throw .negativeSize(Size(width: rect.width, height: rect.height)) }
        guard rect != output.rect else { return }
        geometryChanged()
        for top in output.toplevels { index.removeToplevel(top) }
        index.resizeOutput(id, rect: rect)
        output.rect = rect
        for i in output.toplevels.indices { index.insertToplevel(output.toplevels[i], stack: Array(output.toplevels[...i]), at: i) }
    }

    /// Moves a toplevel, with everything on it, to the top of another output's stack, at
    /// `position` relative to that output (an output going away hands its windows on).
    public func moveToplevel(_ id: SurfaceID, to output: OutputID, position: Offset) throws(SurfaceTreeError) {
        treeChanged()
        geometryChanged()
        let node = try node(id)
        guard node.parent == nil, let source = node.output else { throw .wrongRole(id, expected: .toplevel) }
        guard let target = outputNode(output) else { throw .unknownOutput(output) }
        guard source !== target else { return try move(id, to: position) }
        index.removeToplevel(node)
        source.toplevels.removeAll { $0 === node }
        node.position = position
        node.output = target
        let at = Self.topOfLayer(node.layer, in: target.toplevels)
        target.toplevels.insert(node, at: at)
        index.insertToplevel(node, stack: target.toplevels, at: at)
    }

    /// Removes an output and everything on it.
    public func removeOutput(_ id: OutputID) throws(SurfaceTreeError) {
        treeChanged()
        geometryChanged()
        guard let i = outputNodes.firstIndex(where: { $0.id == id }) else { throw .unknownOutput(id) }
        for top in outputNodes[i].toplevels.reversed() { try remove(top.id) }
        index.removeOutput(id)
        outputNodes.remove(at: i)
    }

    // MARK: Surfaces

    /// Adds a toplevel on top of its layer in its output's stack (windows by default).
    public func addToplevel(
        _ id: SurfaceID, client: ClientID, output: OutputID, position: Offset, size: Size,
        properties: SurfaceProperties = SurfaceProperties(), label: String? = nil, layer: StackingLayer = .windows
    ) throws(SurfaceTreeError) {
        treeChanged()
        geometryChanged()
        guard nodes[id] == nil else { throw .duplicateSurface(id) }
        guard size.width >= 0, size.height >= 0 else { throw .negativeSize(size) }
        guard let outputNode = outputNode(output) else { throw .unknownOutput(output) }
        var properties = properties
        properties.lockedOut = isLocked && layer != .lock
        let node = SurfaceNode(id: id, role: .toplevel, client: client, label: label ?? "\(id)", position: position, size: size, properties: properties)
        node.output = outputNode
        node.layer = layer
        nodes[id] = node
        if properties.exclusiveTouch { exclusiveTouchSurfaces += 1 }
        let at = Self.topOfLayer(layer, in: outputNode.toplevels)
        outputNode.toplevels.insert(node, at: at)
        index.insertToplevel(node, stack: outputNode.toplevels, at: at)
    }

    /// Where a toplevel of `layer` goes to be the top of its layer: below the first of a higher layer.
    private static func topOfLayer(_ layer: StackingLayer, in stack: [SurfaceNode]) -> Int {
        stack.firstIndex { $0.layer > layer } ?? stack.count
    }

    /// Moves a toplevel to another layer, on top of it (layer-shell's set_layer).
    public func setLayer(_ id: SurfaceID, _ layer: StackingLayer) throws(SurfaceTreeError) {
        treeChanged()
        let node = try node(id)
        guard node.parent == nil, let output = node.output else { throw .wrongRole(id, expected: .toplevel) }
        guard node.layer != layer else { return }
        node.layer = layer
        output.toplevels.removeAll { $0 === node }
        output.toplevels.insert(node, at: Self.topOfLayer(layer, in: output.toplevels))
        index.restackToplevel(node, stack: output.toplevels)
        if isLocked { setLockedOut(node, layer != .lock) }
    }

    // MARK: The session lock

    /// While the session is locked (ext-session-lock), only toplevels of the lock layer are
    /// shown and take input, whatever their own properties say; toplevels added meanwhile
    /// are locked out as they come.
    public private(set) var isLocked = false

    public func setLocked(_ locked: Bool) {
        treeChanged()
        guard locked != isLocked else { return }
        isLocked = locked
        for output in outputNodes {
            for node in output.toplevels { setLockedOut(node, locked && node.layer != .lock) }
        }
    }

    private func setLockedOut(_ node: SurfaceNode, _ lockedOut: Bool) {
        guard node.properties.lockedOut != lockedOut else { return }
        node.properties.lockedOut = lockedOut
        geometryChanged()
        index.refreshToplevel(node)
        observer?.surfaceTree(self, didChangePropertiesOf: node.id)
    }

    /// Adds a subsurface at the top of its parent's stack, as wl_subcompositor.get_subsurface does,
    /// or at the bottom with `below: true`.
    public func addSubsurface(
        _ id: SurfaceID, client: ClientID, parent: SurfaceID, position: Offset, size: Size, below: Bool = false,
        properties: SurfaceProperties = SurfaceProperties(), label: String? = nil
    ) throws(SurfaceTreeError) {
        treeChanged()
        try addChild(id, role: .subsurface, client: client, parent: parent, position: position, size: size, properties: properties, label: label) { parent, node in
            if below { parent.below.insert(node, at: 0) } else { parent.above.append(node) }
        }
    }

    /// Adds a popup above everything else of its parent.
    public func addPopup(
        _ id: SurfaceID, client: ClientID, parent: SurfaceID, position: Offset, size: Size,
        properties: SurfaceProperties = SurfaceProperties(), label: String? = nil
    ) throws(SurfaceTreeError) {
        treeChanged()
        try addChild(id, role: .popup, client: client, parent: parent, position: position, size: size, properties: properties, label: label) { parent, node in
            parent.popups.append(node)
        }
    }

    private func addChild(
        _ id: SurfaceID, role: SurfaceRole, client: ClientID, parent: SurfaceID, position: Offset, size: Size,
        properties: SurfaceProperties, label: String?, attach: (SurfaceNode, SurfaceNode) -> Void
    ) throws(SurfaceTreeError) {
        geometryChanged()
        guard nodes[id] == nil else { throw .duplicateSurface(id) }
        guard size.width >= 0, size.height >= 0 else { throw .negativeSize(size) }
        let parentNode = try node(parent)
        guard parentNode.depth < Self.maximumDepth else { throw .tooDeep(id, limit: Self.maximumDepth) }
        let node = SurfaceNode(id: id, role: role, client: client, label: label ?? "\(id)", position: position, size: size, properties: properties)
        node.parent = parentNode
        node.depth = parentNode.depth + 1
        nodes[id] = node
        if properties.exclusiveTouch { exclusiveTouchSurfaces += 1 }
        attach(parentNode, node)
        index.refreshToplevel(parentNode.toplevel)
    }

    /// Removes a surface with everything stacked on it (its subsurfaces and popups).
    @discardableResult
    public func remove(_ id: SurfaceID) throws(SurfaceTreeError) -> [SurfaceID] {
        treeChanged()
        geometryChanged()
        let node = try node(id)
        var removed: [SurfaceID] = []
        collectPostOrder(node, into: &removed)
        for gone in removed where nodes.removeValue(forKey: gone)?.properties.exclusiveTouch == true { exclusiveTouchSurfaces -= 1 }
        let formerParent = node.parent?.id
        // Found and taken out, not filtered: a filter visits, retains and releases every
        // sibling, which made a client's thousands of layer surfaces leave in quadratic time.
        if let parent = node.parent {
            _ = Self.take(node, from: &parent.below) || Self.take(node, from: &parent.above) || Self.take(node, from: &parent.popups)
            node.parent = nil
            index.refreshToplevel(parent.toplevel)
        } else if let output = node.output {
            index.removeToplevel(node)
            Self.take(node, from: &output.toplevels)
            node.output = nil
        }
        observer?.surfaceTree(self, didRemove: removed, from: formerParent)
        return removed
    }

    @discardableResult
    private static func take(_ node: SurfaceNode, from list: inout [SurfaceNode]) -> Bool {
        guard let i = list.firstIndex(where: { $0 === node }) else { return false }
        list.remove(at: i)
        return true
    }

    /// Children before their parents, front to back, as a loop: a tree is never deep,
    /// but nothing a client builds should reach the stack's end.
    private func collectPostOrder(_ root: SurfaceNode, into list: inout [SurfaceID]) {
        var pending: [(node: SurfaceNode, expanded: Bool)] = [(root, false)]
        while let (node, expanded) = pending.popLast() {
            if expanded {
                list.append(node.id)
                continue
            }
            pending.append((node, true))
            for child in node.childrenFrontToBack.reversed() { pending.append((child, false)) }
        }
    }

    /// Moves a surface: relative to its parent, or for a toplevel relative to its output.
    public func move(_ id: SurfaceID, to position: Offset) throws(SurfaceTreeError) {
        treeChanged()
        geometryChanged()
        let node = try node(id)
        guard node.position != position else { return }
        node.position = position
        if node.parent == nil {
            index.moveToplevel(node)
        } else {
            index.refreshToplevel(node.toplevel)
        }
    }

    public func resize(_ id: SurfaceID, to size: Size) throws(SurfaceTreeError) {
        treeChanged()
        guard size.width >= 0, size.height >= 0 else { throw .negativeSize(size) }
        let node = try node(id)
        guard node.size != size else { return }
        node.size = size
        index.refreshToplevel(node.toplevel)
    }

    /// Sets the input region; nil means the whole surface.
    public func setInputRegion(_ id: SurfaceID, _ region: Region<SurfaceSpace>?) throws(SurfaceTreeError) {
        treeChanged()
        let node = try node(id)
        node.inputRegion = region
        index.refreshToplevel(node.toplevel)
    }

    public func setProperties(_ id: SurfaceID, _ properties: SurfaceProperties) throws(SurfaceTreeError) {
        treeChanged()
        let node = try node(id)
        var properties = properties
        properties.lockedOut = node.properties.lockedOut
        guard node.properties != properties else { return }
        let hitTestingChanged = node.properties.takesPointerInput != properties.takesPointerInput
        if node.properties.exclusiveTouch != properties.exclusiveTouch { exclusiveTouchSurfaces += properties.exclusiveTouch ? 1 : -1 }
        node.properties = properties
        if hitTestingChanged { index.refreshToplevel(node.toplevel) }
        observer?.surfaceTree(self, didChangePropertiesOf: id)
    }

    public func updateProperties(_ id: SurfaceID, _ change: (inout SurfaceProperties) -> Void) throws(SurfaceTreeError) {
        treeChanged()
        var properties = try node(id).properties
        change(&properties)
        try setProperties(id, properties)
    }

    public func setLabel(_ id: SurfaceID, _ label: String) throws(SurfaceTreeError) {
        treeChanged()
        try node(id).label = label
    }

    // MARK: Stacking

    /// To the top of its siblings: toplevels on their output (within their layer), subsurfaces over their parent, popups among popups.
    public func raise(_ id: SurfaceID) throws(SurfaceTreeError) {
        treeChanged()
        let node = try node(id)
        if node.role == .subsurface, let parent = node.parent {
            parent.above.removeAll { $0 === node }
            parent.below.removeAll { $0 === node }
            parent.above.append(node)
            index.refreshToplevel(node.toplevel)
            return
        }
        try restack(node) { stack in
            stack.removeAll { $0 === node }
            stack.insert(node, at: node.role == .toplevel ? Self.topOfLayer(node.layer, in: stack) : stack.count)
        }
    }

    /// To the bottom of its siblings; a subsurface goes to the bottom of those below its parent.
    public func lower(_ id: SurfaceID) throws(SurfaceTreeError) {
        treeChanged()
        let node = try node(id)
        if node.role == .subsurface, let parent = node.parent {
            parent.above.removeAll { $0 === node }
            parent.below.removeAll { $0 === node }
            parent.below.insert(node, at: 0)
            index.refreshToplevel(node.toplevel)
            return
        }
        try restack(node) { stack in
            stack.removeAll { $0 === node }
            stack.insert(node, at: node.role == .toplevel ? stack.firstIndex { $0.layer >= node.layer } ?? stack.count : 0)
        }
    }

    /// Directly above `sibling`. For a subsurface, `sibling` may be its parent,
    /// as wl_subsurface.place_above allows.
    public func place(_ id: SurfaceID, above sibling: SurfaceID) throws(SurfaceTreeError) {
        treeChanged()
        try place(id, relativeTo: sibling, above: true)
    }

    /// Directly below `sibling`. For a subsurface, `sibling` may be its parent.
    public func place(_ id: SurfaceID, below sibling: SurfaceID) throws(SurfaceTreeError) {
        treeChanged()
        try place(id, relativeTo: sibling, above: false)
    }

    private func place(_ id: SurfaceID, relativeTo siblingID: SurfaceID, above: Bool) throws(SurfaceTreeError) {
        let node = try node(id)
        let sibling = try self.node(siblingID)
        guard node !== sibling else { throw .notASibling(id, of: siblingID) }
        switch node.role {
        case .subsurface:
            guard let parent = node.parent else { throw .notASibling(id, of: siblingID) }
            // wl_subsurface orders a parent's subsurfaces and the parent itself in one stack.
            var stack: [SurfaceNode?] = parent.below + [nil] + parent.above
            guard sibling === parent || stack.contains(where: { $0 === sibling }) else { throw .notASibling(id, of: siblingID) }
            stack.removeAll { $0 === node }
            let at = stack.firstIndex { sibling === parent ? $0 == nil : $0 === sibling }!
            stack.insert(node, at: above ? at + 1 : at)
            let split = stack.firstIndex { $0 == nil }!
            parent.below = stack[..<split].map { $0! }
            parent.above = stack[(split + 1)...].map { $0! }
            index.refreshToplevel(node.toplevel)
        case .toplevel, .popup:
            guard sibling.parent === node.parent, sibling.output === node.output, sibling.role == node.role,
                  sibling.layer == node.layer else {
                throw .notASibling(id, of: siblingID)
            }
            try restack(node) { stack in
                stack.removeAll { $0 === node }
                let at = stack.firstIndex { $0 === sibling }!
                stack.insert(node, at: above ? at + 1 : at)
            }
        }
    }

    private func restack(_ node: SurfaceNode, _ change: (inout [SurfaceNode]) -> Void) throws(SurfaceTreeError) {
        switch node.role {
        case .toplevel:
            guard let output = node.output else { throw .unknownSurface(node.id) }
            change(&output.toplevels)
            index.restackToplevel(node, stack: output.toplevels)
        case .subsurface:
            guard let parent = node.parent else { throw .unknownSurface(node.id) }
            if parent.below.contains(where: { $0 === node }) { change(&parent.below) } else { change(&parent.above) }
            index.refreshToplevel(node.toplevel)
        case .popup:
            guard let parent = node.parent else { throw .unknownSurface(node.id) }
            change(&parent.popups)
            index.refreshToplevel(node.toplevel)
        }
    }
}
