// The index's upkeep (HitTestIndex.swift has its storage and its queries): outputs added,
// resized and removed, toplevels inserted, moved, restacked and flattened, each change
// touching only the cells it enters or leaves and dropping their cached answers.

extension HitTestIndex {
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

    func makeGrid(_ rect: Rect<GlobalSpace>) -> Grid {
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
        // Room for one answer cell in sixteen to be mixed before the lists grow: about one in
        // fourteen is, in dense scenes.
        let lists = max(64, grid.answerColumns * grid.answerRows / 16)
        grid.mixedLists.reserve(lists)
        grid.mixedTargets.reserve(lists * MixedList.capacity)
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

    func releaseCells(of g: Int32) {
        let grid = state.pointee.grids.pointer(at: Int(g))
        for c in 0..<grid.pointee.cells.count { grid.pointee.cells.pointer(at: c).pointee.deallocate() }
        grid.pointee.cells.deallocate()
        grid.pointee.stamps.deallocate()
        grid.pointee.answers.deallocate()
        grid.pointee.answersBehind.deallocate()
        grid.pointee.mixedLists.deallocate()
        grid.pointee.mixedTargets.deallocate()
        grid.pointee.freeMixedSlots.deallocate()
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

    // Out of the query's line: inlined, its loop's registers cost every query a longer prologue.
    @inline(never)
    func flattenStale() {
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

    static let keySpacing: UInt64 = 1 << 32

    /// A key between the neighbours' keys at `position` in `stack` (bottom first);
    /// renumbers the whole stack, keeping its order, when they leave no room.
    func key(for stack: [SurfaceNode], at position: Int) -> UInt64 {
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
    func renumber(_ stack: [SurfaceNode], skipping skipped: Int) {
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

    func flatten(_ top: SurfaceNode, into slot: Int32) {
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

    func union(_ a: Rect<SurfaceSpace>, _ b: Rect<SurfaceSpace>) -> Rect<SurfaceSpace> {
        let x0 = min(a.minX, b.minX), y0 = min(a.minY, b.minY)
        return Rect(x: x0, y: y0, width: max(a.maxX, b.maxX) - x0, height: max(a.maxY, b.maxY) - y0)
    }

    /// The same order as the reference walk: popups, subsurfaces above, the surface,
    /// subsurfaces below. A loop over an explicit stack, not recursion, so that no tree
    /// a client builds can reach the end of the thread's stack.
    func appendItems(of top: SurfaceNode, to items: inout [Item], box: inout Rect<SurfaceSpace>?) {
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

    func place(_ slot: Int32, origin: Offset) {
        let entry = entries.pointer(at: Int(slot))
        entry.pointee.origin = origin
        let fast = hot.pointer(at: Int(slot))
        fast.pointee.originX = Double(origin.dx)
        fast.pointee.originY = Double(origin.dy)
        setCells(of: slot, to: placedBox(of: entry))
    }

    func placedBox(of entry: UnsafeMutablePointer<Entry>) -> Rect<OutputSpace>? {
        guard let box = entry.pointee.box else { return nil }
        let grid = grids.pointer(at: Int(entry.pointee.grid))
        let origin = entry.pointee.origin
        let x0 = max(box.minX + origin.dx, 0), y0 = max(box.minY + origin.dy, 0)
        let x1 = min(box.maxX + origin.dx, grid.pointee.width), y1 = min(box.maxY + origin.dy, grid.pointee.height)
        guard x0 < x1, y0 < y1 else { return nil }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    func cellRange(of box: Rect<OutputSpace>?) -> CellRange {
        guard let box else { return .empty }
        return CellRange(x0: box.minX &>> cellShift, y0: box.minY &>> cellShift, x1: (box.maxX - 1) &>> cellShift, y1: (box.maxY - 1) &>> cellShift)
    }

    /// The box holds the whole cell, so its mask is full.
    @inline(__always)
    func covers(_ box: Rect<OutputSpace>, column: Int, row: Int) -> Bool {
        let left = column &<< cellShift, top = row &<< cellShift, size = 1 &<< cellShift
        return box.minX <= left && box.maxX >= left + size && box.minY <= top && box.maxY >= top + size
    }

    /// The sub-cells of cell (column, row) that `box` covers, row-major, bit 0 top-left.
    func mask(of box: Rect<OutputSpace>, column: Int, row: Int) -> UInt64 {
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
    func setCells(of slot: Int32, to newBox: Rect<OutputSpace>?) {
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

    static let stampLimit: UInt32 = 1 << 30

    func forgetAnswers(in range: CellRange, of grid: UnsafeMutablePointer<Grid>) {
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
    func restartStamp(column: Int, row: Int, of grid: UnsafeMutablePointer<Grid>) {
        let perCell = 1 << (cellShift - answerShift)
        for r in (row * perCell)..<((row + 1) * perCell) {
            for c in (column * perCell)..<((column + 1) * perCell) {
                let at = r * grid.pointee.answerColumns + c
                replaceAnswer(grid.pointee.answers.pointer(at: at), with: CachedAnswer(), in: grid)
            }
        }
        grid.pointee.stamps[row * grid.pointee.columns + column] = 1
    }
}
