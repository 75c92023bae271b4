/// Mutable state a class keeps behind one `let` pointer. A class's stored `var`s pay a
/// dynamic exclusivity check on every access, which took 40% of a routed event; the
/// pointee of a `let` pointer does not. The owner calls `release()` in its deinit.
package struct UncheckedState<Value> {
    @usableFromInline let pointer: UnsafeMutablePointer<Value>

    // Inlinable, so that the Wayland layer's reads are a load, not a call through the
    // generic's metadata.
    @inlinable
    package init(_ value: Value) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: value)
    }

    @inlinable
    package var pointee: Value {
        unsafeAddress { UnsafePointer(pointer) }
        nonmutating unsafeMutableAddress { pointer }
    }

    @inlinable
    package func release() {
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }
}
