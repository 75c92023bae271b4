import CPNGShim
import CPixman
import TouchRouterCore

// Composition in software: each output's framebuffer, XRGB8888 of the output's size, made
// with pixman from the shm contents the session keeps for each surface (Compositor.swift).
// Lazy: an output is composed when something asks for its pixels (`msg screenshot`), not at
// every frame tick, and in full each time (no damage tracking yet). Buffer and output
// transforms are not applied: a turned buffer is drawn as it is stored.

/// One surface's pixels and where they go in an output.
public struct CompositionLayer {
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

    public init(pixels: [UInt32], width: Int, height: Int, scale: Int = 1, opaque: Bool = false, origin: Offset, clip: Size? = nil) {
        self.pixels = pixels
        self.width = width
        self.height = height
        self.scale = scale
        self.opaque = opaque
        self.origin = origin
        self.clip = clip
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

public struct CompositionError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// pixman's part: a background, then layers bottom first.
public enum SoftwareComposer {
    /// What shows where no surface is: a dark slate, so that it is told apart from black pixels.
    public static let background: UInt32 = 0xff2e3440
    /// The largest buffer scale honoured; a larger one is drawn at this scale.
    static let maximumScale = 32

    /// Repaints all of `framebuffer`: the background, then each layer over it, bottom first.
    public static func compose(_ layers: [CompositionLayer], into framebuffer: Framebuffer, background: UInt32 = background) throws(CompositionError) {
        let (width, height) = (framebuffer.width, framebuffer.height)
        let failure: CompositionError? = framebuffer.pixels.withUnsafeMutableBufferPointer { destination in
            guard let target = pixman_image_create_bits_no_clear(PIXMAN_x8r8g8b8, Int32(width), Int32(height), destination.baseAddress, Int32(width * 4)) else {
                return CompositionError("pixman cannot make a \(width)x\(height) framebuffer")
            }
            defer { pixman_image_unref(target) }
            var color = pixman_color_t(red: UInt16((background >> 16) & 0xff) * 0x101, green: UInt16((background >> 8) & 0xff) * 0x101,
                                       blue: UInt16(background & 0xff) * 0x101, alpha: 0xffff)
            var box = pixman_box32_t(x1: 0, y1: 0, x2: Int32(width), y2: Int32(height))
            guard pixman_image_fill_boxes(PIXMAN_OP_SRC, target, &color, 1, &box) != 0 else { return CompositionError("pixman cannot fill the background") }
            for layer in layers {
                if let problem = draw(layer, onto: target, width: width, height: height) { return problem }
            }
            return nil
        }
        if let failure { throw failure }
    }

    /// The part of the framebuffer a layer covers, computed in Int and clamped, so that no
    /// client's numbers reach pixman outside its range; nil when it covers nothing.
    static func coverage(of layer: CompositionLayer, width: Int, height: Int) -> (x: Int, y: Int, width: Int, height: Int)? {
        guard layer.width > 0, layer.height > 0, layer.pixels.count >= layer.width * layer.height else { return nil }
        let scale = min(max(layer.scale, 1), maximumScale)
        var shown = (width: (layer.width + scale - 1) / scale, height: (layer.height + scale - 1) / scale)
        if let clip = layer.clip { shown = (min(shown.width, max(clip.width, 0)), min(shown.height, max(clip.height, 0))) }
        // Far outside is outside: clamping first keeps the sums below from overflowing.
        let limit = 1 << 40
        let x0 = min(max(layer.origin.dx, -limit), limit), y0 = min(max(layer.origin.dy, -limit), limit)
        let left = max(x0, 0), top = max(y0, 0)
        let right = min(x0 + shown.width, width), bottom = min(y0 + shown.height, height)
        guard right > left, bottom > top else { return nil }
        return (left, top, right - left, bottom - top)
    }

    private static func draw(_ layer: CompositionLayer, onto target: OpaquePointer, width: Int, height: Int) -> CompositionError? {
        guard let area = coverage(of: layer, width: width, height: height) else { return nil }
        let scale = min(max(layer.scale, 1), maximumScale)
        return layer.pixels.withUnsafeBufferPointer { source -> CompositionError? in
            // pixman only reads a source image; it takes a mutable pointer all the same.
            guard let image = pixman_image_create_bits_no_clear(layer.opaque ? PIXMAN_x8r8g8b8 : PIXMAN_a8r8g8b8, Int32(layer.width), Int32(layer.height),
                                                                UnsafeMutablePointer(mutating: source.baseAddress), Int32(layer.width * 4)) else {
                return CompositionError("pixman cannot wrap a \(layer.width)x\(layer.height) surface")
            }
            defer { pixman_image_unref(image) }
            if scale != 1 {
                var transform = pixman_transform()
                pixman_transform_init_scale(&transform, pixman_fixed_t(scale << 16), pixman_fixed_t(scale << 16))
                _ = pixman_image_set_transform(image, &transform)
                _ = pixman_image_set_filter(image, PIXMAN_FILTER_NEAREST, nil, 0)
            }
            let x0 = min(max(layer.origin.dx, -(1 << 40)), 1 << 40), y0 = min(max(layer.origin.dy, -(1 << 40)), 1 << 40)
            pixman_image_composite32(layer.opaque ? PIXMAN_OP_SRC : PIXMAN_OP_OVER, image, nil, target,
                                     Int32(area.x - x0), Int32(area.y - y0), 0, 0,
                                     Int32(area.x), Int32(area.y), Int32(area.width), Int32(area.height))
            return nil
        }
    }
}

/// A PNG of a framebuffer, written by libpng (CPNGShim).
public enum PNGWriter {
    /// zlib's level: 1 is fast and still small for a screen's flat colours; the event
    /// loop waits for the write.
    public static let compressionLevel: Int32 = 1

    public static func write(_ framebuffer: Framebuffer, to path: String) throws(CompositionError) {
        var message = [CChar](repeating: 0, count: 512)
        let result = framebuffer.pixels.withUnsafeBufferPointer { pixels in
            message.withUnsafeMutableBufferPointer { text in
                tr_png_write_xrgb(path, pixels.baseAddress, UInt32(framebuffer.width), UInt32(framebuffer.height), framebuffer.width * 4,
                                  compressionLevel, text.baseAddress, text.count)
            }
        }
        guard result == 0 else {
            throw CompositionError(message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        }
    }
}

extension WaylandSession {
    /// What an output shows, bottom first: its toplevels in stacking order, each with its
    /// subsurfaces below and above it and then its popups, skipping what is hidden or
    /// unmapped (with everything on it) and what has no pixels.
    func compositionLayers(of output: OutputID) -> [CompositionLayer] {
        var layers: [CompositionLayer] = []
        for toplevel in tree.output(output)?.toplevels ?? [] { appendLayers(of: toplevel, to: &layers, depth: 0) }
        return layers
    }

    private func appendLayers(of id: SurfaceID, to layers: inout [CompositionLayer], depth: Int) {
        // The tree bounds nesting (SurfaceTree.maximumDepth); this only keeps the walk finite.
        guard depth <= SurfaceTree.maximumDepth + 1, let surface = tree.surface(id), surface.properties.isShown else { return }
        let (below, above) = tree.subsurfaces(of: id)
        for child in below { appendLayers(of: child, to: &layers, depth: depth + 1) }
        if let object = surfaces[id], let contents = object.contents {
            layers.append(CompositionLayer(pixels: contents.pixels, width: contents.width, height: contents.height, scale: Int(object.current.scale),
                                           opaque: contents.opaque, origin: surface.originInOutput, clip: surface.size))
        }
        for child in above { appendLayers(of: child, to: &layers, depth: depth + 1) }
        // `children` lists front to back; popups come first in it.
        let popups = tree.children(of: id).filter { tree.role(of: $0) == .popup }
        for popup in popups.reversed() { appendLayers(of: popup, to: &layers, depth: depth + 1) }
    }

    /// The output named `name`, or the first; an error listing the outputs when there is none such.
    func outputForComposition(named name: String?) throws(CompositionError) -> OutputSnapshot {
        let outputs = tree.outputs
        if let name {
            guard let output = outputs.first(where: { $0.name == name }) else {
                throw CompositionError("no output '\(name.prefix(64))': the outputs are \(outputs.map(\.name).joined(separator: ", "))")
            }
            return output
        }
        guard let first = outputs.first else { throw CompositionError("the session has no output") }
        return first
    }

    /// Composes the output now, in full, into its framebuffer (made at the first call).
    public func compose(output name: String? = nil) throws(CompositionError) -> (name: String, framebuffer: Framebuffer) {
        let output = try outputForComposition(named: name)
        let framebuffer: Framebuffer
        if let kept = framebuffers[output.id], kept.width == output.rect.width, kept.height == output.rect.height {
            framebuffer = kept
        } else {
            framebuffer = Framebuffer(width: output.rect.width, height: output.rect.height)
            framebuffers[output.id] = framebuffer
        }
        try SoftwareComposer.compose(compositionLayers(of: output.id), into: framebuffer)
        return (output.name, framebuffer)
    }

    /// Composes the output and writes it to `path` as a PNG.
    public func screenshot(to path: String, output name: String? = nil) throws(CompositionError) -> (name: String, width: Int, height: Int) {
        let (outputName, framebuffer) = try compose(output: name)
        try PNGWriter.write(framebuffer, to: path)
        return (outputName, framebuffer.width, framebuffer.height)
    }
}
