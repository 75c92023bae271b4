import Testing
import TouchRouterCore
import TouchRouterWayland

/// A 30×20 popup hung below-right of the anchor rectangle's bottom-right corner.
private func placement(_ adjustment: PopupPlacement.Adjustment) -> PopupPlacement {
    var placement = PopupPlacement()
    placement.size = Size(width: 30, height: 20)
    placement.anchorRect = Rect(x: 80, y: 80, width: 10, height: 10)
    (placement.anchorX, placement.anchorY) = (.end, .end)
    (placement.gravityX, placement.gravityY) = (.end, .end)
    placement.adjustment = adjustment
    return placement
}

private let roomy = Rect<SurfaceSpace>(x: 0, y: 0, width: 1000, height: 1000)
/// Ends 10 px right of the anchor rectangle and 5 px below it: the popup cannot fit below-right.
private let tight = Rect<SurfaceSpace>(x: 0, y: 0, width: 100, height: 95)

@Suite("Popup placement: xdg_positioner's anchor, gravity and constraint adjustment")
struct PopupPlacementTests {
    @Test("anchor and gravity place the box; a box that fits is left alone")
    func fits() {
        let box = placement([.flipX, .flipY, .slideX, .slideY]).unconstrained(in: roomy)
        #expect(box == Rect(x: 90, y: 90, width: 30, height: 20))
        var centred = PopupPlacement()
        centred.size = Size(width: 30, height: 20)
        centred.anchorRect = Rect(x: 0, y: 0, width: 100, height: 50)
        centred.offset = Offset(dx: 3, dy: -4)
        #expect(centred.box == Rect(x: 38, y: 11, width: 30, height: 20), "middle of the rectangle, centred on it, then offset")
    }

    @Test("without adjustments a box that does not fit stays where the rules put it")
    func noAdjustment() {
        #expect(placement([]).unconstrained(in: tight) == Rect(x: 90, y: 90, width: 30, height: 20))
    }

    @Test("flip puts the box on the other side of the anchor when it fits there")
    func flip() {
        #expect(placement([.flipX, .flipY]).unconstrained(in: tight) == Rect(x: 50, y: 60, width: 30, height: 20))
        let narrow = Rect<SurfaceSpace>(x: 60, y: 0, width: 40, height: 95)
        #expect(placement([.flipX]).unconstrained(in: narrow).x == 90, "flipped it would not fit either: it stays")
    }

    @Test("slide moves the box inside; the left and top edges win when it is larger than the bounds")
    func slide() {
        #expect(placement([.slideX, .slideY]).unconstrained(in: tight) == Rect(x: 70, y: 75, width: 30, height: 20))
        let small = Rect<SurfaceSpace>(x: 85, y: 85, width: 20, height: 10)
        #expect(placement([.slideX, .slideY]).unconstrained(in: small) == Rect(x: 85, y: 85, width: 30, height: 20))
    }

    @Test("resize cuts the box to the bounds, after a flip or slide that could not help")
    func resize() {
        #expect(placement([.resizeX, .resizeY]).unconstrained(in: tight) == Rect(x: 90, y: 90, width: 10, height: 5))
        #expect(placement([.flipY, .resizeX]).unconstrained(in: tight) == Rect(x: 90, y: 60, width: 10, height: 20))
        let beside = Rect<SurfaceSpace>(x: 200, y: 0, width: 100, height: 100)
        #expect(placement([.resizeX]).unconstrained(in: beside).width == 30, "nothing would be left: unchanged")
    }
}
