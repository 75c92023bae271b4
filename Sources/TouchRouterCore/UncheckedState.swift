/// Mutable state a class keeps behind one `let` pointer. A class's stored `var`s pay a
/// dynamic exclusivity check on every access, which took 40% of a routed event; the
/// pointee of a `let` pointer does not. The owner calls `release()` in its deinit.
package struct UncheckedState<Value> {
    private let pointer: UnsafeMutablePointer<Value>

    package init(_ value: Value) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: value)
    }

    package var pointee: Value {
        unsafeAddress { UnsafePointer(pointer) }
        nonmutating unsafeMutableAddress { pointer }
    }

    package func release() {
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }
}
