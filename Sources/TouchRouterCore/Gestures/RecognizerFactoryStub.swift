// Temporary until the recognizers land: every kind fails at once.
final class FailingRecognizer: GestureRecognizer {
    var state = GestureState.possible
    var isContinuous: Bool { false }
    var values: GestureValues { GestureValues() }
    func touchBegan(_ id: TouchID, at position: Point<GlobalSpace>, time: RouterTime, output: Rect<GlobalSpace>) { state = .failed }
    func touchMoved(_ id: TouchID, to position: Point<GlobalSpace>, time: RouterTime) {}
    func touchEnded(_ id: TouchID, time: RouterTime) {}
    func touchCancelled(_ id: TouchID, time: RouterTime) {}
    func advance(to time: RouterTime) {}
    var deadline: RouterTime? { nil }
    var awaitsMoreTouches: Bool { false }
    func reset() { state = .possible }
}

extension GestureKind {
    public func makeRecognizer() -> any GestureRecognizer { FailingRecognizer() }
}
