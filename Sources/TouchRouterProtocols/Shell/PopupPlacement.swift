import TouchRouterCore

/// xdg_positioner's rules as plain values: where a popup's window geometry goes relative
/// to its parent's window geometry, and how it is brought back inside a bounding box (its
/// output) when it does not fit. The protocol objects only fill it in.
public struct PopupPlacement: Equatable, Sendable {
    /// Which side of the anchor rectangle, or of the popup, along one axis.
    public enum Side: Int, Sendable {
        case start = -1, middle = 0, end = 1
        public var flipped: Side { Side(rawValue: -rawValue)! }
    }

    /// xdg_positioner.constraint_adjustment, with the protocol's bit values.
    public struct Adjustment: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let slideX = Adjustment(rawValue: 1), slideY = Adjustment(rawValue: 2)
        public static let flipX = Adjustment(rawValue: 4), flipY = Adjustment(rawValue: 8)
        public static let resizeX = Adjustment(rawValue: 16), resizeY = Adjustment(rawValue: 32)
    }

    public var size = Size(width: 0, height: 0)
    public var anchorRect = Rect<SurfaceSpace>(x: 0, y: 0, width: 0, height: 0)
    /// The point of the anchor rectangle the popup hangs from.
    public var anchorX = Side.middle, anchorY = Side.middle
    /// The direction the popup extends from that point.
    public var gravityX = Side.middle, gravityY = Side.middle
    public var offset = Offset.zero
    public var adjustment: Adjustment = []

    public init() {}

    /// The popup's box before any adjustment.
    public var box: Rect<SurfaceSpace> {
        Rect(x: Self.start(anchorRect.minX, anchorRect.width, anchorX, gravityX, size.width) + offset.dx,
             y: Self.start(anchorRect.minY, anchorRect.height, anchorY, gravityY, size.height) + offset.dy,
             width: size.width, height: size.height)
    }

    private static func start(_ anchorStart: Int, _ anchorLength: Int, _ anchor: Side, _ gravity: Side, _ length: Int) -> Int {
        let point: Int
        switch anchor {
        case .start: point = anchorStart
        case .middle: point = anchorStart + anchorLength / 2
        case .end: point = anchorStart + anchorLength
        }
        switch gravity {
        case .start: return point - length
        case .middle: return point - length / 2
        case .end: return point
        }
    }

    /// The box moved inside `bounds` as the adjustments allow, each axis on its own and
    /// in the protocol's order: flip (kept only if the flipped box fits), then slide
    /// (the left or top edge wins when the box is larger than the bounds), then resize.
    public func unconstrained(in bounds: Rect<SurfaceSpace>) -> Rect<SurfaceSpace> {
        let original = box
        var flipped = self
        (flipped.anchorX, flipped.gravityX) = (anchorX.flipped, gravityX.flipped)
        (flipped.anchorY, flipped.gravityY) = (anchorY.flipped, gravityY.flipped)
        let x = Axis(start: original.minX, length: original.width, boundsStart: bounds.minX, boundsEnd: bounds.maxX)
            .adjusted(flippedStart: flipped.box.minX, flip: adjustment.contains(.flipX), slide: adjustment.contains(.slideX), resize: adjustment.contains(.resizeX))
        let y = Axis(start: original.minY, length: original.height, boundsStart: bounds.minY, boundsEnd: bounds.maxY)
            .adjusted(flippedStart: flipped.box.minY, flip: adjustment.contains(.flipY), slide: adjustment.contains(.slideY), resize: adjustment.contains(.resizeY))
        return Rect(x: x.start, y: y.start, width: x.length, height: y.length)
    }

    /// One axis of the box against one axis of the bounds.
    private struct Axis {
        package var start: Int, length: Int
        package let boundsStart: Int, boundsEnd: Int

        package var constrained: Bool { start < boundsStart || start + length > boundsEnd }

        package func adjusted(flippedStart: Int, flip: Bool, slide: Bool, resize: Bool) -> Axis {
            var axis = self
            if axis.constrained, flip {
                var candidate = axis
                candidate.start = flippedStart
                if !candidate.constrained { axis = candidate }
            }
            if axis.constrained, slide { axis.slide() }
            if axis.constrained, resize { axis.resize() }
            return axis
        }

        package mutating func slide() {
            if start + length > boundsEnd { start = boundsEnd - length }
            if start < boundsStart { start = boundsStart }
        }

        /// Cut to the bounds, unless nothing would be left.
        package mutating func resize() {
            let newStart = max(start, boundsStart), newEnd = min(start + length, boundsEnd)
            guard newEnd > newStart else { return }
            (start, length) = (newStart, newEnd - newStart)
        }
    }
}
