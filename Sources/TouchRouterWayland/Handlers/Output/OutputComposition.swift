import CPNGShim
import CPixman
import TouchRouterCore

// Composition in software: each output's framebuffer, XRGB8888 of the output's size, made
// with pixman from the shm contents the session keeps for each surface (Compositor.swift).
// Lazy: an output is composed when something asks for its pixels (`msg screenshot`), not at
// every frame tick. Damage-tracked: each composition repaints only what changed since the
// output's last one (surfaces' committed damage, surfaces that appeared, went, moved or
// resized), and all of it after a restack. A buffer's transform is undone here; the output's
// transform is applied when a frame is copied to its screen (OutputPresentation.swift).

public struct CompositionError: Error, CustomStringConvertible, Sendable {
    public var description: String
    package init(_ description: String) { self.description = description }
}

/// pixman's part: a background, then layers bottom first.
public enum SoftwareComposer {
    /// What shows where no surface is: a dark slate, so that it is told apart from black pixels.
    public static let background: UInt32 = 0xff2e3440
    /// The largest buffer scale honoured; a larger one is drawn at this scale.
    package static let maximumScale = 32

    /// How much of each pixel's brightness a dimmed output keeps: half, as pixman's OVER of
    /// black at this alpha (of 0xffff) leaves it.
    public static let dimAlpha: UInt16 = 0x8000

    /// Repaints `area` of `framebuffer` (all of it when nil): the background, then each layer
    /// over it, bottom first, then, when `dimmed`, black at `dimAlpha` over all of it (the idle
    /// timer's dim: the picture, not a backlight, which the session does not drive). The
    /// rectangles may overlap.
    public static func compose(_ layers: [CompositionLayer], into framebuffer: Framebuffer, only area: [PixelRect]? = nil,
                               background: UInt32 = background, dimmed: Bool = false) throws(CompositionError) {
        let (width, height) = (framebuffer.width, framebuffer.height)
        let whole = PixelRect(x: 0, y: 0, width: width, height: height)
        let boxes = area.map { disjoint($0.compactMap { $0.intersection(whole) }) } ?? [whole]
        guard !boxes.isEmpty else { return }
        let failure: CompositionError? = framebuffer.pixels.withUnsafeMutableBufferPointer { destination in
            guard let target = pixman_image_create_bits_no_clear(PIXMAN_x8r8g8b8, Int32(width), Int32(height), destination.baseAddress, Int32(width * 4)) else {
                return CompositionError("pixman cannot make a \(width)x\(height) framebuffer")
            }
            defer { pixman_image_unref(target) }
            var color = pixman_color_t(red: UInt16((background >> 16) & 0xff) * 0x101, green: UInt16((background >> 8) & 0xff) * 0x101,
                                       blue: UInt16(background & 0xff) * 0x101, alpha: 0xffff)
            var fills = boxes.map { pixman_box32_t(x1: Int32($0.x), y1: Int32($0.y), x2: Int32($0.x + $0.width), y2: Int32($0.y + $0.height)) }
            guard pixman_image_fill_boxes(PIXMAN_OP_SRC, target, &color, Int32(fills.count), &fills) != 0 else { return CompositionError("pixman cannot fill the background") }
            for layer in layers {
                guard let covered = coverage(of: layer, width: width, height: height) else { continue }
                for box in boxes {
                    guard let part = covered.intersection(box) else { continue }
                    if let problem = draw(layer, part, onto: target) { return problem }
                }
            }
            if dimmed {
                var shade = pixman_color_t(red: 0, green: 0, blue: 0, alpha: dimAlpha)
                guard pixman_image_fill_boxes(PIXMAN_OP_OVER, target, &shade, Int32(fills.count), &fills) != 0 else { return CompositionError("pixman cannot dim the picture") }
            }
            return nil
        }
        if let failure { throw failure }
    }

    /// The union of `rects` (inside a framebuffer) as rectangles that do not overlap, so
    /// that no pixel is blended twice: pixman's region does the banding.
    package static func disjoint(_ rects: [PixelRect]) -> [PixelRect] {
        guard rects.count > 1 else { return rects }
        var region = pixman_region32_t()
        pixman_region32_init(&region)
        defer { pixman_region32_fini(&region) }
        return withUnsafeMutablePointer(to: &region) { region in
            for rect in rects {
                _ = pixman_region32_union_rect(region, region, Int32(rect.x), Int32(rect.y), UInt32(rect.width), UInt32(rect.height))
            }
            var count: Int32 = 0
            guard let boxes = pixman_region32_rectangles(region, &count) else { return [] }
            return (0..<Int(count)).map { i in
                let box = boxes[i]
                return PixelRect(x: Int(box.x1), y: Int(box.y1), width: Int(box.x2 - box.x1), height: Int(box.y2 - box.y1))
            }
        }
    }

    /// The part of the framebuffer a layer covers, computed in Int and clamped, so that no
    /// client's numbers reach pixman outside its range; nil when it covers nothing.
    package static func coverage(of layer: CompositionLayer, width: Int, height: Int) -> PixelRect? {
        // Sides past pixman's and the protocol's reach are not drawn; the product cannot overflow.
        guard layer.width > 0, layer.height > 0, layer.width <= 1 << 16, layer.height <= 1 << 16,
              layer.pixels.count >= layer.width * layer.height else { return nil }
        let scale = min(max(layer.scale, 1), maximumScale)
        // wl_surface: a buffer's size is a multiple of its scale; a stray part is not shown.
        let turned = layer.transform.rawValue & 1 == 1
        var shown = (width: (turned ? layer.height : layer.width) / scale, height: (turned ? layer.width : layer.height) / scale)
        if let viewport = layer.viewport {
            guard viewport.destination.width > 0, viewport.destination.height > 0 else { return nil }
            shown = (viewport.destination.width, viewport.destination.height)
        }
        if let clip = layer.clip { shown = (min(shown.width, max(clip.width, 0)), min(shown.height, max(clip.height, 0))) }
        shown = (shown.width * layer.outputScale, shown.height * layer.outputScale)
        // Far outside is outside: clamping first keeps the sums below from overflowing.
        let limit = 1 << 40
        let x0 = min(max(layer.origin.dx, -limit), limit), y0 = min(max(layer.origin.dy, -limit), limit)
        let left = max(x0, 0), top = max(y0, 0)
        let right = min(x0 + shown.width, width), bottom = min(y0 + shown.height, height)
        guard right > left, bottom > top else { return nil }
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// pixman's transform from a layer's surface pixels (relative to its origin) to its
    /// buffer's: the scale, and the buffer transform undone. A surface point at normalized
    /// (x, y) shows the buffer's `unapply(x, y)`, the inverse of how a panel's pixel shows the
    /// layout (`Framebuffer.copy`).
    package static func bufferTransform(of layer: CompositionLayer, scale: Int) -> pixman_transform {
        let outputScale = Double(layer.outputScale)
        if let viewport = layer.viewport {
            let destination = (Double(viewport.destination.width) * outputScale, Double(viewport.destination.height) * outputScale)
            return pixmanTransform(from: destination, to: (Double(layer.width), Double(layer.height))) { u, v in
                let (x, y) = viewport.unviewported(u, v)
                return layer.transform.unapply(x, y)
            }
        }
        let turned = layer.transform.rawValue & 1 == 1
        let surface = (Double((turned ? layer.height : layer.width) / scale) * outputScale, Double((turned ? layer.width : layer.height) / scale) * outputScale)
        return pixmanTransform(from: surface, to: (Double(layer.width), Double(layer.height))) { layer.transform.unapply($0, $1) }
    }

    /// pixman's transform from destination pixels (an area of `destination` width and height)
    /// to source pixels (of `source`), where the destination's normalized point (u, v) shows
    /// the source's `map(u, v)`; `map` is affine, as an output transform's `apply` and
    /// `unapply` are.
    package static func pixmanTransform(from destination: (Double, Double), to source: (Double, Double),
                                map: (Double, Double) -> (Double, Double)) -> pixman_transform {
        let origin = map(0, 0), across = map(1, 0), down = map(0, 1)
        let matrix = [
            (across.0 - origin.0) * source.0 / destination.0, (down.0 - origin.0) * source.0 / destination.1, origin.0 * source.0,
            (across.1 - origin.1) * source.1 / destination.0, (down.1 - origin.1) * source.1 / destination.1, origin.1 * source.1,
        ]
        var transform = pixman_transform()
        pixman_transform_init_identity(&transform)
        withUnsafeMutableBytes(of: &transform.matrix) { raw in
            for (index, value) in matrix.enumerated() {
                raw.storeBytes(of: pixman_fixed_t((value * 65536).rounded()), toByteOffset: index * 4, as: pixman_fixed_t.self)
            }
        }
        return transform
    }

    /// Draws the part `area` (inside its coverage) of a layer.
    private static func draw(_ layer: CompositionLayer, _ area: PixelRect, onto target: OpaquePointer) -> CompositionError? {
        let scale = min(max(layer.scale, 1), maximumScale)
        return layer.pixels.withUnsafeBufferPointer { source -> CompositionError? in
            // pixman only reads a source image; it takes a mutable pointer all the same.
            guard let image = pixman_image_create_bits_no_clear(layer.opaque ? PIXMAN_x8r8g8b8 : PIXMAN_a8r8g8b8, Int32(layer.width), Int32(layer.height),
                                                                UnsafeMutablePointer(mutating: source.baseAddress), Int32(layer.width * 4)) else {
                return CompositionError("pixman cannot wrap a \(layer.width)x\(layer.height) surface")
            }
            defer { pixman_image_unref(image) }
            if scale != 1 || layer.transform != .normal || layer.viewport != nil || layer.outputScale != 1 {
                var transform = bufferTransform(of: layer, scale: scale)
                _ = pixman_image_set_transform(image, &transform)
                _ = pixman_image_set_filter(image, PIXMAN_FILTER_NEAREST, nil, 0)
                // A scaled crop samples only inside its buffer, up to the edge.
                if layer.viewport != nil { pixman_image_set_repeat(image, PIXMAN_REPEAT_PAD) }
            }
            let x0 = min(max(layer.origin.dx, -(1 << 40)), 1 << 40), y0 = min(max(layer.origin.dy, -(1 << 40)), 1 << 40)
            pixman_image_composite32(layer.opaque ? PIXMAN_OP_SRC : PIXMAN_OP_OVER, image, nil, target,
                                     Int32(area.x - x0), Int32(area.y - y0), 0, 0,
                                     Int32(area.x), Int32(area.y), Int32(area.width), Int32(area.height))
            return nil
        }
    }
}

/// One output's framebuffer and what it showed at its last composition, so that the next
/// repaints only what changed.
public final class OutputComposer {
    public private(set) var framebuffer: Framebuffer
    /// What each layer was at the last composition, bottom first; nil before the first.
    private var painted: [Record]?
    /// What the last `update` repainted: nil for everything.
    public private(set) var lastRepaint: [PixelRect]? = nil
    /// Whether the last composition was dimmed: a change repaints everything.
    private var paintedDimmed = false

    private struct Record: Equatable {
        package var key: UInt64
        package var coverage: PixelRect?
        package var origin: Offset
        package var width, height, scale: Int
        package var opaque: Bool
        package var transform: OutputTransform
        package var viewport: LayerViewport?
        package var outputScale: Int
    }

    /// Past this many damaged rectangles, the whole output is repainted.
    package static let maximumRectangles = 64

    public init(width: Int, height: Int) {
        framebuffer = Framebuffer(width: width, height: height)
    }

    /// Brings the framebuffer up to date with `layers`, whose `damage` says where their
    /// pixels changed since the last call.
    public func update(_ layers: [CompositionLayer], background: UInt32 = SoftwareComposer.background, dimmed: Bool = false) throws(CompositionError) {
        let (width, height) = (framebuffer.width, framebuffer.height)
        let records = layers.map { layer in
            Record(key: layer.key, coverage: SoftwareComposer.coverage(of: layer, width: width, height: height), origin: layer.origin,
                   width: layer.width, height: layer.height, scale: min(max(layer.scale, 1), SoftwareComposer.maximumScale), opaque: layer.opaque,
                   transform: layer.transform, viewport: layer.viewport, outputScale: layer.outputScale)
        }
        let area = dimmed == paintedDimmed ? damage(from: painted, to: records, layers: layers) : nil
        // Recorded first: a failure part way leaves a picture the next call repaints in full.
        painted = nil
        lastRepaint = area
        try SoftwareComposer.compose(layers, into: framebuffer, only: area, background: background, dimmed: dimmed)
        painted = records
        paintedDimmed = dimmed
    }

    /// The rectangles to repaint; nil for all of the output.
    private func damage(from before: [Record]?, to after: [Record], layers: [CompositionLayer]) -> [PixelRect]? {
        guard let before else { return nil }
        let keysBefore = before.map(\.key), keysAfter = after.map(\.key)
        let setBefore = Set(keysBefore), setAfter = Set(keysAfter)
        // Keys name surfaces only if they are unique; a restack may uncover anything.
        guard setBefore.count == keysBefore.count, setAfter.count == keysAfter.count,
              keysBefore.filter(setAfter.contains) == keysAfter.filter(setBefore.contains) else { return nil }
        var rects: [PixelRect] = []
        let old = Dictionary(uniqueKeysWithValues: before.map { ($0.key, $0) })
        for (record, layer) in zip(after, layers) {
            guard let previous = old[record.key] else {
                if let coverage = record.coverage { rects.append(coverage) }
                continue
            }
            if previous != record {
                if let coverage = previous.coverage { rects.append(coverage) }
                if let coverage = record.coverage { rects.append(coverage) }
                continue
            }
            guard let coverage = record.coverage else { continue }
            // Damage in a turned or viewported buffer: the whole surface, rather than mapping each rectangle.
            if record.transform != .normal || record.viewport != nil, !layer.damage.isEmpty {
                rects.append(coverage)
                continue
            }
            for changed in layer.damage {
                // Buffer pixels to output pixels, widened to whole output pixels.
                let scale = record.scale
                // Clamped to the buffer before adding; a rectangle reaching in from far
                // outside may widen to more than it damaged, never less.
                let x0 = min(max(changed.x, 0), record.width), y0 = min(max(changed.y, 0), record.height)
                let x1 = min(x0 + min(max(changed.width, 0), record.width), record.width)
                let y1 = min(y0 + min(max(changed.height, 0), record.height), record.height)
                let ratio = record.outputScale
                let left = x0 * ratio / scale, top = y0 * ratio / scale
                let right = (x1 * ratio + scale - 1) / scale, bottom = (y1 * ratio + scale - 1) / scale
                let inOutput = PixelRect(x: record.origin.dx + left, y: record.origin.dy + top, width: right - left, height: bottom - top)
                if let part = inOutput.intersection(coverage) { rects.append(part) }
            }
        }
        for record in before where !setAfter.contains(record.key) {
            if let coverage = record.coverage { rects.append(coverage) }
        }
        return rects.count > Self.maximumRectangles ? nil : rects
    }
}

/// A PNG of a framebuffer, written by libpng (CPNGShim).
public enum PNGWriter {
    /// zlib's level: 1 is fast and still small for a screen's flat colours.
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

extension WaylandServer {
    /// What an output shows, bottom first: its toplevels in stacking order, each with its
    /// subsurfaces below and above it and then its popups, skipping what is hidden or
    /// unmapped (with everything on it) and what has no pixels; a drag's icon, then the cursor, on top.
    package func compositionLayers(of output: OutputID) -> [CompositionLayer] {
        var layers: [CompositionLayer] = []
        guard let snapshot = tree.output(output) else { return layers }
        let scale = outputScale(output)
        for toplevel in snapshot.toplevels { appendLayers(of: toplevel, to: &layers, depth: 0, scale: scale) }
        for var layer in [dragIconLayer(on: snapshot), cursorLayer(on: snapshot)].compactMap({ $0 }) {
            layer.origin = Offset(dx: layer.origin.dx &* scale, dy: layer.origin.dy &* scale)
            layer.outputScale = scale
            layers.append(layer)
        }
        return layers
    }

    /// The output's scale: panel pixels for each layout pixel.
    package func outputScale(_ output: OutputID) -> Int { outputs.first { $0.id == output }?.mode.scale ?? 1 }

    /// The output's picture in panel pixels (its framebuffer's size), turned as the layout is.
    package func pixelSize(of output: OutputSnapshot) -> Size {
        outputs.first { $0.id == output.id }?.mode.pixelSize ?? Size(width: output.rect.width, height: output.rect.height)
    }

    private func appendLayers(of id: SurfaceID, to layers: inout [CompositionLayer], depth: Int, scale: Int) {
        // The tree bounds nesting (SurfaceTree.maximumDepth); this only keeps the walk finite.
        guard depth <= SurfaceTree.maximumDepth + 1, let surface = tree.surface(id), surface.properties.isShown else { return }
        let (below, above) = tree.subsurfaces(of: id)
        for child in below { appendLayers(of: child, to: &layers, depth: depth + 1, scale: scale) }
        if let object = protocols.surface.surfaces[id], let contents = object.contents {
            let origin = surface.originInOutput
            layers.append(CompositionLayer(pixels: contents.pixels, width: contents.width, height: contents.height, scale: Int(object.current.scale),
                                           opaque: contents.opaque, origin: Offset(dx: origin.dx &* scale, dy: origin.dy &* scale), clip: surface.size,
                                           key: UInt64(id.raw), damage: object.unpaintedDamage,
                                           transform: OutputTransform(rawValue: object.current.transform) ?? .normal, viewport: object.layerViewport,
                                           outputScale: scale))
        }
        for child in above { appendLayers(of: child, to: &layers, depth: depth + 1, scale: scale) }
        // `children` lists front to back; popups come first in it.
        let popups = tree.children(of: id).filter { tree.role(of: $0) == .popup }
        for popup in popups.reversed() { appendLayers(of: popup, to: &layers, depth: depth + 1, scale: scale) }
    }

    /// The output named `name`, or the first; an error listing the outputs when there is none such.
    package func outputForComposition(named name: String?) throws(CompositionError) -> OutputSnapshot {
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

    /// Composes the output now into its framebuffer (made at the first call), repainting
    /// what changed since its last composition.
    public func compose(output name: String? = nil) throws(CompositionError) -> (name: String, framebuffer: Framebuffer) {
        let output = try outputForComposition(named: name)
        let composer: OutputComposer
        let size = pixelSize(of: output)
        if let kept = protocols.output.composers[output.id], kept.framebuffer.width == size.width, kept.framebuffer.height == size.height {
            composer = kept
        } else {
            composer = OutputComposer(width: size.width, height: size.height)
            protocols.output.composers[output.id] = composer
        }
        let layers = compositionLayers(of: output.id)
        try composer.update(layers, dimmed: protocols.output.power[output.id] == .dimmed)
        protocols.output.unpresented[output.id]?.add(composer.lastRepaint)
        protocols.screencopy.composed(output.id, repaint: composer.lastRepaint)
        // Taken now that it is painted: a failed update repaints everything next time anyway.
        for layer in layers { protocols.surface.surfaces[SurfaceID(UInt32(truncatingIfNeeded: layer.key))]?.unpaintedDamage.removeAll() }
        return (output.name, composer.framebuffer)
    }

    /// Composes the output and writes it to `path` as a PNG, here and now.
    public func screenshot(to path: String, output name: String? = nil) throws(CompositionError) -> (name: String, width: Int, height: Int) {
        try screenshotJob(output: name).run(writingTo: path)
    }

    /// What a screenshot of the output needs, taken now: the layers (their pixels shared,
    /// not copied) and the size; it composes and writes on any thread (`msg screenshot` runs
    /// it off the loop).
    public func screenshotJob(output name: String? = nil) throws(CompositionError) -> ScreenshotJob {
        let output = try outputForComposition(named: name)
        let size = pixelSize(of: output)
        return ScreenshotJob(output: output.name, width: size.width, height: size.height, layers: compositionLayers(of: output.id),
                             dimmed: protocols.output.power[output.id] == .dimmed)
    }
}

/// A screenshot to compose into a framebuffer of its own and write as a PNG; the framebuffer
/// goes when it is written, so that screenshots of large outputs hold no memory after them.
public struct ScreenshotJob: Sendable {
    public let output: String
    public let width: Int
    public let height: Int
    package let layers: [CompositionLayer]
    /// The output is dimmed: the screenshot is what its screen shows.
    package let dimmed: Bool

    public func run(writingTo path: String) throws(CompositionError) -> (name: String, width: Int, height: Int) {
        try PNGWriter.write(try compose(), to: path)
        return (output, width, height)
    }

    /// The picture, composed whole into a framebuffer of its own.
    package func compose() throws(CompositionError) -> Framebuffer {
        let composer = OutputComposer(width: width, height: height)
        try composer.update(layers, dimmed: dimmed)
        return composer.framebuffer
    }
}
