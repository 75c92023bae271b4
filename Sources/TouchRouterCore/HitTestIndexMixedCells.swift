// Mixed answer cells (HitTestIndex.swift): an answer cell on a window's edge or corner,
// where no single front rectangle and surface behind it say what every point hits. Rather
// than walk the grid cell's toplevels, which at 100,000 leaves means a long list for a
// point that hits nothing, such a cell keeps up to eight rectangles, clipped to it, front
// to back, tested together with one vector compare: the first that holds the point wins,
// none means nothing. The lists sit in a direct-mapped table by answer cell, current while
// their grid cell's stamp is; a cell that needs more than eight is marked, and walks.

extension HitTestIndex {
    /// Up to eight rectangles of one answer cell, relative to it, front to back; unused
    /// lanes are empty (minimum 255, maximum 0). Their targets are in `Grid.mixedTargets`.
    struct MixedList {
        static let capacity = 8
        /// The answer cell described; -1 for none.
        var cell: Int32 = -1
        /// Its grid cell's stamp when the list was made.
        var stamp: UInt32 = 0
        /// The cell needs more than `capacity` rectangles: queries walk.
        var overflows = false
        var minX = SIMD8<UInt8>(repeating: 255), minY = SIMD8<UInt8>(repeating: 255)
        var maxX = SIMD8<UInt8>(repeating: 0), maxY = SIMD8<UInt8>(repeating: 0)
    }

    /// `mixedAnswer` found nothing at the point, or cannot say (the grid walks).
    static let listedNothing = -1, listedUnknown = -2

    static let laneNumbers = SIMD8<UInt8>(0, 1, 2, 3, 4, 5, 6, 7)

    /// The index in `mixedTargets` of what the point (`ax`, `ay` within answer cell `at`)
    /// hits, `listedNothing`, or `listedUnknown`.
    @inline(never)
    func mixedAnswer(grid: UnsafeMutablePointer<Grid>, cell: Int, at: Int, ax: UInt8, ay: UInt8) -> Int {
        let slot = at & grid.pointee.mixedMask
        let list = grid.pointee.mixedLists.pointer(at: slot)
        let stamp = grid.pointee.stamps[cell]
        if list.pointee.cell != Int32(truncatingIfNeeded: at) || list.pointee.stamp != stamp {
            makeMixedList(grid: grid, cell: cell, at: at, slot: slot, stamp: stamp)
        }
        if list.pointee.overflows { return Self.listedUnknown }
        let px = SIMD8<UInt8>(repeating: ax), py = SIMD8<UInt8>(repeating: ay)
        let inside = (px .>= list.pointee.minX) .& (px .< list.pointee.maxX) .& (py .>= list.pointee.minY) .& (py .< list.pointee.maxY)
        guard any(inside) else { return Self.listedNothing }
        let lane = Self.laneNumbers.replacing(with: UInt8(MixedList.capacity), where: .!inside).min()
        return slot &* MixedList.capacity &+ Int(lane)
    }

    /// Lists answer cell `at`'s rectangles into `slot`, as `findAnswer` takes them: items front
    /// to back, clipped to the cell, those wholly inside one listed before left out, ending
    /// at the first that covers the whole cell.
    func makeMixedList(grid: UnsafeMutablePointer<Grid>, cell: Int, at: Int, slot: Int, stamp: UInt32) {
        var made = MixedList(cell: Int32(truncatingIfNeeded: at), stamp: stamp)
        let targets = grid.pointee.mixedTargets.pointer(at: slot * MixedList.capacity)
        var count = 0
        forEachClippedItem(grid: grid, cell: cell, column: at % grid.pointee.answerColumns, row: at / grid.pointee.answerColumns) { item in
            if (0..<count).contains(where: { item.minX >= Int(made.minX[$0]) && item.maxX <= Int(made.maxX[$0]) && item.minY >= Int(made.minY[$0]) && item.maxY <= Int(made.maxY[$0]) }) {
                return true
            }
            guard count < MixedList.capacity, let target = item.target else {
                made.overflows = true
                return false
            }
            made.minX[count] = UInt8(item.minX)
            made.minY[count] = UInt8(item.minY)
            made.maxX[count] = UInt8(item.maxX)
            made.maxY[count] = UInt8(item.maxY)
            targets[count] = target
            count += 1
            return !item.whole
        }
        grid.pointee.mixedLists[slot] = made
    }
}
