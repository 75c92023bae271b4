extension GestureKind {
    /// A fresh recognizer of this kind, in `.possible`.
    public func makeRecognizer() -> GestureRecognizer {
        switch self {
        case .tap(let parameters): TapRecognizer(parameters)
        case .longPress(let parameters): LongPressRecognizer(parameters)
        case .pan(let parameters): PanRecognizer(parameters)
        case .swipe(let parameters): SwipeRecognizer(parameters)
        case .pinch(let parameters): PinchRecognizer(parameters)
        case .rotation(let parameters): RotationRecognizer(parameters)
        case .screenEdgePan(let parameters): ScreenEdgePanRecognizer(parameters)
        }
    }
}
