/// Mutable state a class keeps behind one `let` pointer. A class's stored `var`s pay a
/// dynamic exclusivity check on every access, which took 40% of a routed event; the
/// pointee of a `let` pointer does not. The owner calls `release()` in its deinit.
/// Public rather than `package`: Swift 6.3 did not inline `@inlinable package` members into
/// the other modules, whose every access was then a call through the generic's metadata.
public struct UncheckedState<Value> {
    @usableFromInline let pointer: UnsafeMutablePointer<Value>

    @inlinable
    public init(_ value: Value) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: value)
    }

    @inlinable
    public var pointee: Value {
        unsafeAddress { UnsafePointer(pointer) }
        nonmutating unsafeMutableAddress { pointer }
    }

    @inlinable
    public func release() {
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }
}
