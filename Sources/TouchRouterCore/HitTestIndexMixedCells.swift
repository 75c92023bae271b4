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
        let column = at % grid.pointee.answerColumns, row = at / grid.pointee.answerColumns
        let x0 = column << answerShift, y0 = row << answerShift
        let width = min(1 << answerShift, grid.pointee.width - x0), height = min(1 << answerShift, grid.pointee.height - y0)
        let subShift = cellShift - 3
        let bit: UInt64 = 1 << UInt64((((y0 >> subShift) & 7) << 3) | ((x0 >> subShift) & 7))
        let list = grid.pointee.cells.pointer(at: cell).pointee
        let targets = grid.pointee.mixedTargets.pointer(at: slot * MixedList.capacity)
        var count = 0
        defer { grid.pointee.mixedLists[slot] = made }
        for i in 0..<list.count where list[i].mask & bit != 0 {
            let entry = hot.pointer(at: Int(list[i].slot))
            let ox = Int(entry.pointee.originX), oy = Int(entry.pointee.originY)
            for g in 0...Int(entry.pointee.restCount) {
                let group = g == 0 ? Self.pointer(to: &entry.pointee.first) : entry.pointee.rest.unsafelyUnwrapped + (g - 1)
                for lane in 0..<4 {
                    guard group.pointee.minX[lane] < Double(x0 + width - ox), group.pointee.maxX[lane] > Double(x0 - ox),
                          group.pointee.minY[lane] < Double(y0 + height - oy), group.pointee.maxY[lane] > Double(y0 - oy) else { continue }
                    let minX = max(Int(group.pointee.minX[lane]) + ox - x0, 0), maxX = min(Int(group.pointee.maxX[lane]) + ox - x0, width)
                    let minY = max(Int(group.pointee.minY[lane]) + oy - y0, 0), maxY = min(Int(group.pointee.maxY[lane]) + oy - y0, height)
                    if (0..<count).contains(where: { minX >= Int(made.minX[$0]) && maxX <= Int(made.maxX[$0]) && minY >= Int(made.minY[$0]) && maxY <= Int(made.maxY[$0]) }) {
                        continue
                    }
                    let info = entry.pointee.infos.unsafelyUnwrapped[g * 4 + lane]
                    guard count < MixedList.capacity,
                          let target = AnswerTarget(surface: info.surface, origin: (ox + Int(info.originX), oy + Int(info.originY))) else {
                        made.overflows = true
                        return
                    }
                    made.minX[count] = UInt8(minX)
                    made.minY[count] = UInt8(minY)
                    made.maxX[count] = UInt8(maxX)
                    made.maxY[count] = UInt8(maxY)
                    targets[count] = target
                    count += 1
                    if minX == 0 && minY == 0 && maxX == width && maxY == height { return }
                }
            }
        }
    }
}
