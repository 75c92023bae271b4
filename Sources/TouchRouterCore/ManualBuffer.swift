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

    /// Drops the elements from `newCount` on.
    mutating func truncate(to newCount: Int) {
        guard newCount < count else { return }
        (base.unsafelyUnwrapped + newCount).deinitialize(count: count - newCount)
        count = newCount
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
