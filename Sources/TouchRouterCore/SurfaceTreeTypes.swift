// What the surface tree (SurfaceTree.swift) is made of and answers with.

/// What a surface is to the shell, as its Wayland role object says.
public enum SurfaceRole: String, Sendable, CaseIterable {
    case toplevel
    case subsurface
    case popup
}

/// Where a toplevel sits in its output's stack: layer-shell's four layers, with windows
/// between bottom and top. Raising and lowering keep a toplevel within its layer.
public enum StackingLayer: Int, Sendable, CaseIterable, Comparable {
    case background
    case bottom
    case windows
    case top
    case overlay
    /// ext-session-lock's lock surfaces: while the session is locked, only this layer is
    /// shown and takes input.
    case lock

    public static func < (a: StackingLayer, b: StackingLayer) -> Bool { a.rawValue < b.rawValue }
}

/// Per-surface state that decides whether and how it takes input.
public struct SurfaceProperties: Hashable, Sendable {
    /// The client has committed a buffer (and, for xdg surfaces, acked a configure).
    public var mapped = true
    /// The shell hides the surface (UIKit's `hidden`).
    public var hidden = false
    /// Below 0.01 the surface counts as transparent and takes no touch or pointer input.
    public var opacity = 1.0
    /// UIKit's `userInteractionEnabled`.
    public var interactionEnabled = true
    /// UIKit's `canBecomeFirstResponder`.
    public var acceptsKeyboardFocus = true
    /// UIKit's `exclusiveTouch`.
    public var exclusiveTouch = false
    /// Outside the exclusive-touch rule both ways (not UIKit's): an exclusive surface tracking
    /// a touch does not block this one's touches, and this one's touches block no exclusive
    /// surface. For an on-screen keyboard, which must stay usable while a field is held.
    public var ignoresExclusiveTouch = false
    /// UIKit's `multipleTouchEnabled`; on by default because wl_touch clients expect every touch.
    public var multipleTouch = true
    /// The session is locked and this toplevel is not of the lock layer: hidden from input
    /// and from the screen. The tree keeps it (`SurfaceTree.setLocked`); a caller's
    /// properties never change it.
    public internal(set) var lockedOut = false

    public init() {}

    public static let minimumOpacity = 0.01

    /// Touch and pointer input can reach this surface and its descendants.
    @inlinable
    public var takesPointerInput: Bool {
        mapped && !hidden && !lockedOut && opacity >= Self.minimumOpacity && interactionEnabled
    }

    /// The surface is on screen, which keyboard focus needs of it and of its ancestors.
    @inlinable
    public var isShown: Bool { mapped && !hidden && !lockedOut }
}

public enum SurfaceTreeError: Error, Equatable, CustomStringConvertible {
    case unknownSurface(SurfaceID)
    case unknownOutput(OutputID)
    case duplicateSurface(SurfaceID)
    case duplicateOutput(OutputID)
    case negativeSize(Size)
    case notASibling(SurfaceID, of: SurfaceID)
    case wrongRole(SurfaceID, expected: SurfaceRole)
    case outputNotEmpty(OutputID)
    case tooDeep(SurfaceID, limit: Int)

    public var description: String {
        switch self {
        case .unknownSurface(let id): "no surface \(id)"
        case .unknownOutput(let id): "no output \(id)"
        case .duplicateSurface(let id): "\(id) exists already"
        case .duplicateOutput(let id): "\(id) exists already"
        case .negativeSize(let size): "size \(size.width)x\(size.height) is negative"
        case .notASibling(let id, let other): "\(other) is not a sibling of \(id)"
        case .wrongRole(let id, let role): "\(id) is not a \(role.rawValue)"
        case .outputNotEmpty(let id): "\(id) still holds toplevels"
        case .tooDeep(let id, let limit): "\(id) would be nested more than \(limit) deep below its toplevel (SurfaceTree.maximumDepth)"
        }
    }
}

/// Told about changes that focus and touch bookkeeping must follow.
public protocol SurfaceTreeObserver: AnyObject {
    /// `surfaces` are gone from the tree, children before their parents; `parent` is
    /// the surviving surface they hung from, if any.
    func surfaceTree(_ tree: SurfaceTree, didRemove surfaces: [SurfaceID], from parent: SurfaceID?)
    /// Properties of `surface` changed; for mapped and hidden this affects its subtree too.
    func surfaceTree(_ tree: SurfaceTree, didChangePropertiesOf surface: SurfaceID)
}

final class SurfaceNode {
    let id: SurfaceID
    let role: SurfaceRole
    let client: ClientID
    var label: String
    // Not weak: a parent owns its children and removes them with itself, and an output
    // removes its toplevels first, so these never outlive their target. A weak reference
    // would give every node a side table and slow down each retain and release.
    unowned(unsafe) var parent: SurfaceNode?
    /// Set on toplevels only; descendants find it through their toplevel.
    unowned(unsafe) var output: OutputNode?
    /// Relative to the parent surface; for a toplevel, relative to its output.
    var position: Offset
    /// For toplevels: the layer of the output's stack it is kept in.
    var layer = StackingLayer.windows
    var size: Size { didSet { inputRects = effectiveInputRegion.rects } }
    /// nil means the whole surface, as a wl_surface without an input region.
    var inputRegion: Region<SurfaceSpace>? { didSet { inputRects = effectiveInputRegion.rects } }
    /// The input region clipped to the surface, kept ready for hit testing.
    private(set) var inputRects: [Rect<SurfaceSpace>]
    var properties: SurfaceProperties
    /// Subsurfaces stacked under the parent, bottom first.
    var below: [SurfaceNode] = []
    /// Subsurfaces stacked over the parent, bottom first.
    var above: [SurfaceNode] = []
    /// Popups over everything else of the parent, bottom first.
    var popups: [SurfaceNode] = []
    /// The toplevel's entry in the hit-test index.
    var indexSlot: Int32 = -1
    /// How many parents it has: 0 for a toplevel.
    var depth = 0
    /// A toplevel waiting to be flattened again by the index.
    var indexStale = false

    init(id: SurfaceID, role: SurfaceRole, client: ClientID, label: String, position: Offset, size: Size, properties: SurfaceProperties) {
        self.id = id
        self.role = role
        self.client = client
        self.label = label
        self.position = position
        self.size = size
        self.properties = properties
        inputRects = size.width > 0 && size.height > 0 ? [Rect(x: 0, y: 0, width: size.width, height: size.height)] : []
    }

    var bounds: Rect<SurfaceSpace> { Rect(x: 0, y: 0, width: size.width, height: size.height) }

    /// The input region clipped to the surface, as wl_surface.set_input_region says.
    var effectiveInputRegion: Region<SurfaceSpace> {
        guard let region = inputRegion else { return Region(bounds) }
        return region.intersection(bounds)
    }

    var toplevel: SurfaceNode {
        var node = self
        while let parent = node.parent { node = parent }
        return node
    }

    var offsetInToplevel: Offset {
        var offset = Offset.zero
        var node = self
        while let parent = node.parent {
            offset = offset + node.position
            node = parent
        }
        return offset
    }

    /// Front to back: popups, subsurfaces above, (the surface itself), subsurfaces below.
    var childrenFrontToBack: [SurfaceNode] { popups.reversed() + above.reversed() + below.reversed() }
}

final class OutputNode {
    let id: OutputID
    var name: String
    var rect: Rect<GlobalSpace>
    /// Bottom first.
    var toplevels: [SurfaceNode] = []
    let grid: Int32

    init(id: OutputID, name: String, rect: Rect<GlobalSpace>, grid: Int32) {
        self.id = id
        self.name = name
        self.rect = rect
        self.grid = grid
    }
}

/// What a hit test found: the surface, its output, and the point in the surface's space.
public struct HitResult: Hashable, Sendable {
    public var surface: SurfaceID
    public var output: OutputID
    public var local: Point<SurfaceSpace>
}

public struct SurfaceSnapshot: Hashable, Sendable {
    public var id: SurfaceID
    public var role: SurfaceRole
    public var client: ClientID
    public var label: String
    public var parent: SurfaceID?
    public var output: OutputID?
    public var position: Offset
    public var size: Size
    public var inputRegion: Region<SurfaceSpace>?
    public var properties: SurfaceProperties
    /// Where the surface's origin is in its output, through every parent.
    public var originInOutput: Offset
    /// Its toplevel's layer.
    public var layer: StackingLayer
}

public struct OutputSnapshot: Hashable, Sendable {
    public var id: OutputID
    public var name: String
    public var rect: Rect<GlobalSpace>
    /// Bottom first.
    public var toplevels: [SurfaceID]
}
