import Testing
import TouchRouterCore
import TouchRouterWayland

/// A small seeded generator, so that a failure can be replayed.
private struct Generator {
    var state: UInt64
    mutating func next(_ bound: Int) -> Int {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Int((state >> 33) % UInt64(max(bound, 1)))
    }
    mutating func range(_ low: Int, _ high: Int) -> Int { low + next(high - low + 1) }
}

/// An XRGB word's colour, its meaningless top byte dropped.
private func rgb(_ word: UInt32?) -> UInt32? { word.map { $0 & 0xff_ffff } }

@Suite("Software composition: damage-tracked repaints match full ones")
struct CompositionTests {
    /// Premultiplied ARGB: no channel above alpha.
    private static func pixel(_ g: inout Generator) -> UInt32 {
        let alpha = UInt32(g.next(4) == 0 ? g.next(256) : 255)
        let r = UInt32(g.next(Int(alpha) + 1)), gr = UInt32(g.next(Int(alpha) + 1)), b = UInt32(g.next(Int(alpha) + 1))
        return alpha << 24 | r << 16 | gr << 8 | b
    }

    private static func layer(_ key: UInt64, _ g: inout Generator) -> CompositionLayer {
        let width = g.range(1, 90), height = g.range(1, 70)
        var pixels: [UInt32] = []
        for _ in 0..<(width * height) { pixels.append(pixel(&g)) }
        return CompositionLayer(pixels: pixels, width: width, height: height, scale: g.next(4) == 0 ? 2 : 1, opaque: g.next(3) == 0,
                                origin: Offset(dx: g.range(-60, 180), dy: g.range(-50, 140)),
                                clip: g.next(3) == 0 ? Size(width: g.range(0, 100), height: g.range(0, 80)) : nil, key: key,
                                transform: g.next(3) == 0 ? OutputTransform(rawValue: Int32(g.next(8)))! : .normal)
    }

    @Test("Random moves, restacks, removals, additions, scale and buffer-transform changes and pixel changes with their damage: each update equals a full composition", arguments: [1, 2, 3, 4] as [UInt64])
    func incrementalEqualsFull(seed: UInt64) throws {
        var g = Generator(state: seed)
        let compositor = OutputComposer(width: 160, height: 120)
        var layers = (0..<5).map { Self.layer(UInt64($0), &g) }
        var nextKey: UInt64 = 5
        var partialRepaints = 0
        for step in 0..<80 {
            for i in layers.indices { layers[i].damage = [] }
            if !layers.isEmpty {
                let i = g.next(layers.count)
                switch g.next(9) {
                case 0: layers[i].origin = Offset(dx: g.range(-60, 180), dy: g.range(-50, 140))
                case 1: layers.swapAt(i, g.next(layers.count))
                case 2: layers.remove(at: i)
                case 3: layers[i].scale = layers[i].scale == 1 ? 2 : 1
                case 4: layers[i].opaque.toggle()
                case 5: layers[i].transform = OutputTransform(rawValue: Int32(g.next(8)))!
                case 6 where g.next(3) == 0: layers[i].outputScale = layers[i].outputScale == 1 ? 2 : 1
                default:
                    // New pixels in a rectangle of the buffer, and that rectangle as damage.
                    let x = g.next(layers[i].width), y = g.next(layers[i].height)
                    let w = g.range(1, layers[i].width - x), h = g.range(1, layers[i].height - y)
                    let colour = Self.pixel(&g)
                    for row in y..<(y + h) { for column in x..<(x + w) { layers[i].pixels[row * layers[i].width + column] = colour } }
                    layers[i].damage = [PixelRect(x: x, y: y, width: w, height: h)]
                }
            }
            if g.next(6) == 0 || layers.isEmpty {
                layers.insert(Self.layer(nextKey, &g), at: g.next(layers.count + 1))
                nextKey += 1
            }
            try compositor.update(layers)
            if compositor.lastRepaint != nil { partialRepaints += 1 }
            let full = Framebuffer(width: 160, height: 120)
            try SoftwareComposer.compose(layers, into: full)
            // XRGB: the top byte means nothing.
            let differing = zip(full.pixels, compositor.framebuffer.pixels).enumerated().first { ($0.element.0 ^ $0.element.1) & 0xff_ffff != 0 }
            #expect(differing == nil, "seed \(seed), step \(step): pixel \(differing.map { "(\($0.offset % 160), \($0.offset / 160))" } ?? "")")
            if differing != nil { return }
        }
        #expect(partialRepaints > 20, "most updates repaint only part of the output (\(partialRepaints) of 80)")
    }

    @Test("an output scale of 2: a surface's pixels at twice its place and size, and its damage at twice its place, widened to whole output pixels")
    func outputScale() throws {
        let compositor = OutputComposer(width: 200, height: 100)
        // A 40x30 buffer at buffer scale 1 on a scale-2 output: 80x60 output pixels at (20, 10).
        var layer = CompositionLayer(pixels: Array(repeating: 0xff10_2030, count: 40 * 30), width: 40, height: 30, origin: Offset(dx: 20, dy: 10), key: 3, outputScale: 2)
        try compositor.update([layer])
        #expect(rgb(compositor.framebuffer.pixel(20, 10)) == 0x10_2030 && rgb(compositor.framebuffer.pixel(99, 69)) == 0x10_2030)
        #expect(rgb(compositor.framebuffer.pixel(100, 69)) == SoftwareComposer.background & 0xff_ffff && rgb(compositor.framebuffer.pixel(99, 70)) == SoftwareComposer.background & 0xff_ffff)
        layer.pixels[5 * 40 + 5] = 0xffff_ffff
        layer.damage = [PixelRect(x: 5, y: 5, width: 1, height: 1)]
        try compositor.update([layer])
        #expect(compositor.lastRepaint == [PixelRect(x: 30, y: 20, width: 2, height: 2)])
        #expect(rgb(compositor.framebuffer.pixel(31, 21)) == 0xff_ffff && rgb(compositor.framebuffer.pixel(32, 21)) == 0x10_2030)
    }

    @Test("dimmed: every pixel at half its brightness, the whole output repainted when the dim comes and goes")
    func dimmed() throws {
        let compositor = OutputComposer(width: 100, height: 50)
        let layer = CompositionLayer(pixels: Array(repeating: 0xffc8_6432, count: 20 * 20), width: 20, height: 20, opaque: true, origin: Offset(dx: 10, dy: 10), key: 1)
        try compositor.update([layer])
        try compositor.update([layer])
        #expect(compositor.lastRepaint == [])
        try compositor.update([layer], dimmed: true)
        #expect(compositor.lastRepaint == nil, "the dim repaints everything")
        #expect(rgb(compositor.framebuffer.pixel(15, 15)) == 0x64_3219, "0xc86432 at half: \(String(rgb(compositor.framebuffer.pixel(15, 15)) ?? 0, radix: 16))")
        let background = SoftwareComposer.background
        let halfBackground = ((background >> 16 & 0xff) / 2) << 16 | ((background >> 8 & 0xff) / 2) << 8 | (background & 0xff) / 2
        #expect(rgb(compositor.framebuffer.pixel(80, 40)).map { Int($0 >> 16) - Int(halfBackground >> 16) }.map { abs($0) <= 1 } == true, "the background dims too")
        try compositor.update([layer], dimmed: true)
        #expect(compositor.lastRepaint == [])
        try compositor.update([layer], dimmed: false)
        #expect(compositor.lastRepaint == nil && rgb(compositor.framebuffer.pixel(15, 15)) == 0xc8_6432, "lit again")
    }

    @Test("Nothing changed: nothing repainted; one surface's damage: that rectangle, at the surface's place and scale")
    func damageIsSmall() throws {
        let compositor = OutputComposer(width: 200, height: 100)
        var layer = CompositionLayer(pixels: Array(repeating: 0xff10_2030, count: 80 * 60), width: 80, height: 60, scale: 2, origin: Offset(dx: 50, dy: 20), key: 7)
        try compositor.update([layer])
        #expect(compositor.lastRepaint == nil, "the first composition paints everything")
        try compositor.update([layer])
        #expect(compositor.lastRepaint == [])
        // Buffer pixels (10, 10) to (11, 11): output pixel (5, 5) of the surface at scale 2.
        for (x, y) in [(10, 10), (11, 10), (10, 11), (11, 11)] { layer.pixels[y * 80 + x] = 0xffff_ffff }
        layer.damage = [PixelRect(x: 10, y: 10, width: 2, height: 2)]
        try compositor.update([layer])
        #expect(compositor.lastRepaint == [PixelRect(x: 55, y: 25, width: 1, height: 1)])
        #expect(rgb(compositor.framebuffer.pixel(55, 25)) == 0xff_ffff && rgb(compositor.framebuffer.pixel(56, 25)) == 0x10_2030)
        #expect(rgb(compositor.framebuffer.pixel(49, 20)) == SoftwareComposer.background & 0xff_ffff)
    }

    @Test("Numbers no framebuffer holds do not trap: origins near Int's ends, a huge scale, empty and short pixel arrays")
    func extremeNumbers() throws {
        let framebuffer = Framebuffer(width: 64, height: 48)
        let layers = [
            CompositionLayer(pixels: [0xffff_ffff], width: 1, height: 1, origin: Offset(dx: Int.max, dy: Int.min)),
            CompositionLayer(pixels: [0xffff_ffff], width: 1, height: 1, origin: Offset(dx: Int.min, dy: Int.max)),
            CompositionLayer(pixels: Array(repeating: 0xff00_ff00, count: 16), width: 4, height: 4, scale: Int(Int32.max), origin: Offset(dx: 2, dy: 3)),
            CompositionLayer(pixels: [], width: 100, height: 100, origin: Offset(dx: 0, dy: 0)),
            CompositionLayer(pixels: [0xffff_0000], width: 1, height: 1, origin: Offset(dx: 0, dy: 0), clip: Size(width: -5, height: Int.max)),
        ]
        try SoftwareComposer.compose(layers, into: framebuffer)
        #expect(rgb(framebuffer.pixel(2, 3)) == SoftwareComposer.background & 0xff_ffff, "4 pixels at scale 32 or more are no whole pixel")
        #expect(rgb(framebuffer.pixel(0, 0)) == SoftwareComposer.background & 0xff_ffff, "a negative clip shows nothing")
        try SoftwareComposer.compose(layers, into: framebuffer, only: [PixelRect(x: Int.min / 2, y: 0, width: Int.max / 2, height: 10),
                                                                      PixelRect(x: Int.max - 1, y: Int.max - 1, width: Int.max, height: Int.max),
                                                                      PixelRect(x: 0, y: 0, width: Int.max, height: 3)])
        #expect(rgb(framebuffer.pixel(63, 2)) == SoftwareComposer.background & 0xff_ffff)
        // Damage far outside a buffer, at Int's ends.
        let compositor = OutputComposer(width: 64, height: 48)
        var layer = CompositionLayer(pixels: Array(repeating: 0xff00_00ff, count: 100), width: 10, height: 10, origin: Offset(dx: 5, dy: 5), key: 1)
        try compositor.update([layer])
        layer.damage = [PixelRect(x: Int.min, y: Int.min, width: Int.max, height: Int.max), PixelRect(x: Int.max, y: 3, width: Int.max, height: 1),
                        PixelRect(x: -1_000_000, y: 0, width: 1_000_005, height: 1)]
        try compositor.update([layer])
        // The first is all of the buffer, the second nothing, the third its top row (widened, never narrowed).
        #expect(compositor.lastRepaint == [PixelRect(x: 5, y: 5, width: 10, height: 10), PixelRect(x: 5, y: 5, width: 10, height: 1)])
        #expect(rgb(compositor.framebuffer.pixel(5, 5)) == 0xff)
    }
}

@Suite("Software composition: viewports (wp_viewport) crop and scale a surface")
struct ViewportCompositionTests {
    /// A 4x4 buffer of four 2x2 quadrants: red, green (top), blue, white (bottom).
    private static let quadrants: [UInt32] = (0..<16).map { index in
        let (x, y) = (index % 4, index / 4)
        switch (x < 2, y < 2) {
        case (true, true): return 0xffff_0000
        case (false, true): return 0xff00_ff00
        case (true, false): return 0xff00_00ff
        case (false, false): return 0xffff_ffff
        }
    }

    @Test("a source rectangle (the top right quadrant) scaled to 10x10 fills exactly those pixels with its colour")
    func cropAndScale() throws {
        let framebuffer = Framebuffer(width: 40, height: 40)
        let viewport = LayerViewport(source: [2, 0, 2, 2], unscaled: Size(width: 4, height: 4), destination: Size(width: 10, height: 10))
        let layer = CompositionLayer(pixels: Self.quadrants, width: 4, height: 4, opaque: true, origin: Offset(dx: 5, dy: 5), viewport: viewport)
        try SoftwareComposer.compose([layer], into: framebuffer, background: 0)
        for y in 0..<40 {
            for x in 0..<40 {
                let inside = (5..<15).contains(x) && (5..<15).contains(y)
                #expect(rgb(framebuffer.pixel(x, y)) == (inside ? 0x00_ff00 : 0), "(\(x), \(y))")
            }
        }
    }

    @Test("a 1x1 buffer with a destination covers the whole destination; damage to it repaints all of it")
    func singlePixelScaled() throws {
        let compositor = OutputComposer(width: 30, height: 20)
        let viewport = LayerViewport(source: [0, 0, 1, 1], unscaled: Size(width: 1, height: 1), destination: Size(width: 25, height: 12))
        var layer = CompositionLayer(pixels: [0xff20_4060], width: 1, height: 1, opaque: true, origin: Offset(dx: 2, dy: 3), key: 1, viewport: viewport)
        try compositor.update([layer])
        #expect(rgb(compositor.framebuffer.pixel(2, 3)) == 0x20_4060 && rgb(compositor.framebuffer.pixel(26, 14)) == 0x20_4060)
        #expect(rgb(compositor.framebuffer.pixel(27, 14)) == rgb(SoftwareComposer.background) && rgb(compositor.framebuffer.pixel(26, 15)) == rgb(SoftwareComposer.background))
        layer.pixels = [0xff80_8080]
        layer.damage = [PixelRect(x: 0, y: 0, width: 1, height: 1)]
        try compositor.update([layer])
        #expect(rgb(compositor.framebuffer.pixel(26, 14)) == 0x80_8080, "the new colour reaches the destination's far corner")
    }
}
