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
/// one compare. A mixed cell (window edges and corners) keeps, where it can, a short list
/// of its rectangles front to back, tested at once (HitTestIndexMixedCells.swift); only
/// cells past the list's eight rectangles walk the grid cell. Answers are filled in lazily by queries and dropped, a grid cell at a
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
    /// `Grid.answersBehind`, or nothing. `front` is the topmost surface there, or, where a
    /// window's edge crosses the cell over a surface that covers it, the larger side's
    /// surface (`largerSideFirst`). A mixed cell is one that needs the grid's walk.
    /// `stamp` is the grid cell's stamp when the answer was found, shifted left by two,
    /// with what lies behind the front in the low two bits. A mixed answer's front is empty,
    /// and its `front.surface` is the slot of its list (HitTestIndexMixedCells.swift).
    /// Sixteen bytes, so that four share a cache line: a query's cost is mostly the miss that
    /// loads its answer.
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
        /// Mixed answer cells' short lists (HitTestIndexMixedCells.swift), a slot each,
        /// `MixedList.capacity` targets a slot; slots no answer holds wait in `freeMixedSlots`.
        var mixedLists = ManualBuffer<MixedList>()
        var mixedTargets = ManualBuffer<AnswerTarget>()
        var freeMixedSlots = ManualBuffer<UInt32>()
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

    /// 128 to 4096 px: a grid cell's sub-cells (an eighth of it) hold whole answer cells.
    public static let cellShifts = 7...12

    let cellShift: Int
    /// Answer cells are 16 px, so that one lies in one sub-cell of its grid cell. A constant,
    /// so that a query's shifts and mask are immediates.
    static let answerShift = 4
    var answerShift: Int { Self.answerShift }
    let state = UncheckedState(State())

    init(cellShift: Int) {
        precondition(Self.cellShifts.contains(cellShift), "cell size must be 128 to 4096 pixels")
        self.cellShift = cellShift
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

    var entries: ManualBuffer<Entry> { state.pointee.entries }
    var hot: ManualBuffer<HotEntry> { state.pointee.hot }
    var keys: ManualBuffer<UInt64> { state.pointee.keys }
    var grids: ManualBuffer<Grid> { state.pointee.grids }

    // MARK: Query

    /// The surface at a global point: the output holding it, then its answer cell's cached
    /// answer if it is current, else the grid cell's toplevels front to back. The
    /// arithmetic matches `SurfaceTree.referenceHitTest`.
    ///
    /// Inlined into `SurfaceTree.hitTest`, and everything but a current answer whose front
    /// holds the point is in `answerBehindFront`: the common case keeps few registers live and
    /// pays one call.
    @inline(__always)
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
            // UInt16's own range test, written out, so that its conversions test nothing again
            // (an Int's tested range and finiteness, about 20 instructions a query). Only an
            // output over 65,535 px fails it, and converts the general way.
            let ix: Int, iy: Int
            if x > -1, x < 65536, y > -1, y < 65536 {
                ix = Int(UInt16(x))
                iy = Int(UInt16(y))
            } else {
                ix = Int(x)
                iy = Int(y)
            }
            let at = (iy &>> answerShift) &* grid.pointee.answerColumns &+ (ix &>> answerShift)
            let answer = grid.pointee.answers.pointer(at: at)
            let cell = (iy &>> cellShift) &* grid.pointee.columns &+ (ix &>> cellShift)
            let within = (1 &<< answerShift) &- 1
            let ax = UInt8(truncatingIfNeeded: ix & within), ay = UInt8(truncatingIfNeeded: iy & within)
            guard answer.pointee.stamp &>> 2 == grid.pointee.stamps.base.unsafelyUnwrapped[cell],
                  ax >= answer.pointee.frontMinX, ax < answer.pointee.frontMaxX,
                  ay >= answer.pointee.frontMinY, ay < answer.pointee.frontMaxY else {
                return answerBehindFront(grid: grid, cell: cell, at: at, ax: ax, ay: ay, x: x, y: y, output: output.pointee.id)
            }
            let target = answer.pointee.front
            return HitResult(
                surface: SurfaceID(target.surface), output: output.pointee.id,
                local: Point(x: x - Double(target.originX), y: y - Double(target.originY)))
        }
        return nil
    }

    /// The rest of a query, off its fast path: the answer cell's answer is found if it is
    /// not current, and the point is outside its front.
    @inline(never)
    func answerBehindFront(grid: UnsafeMutablePointer<Grid>, cell: Int, at: Int, ax: UInt8, ay: UInt8, x: Double, y: Double, output: OutputID) -> HitResult? {
        let answer = grid.pointee.answers.pointer(at: at)
        if answer.pointee.stamp &>> 2 != grid.pointee.stamps[cell] {
            let columns = grid.pointee.answerColumns
            let (found, behind) = findAnswer(grid: grid, cell: cell, column: at % columns, row: at / columns)
            replaceAnswer(answer, with: found, in: grid)
            grid.pointee.answersBehind[at] = behind
        }
        let target: AnswerTarget
        if ax >= answer.pointee.frontMinX, ax < answer.pointee.frontMaxX, ay >= answer.pointee.frontMinY, ay < answer.pointee.frontMaxY {
            target = answer.pointee.front
        } else {
            switch answer.pointee.stamp & 3 {
            case CachedAnswer.nothingBehind: return nil
            case CachedAnswer.surfaceBehind: target = grid.pointee.answersBehind[at]
            default:
                let listed = mixedAnswer(grid: grid, cell: cell, at: at, slot: Int(answer.pointee.front.surface), ax: ax, ay: ay)
                if listed >= 0 {
                    target = grid.pointee.mixedTargets[listed]
                } else if listed == Self.listedNothing {
                    return nil
                } else {
                    return walk(grid: grid, cell: cell, x: x, y: y, output: output)
                }
            }
        }
        return HitResult(
            surface: SurfaceID(target.surface), output: output,
            local: Point(x: x - Double(target.originX), y: y - Double(target.originY)))
    }

    /// The grid cell's toplevels, front to back, skipping those whose box misses the point's sub-cell.
    func walk(grid: UnsafeMutablePointer<Grid>, cell: Int, x: Double, y: Double, output: OutputID) -> HitResult? {
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
                    // A local constant folds; a static one cost a swift_once a call.
                    let lane = Int(SIMD4<Int64>(repeating: 4).replacing(with: SIMD4<Int64>(0, 1, 2, 3), where: inside).min())
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
    func findAnswer(grid: UnsafeMutablePointer<Grid>, cell: Int, column: Int, row: Int) -> (CachedAnswer, behind: AnswerTarget) {
        let stamp = grid.pointee.stamps[cell] &<< 2
        let (width, height) = answerCellSize(grid: grid, column: column, row: row)
        let mixed = (CachedAnswer(stamp: stamp | CachedAnswer.mixed), AnswerTarget())
        var answer: CachedAnswer? = nil
        var result: (CachedAnswer, AnswerTarget)? = nil
        forEachClippedItem(grid: grid, cell: cell, column: column, row: row) { item in
            guard let target = item.target else {
                result = mixed
                return false
            }
            guard var found = answer else {
                answer = CachedAnswer(
                    stamp: stamp | CachedAnswer.nothingBehind,
                    frontMinX: UInt8(item.minX), frontMinY: UInt8(item.minY), frontMaxX: UInt8(item.maxX), frontMaxY: UInt8(item.maxY),
                    front: target)
                if item.whole { result = (answer!, AnswerTarget()) }
                return !item.whole
            }
            if item.minX >= Int(found.frontMinX), item.maxX <= Int(found.frontMaxX), item.minY >= Int(found.frontMinY), item.maxY <= Int(found.frontMaxY) {
                return true
            }
            guard item.whole else {
                result = mixed
                return false
            }
            found.stamp = stamp | CachedAnswer.surfaceBehind
            result = Self.largerSideFirst(found, behind: target, width: width, height: height)
            return false
        }
        if let result { return result }
        return (answer ?? CachedAnswer(stamp: stamp | CachedAnswer.nothingBehind), AnswerTarget())
    }

    /// A front surface's part of a cell with a surface behind covering the rest: where that
    /// part runs from one side of the cell across it (a window's edge crossing the cell), the
    /// rest is a rectangle too, and whichever of the two is larger is the one the answer holds
    /// (the other's surface goes behind), so that more random points end on the query's
    /// common path. Corners and strips touching neither side stay as they are.
    static func largerSideFirst(_ answer: CachedAnswer, behind: AnswerTarget, width: Int, height: Int) -> (CachedAnswer, behind: AnswerTarget) {
        let minX = Int(answer.frontMinX), minY = Int(answer.frontMinY), maxX = Int(answer.frontMaxX), maxY = Int(answer.frontMaxY)
        var rest: (minX: Int, minY: Int, maxX: Int, maxY: Int)? = nil
        if minY == 0, maxY == height {
            if minX == 0, maxX < width { rest = (maxX, 0, width, height) } else if maxX == width, minX > 0 { rest = (0, 0, minX, height) }
        } else if minX == 0, maxX == width {
            if minY == 0, maxY < height { rest = (0, maxY, width, height) } else if maxY == height, minY > 0 { rest = (0, 0, width, minY) }
        }
        guard let rest, (rest.maxX - rest.minX) * (rest.maxY - rest.minY) > (maxX - minX) * (maxY - minY) else { return (answer, behind) }
        var swapped = answer
        swapped.frontMinX = UInt8(rest.minX)
        swapped.frontMinY = UInt8(rest.minY)
        swapped.frontMaxX = UInt8(rest.maxX)
        swapped.frontMaxY = UInt8(rest.maxY)
        swapped.front = behind
        return (swapped, answer.front)
    }

    /// Answer cell (column, row)'s width and height: 16 px, less in the last column and row
    /// where the output's size is not a multiple of it.
    @inline(__always)
    func answerCellSize(grid: UnsafeMutablePointer<Grid>, column: Int, row: Int) -> (width: Int, height: Int) {
        (min(1 << answerShift, grid.pointee.width - (column << answerShift)), min(1 << answerShift, grid.pointee.height - (row << answerShift)))
    }

    /// An item's rectangle clipped to an answer cell, relative to the cell's corner, and
    /// what it hits (nil where its origin does not fit in 16 bits).
    struct ClippedItem {
        var minX: Int, minY: Int, maxX: Int, maxY: Int
        var target: AnswerTarget?
        /// It covers the whole answer cell.
        var whole: Bool
    }

    /// The items that meet answer cell (column, row) of grid cell `cell`, front to back,
    /// clipped to it, until `body` returns false: what `findAnswer` and the mixed cells'
    /// lists are made of.
    @inline(__always)
    func forEachClippedItem(grid: UnsafeMutablePointer<Grid>, cell: Int, column: Int, row: Int, _ body: (ClippedItem) -> Bool) {
        let x0 = column << answerShift, y0 = row << answerShift
        let (width, height) = answerCellSize(grid: grid, column: column, row: row)
        let subShift = cellShift - 3
        let bit: UInt64 = 1 << UInt64((((y0 >> subShift) & 7) << 3) | ((x0 >> subShift) & 7))
        let list = grid.pointee.cells.pointer(at: cell).pointee
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
                    let info = entry.pointee.infos.unsafelyUnwrapped[g * 4 + lane]
                    let item = ClippedItem(minX: minX, minY: minY, maxX: maxX, maxY: maxY,
                                           target: AnswerTarget(surface: info.surface, origin: (ox + Int(info.originX), oy + Int(info.originY))),
                                           whole: minX == 0 && minY == 0 && maxX == width && maxY == height)
                    guard body(item) else { return }
                }
            }
        }
    }

    @inline(__always)
    static func pointer<T>(to value: UnsafeMutablePointer<T>) -> UnsafeMutablePointer<T> { value }
}

extension HitTestIndex.AnswerTarget {
    /// Nil where the origin does not fit in 16 bits; such a cell is left to the grid's walk.
    init?(surface: UInt32, origin: (Int, Int)) {
        guard let x = Int16(exactly: origin.0), let y = Int16(exactly: origin.1) else { return nil }
        self.init(surface: surface, originX: x, originY: y)
    }
}
