import TouchRouterCore

// The pixels the protocols hand over: a surface's damage and viewport as composition takes
// them, an output's framebuffer (which screen capture copies from), and the damage an output
// has not yet shown. Composition itself is the server's (OutputComposition.swift).

/// A rectangle of pixels, in a buffer or a framebuffer.
public struct PixelRect: Hashable, Sendable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    package var isEmpty: Bool { width <= 0 || height <= 0 }

    package func intersection(_ other: PixelRect) -> PixelRect? {
        // Sums that overflow Int stop at its end: no caller's numbers trap.
        func end(_ start: Int, _ length: Int) -> Int {
            let (sum, overflow) = start.addingReportingOverflow(length)
            return overflow ? (length > 0 ? Int.max : Int.min) : sum
        }
        let left = max(x, other.x), top = max(y, other.y)
        let right = min(end(x, width), end(other.x, other.width)), bottom = min(end(y, height), end(other.y, other.height))
        guard right > left, bottom > top else { return nil }
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }
}

/// One surface's pixels and where they go in an output.
public struct CompositionLayer: Sendable {
    /// Premultiplied ARGB8888 (XRGB8888 when `opaque`), rows of `width` pixels, top first.
    public var pixels: [UInt32]
    public var width: Int
    public var height: Int
    /// wl_surface.set_buffer_scale: buffer pixels for each output pixel, each way.
    public var scale: Int
    /// The top bytes mean nothing: the layer hides what is below it.
    public var opaque: Bool
    /// The top-left corner in the output's pixels; any Int, clipped to the framebuffer.
    public var origin: Offset
    /// The surface's size in output pixels, if it clips the buffer further.
    public var clip: Size?
    /// Names the surface from one composition to the next, for damage tracking.
    public var key: UInt64
    /// Where its pixels changed since the last composition, in buffer pixels.
    public var damage: [PixelRect]
    /// wl_surface.set_buffer_transform: how the client turned the buffer's contents, which
    /// composition undoes (a buffer turned as its output is shows on the panel as it is).
    public var transform: OutputTransform
    /// wp_viewport: the part of the surface shown, scaled to a size of its own.
    public var viewport: LayerViewport?
    /// The output's scale: output pixels for each surface pixel, each way. `origin` is in
    /// output pixels, `clip` and the viewport's destination in surface pixels.
    public var outputScale: Int

    public init(pixels: [UInt32], width: Int, height: Int, scale: Int = 1, opaque: Bool = false, origin: Offset, clip: Size? = nil,
                key: UInt64 = 0, damage: [PixelRect] = [], transform: OutputTransform = .normal, viewport: LayerViewport? = nil, outputScale: Int = 1) {
        self.outputScale = min(max(outputScale, 1), OutputMode.maximumScale)
        self.transform = transform
        self.viewport = viewport
        self.pixels = pixels
        self.width = width
        self.height = height
        self.scale = scale
        self.opaque = opaque
        self.origin = origin
        self.clip = clip
        self.key = key
        self.damage = damage
    }
}

/// A layer's viewport: `source` (x, y, width, height) of the surface as its buffer, scale and
/// transform make it (`unscaled`), shown at `destination`'s size.
public struct LayerViewport: Equatable, Sendable {
    public var source: [Double]
    public var unscaled: Size
    public var destination: Size

    public init(source: [Double], unscaled: Size, destination: Size) {
        self.source = source
        self.unscaled = unscaled
        self.destination = destination
    }

    /// The point of the unviewported surface (normalized) that a point of the viewport's
    /// destination (normalized) shows.
    package func unviewported(_ u: Double, _ v: Double) -> (Double, Double) {
        guard source.count == 4, unscaled.width > 0, unscaled.height > 0 else { return (u, v) }
        return ((source[0] + u * source[2]) / Double(unscaled.width), (source[1] + v * source[3]) / Double(unscaled.height))
    }
}

/// An output's picture: XRGB8888 words, rows of `width`, top first.
public final class Framebuffer {
    public let width: Int
    public let height: Int
    public var pixels: [UInt32]

    /// `width` and `height` of 1 to 16384, as an output mode has them.
    public init(width: Int, height: Int) {
        self.width = min(max(width, 1), 16384)
        self.height = min(max(height, 1), 16384)
        pixels = Array(repeating: 0, count: self.width * self.height)
    }

    /// The XRGB word at a point, nil outside.
    public func pixel(_ x: Int, _ y: Int) -> UInt32? {
        guard x >= 0, y >= 0, x < width, y < height else { return nil }
        return pixels[y * width + x]
    }
}

/// What changed in an output since its presenter last got a frame.
package struct UnpresentedDamage {
    package init(all: Bool = true, rects: [PixelRect] = []) {
        self.all = all
        self.rects = rects
    }
    package var all = true
    package var rects: [PixelRect] = []

    /// Past this many rectangles the damage is all of it: what waits long (a capture client
    /// that copies once a day, a dark screen) holds a bounded list.
    package static let maximumRects = 64

    package mutating func add(_ repaint: [PixelRect]?) {
        guard let repaint else { all = true; rects = []; return }
        guard !all else { return }
        rects += repaint
        if rects.count > Self.maximumRects { all = true; rects = [] }
    }

    package var isEmpty: Bool { !all && rects.isEmpty }
}
