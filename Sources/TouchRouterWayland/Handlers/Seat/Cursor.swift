import TouchRouterCore

// The compositor's own pointer cursor, drawn on top of every output's frame while
// `CursorVisibility` says so. It is the one arrow for every surface: clients' cursor surfaces
// (wl_pointer.set_cursor) are not drawn.

package enum CursorImage {
    package static let width = 12
    package static let height = 19
    /// The layer's key: no surface has it (surface ids are 32-bit).
    package static let key = UInt64.max

    /// A left-leaning arrow, white with a black outline, its tip (the hotspot) at (0, 0);
    /// premultiplied ARGB, transparent around it.
    package static let pixels: [UInt32] = {
        func inside(_ x: Int, _ y: Int) -> Bool {
            // The head: a wedge widening by 2 for every 3 rows; the tail: a slanted bar under it.
            let head = y < 16 && x * 3 <= y * 2 + 1 && !(y >= 12 && x > 3 && x * 3 > (16 - y) * 6 + 3)
            let tail = y >= 11 && y < 19 && x >= (y - 11) / 2 + 3 && x <= (y - 11) / 2 + 5
            return (head || tail) && x >= 0 && y >= 0 && x < width && y < height
        }
        var pixels = [UInt32](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width where inside(x, y) {
                let edge = !inside(x - 1, y) || !inside(x + 1, y) || !inside(x, y - 1) || !inside(x, y + 1)
                pixels[y * width + x] = edge ? 0xff00_0000 : 0xffff_ffff
            }
        }
        return pixels
    }()
}

extension WaylandServer {
    /// The cursor as a layer of `output`, when it is shown and the pointer is on it.
    package func cursorLayer(on output: OutputSnapshot) -> CompositionLayer? {
        guard cursor.visible else { return nil }
        let position = router.pointerPosition
        guard output.rect.contains(position) else { return nil }
        let origin = Offset(dx: Int(position.x.rounded(.down)) - output.rect.x, dy: Int(position.y.rounded(.down)) - output.rect.y)
        return CompositionLayer(pixels: CursorImage.pixels, width: CursorImage.width, height: CursorImage.height, origin: origin, key: CursorImage.key)
    }
}
