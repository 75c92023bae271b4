/// The toplevels listed in one grid cell of the hit-test index, front first (descending
/// stacking key). Keys sit in an array of their own, apart from the masks and slots a
/// query reads: a binary search then touches as few cache lines as it can, and its loads,
/// one waiting on the last, are what a change costs most.
///
/// Moving a window to a random place takes it out of half a dozen lists and puts it
/// into half a dozen others. Closing the gap on every removal and opening one on every
/// insertion made each of those a memmove of half the list, plus the mispredicted
/// branches of its size. So a removal only vacates its entry: a vacancy keeps its key
/// (the list stays sorted, and binary searches need no special case) and has an empty
/// sub-cell mask (so a query skips it with the test it already makes). An insertion
/// reuses the nearest vacancy, shifting only the entries between, and the list is
/// compacted when vacancies pass a quarter of it, which keeps both the walk's extra
/// reads and the compaction's cost per removal bounded.
struct CellList {
    static let vacant = UInt32.max
    /// How far from its place an insertion looks for a vacancy before opening a gap.
    static let vacancyReach = 32

    private(set) var keys = ManualBuffer<UInt64>()
    private(set) var entries = ManualBuffer<HitTestIndex.CellEntry>()
    private(set) var vacancies = 0

    var count: Int { entries.count }

    @inline(__always)
    func pointer(at i: Int) -> UnsafeMutablePointer<HitTestIndex.CellEntry> { entries.pointer(at: i) }

    subscript(i: Int) -> HitTestIndex.CellEntry { entries[i] }

    func key(at i: Int) -> UInt64 { keys[i] }

    /// Only for renumbering, which keeps the order.
    func setKey(_ key: UInt64, at i: Int) { keys[i] = key }

    /// The first position whose key is not above `key`. Branch-free: the halving depends
    /// only on the length, and the compare becomes a mask, because each step's direction
    /// is a coin toss that a branch would mispredict half the time.
    @inline(__always)
    func position(ofKey key: UInt64) -> Int {
        let count = keys.count
        guard count > 0 else { return 0 }
        let base = keys.base.unsafelyUnwrapped
        var low = 0, length = count
        while length > 1 {
            let half = length &>> 1
            let above = base[low &+ half] > key
            low &+= half & (0 &- Int(unsafeBitCast(above, to: UInt8.self)))
            length &-= half
        }
        return low &+ Int(unsafeBitCast(base[low] > key, to: UInt8.self))
    }

    /// Where `slot` is listed under `key`; traps if it is not, since the index's cells and
    /// its toplevels' boxes would then disagree.
    func find(_ slot: Int32, key: UInt64) -> Int {
        let at = position(ofKey: key)
        precondition(at < entries.count && entries[at].slot == UInt32(slot), "hit-test index cell lost a toplevel")
        return at
    }

    mutating func insert(key: UInt64, mask: UInt64, slot: Int32) {
        let entry = HitTestIndex.CellEntry(mask: mask, slot: UInt32(slot))
        let at = position(ofKey: key)
        let p = entries.base, k = keys.base
        if at < entries.count, k.unsafelyUnwrapped[at] == key {
            // Keys are unique among listed toplevels, so an equal key is a vacancy's.
            precondition(p.unsafelyUnwrapped[at].slot == Self.vacant, "hit-test index cell lists two toplevels with one key")
            p.unsafelyUnwrapped[at] = entry
            vacancies -= 1
            return
        }
        if vacancies > 0, let vacancy = nearestVacancy(to: at) {
            let p = p.unsafelyUnwrapped, k = k.unsafelyUnwrapped
            if vacancy < at {
                // Entries between are in front of the new one: each moves up one place.
                (p + vacancy).update(from: p + vacancy + 1, count: at - 1 - vacancy)
                (k + vacancy).update(from: k + vacancy + 1, count: at - 1 - vacancy)
                p[at - 1] = entry
                k[at - 1] = key
            } else {
                (p + at + 1).update(from: p + at, count: vacancy - at)
                (k + at + 1).update(from: k + at, count: vacancy - at)
                p[at] = entry
                k[at] = key
            }
            vacancies -= 1
            return
        }
        entries.insert(entry, at: at)
        keys.insert(key, at: at)
    }

    /// The vacancy nearest to `position` within reach, on either side.
    private func nearestVacancy(to position: Int) -> Int? {
        let p = entries.base.unsafelyUnwrapped
        for distance in 0..<Self.vacancyReach {
            let before = position - 1 - distance, after = position + distance
            guard before >= 0 || after < entries.count else { return nil }
            if before >= 0, p[before].slot == Self.vacant { return before }
            if after < entries.count, p[after].slot == Self.vacant { return after }
        }
        return nil
    }

    mutating func remove(_ slot: Int32, key: UInt64) {
        let at = find(slot, key: key)
        let entry = entries.pointer(at: at)
        entry.pointee.mask = 0
        entry.pointee.slot = Self.vacant
        vacancies += 1
        var end = entries.count
        while end > 0, entries[end - 1].slot == Self.vacant { end -= 1 }
        vacancies -= entries.count - end
        entries.truncate(to: end)
        keys.truncate(to: end)
        if vacancies * 4 > entries.count { compact() }
    }

    /// Drops every vacancy, keeping the order.
    mutating func compact() {
        guard vacancies > 0 else { return }
        let p = entries.base.unsafelyUnwrapped, k = keys.base.unsafelyUnwrapped
        var kept = 0
        for i in 0..<entries.count where p[i].slot != Self.vacant {
            p[kept] = p[i]
            k[kept] = k[i]
            kept += 1
        }
        entries.truncate(to: kept)
        keys.truncate(to: kept)
        vacancies = 0
    }

    mutating func deallocate() {
        entries.deallocate()
        keys.deallocate()
        vacancies = 0
    }
}
