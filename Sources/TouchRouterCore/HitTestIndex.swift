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
/// Storage is manual (no Swift arrays on the query path) so that a query neither
/// allocates nor retains.
public final class HitTestIndex {
    public static let defaultCellShift = 7

    struct Item {
        var minX: Double, minY: Double, maxX: Double, maxY: Double
        var originX: Double, originY: Double
        var surface: UInt32
    }

    struct Entry {
        var key: UInt64 = 0
        var grid: Int32 = -1
        var origin = Offset.zero
        var originX = 0.0, originY = 0.0
        /// Bounding box of the items, toplevel-local; empty when there are no items.
        var boxMinX = 0.0, boxMinY = 0.0, boxMaxX = 0.0, boxMaxY = 0.0
        var box: Rect<SurfaceSpace>? = nil
        var items = ManualBuffer<Item>()
        var cells = CellRange.empty
    }

    struct CellRange: Equatable {
        var x0: Int, y0: Int, x1: Int, y1: Int
        static let empty = CellRange(x0: 0, y0: 0, x1: -1, y1: -1)
        var isEmpty: Bool { x1 < x0 || y1 < y0 }
        func contains(_ x: Int, _ y: Int) -> Bool { x >= x0 && x <= x1 && y >= y0 && y <= y1 }
    }

    struct Cell {
        var slots = ManualBuffer<UInt32>()
    }

    struct Grid {
        var live = false
        var width = 0, height = 0
        var columns = 0, rows = 0
        var cells = ManualBuffer<Cell>()
    }

    public struct Found {
        public var surface: UInt32
        public var localX: Double
        public var localY: Double
    }

    let cellShift: Int
    private var entries = ManualBuffer<Entry>()
    private var freeSlots: [Int32] = []
    private var grids = ManualBuffer<Grid>()

    init(cellShift: Int) {
        precondition((3...12).contains(cellShift), "cell size must be 8 to 4096 pixels")
        self.cellShift = cellShift
    }

    deinit {
        for i in 0..<entries.count { entries[i].items.deallocate() }
        entries.deallocate()
        for g in 0..<grids.count { releaseCells(of: Int32(g)) }
        grids.deallocate()
    }

    // MARK: Query

    @inline(__always)
    func query(grid g: Int32, x: Double, y: Double) -> Found? {
        let grid = grids.pointer(at: Int(g))
        // The caller checked the point lies on the output, so both are within the grid.
        let column = Int(x) &>> cellShift, row = Int(y) &>> cellShift
        let cell = grid.pointee.cells.pointer(at: row &* grid.pointee.columns &+ column)
        let slots = cell.pointee.slots
        var i = 0
        while i < slots.count {
            let entry = entries.pointer(at: Int(slots[i]))
            i &+= 1
            let lx = x - entry.pointee.originX, ly = y - entry.pointee.originY
            guard lx >= entry.pointee.boxMinX, lx < entry.pointee.boxMaxX,
                  ly >= entry.pointee.boxMinY, ly < entry.pointee.boxMaxY else { continue }
            let items = entry.pointee.items
            var j = 0
            while j < items.count {
                let item = items.pointer(at: j)
                if lx >= item.pointee.minX, lx < item.pointee.maxX, ly >= item.pointee.minY, ly < item.pointee.maxY {
                    return Found(surface: item.pointee.surface, localX: lx - item.pointee.originX, localY: ly - item.pointee.originY)
                }
                j &+= 1
            }
        }
        return nil
    }

    // MARK: Grids

    func addGrid(width: Int, height: Int) -> Int32 {
        var grid = Grid()
        grid.live = true
        grid.width = width
        grid.height = height
        grid.columns = max(1, (width + (1 << cellShift) - 1) >> cellShift)
        grid.rows = max(1, (height + (1 << cellShift) - 1) >> cellShift)
        grid.cells.reserve(grid.columns * grid.rows)
        for _ in 0..<(grid.columns * grid.rows) { grid.cells.append(Cell()) }
        for g in 0..<grids.count where !grids[g].live {
            grids[g] = grid
            return Int32(g)
        }
        grids.append(grid)
        return Int32(grids.count - 1)
    }

    func removeGrid(_ g: Int32) {
        releaseCells(of: g)
        grids[Int(g)] = Grid()
    }

    private func releaseCells(of g: Int32) {
        let grid = grids.pointer(at: Int(g))
        for c in 0..<grid.pointee.cells.count { grid.pointee.cells[c].slots.deallocate() }
        grid.pointee.cells.deallocate()
    }

    // MARK: Toplevels

    func insertToplevel(_ node: SurfaceNode, stack: [SurfaceNode], at position: Int) {
        let slot: Int32
        if let reused = freeSlots.popLast() {
            slot = reused
            entries[Int(slot)] = Entry()
        } else {
            entries.append(Entry())
            slot = Int32(entries.count - 1)
        }
        node.indexSlot = slot
        entries[Int(slot)].grid = node.output!.grid
        entries[Int(slot)].key = key(for: stack, at: position)
        flatten(node, into: slot)
        place(slot, origin: node.position)
    }

    func removeToplevel(_ node: SurfaceNode) {
        let slot = node.indexSlot
        guard slot >= 0 else { return }
        setCells(of: slot, to: .empty)
        entries[Int(slot)].items.deallocate()
        entries[Int(slot)] = Entry()
        freeSlots.append(slot)
        node.indexSlot = -1
    }

    /// The toplevel moved; its items are unchanged in its own space.
    func moveToplevel(_ node: SurfaceNode) {
        let slot = node.indexSlot
        guard slot >= 0 else { return }
        place(slot, origin: node.position)
    }

    /// Something inside the toplevel changed: re-flatten it, then fix its cells.
    func refreshToplevel(_ node: SurfaceNode) {
        let slot = node.indexSlot
        guard slot >= 0 else { return }
        flatten(node, into: slot)
        place(slot, origin: node.position)
    }

    /// The toplevel's place in its output's stack changed.
    func restackToplevel(_ node: SurfaceNode, stack: [SurfaceNode]) {
        let slot = node.indexSlot
        guard slot >= 0, let position = stack.firstIndex(where: { $0 === node }) else { return }
        let cells = entries[Int(slot)].cells
        setCells(of: slot, to: .empty)
        entries[Int(slot)].key = key(for: stack, at: position)
        setCells(of: slot, to: cells)
    }

    // MARK: Stacking keys

    private static let keySpacing: UInt64 = 1 << 32

    /// A key between the neighbours' keys at `position` in `stack` (bottom first);
    /// renumbers the whole stack, keeping its order, when they leave no room.
    private func key(for stack: [SurfaceNode], at position: Int) -> UInt64 {
        let below = position > 0 ? entries[Int(stack[position - 1].indexSlot)].key : nil
        let above = position + 1 < stack.count ? entries[Int(stack[position + 1].indexSlot)].key : nil
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

    /// Order is kept, so the cells' lists stay sorted; only the keys change.
    private func renumber(_ stack: [SurfaceNode], skipping skipped: Int) {
        var next = (UInt64(1) << 62) - UInt64(stack.count / 2) * Self.keySpacing
        for (i, node) in stack.enumerated() {
            if i != skipped { entries[Int(node.indexSlot)].key = next }
            next += Self.keySpacing
        }
    }

    // MARK: Flattening

    private func flatten(_ top: SurfaceNode, into slot: Int32) {
        let entry = entries.pointer(at: Int(slot))
        entry.pointee.items.removeAll()
        var box: Rect<SurfaceSpace>? = nil
        appendItems(of: top, origin: .zero, to: &entry.pointee.items, box: &box)
        entry.pointee.box = box
        if let box {
            entry.pointee.boxMinX = Double(box.minX)
            entry.pointee.boxMinY = Double(box.minY)
            entry.pointee.boxMaxX = Double(box.maxX)
            entry.pointee.boxMaxY = Double(box.maxY)
        } else {
            entry.pointee.boxMinX = 0; entry.pointee.boxMinY = 0
            entry.pointee.boxMaxX = 0; entry.pointee.boxMaxY = 0
        }
    }

    /// The same order as the reference walk: popups, subsurfaces above, the surface, subsurfaces below.
    private func appendItems(of node: SurfaceNode, origin parentOrigin: Offset, to items: inout ManualBuffer<Item>, box: inout Rect<SurfaceSpace>?) {
        guard node.properties.takesPointerInput else { return }
        let origin = node.parent == nil ? Offset.zero : parentOrigin + node.position
        for child in node.popups.reversed() { appendItems(of: child, origin: origin, to: &items, box: &box) }
        for child in node.above.reversed() { appendItems(of: child, origin: origin, to: &items, box: &box) }
        for rect in node.effectiveInputRegion.rects {
            let placed: Rect<SurfaceSpace> = rect.absolute(from: origin)
            items.append(Item(
                minX: Double(placed.minX), minY: Double(placed.minY), maxX: Double(placed.maxX), maxY: Double(placed.maxY),
                originX: Double(origin.dx), originY: Double(origin.dy), surface: node.id.raw))
            if let current = box {
                let x0 = min(current.minX, placed.minX), y0 = min(current.minY, placed.minY)
                let x1 = max(current.maxX, placed.maxX), y1 = max(current.maxY, placed.maxY)
                box = Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
            } else {
                box = placed
            }
        }
        for child in node.below.reversed() { appendItems(of: child, origin: origin, to: &items, box: &box) }
    }

    // MARK: Cells

    private func place(_ slot: Int32, origin: Offset) {
        let entry = entries.pointer(at: Int(slot))
        entry.pointee.origin = origin
        entry.pointee.originX = Double(origin.dx)
        entry.pointee.originY = Double(origin.dy)
        setCells(of: slot, to: cellRange(of: entry.pointee))
    }

    private func cellRange(of entry: Entry) -> CellRange {
        guard let box = entry.box else { return .empty }
        let grid = grids[Int(entry.grid)]
        let x0 = max(box.minX + entry.origin.dx, 0), y0 = max(box.minY + entry.origin.dy, 0)
        let x1 = min(box.maxX + entry.origin.dx, grid.width), y1 = min(box.maxY + entry.origin.dy, grid.height)
        guard x0 < x1, y0 < y1 else { return .empty }
        return CellRange(x0: x0 >> cellShift, y0: y0 >> cellShift, x1: (x1 - 1) >> cellShift, y1: (y1 - 1) >> cellShift)
    }

    /// Leaves the cells that are no longer covered and joins the new ones; cells in both stay as they are.
    private func setCells(of slot: Int32, to new: CellRange) {
        let old = entries[Int(slot)].cells
        guard old != new else { return }
        let grid = grids.pointer(at: Int(entries[Int(slot)].grid))
        let columns = grid.pointee.columns
        if !old.isEmpty {
            for y in old.y0...old.y1 {
                for x in old.x0...old.x1 where !new.contains(x, y) {
                    remove(slot, from: grid.pointee.cells.pointer(at: y * columns + x))
                }
            }
        }
        if !new.isEmpty {
            for y in new.y0...new.y1 {
                for x in new.x0...new.x1 where !old.contains(x, y) {
                    insert(slot, into: grid.pointee.cells.pointer(at: y * columns + x))
                }
            }
        }
        entries[Int(slot)].cells = new
    }

    /// The first position whose key is below `key`: cells are sorted by descending key.
    @inline(__always)
    private func position(ofKey key: UInt64, in slots: ManualBuffer<UInt32>) -> Int {
        var low = 0, high = slots.count
        while low < high {
            let mid = (low + high) >> 1
            if entries[Int(slots[mid])].key > key { low = mid + 1 } else { high = mid }
        }
        return low
    }

    private func insert(_ slot: Int32, into cell: UnsafeMutablePointer<Cell>) {
        let at = position(ofKey: entries[Int(slot)].key, in: cell.pointee.slots)
        cell.pointee.slots.insert(UInt32(slot), at: at)
    }

    private func remove(_ slot: Int32, from cell: UnsafeMutablePointer<Cell>) {
        let at = position(ofKey: entries[Int(slot)].key, in: cell.pointee.slots)
        precondition(at < cell.pointee.slots.count && cell.pointee.slots[at] == UInt32(slot), "hit-test index cell lost a toplevel")
        cell.pointee.slots.remove(at: at)
    }

    // MARK: Inspection for tests

    /// Toplevel slots listed in the cell holding the output-local point, front first.
    func slots(grid g: Int32, x: Int, y: Int) -> [UInt32] {
        let grid = grids[Int(g)]
        let cell = grid.cells[(y >> cellShift) * grid.columns + (x >> cellShift)]
        return (0..<cell.slots.count).map { cell.slots[$0] }
    }

    /// Checks every cell is sorted front first and every entry is listed in exactly its cells.
    func checkConsistency() -> String? {
        for g in 0..<grids.count where grids[g].live {
            let grid = grids[g]
            for row in 0..<grid.rows {
                for column in 0..<grid.columns {
                    let slots = grid.cells[row * grid.columns + column].slots
                    for i in 0..<slots.count {
                        let entry = entries[Int(slots[i])]
                        if entry.grid != Int32(g) || !entry.cells.contains(column, row) {
                            return "cell (\(column),\(row)) of grid \(g) lists slot \(slots[i]) that does not cover it"
                        }
                        if i > 0, entries[Int(slots[i - 1])].key <= entry.key {
                            return "cell (\(column),\(row)) of grid \(g) is out of stacking order at \(i)"
                        }
                    }
                }
            }
        }
        for slot in 0..<entries.count where entries[slot].grid >= 0 {
            let entry = entries[slot]
            if entry.cells != cellRange(of: entry) { return "slot \(slot) covers \(entry.cells), expected \(cellRange(of: entry))" }
        }
        return nil
    }
}

/// A growable buffer with no copy-on-write and no reference counting, freed by its owner.
struct ManualBuffer<Element> {
    private(set) var base: UnsafeMutablePointer<Element>? = nil
    private(set) var count = 0
    private var capacity = 0

    @inline(__always)
    subscript(i: Int) -> Element {
        get { base.unsafelyUnwrapped[i] }
        nonmutating set { base.unsafelyUnwrapped[i] = newValue }
    }

    @inline(__always)
    func pointer(at i: Int) -> UnsafeMutablePointer<Element> { base.unsafelyUnwrapped + i }

    mutating func reserve(_ wanted: Int) {
        guard wanted > capacity else { return }
        let grown = max(wanted, capacity * 2, 4)
        let fresh = UnsafeMutablePointer<Element>.allocate(capacity: grown)
        if let base {
            fresh.moveInitialize(from: base, count: count)
            base.deallocate()
        }
        base = fresh
        capacity = grown
    }

    mutating func append(_ element: Element) {
        reserve(count + 1)
        (base.unsafelyUnwrapped + count).initialize(to: element)
        count += 1
    }

    mutating func insert(_ element: Element, at i: Int) {
        reserve(count + 1)
        let p = base.unsafelyUnwrapped
        if i < count { (p + i + 1).moveInitialize(from: p + i, count: count - i) }
        (p + i).initialize(to: element)
        count += 1
    }

    mutating func remove(at i: Int) {
        let p = base.unsafelyUnwrapped
        (p + i).deinitialize(count: 1)
        if i + 1 < count { (p + i).moveInitialize(from: p + i + 1, count: count - i - 1) }
        count -= 1
    }

    mutating func removeAll() {
        if let base { base.deinitialize(count: count) }
        count = 0
    }

    mutating func deallocate() {
        removeAll()
        base?.deallocate()
        base = nil
        capacity = 0
    }
}
