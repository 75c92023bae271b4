#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import TouchRouterCore

// Scripted tests for each recognizer kind, with exact timestamps, then a property test
// over random touch streams. Times are milliseconds unless a name says otherwise.

private let screen = Rect<GlobalSpace>(x: 0, y: 0, width: 1000, height: 800)

private func ms(_ value: Int64) -> RouterTime { RouterTime(nanoseconds: value * 1_000_000) }

/// Terse script steps; each returns the state after the call, as the arena reads it.
extension GestureRecognizer {
    @discardableResult
    func down(_ id: Int32, _ x: Double, _ y: Double, at time: Int64, on output: Rect<GlobalSpace> = screen) -> GestureState {
        touchBegan(TouchID(id), at: Point(x, y), time: ms(time), output: output)
        return state
    }

    @discardableResult
    func move(_ id: Int32, _ x: Double, _ y: Double, at time: Int64) -> GestureState {
        touchMoved(TouchID(id), to: Point(x, y), time: ms(time))
        return state
    }

    @discardableResult
    func up(_ id: Int32, at time: Int64) -> GestureState {
        touchEnded(TouchID(id), time: ms(time))
        return state
    }

    @discardableResult
    func cancel(_ id: Int32, at time: Int64) -> GestureState {
        touchCancelled(TouchID(id), time: ms(time))
        return state
    }

    @discardableResult
    func wait(until time: RouterTime) -> GestureState {
        advance(to: time)
        return state
    }
}

private func near(_ a: Double, _ b: Double, _ tolerance: Double = 1e-9) -> Bool { abs(a - b) <= tolerance }

// MARK: - Tap

@Suite struct RecognizerTests {
    @Test func singleTapRecognizesOnLift() {
        let tap = TapRecognizer()
        #expect(!tap.isContinuous)
        #expect(tap.down(1, 100, 200, at: 0) == .possible)
        #expect(tap.deadline == ms(500).saturatingAdvanced(by: 1))
        #expect(tap.up(1, at: 90) == .recognized)
        #expect(tap.values.tapCount == 1)
        #expect(tap.values.location == Point(100, 200))
        #expect(tap.deadline == nil)
        #expect(!tap.awaitsMoreTouches)
    }

    @Test func doubleTapCountsAcrossTwoTouchSequences() {
        var parameters = TapParameters()
        parameters.tapsRequired = 2
        let tap = TapRecognizer(parameters)
        tap.down(1, 100, 100, at: 0)
        #expect(tap.up(1, at: 80) == .possible)
        #expect(tap.awaitsMoreTouches)
        #expect(tap.values.tapCount == 1)
        #expect(tap.deadline == ms(380).saturatingAdvanced(by: 1))
        #expect(tap.wait(until: ms(380)) == .possible)
        // A new touch id, as a new sequence has.
        #expect(tap.down(7, 130, 90, at: 380) == .possible)
        #expect(!tap.awaitsMoreTouches)
        #expect(tap.up(7, at: 450) == .recognized)
        #expect(tap.values.tapCount == 2)
    }

    @Test func doubleTapFailsWhenTheIntervalRunsOut() {
        var parameters = TapParameters()
        parameters.tapsRequired = 2
        let tap = TapRecognizer(parameters)
        tap.down(1, 100, 100, at: 0)
        tap.up(1, at: 50)
        #expect(tap.wait(until: ms(350)) == .possible)
        #expect(tap.wait(until: ms(350).saturatingAdvanced(by: 1)) == .failed)
        #expect(!tap.awaitsMoreTouches)
        #expect(tap.deadline == nil)
    }

    @Test func doubleTapFailsWhenTheNextDownComesLateWithoutAdvance() {
        var parameters = TapParameters()
        parameters.tapsRequired = 2
        let tap = TapRecognizer(parameters)
        tap.down(1, 100, 100, at: 0)
        tap.up(1, at: 50)
        #expect(tap.down(2, 100, 100, at: 351) == .failed)
    }

    @Test func doubleTapFailsWhenTheSecondTapLandsTooFar() {
        var parameters = TapParameters()
        parameters.tapsRequired = 2
        let tap = TapRecognizer(parameters)
        tap.down(1, 100, 100, at: 0)
        tap.up(1, at: 50)
        #expect(tap.down(2, 100, 201, at: 100) == .failed)
    }

    @Test func tapFailsOnMovement() {
        let limit = TapParameters().allowableMovement
        let still = TapRecognizer()
        still.down(1, 100, 100, at: 0)
        #expect(still.move(1, 100 + limit, 100, at: 10) == .possible)
        #expect(still.up(1, at: 20) == .recognized)

        let moved = TapRecognizer()
        moved.down(1, 100, 100, at: 0)
        #expect(moved.move(1, 100 + limit + 0.5, 100, at: 10) == .failed)
    }

    @Test func tapFailsOnALongPress() {
        let lifted = TapRecognizer()
        lifted.down(1, 100, 100, at: 0)
        #expect(lifted.up(1, at: 501) == .failed)

        let exactly = TapRecognizer()
        exactly.down(1, 100, 100, at: 0)
        #expect(exactly.up(1, at: 500) == .recognized)

        let held = TapRecognizer()
        held.down(1, 100, 100, at: 0)
        #expect(held.wait(until: ms(500)) == .possible)
        #expect(held.wait(until: held.deadline!) == .failed)
    }

    @Test func tapFailsOnTooManyTouchesAndTwoFingerTapNeedsBoth() {
        let one = TapRecognizer()
        one.down(1, 100, 100, at: 0)
        #expect(one.down(2, 150, 100, at: 10) == .failed)

        var parameters = TapParameters()
        parameters.touchesRequired = 2
        let two = TapRecognizer(parameters)
        two.down(1, 100, 100, at: 0)
        two.down(2, 200, 100, at: 15)
        #expect(two.up(1, at: 80) == .possible)
        #expect(two.up(2, at: 95) == .recognized)
        #expect(two.values.touches == 2)
        #expect(two.values.location == Point(150, 100))

        let short = TapRecognizer(parameters)
        short.down(1, 100, 100, at: 0)
        #expect(short.up(1, at: 80) == .failed)
    }

    @Test func tapCountChainsAcrossResetLikeUITouchTapCount() {
        let tap = TapRecognizer()
        tap.down(1, 100, 100, at: 0)
        #expect(tap.up(1, at: 50) == .recognized)
        #expect(tap.values.tapCount == 1)
        tap.reset()
        #expect(tap.state == .possible)
        #expect(tap.values.tapCount == 0)
        tap.down(2, 110, 100, at: 200)
        #expect(tap.up(2, at: 250) == .recognized)
        #expect(tap.values.tapCount == 2)
        tap.reset()
        // Past the interval the count starts again.
        tap.down(3, 110, 100, at: 600)
        tap.up(3, at: 650)
        #expect(tap.values.tapCount == 1)
        tap.reset()
        // A touch that was no tap breaks the chain.
        tap.down(4, 110, 100, at: 700)
        #expect(tap.move(4, 300, 100, at: 710) == .failed)
        tap.reset()
        tap.down(5, 110, 100, at: 750)
        tap.up(5, at: 780)
        #expect(tap.values.tapCount == 1)
    }

    @Test func finalStatesIgnoreCallsUntilReset() {
        let tap = TapRecognizer()
        tap.down(1, 100, 100, at: 0)
        tap.up(1, at: 50)
        #expect(tap.down(2, 100, 100, at: 60) == .recognized)
        #expect(tap.move(2, 500, 100, at: 70) == .recognized)
        #expect(tap.cancel(2, at: 80) == .recognized)
        #expect(tap.wait(until: ms(10_000)) == .recognized)
        tap.reset()
        #expect(tap.state == .possible)
        #expect(tap.values == GestureValues())
    }

    @Test func tapFailsWhenItsTouchIsCancelled() {
        let tap = TapRecognizer()
        tap.down(1, 100, 100, at: 0)
        #expect(tap.cancel(9, at: 5) == .possible)
        #expect(tap.cancel(1, at: 10) == .failed)
    }

    // MARK: - Long press

    @Test func longPressBeginsFromAdvanceThenChangesAndEnds() {
        let press = LongPressRecognizer()
        #expect(press.isContinuous)
        press.down(1, 300, 300, at: 0)
        #expect(press.deadline == ms(500))
        #expect(press.wait(until: ms(499)) == .possible)
        #expect(press.wait(until: ms(500)) == .began)
        #expect(press.values.location == Point(300, 300))
        #expect(press.move(1, 400, 300, at: 600) == .changed)
        #expect(press.values.translationX == 100)
        #expect(press.up(1, at: 700) == .ended)
    }

    @Test func longPressBeginsOnAnEventPastItsDeadline() {
        let press = LongPressRecognizer()
        press.down(1, 300, 300, at: 0)
        #expect(press.move(1, 302, 300, at: 650) == .began)
        #expect(press.move(1, 304, 300, at: 660) == .changed)
    }

    @Test func longPressLiftedPastItsDeadlineBeginsThenEnds() {
        let press = LongPressRecognizer()
        press.down(1, 300, 300, at: 0)
        #expect(press.up(1, at: 700) == .began)
        #expect(press.deadline == ms(700))
        #expect(press.wait(until: ms(700)) == .ended)
    }

    @Test func longPressFailsOnEarlyLiftOrMovement() {
        let lifted = LongPressRecognizer()
        lifted.down(1, 300, 300, at: 0)
        #expect(lifted.up(1, at: 499) == .failed)
        #expect(lifted.wait(until: ms(600)) == .failed)

        let moved = LongPressRecognizer()
        moved.down(1, 300, 300, at: 0)
        #expect(moved.move(1, 310, 300, at: 100) == .possible)
        #expect(moved.move(1, 310.5, 300, at: 200) == .failed)
    }

    @Test func twoFingerLongPressIsTimedFromTheSecondFinger() {
        var parameters = LongPressParameters()
        parameters.touchesRequired = 2
        let press = LongPressRecognizer(parameters)
        press.down(1, 300, 300, at: 0)
        #expect(press.deadline == nil)
        press.down(2, 400, 300, at: 200)
        #expect(press.deadline == ms(700))
        #expect(press.wait(until: ms(600)) == .possible)
        #expect(press.wait(until: ms(700)) == .began)
        #expect(press.values.touches == 2)
        // Any finger lifting ends it, as UIKit's does.
        #expect(press.up(2, at: 800) == .ended)
    }

    @Test func longPressCancelledAfterItBeganOrFailedBefore() {
        let began = LongPressRecognizer()
        began.down(1, 300, 300, at: 0)
        began.wait(until: ms(500))
        #expect(began.cancel(1, at: 550) == .cancelled)

        let early = LongPressRecognizer()
        early.down(1, 300, 300, at: 0)
        #expect(early.cancel(1, at: 100) == .failed)
    }

    // MARK: - Pan

    @Test func panBeginsPastSlopChangesAndEndsWithTranslationAndVelocity() {
        let pan = PanRecognizer()
        pan.down(1, 100, 100, at: 0)
        #expect(pan.move(1, 105, 100, at: 10) == .possible)
        #expect(pan.move(1, 110, 100, at: 20) == .began)
        #expect(pan.values.translationX == 10)
        #expect(pan.values.translationY == 0)
        #expect(pan.move(1, 130, 90, at: 30) == .changed)
        #expect(pan.values.translationX == 30)
        #expect(pan.values.translationY == -10)
        // From the sample at 10 ms (x 5) to the one at 30 ms (x 30): 25 px in 20 ms.
        #expect(near(pan.values.velocityX, 1250))
        #expect(near(pan.values.velocityY, -500))
        #expect(pan.up(1, at: 40) == .ended)
        #expect(pan.values.location == Point(130, 90))
    }

    @Test func panVelocityIsZeroAfterTheFingerRested() {
        let pan = PanRecognizer()
        pan.down(1, 100, 100, at: 0)
        pan.move(1, 120, 100, at: 10)
        pan.move(1, 140, 100, at: 20)
        #expect(pan.up(1, at: 200) == .ended)
        #expect(pan.values.velocityX == 0)
    }

    @Test func panFailsWhenLiftedBeforeItBegan() {
        let pan = PanRecognizer()
        pan.down(1, 100, 100, at: 0)
        pan.move(1, 104, 100, at: 10)
        #expect(pan.up(1, at: 20) == .failed)
    }

    @Test func aFingerJoiningAPanMovesNoTranslation() {
        let pan = PanRecognizer()
        pan.down(1, 100, 100, at: 0)
        pan.move(1, 120, 100, at: 10)
        #expect(pan.down(2, 500, 500, at: 20) == .changed)
        #expect(pan.values.translationX == 20)
        #expect(pan.values.touches == 2)
        // One finger moving 10 moves the centroid of two by 5.
        #expect(pan.move(2, 510, 500, at: 30) == .changed)
        #expect(pan.values.translationX == 25)
        #expect(pan.up(1, at: 40) == .changed)
        #expect(pan.up(2, at: 50) == .ended)
    }

    @Test func panNeedsItsMinimumTouchesAndIgnoresFingersPastItsMaximum() {
        var parameters = PanParameters()
        parameters.minimumTouches = 2
        parameters.maximumTouches = 2
        let pan = PanRecognizer(parameters)
        pan.down(1, 100, 100, at: 0)
        #expect(pan.move(1, 200, 100, at: 10) == .possible)
        pan.down(2, 300, 100, at: 20)
        pan.down(3, 900, 900, at: 25)
        #expect(pan.values.touches == 2)
        #expect(pan.move(3, 950, 950, at: 28) == .possible)
        #expect(pan.move(2, 302, 100, at: 30) == .began)
    }

    @Test func panCancelledAfterItBegan() {
        let pan = PanRecognizer()
        pan.down(1, 100, 100, at: 0)
        pan.move(1, 150, 100, at: 10)
        #expect(pan.cancel(1, at: 20) == .cancelled)
        #expect(pan.move(1, 200, 100, at: 30) == .cancelled)
    }

    // MARK: - Swipe

    @Test func swipeRightRecognizesAtItsDistanceAndSpeed() {
        let swipe = SwipeRecognizer()
        swipe.down(1, 100, 300, at: 0)
        #expect(swipe.move(1, 120, 301, at: 10) == .possible)
        #expect(swipe.move(1, 140, 302, at: 20) == .possible)
        #expect(swipe.move(1, 160, 303, at: 30) == .recognized)
        #expect(swipe.values.direction == .right)
        #expect(near(swipe.values.velocityX, 2000))
        #expect(swipe.values.translationX == 60)
    }

    @Test func swipeFailsWhenItGoesAnotherWayFirst() {
        let swipe = SwipeRecognizer()
        swipe.down(1, 100, 300, at: 0)
        #expect(swipe.move(1, 102, 292, at: 10) == .possible)
        #expect(swipe.move(1, 103, 291, at: 20) == .failed)
    }

    @Test func swipeFailsWhenTheFingerLiftsFirst() {
        let swipe = SwipeRecognizer()
        swipe.down(1, 100, 300, at: 0)
        swipe.move(1, 130, 300, at: 10)
        #expect(swipe.up(1, at: 20) == .failed)
    }

    @Test func swipeFailsWhenTooSlow() {
        let swipe = SwipeRecognizer()
        swipe.down(1, 100, 300, at: 0)
        for step in 1...8 { #expect(swipe.move(1, 100 + Double(step) * 6, 300, at: Int64(step) * 200) == .possible) }
        // 54 px is past the distance, but 6 px in 200 ms is 30 px/s, under the 50 required.
        #expect(swipe.move(1, 154, 300, at: 1800) == .failed)
    }

    @Test func swipeFailsWithTooFewOrTooManyFingers() {
        var parameters = SwipeParameters()
        parameters.touchesRequired = 2
        let few = SwipeRecognizer(parameters)
        few.down(1, 100, 300, at: 0)
        few.move(1, 130, 300, at: 10)
        #expect(few.move(1, 160, 300, at: 20) == .failed)

        let many = SwipeRecognizer()
        many.down(1, 100, 300, at: 0)
        #expect(many.down(2, 100, 400, at: 5) == .failed)
    }

    @Test func twoFingerSwipeUpRecognizes() {
        var parameters = SwipeParameters()
        parameters.directions = [.up, .left]
        parameters.touchesRequired = 2
        let swipe = SwipeRecognizer(parameters)
        swipe.down(1, 100, 500, at: 0)
        swipe.down(2, 200, 500, at: 2)
        for step in 1...3 {
            let y = 500 - Double(step) * 20
            swipe.move(1, 100, y, at: Int64(step) * 10)
            swipe.move(2, 200, y, at: Int64(step) * 10)
        }
        #expect(swipe.state == .recognized)
        #expect(swipe.values.direction == .up)
    }

    @Test func swipeFailsWhenCancelled() {
        let swipe = SwipeRecognizer()
        swipe.down(1, 100, 300, at: 0)
        #expect(swipe.cancel(1, at: 10) == .failed)
    }

    // MARK: - Pinch

    @Test func pinchScaleCountsFromTheSpreadWhenItBegan() {
        let pinch = PinchRecognizer()
        pinch.down(1, 100, 100, at: 0)
        pinch.down(2, 200, 100, at: 5)
        #expect(pinch.move(2, 216, 100, at: 10) == .possible)
        #expect(pinch.move(2, 220, 100, at: 20) == .began)
        #expect(pinch.values.scale == 1)
        #expect(pinch.move(2, 340, 100, at: 30) == .changed)
        #expect(near(pinch.values.scale, 2))
        #expect(pinch.move(1, 280, 100, at: 40) == .changed)
        #expect(near(pinch.values.scale, 0.5))
        #expect(pinch.up(1, at: 50) == .ended)
    }

    @Test func pinchFailsWhenAFingerLiftsBeforeItBegan() {
        let pinch = PinchRecognizer()
        pinch.down(1, 100, 100, at: 0)
        pinch.down(2, 200, 100, at: 5)
        pinch.move(2, 210, 100, at: 10)
        #expect(pinch.up(2, at: 20) == .failed)
    }

    @Test func pinchIgnoresAThirdFingerAndIsCancelled() {
        let pinch = PinchRecognizer()
        pinch.down(1, 100, 100, at: 0)
        pinch.down(2, 200, 100, at: 5)
        pinch.down(3, 900, 900, at: 6)
        #expect(pinch.values.touches == 2)
        #expect(pinch.move(3, 100, 100, at: 7) == .possible)
        #expect(pinch.move(2, 100, 180, at: 10) == .began)
        #expect(pinch.cancel(1, at: 20) == .cancelled)
    }

    // MARK: - Rotation

    @Test func rotationIsPositiveClockwiseOnScreenAndCountsFromItsBeginning() {
        let rotation = RotationRecognizer()
        rotation.down(1, 100, 100, at: 0)
        rotation.down(2, 200, 100, at: 5)
        // 4° is under the 5° threshold.
        #expect(rotation.move(2, 100 + 100 * cos(0.07), 100 + 100 * sin(0.07), at: 10) == .possible)
        #expect(rotation.move(2, 100 + 100 * cos(0.1), 100 + 100 * sin(0.1), at: 20) == .began)
        #expect(rotation.values.rotation == 0)
        // y grows downwards, so a positive angle here turns clockwise on screen.
        #expect(rotation.move(2, 100 + 100 * cos(0.6), 100 + 100 * sin(0.6), at: 30) == .changed)
        #expect(near(rotation.values.rotation, 0.5, 1e-9))
        #expect(rotation.move(2, 100 + 100 * cos(-0.4), 100 + 100 * sin(-0.4), at: 40) == .changed)
        #expect(near(rotation.values.rotation, -0.5, 1e-9))
        #expect(rotation.up(2, at: 50) == .ended)
    }

    @Test func rotationSumsPastAHalfTurn() {
        let rotation = RotationRecognizer()
        rotation.down(1, 0, 0, at: 0)
        rotation.down(2, 100, 0, at: 1)
        var time: Int64 = 10
        for step in 1...8 {
            let angle = -0.5 * Double(step)
            rotation.move(2, 100 * cos(angle), 100 * sin(angle), at: time)
            time += 10
        }
        // Began at -0.5 (counter-clockwise), then turned -3.5 more.
        #expect(rotation.state == .changed)
        #expect(near(rotation.values.rotation, -3.5, 1e-9))
    }

    @Test func rotationFailsOnAnEarlyLiftAndIsCancelledAfterItBegan() {
        let lifted = RotationRecognizer()
        lifted.down(1, 100, 100, at: 0)
        #expect(lifted.up(1, at: 10) == .failed)

        let cancelled = RotationRecognizer()
        cancelled.down(1, 100, 100, at: 0)
        cancelled.down(2, 200, 100, at: 5)
        #expect(cancelled.move(2, 200, 150, at: 10) == .began)
        #expect(cancelled.cancel(2, at: 20) == .cancelled)
    }

    // MARK: - Screen-edge pan

    @Test func edgePanInsideTheZoneBeginsMovingInward() {
        let pan = ScreenEdgePanRecognizer()
        #expect(pan.down(1, 10, 400, at: 0) == .possible)
        #expect(pan.move(1, 18, 401, at: 10) == .possible)
        #expect(pan.move(1, 19, 401, at: 20) == .began)
        #expect(pan.values.edge == .left)
        #expect(pan.values.translationX == 9)
        #expect(pan.move(1, 200, 420, at: 30) == .changed)
        #expect(pan.up(1, at: 40) == .ended)
    }

    @Test func edgePanOutsideTheZoneFailsAtOnce() {
        let zone = ScreenEdgePanParameters().zoneWidth
        let pan = ScreenEdgePanRecognizer()
        #expect(pan.down(1, zone + 0.5, 400, at: 0) == .failed)

        let onTheLine = ScreenEdgePanRecognizer()
        #expect(onTheLine.down(1, zone, 400, at: 0) == .possible)

        let offTheOutput = ScreenEdgePanRecognizer()
        #expect(offTheOutput.down(1, 10, 900, at: 0) == .failed)
    }

    @Test func edgePanUsesTheEdgesOfItsOwnOutput() {
        var parameters = ScreenEdgePanParameters()
        parameters.edges = [.right, .bottom]
        let second = Rect<GlobalSpace>(x: 1000, y: 0, width: 1000, height: 800)
        let right = ScreenEdgePanRecognizer(parameters)
        right.down(1, 1995, 300, at: 0, on: second)
        #expect(right.move(1, 1975, 300, at: 10) == .began)
        #expect(right.values.edge == .right)

        let bottom = ScreenEdgePanRecognizer(parameters)
        bottom.down(1, 1500, 790, at: 0, on: second)
        #expect(bottom.move(1, 1500, 770, at: 10) == .began)
        #expect(bottom.values.edge == .bottom)

        // The left edge of the second output is not one of its edges.
        let left = ScreenEdgePanRecognizer(parameters)
        #expect(left.down(1, 1005, 300, at: 0, on: second) == .failed)
    }

    @Test func edgePanFailsMovingAlongTheEdgeOrLiftingEarly() {
        let along = ScreenEdgePanRecognizer()
        along.down(1, 10, 400, at: 0)
        #expect(along.move(1, 12, 420, at: 10) == .failed)

        let lifted = ScreenEdgePanRecognizer()
        lifted.down(1, 10, 400, at: 0)
        #expect(lifted.up(1, at: 10) == .failed)
    }

    @Test func edgePanCancelledAfterItBegan() {
        let pan = ScreenEdgePanRecognizer()
        pan.down(1, 5, 400, at: 0)
        pan.move(1, 50, 400, at: 10)
        #expect(pan.cancel(1, at: 20) == .cancelled)
    }

    // MARK: - Unusable input and kinds

    @Test func unusablePositionsAreIgnoredAndTimesNeverTrap() {
        let pan = PanRecognizer()
        pan.down(1, .nan, 0, at: 0)
        #expect(pan.values.touches == 0)
        pan.down(2, 100, 100, at: 0)
        #expect(pan.move(2, .infinity, 100, at: 10) == .possible)
        #expect(pan.move(2, 1e300, 100, at: 10) == .possible)
        #expect(pan.values.location == Point(100, 100))

        let press = LongPressRecognizer()
        press.touchBegan(TouchID(1), at: Point(1, 1), time: RouterTime(nanoseconds: .max - 5), output: screen)
        #expect(press.deadline == RouterTime(nanoseconds: .max))
        press.advance(to: RouterTime(nanoseconds: .min))
        #expect(press.state == .possible)
        press.advance(to: RouterTime(nanoseconds: .max))
        #expect(press.state == .began)

        var parameters = TapParameters()
        parameters.tapsRequired = 2
        let tap = TapRecognizer(parameters)
        tap.touchBegan(TouchID(1), at: Point(1, 1), time: RouterTime(nanoseconds: .min), output: screen)
        tap.touchEnded(TouchID(1), time: RouterTime(nanoseconds: .max))
        #expect(tap.state == .failed)
    }

    @Test func everyKindMakesItsRecognizer() {
        #expect(GestureKind.tap(TapParameters()).makeRecognizer() is TapRecognizer)
        #expect(GestureKind.longPress(LongPressParameters()).makeRecognizer() is LongPressRecognizer)
        #expect(GestureKind.pan(PanParameters()).makeRecognizer() is PanRecognizer)
        #expect(GestureKind.swipe(SwipeParameters()).makeRecognizer() is SwipeRecognizer)
        #expect(GestureKind.pinch(PinchParameters()).makeRecognizer() is PinchRecognizer)
        #expect(GestureKind.rotation(RotationParameters()).makeRecognizer() is RotationRecognizer)
        #expect(GestureKind.screenEdgePan(ScreenEdgePanParameters()).makeRecognizer() is ScreenEdgePanRecognizer)
        var parameters = TapParameters()
        parameters.tapsRequired = 3
        let made = GestureKind.tap(parameters).makeRecognizer() as? TapRecognizer
        #expect(made?.parameters.tapsRequired == 3)
    }

    // MARK: - Arctangent

    @Test func arctangentMatchesLibm() {
        var random = RecognizerRandom(seed: 11)
        var worst = 0.0
        for i in 0..<200_000 {
            let y: Double, x: Double
            if i < 1000 {
                // Round the circle, through every octant boundary.
                let a = Double(i) / 1000 * 2 * Double.pi - Double.pi
                (y, x) = (sin(a), cos(a))
            } else {
                let scale = [1e-300, 1e-6, 1, 1e6, 1e300][random.below(5)]
                (y, x) = ((random.unit() * 2 - 1) * scale, (random.unit() * 2 - 1) * scale)
            }
            worst = max(worst, abs(arctangent(y, x) - atan2(y, x)))
        }
        #expect(worst < 1e-14)
    }

    @Test func arctangentHandlesZerosInfinitiesAndNaN() {
        let specials: [Double] = [0, -0.0, 1, -1, .infinity, -.infinity, Double.leastNormalMagnitude / 4, -1e308]
        for y in specials {
            for x in specials {
                let mine = arctangent(y, x), libm = atan2(y, x)
                #expect(mine == libm || abs(mine - libm) < 1e-12, "atan2(\(y), \(x))")
                #expect(mine.sign == libm.sign, "sign of atan2(\(y), \(x))")
            }
        }
        #expect(arctangent(.nan, 1).isNaN)
        #expect(arctangent(1, .nan).isNaN)
    }

    @Test func wrappedAngleTakesTheShortWayRound() {
        #expect(near(wrappedAngle(3 * Double.pi / 2), -Double.pi / 2))
        #expect(near(wrappedAngle(-3 * Double.pi / 2), Double.pi / 2))
        #expect(near(wrappedAngle(0.25), 0.25))
        #expect(wrappedAngle(.nan) == 0)
    }

    @Test func saturatingTimeArithmetic() {
        let max = RouterTime(nanoseconds: .max), min = RouterTime(nanoseconds: .min)
        #expect(max.saturatingAdvanced(by: 1) == max)
        #expect(min.saturatingAdvanced(by: -1) == min)
        #expect(ms(1).saturatingAdvanced(by: 5) == RouterTime(nanoseconds: 1_000_005))
        #expect(max.saturatingNanoseconds(since: min) == .max)
        #expect(min.saturatingNanoseconds(since: max) == .min)
        #expect(ms(3).saturatingNanoseconds(since: ms(1)) == 2_000_000)
    }
}

// MARK: - Property test

/// SplitMix64: small, seeded and the same on every platform, so a failing seed replays.
private struct RecognizerRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
}

/// UIKit's transitions: what may follow `from` in one call.
private func allowed(from: GestureState, to: GestureState, continuous: Bool) -> Bool {
    if from == to { return true }
    switch (from, to) {
    case (.possible, .failed): return true
    case (.possible, .recognized): return !continuous
    case (.possible, .began): return continuous
    case (.began, .changed), (.began, .ended), (.began, .cancelled): return continuous
    case (.changed, .ended), (.changed, .cancelled): return continuous
    default: return false
    }
}

private func finite(_ values: GestureValues) -> Bool {
    [values.location.x, values.location.y, values.translationX, values.translationY,
     values.velocityX, values.velocityY, values.scale, values.rotation].allSatisfy(\.isFinite)
}

private let fuzzedKinds: [GestureKind] = {
    var doubleTap = TapParameters(); doubleTap.tapsRequired = 2
    var twoFingerTap = TapParameters(); twoFingerTap.touchesRequired = 2
    var twoFingerPress = LongPressParameters(); twoFingerPress.touchesRequired = 2
    var twoFingerPan = PanParameters(); twoFingerPan.minimumTouches = 2; twoFingerPan.maximumTouches = 3
    var anySwipe = SwipeParameters(); anySwipe.directions = Set(SwipeDirection.allCases)
    var allEdges = ScreenEdgePanParameters(); allEdges.edges = Set(ScreenEdge.allCases); allEdges.zoneWidth = 200
    return [.tap(TapParameters()), .tap(doubleTap), .tap(twoFingerTap), .longPress(LongPressParameters()), .longPress(twoFingerPress),
            .pan(PanParameters()), .pan(twoFingerPan), .swipe(SwipeParameters()), .swipe(anySwipe), .pinch(PinchParameters()),
            .rotation(RotationParameters()), .screenEdgePan(ScreenEdgePanParameters()), .screenEdgePan(allEdges)]
}()

extension RecognizerTests {
    @Test(arguments: 0..<fuzzedKinds.count)
    func randomStreamsMoveOnlyAlongUIKitsTransitions(kindIndex: Int) {
        let kind = fuzzedKinds[kindIndex]
        var statesSeen = Set<GestureState>()
        for seed in 0..<40 as Range<UInt64> {
            var random = RecognizerRandom(seed: seed &* 7919 &+ UInt64(kindIndex))
            let recognizer = kind.makeRecognizer()
            var time: Int64 = 0
            var positions: [Int32: Point<GlobalSpace>] = [:]

            func coordinate(_ old: Double) -> Double {
                switch random.below(100) {
                case 0: return .nan
                case 1: return random.chance(50) ? .infinity : -.infinity
                case 2: return random.chance(50) ? 1e300 : -1e12
                case 3..<30: return Double(random.below(1000))
                case 30..<65: return old + Double(random.below(61)) - 30
                default: return old + Double(random.below(7)) - 3
                }
            }

            for step in 0..<400 {
                let before = recognizer.state
                let valuesBefore = recognizer.values
                let id = Int32(random.below(5))
                switch random.below(100) {
                case 0: time = Int64.min &+ Int64(random.below(1000))
                case 1: time = Int64.max &- Int64(random.below(1000))
                case 2..<10: time = time &- Int64(random.below(50_000_000))
                case 10..<55: time = time &+ Int64(random.below(50_000_000))
                default: time = time &+ Int64(random.below(400_000_000))
                }
                let now = RouterTime(nanoseconds: time)
                var advancedBeforeDeadline = false
                let old = positions[id] ?? Point(500, 400)
                let roll = random.below(100)
                switch roll {
                case 0..<20:
                    let p = Point<GlobalSpace>(coordinate(old.x), coordinate(old.y))
                    positions[id] = p
                    recognizer.touchBegan(TouchID(id), at: p, time: now, output: screen)
                case 20..<65:
                    let p = Point<GlobalSpace>(coordinate(old.x), coordinate(old.y))
                    positions[id] = p
                    recognizer.touchMoved(TouchID(id), to: p, time: now)
                case 65..<80:
                    recognizer.touchEnded(TouchID(id), time: now)
                case 80..<84:
                    recognizer.touchCancelled(TouchID(id), time: now)
                default:
                    advancedBeforeDeadline = recognizer.deadline.map { now < $0 } ?? true
                    recognizer.advance(to: now)
                }
                let after = recognizer.state
                statesSeen.insert(after)
                #expect(allowed(from: before, to: after, continuous: recognizer.isContinuous),
                        "seed \(seed) step \(step): \(before) → \(after)")
                #expect(finite(recognizer.values), "seed \(seed) step \(step): \(recognizer.values)")
                if advancedBeforeDeadline {
                    #expect(before == after, "seed \(seed) step \(step): advance before the deadline changed \(before) → \(after)")
                }
                if before.isFinal { #expect(recognizer.values == valuesBefore, "seed \(seed) step \(step): values changed after \(before)") }
                if recognizer.awaitsMoreTouches { #expect(after == .possible) }
                if after.isFinal { #expect(recognizer.deadline == nil, "seed \(seed) step \(step): a final state has a deadline") }
                // The arena resets a recognizer whose gesture is over (here not always at once, so
                // calls in a final state are exercised), and sometimes one that lost.
                if after.isFinal && random.chance(60) || random.chance(2) {
                    recognizer.reset()
                    #expect(recognizer.state == .possible)
                    #expect(!recognizer.awaitsMoreTouches)
                    positions.removeAll(keepingCapacity: true)
                }
            }
        }
        // The streams reach the states that matter, or the test proves little.
        #expect(statesSeen.contains(.failed))
        #expect(statesSeen.contains(kind.makeRecognizer().isContinuous ? .began : .recognized))
    }
}
