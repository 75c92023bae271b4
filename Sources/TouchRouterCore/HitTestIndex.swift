/// The incremental hit-test index.
///
/// Each output has a uniform grid of square cells. A cell lists, front to back, the
/// toplevels whose input-taking content overlaps it. A toplevel holds its subtree
/// flattened into rectangles ("items"), front to back, in its own coordinates, so
/// moving a toplevel touches only the cells it enters or leaves, and a change inside
/// a toplevel re-flattens that toplevel alone.
///
/// A query finds the cell, then walks its toplevels front to back, testing each one's
/// bounding box and then its items; the first item holding the point wins. Where
/// windows overlap, the topmost ones usually hold the point, so the walk stops early
/// whatever the number of windows.
///
/// In front of the grid sits a cache of answers for small square "answer cells"
/// (16 px with the default grid): an answer cell is either wholly one surface's, wholly
/// empty, or mixed. A query whose answer cell is known and not mixed costs one load and
/// one compare. Answers are filled in lazily by queries and dropped, a grid cell at a
/// time, by bumping that grid cell's stamp whenever a toplevel over it changes, so a
/// change costs no more than before and a touch moving over a still scene reuses the
/// answers of the cells it crosses.
///
/// Storage is manual (no Swift arrays on the query path) so that a query neither
/// allocates nor retains.
public final class HitTestIndex {
    /// 512 px. Queries mostly stop at the answer cache, so the grid's cell size mostly
    /// sets what a change costs: a window moved to a random place leaves and enters about
    /// three cells of 512 px against six of 256, and each is a binary search. The price is
    /// paid by queries the cache cannot answer, which walk longer lists.
    public static let defaultCellShift = 9

    /// One rectangle of a surface's input region, in its toplevel's space.
    struct Item {
        var rect: Rect<SurfaceSpace>
        var info: ItemInfo
    }

    /// What a hit needs beyond the rectangle: whose it is and where that surface's origin lies.
    struct ItemInfo {
        var surface: UInt32
        var originX: Float, originY: Float
    }

    /// Four items' rectangles side by side, so one compare tests four at once: random
    /// points make every single test a coin toss, and mispredicted branches cost more
    /// than the arithmetic. Unused lanes hold an empty rectangle.
    struct ItemGroup {
        var minX = SIMD4<Double>(repeating: .infinity), minY = SIMD4<Double>(repeating: .infinity)
        var maxX = SIMD4<Double>(repeating: -.infinity), maxY = SIMD4<Double>(repeating: -.infinity)
    }

    /// What a query reads of a toplevel, packed together, with its four topmost items
    /// inline so that most hits cost one dependent load after the cell's list.
    struct HotEntry {
        var first = ItemGroup()
        /// The toplevel's origin in its output.
        var originX = 0.0, originY = 0.0
        /// Bounding box of the items after the first four, in toplevel space.
        var restMinX: Float = 1, restMinY: Float = 1, restMaxX: Float = 0, restMaxY: Float = 0
        /// Groups after the first; `infos` covers all items, the first four included.
        var rest: UnsafeMutablePointer<ItemGroup>? = nil
        var infos: UnsafeMutablePointer<ItemInfo>? = nil
        var restCount: Int32 = 0
    }

    /// The rest of a toplevel's bookkeeping.
    struct Entry {
        var grid: Int32 = -1
        var origin = Offset.zero
        var box: Rect<SurfaceSpace>? = nil
        /// The box placed on the output and clipped to it, as the cells know it.
        var placed: Rect<OutputSpace>? = nil
        var groups = ManualBuffer<ItemGroup>()
        var infos = ManualBuffer<ItemInfo>()

        mutating func deallocate() {
            groups.deallocate()
            infos.deallocate()
        }
    }

    struct CellRange: Equatable {
        var x0: Int, y0: Int, x1: Int, y1: Int
        static let empty = CellRange(x0: 0, y0: 0, x1: -1, y1: -1)
        var isEmpty: Bool { x1 < x0 || y1 < y0 }
        func contains(_ x: Int, _ y: Int) -> Bool { x >= x0 && x <= x1 && y >= y0 && y <= y1 }
    }

    /// A toplevel listed in a cell (its stacking key lies beside, in `CellList.keys`), with
    /// the cell's 8×8 sub-cells its box covers, so that a query skips, with one AND, the
    /// toplevels that cannot hold the point. A vacancy (see `CellList`) has slot
    /// `CellList.vacant` and an empty mask.
    struct CellEntry {
        var mask: UInt64
        var slot: UInt32
    }

    /// A surface an answer names, and its origin in the output.
    struct AnswerTarget: Equatable {
        var surface: UInt32 = 0
        var originX: Int16 = 0, originY: Int16 = 0
    }

    /// What the points of one answer cell hit: those inside `front`'s rectangle (relative
    /// to the answer cell; empty when none) hit `front`; the others hit the surface in
    /// `Grid.answersBehind`, or nothing. A mixed cell is one that needs the grid's walk.
    /// `stamp` is the grid cell's stamp when the answer was found, shifted left by two,
    /// with what lies behind the front in the low two bits. Sixteen bytes, so that four
    /// share a cache line: a query's cost is mostly the miss that loads its answer.
    struct CachedAnswer: Equatable {
        static let nothingBehind: UInt32 = 1, surfaceBehind: UInt32 = 2, mixed: UInt32 = 3
        var stamp: UInt32 = 0
        var frontMinX: UInt8 = 0, frontMinY: UInt8 = 0, frontMaxX: UInt8 = 0, frontMaxY: UInt8 = 0
        var front = AnswerTarget()
    }

    struct Grid {
        var live = false
        var width = 0, height = 0
        var columns = 0, rows = 0
        var cells = ManualBuffer<CellList>()
        /// Per grid cell, bumped when anything over it changes; starts at 1 so that a
        /// zeroed answer is never current.
        var stamps = ManualBuffer<UInt32>()
        var answerColumns = 0, answerRows = 0
        var answers = ManualBuffer<CachedAnswer>()
        /// Read only for points outside the front of an answer with a surface behind.
        var answersBehind = ManualBuffer<AnswerTarget>()
    }

    struct OutputEntry {
        var minX: Double, minY: Double, maxX: Double, maxY: Double
        var originX: Double, originY: Double
        var grid: Int32
        var id: OutputID
    }

    /// Everything mutable, unchecked (see `UncheckedState`): a query cannot afford the checks.
    struct State {
        var entries = ManualBuffer<Entry>()
        var hot = ManualBuffer<HotEntry>()
        /// Stacking keys by slot: higher is nearer the top.
        var keys = ManualBuffer<UInt64>()
        var grids = ManualBuffer<Grid>()
        /// In the tree's output order: the first holding a point wins.
        var outputs = ManualBuffer<OutputEntry>()
        var freeSlots: [Int32] = []
        var revision: UInt64 = 0
        /// Toplevels whose insides changed since they were last flattened.
        var stale: [SurfaceNode] = []
        var flattenings = 0
    }

    public static let cellShifts = 6...12

    let cellShift: Int
    /// Answer cells are 16 px, or a grid cell's sub-cell where that is smaller, so that an
    /// answer cell lies in one sub-cell.
    let answerShift: Int
    private let state = UncheckedState(State())

    init(cellShift: Int) {
        precondition(Self.cellShifts.contains(cellShift), "cell size must be 64 to 4096 pixels")
        self.cellShift = cellShift
        self.answerShift = min(4, cellShift - 3)
        state.pointee.stale.reserveCapacity(16)
    }

    deinit {
        for i in 0..<state.pointee.entries.count { state.pointee.entries.pointer(at: i).pointee.deallocate() }
        state.pointee.entries.deallocate()
        state.pointee.hot.deallocate()
        state.pointee.keys.deallocate()
        for g in 0..<state.pointee.grids.count where state.pointee.grids[g].live { releaseCells(of: Int32(g)) }
        state.pointee.grids.deallocate()
        state.pointee.outputs.deallocate()
        state.release()
    }

    /// Counts the changes that can move a hit, so that whoever keeps a hit (the pointer's
    /// focus) can tell when to look again.
    var revision: UInt64 { state.pointee.revision }

    private var entries: ManualBuffer<Entry> { state.pointee.entries }
    private var hot: ManualBuffer<HotEntry> { state.pointee.hot }
    private var keys: ManualBuffer<UInt64> { state.pointee.keys }
    private var grids: ManualBuffer<Grid> { state.pointee.grids }

    // MARK: Query

    /// The surface at a global point: the output holding it, then its answer cell's cached
    /// answer if it is current, else the grid cell's toplevels front to back. The
    /// arithmetic matches `SurfaceTree.referenceHitTest`.
    func hitTest(_ point: Point<GlobalSpace>) -> HitResult? {
        if !state.pointee.stale.isEmpty { flattenStale() }
        let outputs = state.pointee.outputs
        var o = 0
        while o < outputs.count {
            let output = outputs.pointer(at: o)
            o &+= 1
            guard point.x >= output.pointee.minX, point.x < output.pointee.maxX,
                  point.y >= output.pointee.minY, point.y < output.pointee.maxY else { continue }
            let x = point.x - output.pointee.originX, y = point.y - output.pointee.originY
            let grid = state.pointee.grids.pointer(at: Int(output.pointee.grid))
            let ix = Int(x), iy = Int(y)
            let cell = (iy &>> cellShift) &* grid.pointee.columns &+ (ix &>> cellShift)
            let stamp = grid.pointee.stamps.base.unsafelyUnwrapped[cell]
            let at = (iy &>> answerShift) &* grid.pointee.answerColumns &+ (ix &>> answerShift)
            let answer = grid.pointee.answers.pointer(at: at)
            if answer.pointee.stamp &>> 2 != stamp {
                let (found, behind) = findAnswer(grid: grid, cell: cell, column: ix &>> answerShift, row: iy &>> answerShift)
                answer.pointee = found
                grid.pointee.answersBehind[at] = behind
            }
            let within = (1 &<< answerShift) &- 1
            let ax = UInt8(truncatingIfNeeded: ix & within), ay = UInt8(truncatingIfNeeded: iy & within)
            let target: AnswerTarget
            if ax >= answer.pointee.frontMinX, ax < answer.pointee.frontMaxX, ay >= answer.pointee.frontMinY, ay < answer.pointee.frontMaxY {
                target = answer.pointee.front
            } else {
                switch answer.pointee.stamp & 3 {
                case CachedAnswer.nothingBehind: return nil
                case CachedAnswer.surfaceBehind: target = grid.pointee.answersBehind[at]
                default: return walk(grid: grid, cell: cell, x: x, y: y, output: output.pointee.id)
                }
            }
            return HitResult(
                surface: SurfaceID(target.surface), output: output.pointee.id,
                local: Point(x: x - Double(target.originX), y: y - Double(target.originY)))
        }
        return nil
    }

    /// The grid cell's toplevels, front to back, skipping those whose box misses the point's sub-cell.
    private func walk(grid: UnsafeMutablePointer<Grid>, cell: Int, x: Double, y: Double, output: OutputID) -> HitResult? {
        let ix = Int(x), iy = Int(y)
        let subShift = cellShift &- 3
        let bit: UInt64 = 1 &<< UInt64((((iy &>> subShift) & 7) &<< 3) | ((ix &>> subShift) & 7))
        let list = grid.pointee.cells.pointer(at: cell).pointee
        let hot = state.pointee.hot.base.unsafelyUnwrapped
        var i = 0
        while i < list.count {
            let listed = list.pointer(at: i)
            i &+= 1
            if listed.pointee.mask & bit == 0 { continue }
            let entry = hot + Int(listed.pointee.slot)
            let lx = x - entry.pointee.originX, ly = y - entry.pointee.originY
            let px = SIMD4<Double>(repeating: lx), py = SIMD4<Double>(repeating: ly)
            var group = Self.pointer(to: &entry.pointee.first)
            var g = 0
            while true {
                let inside = (px .>= group.pointee.minX) .& (px .< group.pointee.maxX)
                    .& (py .>= group.pointee.minY) .& (py .< group.pointee.maxY)
                if any(inside) {
                    let lane = Int(SIMD4<Int64>(repeating: 4).replacing(with: Self.lanes, where: inside).min())
                    let info = entry.pointee.infos.unsafelyUnwrapped + (g &* 4 &+ lane)
                    return HitResult(
                        surface: SurfaceID(info.pointee.surface), output: output,
                        local: Point(x: x - (entry.pointee.originX + Double(info.pointee.originX)),
                                     y: y - (entry.pointee.originY + Double(info.pointee.originY))))
                }
                guard g < Int(entry.pointee.restCount) else { break }
                if g == 0 {
                    guard lx >= Double(entry.pointee.restMinX), lx < Double(entry.pointee.restMaxX),
                          ly >= Double(entry.pointee.restMinY), ly < Double(entry.pointee.restMaxY) else { break }
                }
                group = entry.pointee.rest.unsafelyUnwrapped + g
                g &+= 1
            }
        }
        return nil
    }

    /// What the points of answer cell (column, row) hit. Items are taken front to back,
    /// clipped to the answer cell, skipping those that miss it or hide wholly behind the
    /// front: the first is the front; if it holds the whole cell, or the next one does,
    /// or there is no next one, the answer is complete; otherwise the cell is mixed.
    @inline(never)
    private func findAnswer(grid: UnsafeMutablePointer<Grid>, cell: Int, column: Int, row: Int) -> (CachedAnswer, behind: AnswerTarget) {
        let stamp = grid.pointee.stamps[cell] &<< 2
        let mixed = (CachedAnswer(stamp: stamp | CachedAnswer.mixed), AnswerTarget())
        let x0 = column << answerShift, y0 = row << answerShift
        let width = min(1 << answerShift, grid.pointee.width - x0), height = min(1 << answerShift, grid.pointee.height - y0)
        let subShift = cellShift - 3
        let bit: UInt64 = 1 << UInt64((((y0 >> subShift) & 7) << 3) | ((x0 >> subShift) & 7))
        let list = grid.pointee.cells.pointer(at: cell).pointee
        var answer: CachedAnswer? = nil
        for i in 0..<list.count where list[i].mask & bit != 0 {
            let entry = hot.pointer(at: Int(list[i].slot))
            let ox = Int(entry.pointee.originX), oy = Int(entry.pointee.originY)
            for g in 0...Int(entry.pointee.restCount) {
                let group = g == 0 ? Self.pointer(to: &entry.pointee.first) : entry.pointee.rest.unsafelyUnwrapped + (g - 1)
                for lane in 0..<4 {
                    // Unused lanes are infinite and empty: the first test drops them.
                    guard group.pointee.minX[lane] < Double(x0 + width - ox), group.pointee.maxX[lane] > Double(x0 - ox),
                          group.pointee.minY[lane] < Double(y0 + height - oy), group.pointee.maxY[lane] > Double(y0 - oy) else { continue }
                    let minX = max(Int(group.pointee.minX[lane]) + ox - x0, 0), maxX = min(Int(group.pointee.maxX[lane]) + ox - x0, width)
                    let minY = max(Int(group.pointee.minY[lane]) + oy - y0, 0), maxY = min(Int(group.pointee.maxY[lane]) + oy - y0, height)
                    let whole = minX == 0 && minY == 0 && maxX == width && maxY == height
                    let info = entry.pointee.infos.unsafelyUnwrapped[g * 4 + lane]
                    guard let target = AnswerTarget(surface: info.surface, origin: (ox + Int(info.originX), oy + Int(info.originY))) else {
                        return mixed
                    }
                    guard var found = answer else {
                        answer = CachedAnswer(
                            stamp: stamp | CachedAnswer.nothingBehind,
                            frontMinX: UInt8(minX), frontMinY: UInt8(minY), frontMaxX: UInt8(maxX), frontMaxY: UInt8(maxY),
                            front: target)
                        if whole { return (answer!, AnswerTarget()) }
                        continue
                    }
                    if minX >= Int(found.frontMinX), maxX <= Int(found.frontMaxX), minY >= Int(found.frontMinY), maxY <= Int(found.frontMaxY) {
                        continue
                    }
                    guard whole else { return mixed }
                    found.stamp = stamp | CachedAnswer.surfaceBehind
                    return (found, target)
                }
            }
        }
        return (answer ?? CachedAnswer(stamp: stamp | CachedAnswer.nothingBehind), AnswerTarget())
    }

    private static let lanes = SIMD4<Int64>(0, 1, 2, 3)

    @inline(__always)
    private static func pointer<T>(to value: UnsafeMutablePointer<T>) -> UnsafeMutablePointer<T> { value }

    // MARK: Outputs

    /// Adds an output after the others, with its grid; returns the grid.
    func addOutput(_ id: OutputID, rect: Rect<GlobalSpace>) -> Int32 {
        state.pointee.revision &+= 1
        let grid = makeGrid(rect)
        var g = grids.count
        for free in 0..<grids.count where !grids[free].live {
            g = free
            break
        }
        if g == grids.count { state.pointee.grids.append(grid) } else { grids[g] = grid }
        state.pointee.outputs.append(OutputEntry(
            minX: Double(rect.minX), minY: Double(rect.minY), maxX: Double(rect.maxX), maxY: Double(rect.maxY),
            originX: Double(rect.x), originY: Double(rect.y), grid: Int32(g), id: id))
        return Int32(g)
    }

    /// The output took a new place or size (a mode, transform or scale set while running);
    /// its toplevels must be out of the index, and go back in after. Its grid keeps its slot
    /// and the output its place in the list, which decides where outputs overlap.
    func resizeOutput(_ id: OutputID, rect: Rect<GlobalSpace>) {
        state.pointee.revision &+= 1
        let outputs = state.pointee.outputs
        guard let at = (0..<outputs.count).first(where: { outputs[$0].id == id }) else { return }
        let g = outputs[at].grid
        releaseCells(of: g)
        grids[Int(g)] = makeGrid(rect)
        state.pointee.outputs[at] = OutputEntry(
            minX: Double(rect.minX), minY: Double(rect.minY), maxX: Double(rect.maxX), maxY: Double(rect.maxY),
            originX: Double(rect.x), originY: Double(rect.y), grid: g, id: id)
    }

    private func makeGrid(_ rect: Rect<GlobalSpace>) -> Grid {
        var grid = Grid()
        grid.live = true
        grid.width = rect.width
        grid.height = rect.height
        grid.columns = max(1, (rect.width + (1 << cellShift) - 1) >> cellShift)
        grid.rows = max(1, (rect.height + (1 << cellShift) - 1) >> cellShift)
        grid.cells.reserve(grid.columns * grid.rows)
        for _ in 0..<(grid.columns * grid.rows) {
            grid.cells.append(CellList())
            grid.stamps.append(1)
        }
        grid.answerColumns = (grid.columns << cellShift) >> answerShift
        grid.answerRows = (grid.rows << cellShift) >> answerShift
        grid.answers.reserve(grid.answerColumns * grid.answerRows)
        for _ in 0..<(grid.answerColumns * grid.answerRows) {
            grid.answers.append(CachedAnswer())
            grid.answersBehind.append(AnswerTarget())
        }
        return grid
    }

    /// Its toplevels must be gone already.
    func removeOutput(_ id: OutputID) {
        state.pointee.revision &+= 1
        let outputs = state.pointee.outputs
        guard let at = (0..<outputs.count).first(where: { outputs[$0].id == id }) else { return }
        let g = outputs[at].grid
        state.pointee.outputs.remove(at: at)
        releaseCells(of: g)
        grids[Int(g)] = Grid()
    }

    private func releaseCells(of g: Int32) {
        let grid = state.pointee.grids.pointer(at: Int(g))
        for c in 0..<grid.pointee.cells.count { grid.pointee.cells.pointer(at: c).pointee.deallocate() }
        grid.pointee.cells.deallocate()
        grid.pointee.stamps.deallocate()
        grid.pointee.answers.deallocate()
        grid.pointee.answersBehind.deallocate()
    }

    // MARK: Toplevels

    func insertToplevel(_ node: SurfaceNode, stack: [SurfaceNode], at position: Int) {
        state.pointee.revision &+= 1
        let slot: Int32
        if let reused = state.pointee.freeSlots.popLast() {
            slot = reused
            entries[Int(slot)] = Entry()
            hot[Int(slot)] = HotEntry()
        } else {
            state.pointee.entries.append(Entry())
            state.pointee.hot.append(HotEntry())
            state.pointee.keys.append(0)
            slot = Int32(entries.count - 1)
        }
        node.indexSlot = slot
        entries[Int(slot)].grid = node.output!.grid
        keys[Int(slot)] = key(for: stack, at: position)
        flatten(node, into: slot)
        place(slot, origin: node.position)
    }

    func removeToplevel(_ node: SurfaceNode) {
        state.pointee.revision &+= 1
        let slot = node.indexSlot
        guard slot >= 0 else { return }
        setCells(of: slot, to: nil)
        entries.pointer(at: Int(slot)).pointee.deallocate()
        entries[Int(slot)] = Entry()
        hot[Int(slot)] = HotEntry()
        state.pointee.freeSlots.append(slot)
        node.indexSlot = -1
    }

    /// The toplevel moved; its items are unchanged in its own space.
    func moveToplevel(_ node: SurfaceNode) {
        state.pointee.revision &+= 1
        let slot = node.indexSlot
        guard slot >= 0 else { return }
        place(slot, origin: node.position)
    }

    /// Something inside the toplevel changed: it is flattened again, and its cells fixed,
    /// before the next question the index answers. A client that commits a thousand
    /// times between two hit tests costs one flattening, not a thousand.
    func refreshToplevel(_ node: SurfaceNode) {
        state.pointee.revision &+= 1
        guard node.indexSlot >= 0, !node.indexStale else { return }
        node.indexStale = true
        state.pointee.stale.append(node)
    }

    /// How many times a toplevel was flattened, for tests of the work a change costs.
    var flattenings: Int { state.pointee.flattenings }

    func settle() {
        if !state.pointee.stale.isEmpty { flattenStale() }
    }

    private func flattenStale() {
        for node in state.pointee.stale {
            node.indexStale = false
            let slot = node.indexSlot
            guard slot >= 0 else { continue }
            flatten(node, into: slot)
            place(slot, origin: node.position)
        }
        state.pointee.stale.removeAll(keepingCapacity: true)
    }

    /// The toplevel's place in its output's stack changed.
    func restackToplevel(_ node: SurfaceNode, stack: [SurfaceNode]) {
        state.pointee.revision &+= 1
        let slot = node.indexSlot
        guard slot >= 0, let position = stack.firstIndex(where: { $0 === node }) else { return }
        let placed = entries[Int(slot)].placed
        setCells(of: slot, to: nil)
        keys[Int(slot)] = key(for: stack, at: position)
        setCells(of: slot, to: placed)
    }

    // MARK: Stacking keys

    private static let keySpacing: UInt64 = 1 << 32

    /// A key between the neighbours' keys at `position` in `stack` (bottom first);
    /// renumbers the whole stack, keeping its order, when they leave no room.
    private func key(for stack: [SurfaceNode], at position: Int) -> UInt64 {
        let below = position > 0 ? keys[Int(stack[position - 1].indexSlot)] : nil
        let above = position + 1 < stack.count ? keys[Int(stack[position + 1].indexSlot)] : nil
        switch (below, above) {
        case (nil, nil):
            return UInt64(1) << 62
        case (let low?, nil) where low <= UInt64.max - Self.keySpacing:
            return low + Self.keySpacing
        case (nil, let high?) where high >= Self.keySpacing:
            return high - Self.keySpacing
        case (let low?, let high?) where high > low && high - low >= 2:
            return low + (high - low) / 2
        default:
            renumber(stack, skipping: position)
            return key(for: stack, at: position)
        }
    }

    /// Order is kept, so the cells' lists stay sorted; only the keys change, in the
    /// table and in every cell of the output. Rare: it takes 2^32 insertions between two neighbours.
    private func renumber(_ stack: [SurfaceNode], skipping skipped: Int) {
        var next = (UInt64(1) << 62) - UInt64(stack.count / 2) * Self.keySpacing
        for (i, node) in stack.enumerated() {
            if i != skipped { keys[Int(node.indexSlot)] = next }
            next += Self.keySpacing
        }
        guard let anyone = stack.first(where: { $0.indexSlot >= 0 }) else { return }
        let grid = grids.pointer(at: Int(entries[Int(anyone.indexSlot)].grid))
        for c in 0..<grid.pointee.cells.count {
            // A vacancy's key would no longer fit between its new neighbours'.
            grid.pointee.cells.pointer(at: c).pointee.compact()
            let list = grid.pointee.cells.pointer(at: c).pointee
            for i in 0..<list.count { list.setKey(keys[Int(list[i].slot)], at: i) }
        }
    }

    // MARK: Flattening

    private func flatten(_ top: SurfaceNode, into slot: Int32) {
        state.pointee.flattenings &+= 1
        var items: [Item] = []
        var box: Rect<SurfaceSpace>? = nil
        appendItems(of: top, to: &items, box: &box)
        let entry = entries.pointer(at: Int(slot))
        entry.pointee.box = box
        entry.pointee.groups.removeAll()
        entry.pointee.infos.removeAll()
        var first = ItemGroup()
        var rest: Rect<SurfaceSpace>? = nil
        for (i, item) in items.enumerated() {
            if i >= 4 {
                if i % 4 == 0 { entry.pointee.groups.append(ItemGroup()) }
                rest = rest.map { union($0, item.rect) } ?? item.rect
            }
            let group = i < 4 ? Self.pointer(to: &first) : entry.pointee.groups.pointer(at: i / 4 - 1)
            group.pointee.minX[i % 4] = Double(item.rect.minX)
            group.pointee.minY[i % 4] = Double(item.rect.minY)
            group.pointee.maxX[i % 4] = Double(item.rect.maxX)
            group.pointee.maxY[i % 4] = Double(item.rect.maxY)
            entry.pointee.infos.append(item.info)
        }
        let fast = hot.pointer(at: Int(slot))
        fast.pointee.first = first
        fast.pointee.rest = entry.pointee.groups.base
        fast.pointee.infos = entry.pointee.infos.base
        fast.pointee.restCount = Int32(entry.pointee.groups.count)
        fast.pointee.restMinX = Float(rest?.minX ?? 1)
        fast.pointee.restMinY = Float(rest?.minY ?? 1)
        fast.pointee.restMaxX = Float(rest?.maxX ?? 0)
        fast.pointee.restMaxY = Float(rest?.maxY ?? 0)
    }

    private func union(_ a: Rect<SurfaceSpace>, _ b: Rect<SurfaceSpace>) -> Rect<SurfaceSpace> {
        let x0 = min(a.minX, b.minX), y0 = min(a.minY, b.minY)
        return Rect(x: x0, y: y0, width: max(a.maxX, b.maxX) - x0, height: max(a.maxY, b.maxY) - y0)
    }

    /// The same order as the reference walk: popups, subsurfaces above, the surface,
    /// subsurfaces below. A loop over an explicit stack, not recursion, so that no tree
    /// a client builds can reach the end of the thread's stack.
    private func appendItems(of top: SurfaceNode, to items: inout [Item], box: inout Rect<SurfaceSpace>?) {
        enum Step { case node(SurfaceNode, parentOrigin: Offset), rects(SurfaceNode, origin: Offset) }
        var steps: [Step] = [.node(top, parentOrigin: .zero)]
        while let step = steps.popLast() {
            switch step {
            case .node(let node, let parentOrigin):
                guard node.properties.takesPointerInput else { continue }
                let origin = node.parent == nil ? Offset.zero : parentOrigin + node.position
                // Pushed in the reverse of the order they are taken in.
                for child in node.below { steps.append(.node(child, parentOrigin: origin)) }
                steps.append(.rects(node, origin: origin))
                for child in node.above { steps.append(.node(child, parentOrigin: origin)) }
                for child in node.popups { steps.append(.node(child, parentOrigin: origin)) }
            case .rects(let node, let origin):
                for rect in node.inputRects {
                    let placed: Rect<SurfaceSpace> = rect.absolute(from: origin)
                    items.append(Item(rect: placed, info: ItemInfo(surface: node.id.raw, originX: Float(origin.dx), originY: Float(origin.dy))))
                    box = box.map { union($0, placed) } ?? placed
                }
            }
        }
    }

    // MARK: Cells

    private func place(_ slot: Int32, origin: Offset) {
        let entry = entries.pointer(at: Int(slot))
        entry.pointee.origin = origin
        let fast = hot.pointer(at: Int(slot))
        fast.pointee.originX = Double(origin.dx)
        fast.pointee.originY = Double(origin.dy)
        setCells(of: slot, to: placedBox(of: entry))
    }

    private func placedBox(of entry: UnsafeMutablePointer<Entry>) -> Rect<OutputSpace>? {
        guard let box = entry.pointee.box else { return nil }
        let grid = grids.pointer(at: Int(entry.pointee.grid))
        let origin = entry.pointee.origin
        let x0 = max(box.minX + origin.dx, 0), y0 = max(box.minY + origin.dy, 0)
        let x1 = min(box.maxX + origin.dx, grid.pointee.width), y1 = min(box.maxY + origin.dy, grid.pointee.height)
        guard x0 < x1, y0 < y1 else { return nil }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    private func cellRange(of box: Rect<OutputSpace>?) -> CellRange {
        guard let box else { return .empty }
        return CellRange(x0: box.minX &>> cellShift, y0: box.minY &>> cellShift, x1: (box.maxX - 1) &>> cellShift, y1: (box.maxY - 1) &>> cellShift)
    }

    /// The box holds the whole cell, so its mask is full.
    @inline(__always)
    private func covers(_ box: Rect<OutputSpace>, column: Int, row: Int) -> Bool {
        let left = column &<< cellShift, top = row &<< cellShift, size = 1 &<< cellShift
        return box.minX <= left && box.maxX >= left + size && box.minY <= top && box.maxY >= top + size
    }

    /// The sub-cells of cell (column, row) that `box` covers, row-major, bit 0 top-left.
    private func mask(of box: Rect<OutputSpace>, column: Int, row: Int) -> UInt64 {
        let subShift = cellShift - 3
        let left = column &<< cellShift, top = row &<< cellShift
        let sx0 = max(0, (box.minX - left) &>> subShift), sx1 = min(7, (box.maxX - 1 - left) &>> subShift)
        let sy0 = max(0, (box.minY - top) &>> subShift), sy1 = min(7, (box.maxY - 1 - top) &>> subShift)
        guard sx0 <= sx1, sy0 <= sy1 else { return 0 }
        let rowBits = (UInt64(0xFF) &>> UInt64(7 - (sx1 - sx0))) &<< UInt64(sx0)
        let rows = (UInt64.max &>> UInt64(8 * (7 - (sy1 - sy0)))) &<< UInt64(8 * sy0)
        return (rowBits &* 0x0101_0101_0101_0101) & rows
    }

    /// Leaves the cells no longer covered, joins the new ones, and updates the sub-cell
    /// masks of cells in both where the box's edge moved within them.
    /// Drops the cached answers of both boxes' cells even when the boxes are equal, since
    /// what lies inside them may have changed.
    private func setCells(of slot: Int32, to newBox: Rect<OutputSpace>?) {
        let entry = entries.pointer(at: Int(slot))
        let oldBox = entry.pointee.placed
        let old = cellRange(of: oldBox), new = cellRange(of: newBox)
        let grid = grids.pointer(at: Int(entry.pointee.grid))
        forgetAnswers(in: old, of: grid)
        forgetAnswers(in: new, of: grid)
        guard oldBox != newBox else { return }
        let columns = grid.pointee.columns
        let key = keys[Int(slot)]
        if let oldBox {
            for y in old.y0...old.y1 {
                for x in old.x0...old.x1 {
                    let cell = grid.pointee.cells.pointer(at: y * columns + x)
                    if !new.contains(x, y) {
                        cell.pointee.remove(slot, key: key)
                    } else if let newBox, !(covers(oldBox, column: x, row: y) && covers(newBox, column: x, row: y)) {
                        let fresh = mask(of: newBox, column: x, row: y)
                        if fresh != mask(of: oldBox, column: x, row: y) {
                            cell.pointee.pointer(at: cell.pointee.find(slot, key: key)).pointee.mask = fresh
                        }
                    }
                }
            }
        }
        if let newBox {
            for y in new.y0...new.y1 {
                for x in new.x0...new.x1 where !old.contains(x, y) {
                    let cell = grid.pointee.cells.pointer(at: y * columns + x)
                    cell.pointee.insert(key: key, mask: mask(of: newBox, column: x, row: y), slot: slot)
                }
            }
        }
        entry.pointee.placed = newBox
    }

    private static let stampLimit: UInt32 = 1 << 30

    private func forgetAnswers(in range: CellRange, of grid: UnsafeMutablePointer<Grid>) {
        guard !range.isEmpty else { return }
        let columns = grid.pointee.columns
        for y in range.y0...range.y1 {
            for x in range.x0...range.x1 {
                let stamp = grid.pointee.stamps.pointer(at: y * columns + x)
                stamp.pointee &+= 1
                if stamp.pointee == Self.stampLimit { restartStamp(column: x, row: y, of: grid) }
            }
        }
    }

    /// A stamp about to outgrow its answers' field starts again at 1; the cell's answers
    /// are zeroed first, so none made under an old stamp of the same value survives.
    private func restartStamp(column: Int, row: Int, of grid: UnsafeMutablePointer<Grid>) {
        let perCell = 1 << (cellShift - answerShift)
        for r in (row * perCell)..<((row + 1) * perCell) {
            for c in (column * perCell)..<((column + 1) * perCell) {
                grid.pointee.answers[r * grid.pointee.answerColumns + c] = CachedAnswer()
            }
        }
        grid.pointee.stamps[row * grid.pointee.columns + column] = 1
    }

    /// How many answer cells hold a current answer, and how many of those are mixed.
    func answerCounts() -> (current: Int, mixed: Int) {
        flattenStale()
        var current = 0, mixed = 0
        forEachCurrentAnswer { _, _, _, _, _, cached in
            current += 1
            if cached.stamp & 3 == CachedAnswer.mixed { mixed += 1 }
            return true
        }
        return (current, mixed)
    }

    /// Calls `body` with each answer cell whose answer is current: its grid and grid index,
    /// its column and row, its grid cell, and the answer. Stops when `body` returns false.
    private func forEachCurrentAnswer(_ body: (UnsafeMutablePointer<Grid>, Int, Int, Int, Int, CachedAnswer) -> Bool) {
        for g in 0..<grids.count where grids[g].live {
            let grid = grids.pointer(at: g)
            for row in 0..<grid.pointee.answerRows {
                for column in 0..<grid.pointee.answerColumns {
                    let cached = grid.pointee.answers[row * grid.pointee.answerColumns + column]
                    let cell = ((row << answerShift) >> cellShift) * grid.pointee.columns + ((column << answerShift) >> cellShift)
                    guard cached.stamp >> 2 == grid.pointee.stamps[cell] else { continue }
                    guard body(grid, g, column, row, cell, cached) else { return }
                }
            }
        }
    }

    /// Every cached answer of every output, as after a change to all of them (benchmarks
    /// use it to time queries that find no answer cached).
    func forgetAllAnswers() {
        flattenStale()
        for g in 0..<grids.count where grids[g].live {
            let grid = grids.pointer(at: g)
            forgetAnswers(in: CellRange(x0: 0, y0: 0, x1: grid.pointee.columns - 1, y1: grid.pointee.rows - 1), of: grid)
        }
    }

    // MARK: Inspection for tests

    /// Checks each cell is sorted front first with the right keys and masks, each current
    /// cached answer is what a fresh look would find, and each toplevel is listed in
    /// exactly the cells its box covers.
    func checkConsistency() -> String? {
        flattenStale()
        var listed = [Int: Int]()
        for g in 0..<grids.count where grids[g].live {
            let grid = grids[g]
            for row in 0..<grid.rows {
                for column in 0..<grid.columns {
                    let list = grid.cells[row * grid.columns + column]
                    var vacancies = 0
                    for i in 0..<list.count {
                        let item = list[i]
                        if i > 0, list.key(at: i - 1) <= list.key(at: i) { return "cell (\(column),\(row)) of grid \(g) is out of stacking order at \(i)" }
                        if item.slot == CellList.vacant {
                            if item.mask != 0 { return "cell (\(column),\(row)) of grid \(g) has a vacancy with a mask at \(i)" }
                            vacancies += 1
                            continue
                        }
                        let entry = entries[Int(item.slot)]
                        listed[Int(item.slot), default: 0] += 1
                        guard entry.grid == Int32(g), cellRange(of: entry.placed).contains(column, row), let box = entry.placed else {
                            return "cell (\(column),\(row)) of grid \(g) lists slot \(item.slot) that does not cover it"
                        }
                        if list.key(at: i) != keys[Int(item.slot)] { return "cell (\(column),\(row)) holds a stale key for slot \(item.slot)" }
                        if item.mask != mask(of: box, column: column, row: row) { return "cell (\(column),\(row)) holds a stale mask for slot \(item.slot)" }
                    }
                    if vacancies != list.vacancies { return "cell (\(column),\(row)) of grid \(g) counts \(list.vacancies) vacancies, holds \(vacancies)" }
                    if list.count > 0, list[list.count - 1].slot == CellList.vacant { return "cell (\(column),\(row)) of grid \(g) ends with a vacancy" }
                }
            }
        }
        var stale: String? = nil
        forEachCurrentAnswer { grid, g, column, row, cell, cached in
            let (fresh, behind) = findAnswer(grid: grid, cell: cell, column: column, row: row)
            guard cached == fresh, fresh.stamp & 3 != CachedAnswer.surfaceBehind
                || grid.pointee.answersBehind[row * grid.pointee.answerColumns + column] == behind else {
                stale = "answer cell (\(column),\(row)) of grid \(g) holds a stale answer"
                return false
            }
            return true
        }
        if let stale { return stale }
        for slot in 0..<entries.count where entries[slot].grid >= 0 {
            let entry = entries[slot]
            let expected = placedBox(of: entries.pointer(at: slot))
            if entry.placed != expected { return "slot \(slot) is placed at \(String(describing: entry.placed)), expected \(String(describing: expected))" }
            let range = cellRange(of: expected)
            let cells = range.isEmpty ? 0 : (range.x1 - range.x0 + 1) * (range.y1 - range.y0 + 1)
            if listed[slot, default: 0] != cells { return "slot \(slot) is listed in \(listed[slot, default: 0]) cells, expected \(cells)" }
        }
        return nil
    }
}

extension HitTestIndex.AnswerTarget {
    /// Nil where the origin does not fit in 16 bits; such a cell is left to the grid's walk.
    init?(surface: UInt32, origin: (Int, Int)) {
        guard let x = Int16(exactly: origin.0), let y = Int16(exactly: origin.1) else { return nil }
        self.init(surface: surface, originX: x, originY: y)
    }
}
