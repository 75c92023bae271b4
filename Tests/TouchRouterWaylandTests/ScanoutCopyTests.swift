import Testing
import TouchRouterCore
import TouchRouterWayland

/// The drm backend shows a composed frame (the layout's orientation) on a panel turned by the
/// output's transform. A touch at a panel position lands on the layout point that
/// `OutputTransform.apply` gives, so the panel must show there exactly that layout pixel.
@Suite("Scanout copy: a panel shows the layout turned as a touch on it is turned")
struct ScanoutCopyTests {
    /// A 6x4 panel; every layout pixel a colour of its own.
    static let panel = Size(width: 6, height: 4)

    static func frame(for transform: OutputTransform) -> Framebuffer {
        let layout = transform.layoutSize(of: panel)
        let framebuffer = Framebuffer(width: layout.width, height: layout.height)
        for y in 0..<layout.height {
            for x in 0..<layout.width { framebuffer.pixels[y * layout.width + x] = 0xff00_0000 | UInt32(y * 100 + x) }
        }
        return framebuffer
    }

    static func panelPixels(_ framebuffer: Framebuffer, _ transform: OutputTransform, damage: [PixelRect]? = nil, stride extra: Int = 3,
                            fill: UInt32 = 0xdead_beef) -> [[UInt32]] {
        let stride = (panel.width + extra) * 4
        var target = [UInt32](repeating: fill, count: stride / 4 * panel.height)
        target.withUnsafeMutableBytes { raw in
            framebuffer.copy(into: raw.baseAddress!, width: panel.width, height: panel.height, stride: stride, transform: transform, damage: damage)
        }
        // Whole rows, the stride's padding included.
        return (0..<panel.height).map { y in Array(target[(y * stride / 4)..<((y + 1) * stride / 4)]) }
    }

    @Test("Every panel pixel shows the layout pixel its centre maps to, for all eight transforms; the stride's padding is never written", arguments: OutputTransform.allCases)
    func everyPixel(_ transform: OutputTransform) {
        let framebuffer = Self.frame(for: transform)
        let shown = Self.panelPixels(framebuffer, transform)
        for py in 0..<Self.panel.height {
            for px in 0..<Self.panel.width {
                let (x, y) = transform.apply((Double(px) + 0.5) / Double(Self.panel.width), (Double(py) + 0.5) / Double(Self.panel.height))
                let lx = Int(x * Double(framebuffer.width)), ly = Int(y * Double(framebuffer.height))
                #expect(shown[py][px] == framebuffer.pixels[ly * framebuffer.width + lx], "panel (\(px), \(py)) under \(transform.name)")
            }
            #expect(shown[py][Self.panel.width...].allSatisfy { $0 == 0xdead_beef }, "row \(py)'s padding was written")
        }
    }

    @Test("Damage limits the copy to the panel pixels showing it", arguments: [OutputTransform.normal, .rotated90, .flipped270])
    func damageOnly(_ transform: OutputTransform) {
        let framebuffer = Self.frame(for: transform)
        let damage = PixelRect(x: 1, y: 1, width: 2, height: 1)
        let shown = Self.panelPixels(framebuffer, transform, damage: [damage])
        var copied = 0
        for py in 0..<Self.panel.height {
            for px in 0..<Self.panel.width {
                let (x, y) = transform.apply((Double(px) + 0.5) / Double(Self.panel.width), (Double(py) + 0.5) / Double(Self.panel.height))
                let lx = Int(x * Double(framebuffer.width)), ly = Int(y * Double(framebuffer.height))
                let inDamage = lx >= 1 && lx < 3 && ly == 1
                if inDamage {
                    #expect(shown[py][px] == framebuffer.pixels[ly * framebuffer.width + lx])
                    copied += 1
                } else {
                    #expect(shown[py][px] == 0xdead_beef, "panel (\(px), \(py)) was written outside the damage")
                }
            }
        }
        #expect(copied == 2)
    }

    @Test("A panel whose size does not match the frame (turned the other way) is left alone")
    func mismatchedSize() {
        let framebuffer = Self.frame(for: .rotated90)  // 4x6
        let shown = Self.panelPixels(framebuffer, .normal)  // expects 6x4
        #expect(shown.allSatisfy { $0.allSatisfy { $0 == 0xdead_beef } })
    }
}
