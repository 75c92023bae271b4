/// Where layer-shell surfaces go on their output, and what they leave for windows.
///
/// A surface is anchored to some of the output's edges, kept its margins away from them,
/// stretched across an axis when anchored to both of its edges with a size of 0 there, and
/// centred on an axis anchored to neither or both edges. An exclusive zone above 0 on a
/// surface anchored to one edge (alone, or with both edges across it) takes that many
/// pixels, plus the margin on that edge, off the usable area where windows are placed and
/// maximized; 0 places the surface within the usable area left by others; -1 (any negative)
/// places it on the whole output.
public struct LayerPlacement: Hashable, Sendable {
    public struct Anchor: OptionSet, Hashable, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        // layer-shell's bits.
        public static let top = Anchor(rawValue: 1)
        public static let bottom = Anchor(rawValue: 2)
        public static let left = Anchor(rawValue: 4)
        public static let right = Anchor(rawValue: 8)
        public static let all: Anchor = [.top, .bottom, .left, .right]
    }

    public struct Margins: Hashable, Sendable {
        public var top = 0, right = 0, bottom = 0, left = 0
        public init(top: Int = 0, right: Int = 0, bottom: Int = 0, left: Int = 0) {
            (self.top, self.right, self.bottom, self.left) = (top, right, bottom, left)
        }
    }

    public var size = Size(width: 0, height: 0)
    public var anchor: Anchor = []
    public var margins = Margins()
    public var exclusiveZone = 0

    public init(size: Size = Size(width: 0, height: 0), anchor: Anchor = [], margins: Margins = Margins(), exclusiveZone: Int = 0) {
        self.size = size
        self.anchor = anchor
        self.margins = margins
        self.exclusiveZone = exclusiveZone
    }

    /// The edge an exclusive zone applies to: the one anchored edge, or the one whose both
    /// neighbours across are anchored too; nil for none, opposite edges, or all four.
    public var exclusiveEdge: Anchor? {
        let horizontal: Anchor = [.left, .right], vertical: Anchor = [.top, .bottom]
        for edge in [Anchor.top, .bottom, .left, .right] {
            let across = edge == .top || edge == .bottom ? horizontal : vertical
            let opposite: Anchor = edge == .top ? .bottom : edge == .bottom ? .top : edge == .left ? .right : .left
            guard anchor.contains(edge), !anchor.contains(opposite) else { continue }
            let crossing = anchor.intersection(across)
            if crossing.isEmpty || crossing == across { return edge }
        }
        return nil
    }

    /// The surface's size on an axis: its own, or the area's less margins when it asked 0
    /// and is anchored to both edges (never below 0).
    public func resolvedSize(in area: Rect<OutputSpace>) -> Size {
        var result = size
        if size.width == 0, anchor.contains([.left, .right]) { result.width = max(0, area.width - margins.left - margins.right) }
        if size.height == 0, anchor.contains([.top, .bottom]) { result.height = max(0, area.height - margins.top - margins.bottom) }
        return result
    }

    /// The surface's rectangle within `area` (the usable area, or the whole output for a
    /// negative exclusive zone).
    public func rect(in area: Rect<OutputSpace>) -> Rect<OutputSpace> {
        let size = resolvedSize(in: area)
        let x: Int, y: Int
        switch (anchor.contains(.left), anchor.contains(.right)) {
        case (true, false): x = area.x + margins.left
        case (false, true): x = area.x + area.width - margins.right - size.width
        case (true, true): x = area.x + margins.left + (area.width - margins.left - margins.right - size.width) / 2
        case (false, false): x = area.x + (area.width - size.width) / 2
        }
        switch (anchor.contains(.top), anchor.contains(.bottom)) {
        case (true, false): y = area.y + margins.top
        case (false, true): y = area.y + area.height - margins.bottom - size.height
        case (true, true): y = area.y + margins.top + (area.height - margins.top - margins.bottom - size.height) / 2
        case (false, false): y = area.y + (area.height - size.height) / 2
        }
        return Rect(x: x, y: y, width: size.width, height: size.height)
    }

    /// `usable` less this surface's exclusive zone (with its margin on that edge), never below
    /// 0×0 and never more than `usable`: a negative margin does not grow it.
    public func shrink(_ usable: Rect<OutputSpace>) -> Rect<OutputSpace> {
        guard exclusiveZone > 0, let edge = exclusiveEdge else { return usable }
        var r = usable
        switch edge {
        case .top:
            let taken = max(0, min(r.height, exclusiveZone + margins.top))
            r = Rect(x: r.x, y: r.y + taken, width: r.width, height: r.height - taken)
        case .bottom:
            let taken = max(0, min(r.height, exclusiveZone + margins.bottom))
            r = Rect(x: r.x, y: r.y, width: r.width, height: r.height - taken)
        case .left:
            let taken = max(0, min(r.width, exclusiveZone + margins.left))
            r = Rect(x: r.x + taken, y: r.y, width: r.width - taken, height: r.height)
        default:
            let taken = max(0, min(r.width, exclusiveZone + margins.right))
            r = Rect(x: r.x, y: r.y, width: r.width - taken, height: r.height)
        }
        return r
    }

    /// Arranges an output's layer surfaces, in the order given (their stacking order, bottom
    /// first): those with an exclusive zone first, each inside what the earlier ones left,
    /// then the others. Returns each one's rectangle, in the order given, and the usable area.
    public static func arrange(_ surfaces: [LayerPlacement], on output: Rect<OutputSpace>) -> (rects: [Rect<OutputSpace>], usable: Rect<OutputSpace>) {
        var rects = [Rect<OutputSpace>](repeating: Rect(x: 0, y: 0, width: 0, height: 0), count: surfaces.count)
        var usable = output
        for (i, surface) in surfaces.enumerated() where surface.exclusiveZone > 0 {
            rects[i] = surface.rect(in: usable)
            usable = surface.shrink(usable)
        }
        for (i, surface) in surfaces.enumerated() where surface.exclusiveZone <= 0 {
            rects[i] = surface.rect(in: surface.exclusiveZone < 0 ? output : usable)
        }
        return (rects, usable)
    }
}
