// What tests and benchmarks ask of the index (HitTestIndex.swift): its cached answers
// counted, shown or dropped, and a full check of its invariants.

/// A cached answer as a test sees it: the points of `rect` (relative to the 16-px answer cell)
/// hit `held`; the cell's other points hit `behind`, or nothing.
public struct CachedAnswerSummary: Equatable, Sendable {
    public var held: SurfaceID
    public var rect: Rect<SurfaceSpace>
    public var behind: SurfaceID?

    public init(held: SurfaceID, rect: Rect<SurfaceSpace>, behind: SurfaceID?) {
        self.held = held
        self.rect = rect
        self.behind = behind
    }
}

extension HitTestIndex {
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

    /// The current, not mixed, answer of the answer cell holding `point`: the surface its
    /// rectangle holds, the rectangle (relative to the cell), and the surface behind (nil for
    /// none). Nil where the cell has no current answer or a mixed one.
    func cachedAnswer(at point: Point<GlobalSpace>) -> CachedAnswerSummary? {
        flattenStale()
        for o in 0..<state.pointee.outputs.count {
            let output = state.pointee.outputs[o]
            guard point.x >= output.minX, point.x < output.maxX, point.y >= output.minY, point.y < output.maxY else { continue }
            let grid = grids.pointer(at: Int(output.grid))
            let ix = Int(point.x - output.originX), iy = Int(point.y - output.originY)
            let at = (iy >> answerShift) * grid.pointee.answerColumns + (ix >> answerShift)
            let cell = (iy >> cellShift) * grid.pointee.columns + (ix >> cellShift)
            let cached = grid.pointee.answers[at]
            guard cached.stamp >> 2 == grid.pointee.stamps[cell], cached.stamp & 3 != CachedAnswer.mixed else { return nil }
            return CachedAnswerSummary(
                held: SurfaceID(cached.front.surface),
                rect: Rect(x: Int(cached.frontMinX), y: Int(cached.frontMinY),
                           width: Int(cached.frontMaxX) - Int(cached.frontMinX), height: Int(cached.frontMaxY) - Int(cached.frontMinY)),
                behind: cached.stamp & 3 == CachedAnswer.surfaceBehind ? SurfaceID(grid.pointee.answersBehind[at].surface) : nil)
        }
        return nil
    }

    /// Calls `body` with each answer cell whose answer is current: its grid and grid index,
    /// its column and row, its grid cell, and the answer. Stops when `body` returns false.
    func forEachCurrentAnswer(_ body: (UnsafeMutablePointer<Grid>, Int, Int, Int, Int, CachedAnswer) -> Bool) {
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
            var (fresh, behind) = findAnswer(grid: grid, cell: cell, column: column, row: row)
            // A mixed answer's front names its list's slot (checked by `checkMixedSlots`).
            if fresh.stamp & 3 == CachedAnswer.mixed { fresh.front.surface = cached.front.surface }
            guard cached == fresh, fresh.stamp & 3 != CachedAnswer.surfaceBehind
                || grid.pointee.answersBehind[row * grid.pointee.answerColumns + column] == behind else {
                stale = "answer cell (\(column),\(row)) of grid \(g) holds a stale answer"
                return false
            }
            return true
        }
        if let stale { return stale }
        if let wrong = checkMixedSlots() { return wrong }
        if let wrong = checkMixedLists() { return wrong }
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

    /// Every mixed answer, current or not, holds a slot no other answer holds and that is not
    /// free, and every slot is held or free: none is lost.
    func checkMixedSlots() -> String? {
        for g in 0..<grids.count where grids[g].live {
            let grid = grids.pointer(at: g)
            let slots = grid.pointee.mixedLists.count
            var holder = [Int?](repeating: nil, count: slots)
            for at in 0..<grid.pointee.answers.count where grid.pointee.answers[at].stamp & 3 == CachedAnswer.mixed {
                let slot = Int(grid.pointee.answers[at].front.surface)
                guard slot < slots else { return "answer cell \(at) of grid \(g) holds slot \(slot) of \(slots)" }
                if let other = holder[slot] { return "answer cells \(other) and \(at) of grid \(g) both hold slot \(slot)" }
                holder[slot] = at
            }
            var free = Set<Int>()
            for i in 0..<grid.pointee.freeMixedSlots.count {
                let slot = Int(grid.pointee.freeMixedSlots[i])
                guard slot < slots, holder[slot] == nil, free.insert(slot).inserted else {
                    return "free slot \(slot) of grid \(g) is out of range, held, or freed twice"
                }
            }
            let held = holder.lazy.filter { $0 != nil }.count
            if held + free.count != slots { return "grid \(g) has \(slots) mixed slots, \(held) held and \(free.count) free" }
        }
        return nil
    }

    /// Each current mixed list gives, at every pixel of its answer cell, what the grid's
    /// walk gives there.
    func checkMixedLists() -> String? {
        var wrong: String? = nil
        forEachCurrentAnswer { grid, g, column, row, cell, cached in
            guard cached.stamp & 3 == CachedAnswer.mixed else { return true }
            let at = row * grid.pointee.answerColumns + column
            let slot = Int(cached.front.surface)
            let list = grid.pointee.mixedLists[slot]
            guard list.cell == Int32(truncatingIfNeeded: at), list.stamp == grid.pointee.stamps[cell], !list.overflows else { return true }
            let x0 = column << answerShift, y0 = row << answerShift
            let (width, height) = answerCellSize(grid: grid, column: column, row: row)
            for ay in 0..<height {
                for ax in 0..<width {
                    let x = Double(x0 + ax) + 0.5, y = Double(y0 + ay) + 0.5
                    let walked = walk(grid: grid, cell: cell, x: x, y: y, output: OutputID(0))
                    let listed = mixedAnswer(grid: grid, cell: cell, at: at, slot: slot, ax: UInt8(ax), ay: UInt8(ay))
                    let target = listed >= 0 ? grid.pointee.mixedTargets[listed] : nil
                    let agrees = target.map { walked?.surface == SurfaceID($0.surface) && walked?.local == Point(x: x - Double($0.originX), y: y - Double($0.originY)) }
                        ?? (walked == nil)
                    if !agrees {
                        wrong = "the mixed list of answer cell (\(column),\(row)) of grid \(g) says \(String(describing: target)) at (\(x0 + ax),\(y0 + ay)), the walk \(String(describing: walked))"
                        return false
                    }
                }
            }
            return true
        }
        return wrong
    }
}
