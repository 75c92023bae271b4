/// Coordinate spaces. A point or rectangle carries its space in its type, so a
/// surface-local point can never be passed where a layout point is expected.
public protocol CoordinateSpace: Sendable {}

/// The compositor's layout: all outputs are placed in it.
public enum GlobalSpace: CoordinateSpace {}
/// Relative to one output's top-left corner; toplevels are placed in it.
public enum OutputSpace: CoordinateSpace {}
/// Relative to one surface's top-left corner; what a client receives.
public enum SurfaceSpace: CoordinateSpace {}

public struct Point<Space: CoordinateSpace>: Hashable, Sendable {
    public var x: Double
    public var y: Double

    @inlinable
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    @inlinable
    public init(_ x: Double, _ y: Double) {
        self.init(x: x, y: y)
    }

    /// Moves the point into a space whose origin lies at `origin` in this space.
    /// Every conversion goes through here, so the reference walk and the index
    /// round exactly alike.
    @inlinable
    public func relative<Target: CoordinateSpace>(to origin: Offset) -> Point<Target> {
        Point<Target>(x: x - Double(origin.dx), y: y - Double(origin.dy))
    }

    /// The inverse of `relative(to:)`.
    @inlinable
    public func absolute<Target: CoordinateSpace>(from origin: Offset) -> Point<Target> {
        Point<Target>(x: x + Double(origin.dx), y: y + Double(origin.dy))
    }
}

/// An integer displacement, as Wayland positions surfaces (wl_subsurface.set_position).
public struct Offset: Hashable, Sendable {
    public var dx: Int
    public var dy: Int

    @inlinable
    public init(dx: Int, dy: Int) {
        self.dx = dx
        self.dy = dy
    }

    public static let zero = Offset(dx: 0, dy: 0)

    @inlinable
    public static func + (lhs: Offset, rhs: Offset) -> Offset {
        Offset(dx: lhs.dx + rhs.dx, dy: lhs.dy + rhs.dy)
    }

    @inlinable
    public static func - (lhs: Offset, rhs: Offset) -> Offset {
        Offset(dx: lhs.dx - rhs.dx, dy: lhs.dy - rhs.dy)
    }
}

public struct Size: Hashable, Sendable {
    public var width: Int
    public var height: Int

    @inlinable
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// A half-open integer rectangle: it contains x where `minX <= x < maxX`.
public struct Rect<Space: CoordinateSpace>: Hashable, Sendable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    @inlinable
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    @inlinable
    public init(origin: Offset, size: Size) {
        self.init(x: origin.dx, y: origin.dy, width: size.width, height: size.height)
    }

    @inlinable public var minX: Int { x }
    @inlinable public var minY: Int { y }
    @inlinable public var maxX: Int { x + width }
    @inlinable public var maxY: Int { y + height }
    @inlinable public var isEmpty: Bool { width <= 0 || height <= 0 }
    @inlinable public var origin: Offset { Offset(dx: x, dy: y) }

    @inlinable
    public func contains(_ point: Point<Space>) -> Bool {
        point.x >= Double(minX) && point.x < Double(maxX) && point.y >= Double(minY) && point.y < Double(maxY)
    }

    @inlinable
    public func intersection(_ other: Rect) -> Rect? {
        let x0 = Swift.max(minX, other.minX), y0 = Swift.max(minY, other.minY)
        let x1 = Swift.min(maxX, other.maxX), y1 = Swift.min(maxY, other.maxY)
        guard x0 < x1, y0 < y1 else { return nil }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    @inlinable
    public func intersects(_ other: Rect) -> Bool { intersection(other) != nil }

    @inlinable
    public func contains(_ other: Rect) -> Bool {
        other.minX >= minX && other.maxX <= maxX && other.minY >= minY && other.maxY <= maxY
    }

    /// The same rectangle, read in a space whose origin lies at `origin` in this one.
    @inlinable
    public func relative<Target: CoordinateSpace>(to origin: Offset) -> Rect<Target> {
        Rect<Target>(x: x - origin.dx, y: y - origin.dy, width: width, height: height)
    }

    @inlinable
    public func absolute<Target: CoordinateSpace>(from origin: Offset) -> Rect<Target> {
        Rect<Target>(x: x + origin.dx, y: y + origin.dy, width: width, height: height)
    }

    /// The parts of this rectangle outside `hole`, as at most four disjoint bands.
    public func subtracting(_ hole: Rect) -> [Rect] {
        guard let cut = intersection(hole) else { return isEmpty ? [] : [self] }
        var pieces: [Rect] = []
        if cut.minY > minY { pieces.append(Rect(x: x, y: y, width: width, height: cut.minY - minY)) }
        if cut.maxY < maxY { pieces.append(Rect(x: x, y: cut.maxY, width: width, height: maxY - cut.maxY)) }
        if cut.minX > minX { pieces.append(Rect(x: x, y: cut.minY, width: cut.minX - minX, height: cut.height)) }
        if cut.maxX < maxX { pieces.append(Rect(x: cut.maxX, y: cut.minY, width: maxX - cut.maxX, height: cut.height)) }
        return pieces
    }
}

/// A set of points given as disjoint rectangles, with wl_region's operations.
/// Two regions covering the same points may hold different rectangles; compare
/// them with `coversSamePoints(as:)`, not `==`.
public struct Region<Space: CoordinateSpace>: Hashable, Sendable {
    public private(set) var rects: [Rect<Space>]

    public init() { rects = [] }

    public init(_ rect: Rect<Space>) {
        rects = rect.isEmpty ? [] : [rect]
    }

    public init(rects: [Rect<Space>]) {
        self.init()
        for rect in rects { add(rect) }
    }

    public var isEmpty: Bool { rects.isEmpty }

    /// wl_region.add: the union with `rect`.
    /// One comparison for each rectangle the region holds, and work beyond that only for
    /// those that overlap `rect`.
    public mutating func add(_ rect: Rect<Space>) {
        guard !rect.isEmpty else { return }
        var fresh = [rect]
        for existing in rects where existing.intersects(rect) {
            guard fresh.contains(where: { $0.intersects(existing) }) else { continue }
            fresh = fresh.flatMap { $0.subtracting(existing) }
            if fresh.isEmpty { return }
        }
        rects.append(contentsOf: fresh)
    }

    /// wl_region.subtract: rectangles that do not overlap `rect` stay as they are.
    public mutating func subtract(_ rect: Rect<Space>) {
        guard !rect.isEmpty, rects.contains(where: { $0.intersects(rect) }) else { return }
        var kept: [Rect<Space>] = []
        kept.reserveCapacity(rects.count + 3)
        for existing in rects {
            if existing.intersects(rect) { kept.append(contentsOf: existing.subtracting(rect)) } else { kept.append(existing) }
        }
        rects = kept
    }

    public mutating func intersect(_ rect: Rect<Space>) {
        rects = rects.compactMap { $0.intersection(rect) }
    }

    public mutating func formUnion(_ other: Region) {
        for rect in other.rects { add(rect) }
    }

    public mutating func subtract(_ other: Region) {
        for rect in other.rects { subtract(rect) }
    }

    public mutating func intersect(_ other: Region) {
        var result = Region()
        for mine in rects {
            for theirs in other.rects {
                if let cut = mine.intersection(theirs) { result.rects.append(cut) }
            }
        }
        self = result
    }

    public func intersection(_ rect: Rect<Space>) -> Region {
        var copy = self
        copy.intersect(rect)
        return copy
    }

    public func contains(_ point: Point<Space>) -> Bool {
        for rect in rects where rect.contains(point) { return true }
        return false
    }

    public var area: Int { rects.reduce(0) { $0 + $1.width * $1.height } }

    /// The smallest rectangle holding every point, or nil when empty.
    public var extents: Rect<Space>? {
        guard var x0 = rects.first?.minX, var y0 = rects.first?.minY,
              var x1 = rects.first?.maxX, var y1 = rects.first?.maxY else { return nil }
        for rect in rects.dropFirst() {
            x0 = min(x0, rect.minX); y0 = min(y0, rect.minY)
            x1 = max(x1, rect.maxX); y1 = max(y1, rect.maxY)
        }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    public func coversSamePoints(as other: Region) -> Bool {
        var onlyMine = self
        onlyMine.subtract(other)
        var onlyTheirs = other
        onlyTheirs.subtract(self)
        return onlyMine.isEmpty && onlyTheirs.isEmpty
    }
}
