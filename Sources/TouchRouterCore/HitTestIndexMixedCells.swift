// Mixed answer cells (HitTestIndex.swift): an answer cell on a window's edge or corner,
// where no single front rectangle and surface behind it say what every point hits. Rather
// than walk the grid cell's toplevels, which at 100,000 leaves means a long list for a
// point that hits nothing, such a cell keeps up to eight rectangles, clipped to it, front
// to back, tested together as bytes in words: the first that holds the point wins,
// none means nothing. Each mixed answer holds a slot of its own in the lists' table, kept
// while the answer is refound mixed and freed when it is not; a list is current while its
// grid cell's stamp is. A cell that needs more than eight is marked, and walks.
//
// The slots were once a table direct-mapped by answer cell, a quarter as many as the cells:
// two mixed cells sharing a slot rebuilt each other's list (about 1 µs) at alternate queries,
// and that cost random points at 10,000 leaves more than a nanosecond a query on average.

extension HitTestIndex {
    /// Up to eight rectangles of one answer cell, relative to it, front to back, a byte a lane
    /// in each of the four words; unused lanes are empty (0 to 0). Their targets are in
    /// `Grid.mixedTargets`.
    struct MixedList {
        static let capacity = 8
        /// The answer cell described; -1 for none.
        var cell: Int32 = -1
        /// Its grid cell's stamp when the list was made.
        var stamp: UInt32 = 0
        /// The cell needs more than `capacity` rectangles: queries walk.
        var overflows = false
        var minX: UInt64 = 0, minY: UInt64 = 0, maxX: UInt64 = 0, maxY: UInt64 = 0

        static func lane(_ word: UInt64, _ i: Int) -> Int { Int(truncatingIfNeeded: word &>> UInt64(i &* 8)) & 0xFF }

        /// The lanes holding (x, y), each lane's 0x40 bit. Answer cells are at most 16 px, so
        /// every byte stays in 0...16 and the sums below in 47...80: no byte borrows from the
        /// next. `x + 64 - min` reaches 64 when x ≥ min, and `max + 63 - x` when x < max.
        @inline(__always)
        func holding(_ x: UInt8, _ y: UInt8) -> UInt64 {
            let ones: UInt64 = 0x0101_0101_0101_0101
            let px = UInt64(x) &* ones, py = UInt64(y) &* ones
            return (px &+ 0x40 &* ones &- minX) & (maxX &+ 0x3F &* ones &- px)
                & (py &+ 0x40 &* ones &- minY) & (maxY &+ 0x3F &* ones &- py) & (0x40 &* ones)
        }
    }

    /// `mixedAnswer` found nothing at the point, or cannot say (the grid walks).
    static let listedNothing = -1, listedUnknown = -2

    /// The index in `mixedTargets` of what the point (`ax`, `ay` within answer cell `at`)
    /// hits, `listedNothing`, or `listedUnknown`.
    @inline(never)
    func mixedAnswer(grid: UnsafeMutablePointer<Grid>, cell: Int, at: Int, slot: Int, ax: UInt8, ay: UInt8) -> Int {
        let list = grid.pointee.mixedLists.pointer(at: slot)
        let stamp = grid.pointee.stamps[cell]
        if list.pointee.cell != Int32(truncatingIfNeeded: at) || list.pointee.stamp != stamp {
            makeMixedList(grid: grid, cell: cell, at: at, slot: slot, stamp: stamp)
        }
        if list.pointee.overflows { return Self.listedUnknown }
        // Bytes in a word, not SIMD8: Swift's SIMD masks compiled to a lane at a time.
        let holding = list.pointee.holding(ax, ay)
        guard holding != 0 else { return Self.listedNothing }
        return slot &* MixedList.capacity &+ holding.trailingZeroBitCount &>> 3
    }

    /// Stores `found` in `answer`, passing the slot of the answer it replaces on to it if both
    /// are mixed, giving a mixed one a slot, and freeing the slot of a mixed one replaced by
    /// one that is not.
    func replaceAnswer(_ answer: UnsafeMutablePointer<CachedAnswer>, with found: CachedAnswer, in grid: UnsafeMutablePointer<Grid>) {
        var found = found
        let held: UInt32? = answer.pointee.stamp & 3 == CachedAnswer.mixed ? answer.pointee.front.surface : nil
        if found.stamp & 3 == CachedAnswer.mixed {
            found.front.surface = held ?? takeMixedSlot(grid)
        } else if let held {
            grid.pointee.freeMixedSlots.append(held)
        }
        answer.pointee = found
    }

    func takeMixedSlot(_ grid: UnsafeMutablePointer<Grid>) -> UInt32 {
        let free = grid.pointee.freeMixedSlots.count
        if free > 0 {
            let slot = grid.pointee.freeMixedSlots[free - 1]
            grid.pointee.freeMixedSlots.truncate(to: free - 1)
            grid.pointee.mixedLists[Int(slot)] = MixedList()
            return slot
        }
        let slot = UInt32(grid.pointee.mixedLists.count)
        grid.pointee.mixedLists.append(MixedList())
        for _ in 0..<MixedList.capacity { grid.pointee.mixedTargets.append(AnswerTarget()) }
        return slot
    }

    /// Lists answer cell `at`'s rectangles into `slot`, as `findAnswer` takes them: items front
    /// to back, clipped to the cell, those wholly inside one listed before left out, ending
    /// at the first that covers the whole cell.
    func makeMixedList(grid: UnsafeMutablePointer<Grid>, cell: Int, at: Int, slot: Int, stamp: UInt32) {
        var made = MixedList(cell: Int32(truncatingIfNeeded: at), stamp: stamp)
        let targets = grid.pointee.mixedTargets.pointer(at: slot * MixedList.capacity)
        var count = 0
        forEachClippedItem(grid: grid, cell: cell, column: at % grid.pointee.answerColumns, row: at / grid.pointee.answerColumns) { item in
            if (0..<count).contains(where: {
                item.minX >= MixedList.lane(made.minX, $0) && item.maxX <= MixedList.lane(made.maxX, $0)
                    && item.minY >= MixedList.lane(made.minY, $0) && item.maxY <= MixedList.lane(made.maxY, $0)
            }) {
                return true
            }
            guard count < MixedList.capacity, let target = item.target else {
                made.overflows = true
                return false
            }
            let shift = UInt64(count * 8)
            made.minX |= UInt64(item.minX) << shift
            made.minY |= UInt64(item.minY) << shift
            made.maxX |= UInt64(item.maxX) << shift
            made.maxY |= UInt64(item.maxY) << shift
            targets[count] = target
            count += 1
            return !item.whole
        }
        grid.pointee.mixedLists[slot] = made
    }
}
