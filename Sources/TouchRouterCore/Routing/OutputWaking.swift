/// Hears that input landed on a dark output and lit it. The router has lit it already and
/// swallowed the input that did (unless keys and buttons are let through); the hearer turns
/// the screen on and starts its idle count again.
public protocol WakeObserver: AnyObject {
    /// `output` is where a touch went down; nil for a key, a button or the pointer, which
    /// wake every dark output.
    func outputsWoke(_ outputs: [OutputID], by output: OutputID?, at time: RouterTime)
}

/// Dark outputs, and the waking sequences still going.
struct WakingState {
    var dark: Set<OutputID> = []
    /// Outputs a touch sequence woke whose fingers are not all up yet: a finger that goes
    /// down on one of them belongs to the waking sequence and is swallowed with it.
    var waking: Set<OutputID> = []
    var swallowedKeys: Set<UInt32> = []
    var swallowedButtons: Set<UInt32> = []
    var letKeysThrough = false
    var observer: (any WakeObserver)?
    /// Anything above to look at: one load an event while nothing is dark.
    var active = false

    mutating func updateActive() {
        active = !dark.isEmpty || !waking.isEmpty || !swallowedKeys.isEmpty || !swallowedButtons.isEmpty
    }
}

/// A dark output wakes at the next input, and that input reaches nobody: a kiosk's user who
/// touches a black screen to wake it must not press whatever button is under the finger.
/// The whole touch sequence that woke it, from its first down to its last up, is swallowed
/// before the gesture arena sees it, so no recognizer does either; a key or button that
/// wakes is swallowed with its release, unless `letWakingKeysThrough`. Pointer motion and
/// scrolling wake and go on as usual.
extension Router {
    public var darkOutputs: Set<OutputID> { state.pointee.waking.dark }

    public var wakeObserver: (any WakeObserver)? {
        get { state.pointee.waking.observer }
        set { state.pointee.waking.observer = newValue }
    }

    /// Whether a key or button that wakes a dark output reaches its client.
    public var letWakingKeysThrough: Bool {
        get { state.pointee.waking.letKeysThrough }
        set { state.pointee.waking.letKeysThrough = newValue }
    }

    /// Outputs go dark (idle blanking, a power request) or light up without input.
    public func setOutputs(_ outputs: some Sequence<OutputID>, dark: Bool) {
        if dark { state.pointee.waking.dark.formUnion(outputs) } else { state.pointee.waking.dark.subtract(outputs) }
        state.pointee.waking.updateActive()
    }

    var wakingActive: Bool { state.pointee.waking.active }

    /// A device went: a waking sequence ends with the last of its fingers, and a waking key or
    /// button whose release will not come is no longer waited for.
    func wakingDeviceRemoved() {
        if !touches.contains(where: { if case .swallowed(.wokeOutput) = $0.target { true } else { false } }) {
            state.pointee.waking.waking.removeAll()
        }
        state.pointee.waking.swallowedKeys.removeAll()
        state.pointee.waking.swallowedButtons.removeAll()
        state.pointee.waking.updateActive()
    }

    /// The input's outcome when it wakes a dark output or continues the sequence that did;
    /// nil when it routes as usual.
    func routeWaking(_ event: InputEvent) -> RouteOutcome? {
        switch event {
        case .touchDown(let device, let time, let id, let position):
            guard touchIndex(id) == nil, let output = tree.output(at: position) else { return nil }
            let dark = state.pointee.waking.dark.contains(output)
            guard dark || state.pointee.waking.waking.contains(output) else { return nil }
            touches.append(TouchPoint(device: device, id: id, output: output, target: .swallowed(.wokeOutput), position: position))
            state.pointee.waking.waking.insert(output)
            if dark { wake(by: output, at: time) }
            state.pointee.waking.updateActive()
            return .dropped(.wokeOutput)
        case .touchUp(_, _, let id), .touchCancel(_, _, let id):
            guard let i = touchIndex(id), case .swallowed(.wokeOutput) = touches[i].target else { return nil }
            touches.remove(at: i)
            if !touches.contains(where: { if case .swallowed(.wokeOutput) = $0.target { true } else { false } }) {
                state.pointee.waking.waking.removeAll()
                state.pointee.waking.updateActive()
            }
            return .dropped(.wokeOutput)
        case .key(_, let time, let key, let keyState):
            return wakingPress(key, pressed: keyState == .pressed, time: time, in: \.swallowedKeys)
        case .pointerButton(_, let time, let button, let buttonState):
            return wakingPress(button, pressed: buttonState == .pressed, time: time, in: \.swallowedButtons)
        case .pointerMotion(_, let time, _, _), .pointerMotionAbsolute(_, let time, _), .pointerAxis(_, let time, _, _, _, _):
            if !state.pointee.waking.dark.isEmpty { wake(by: nil, at: time) }
            return nil
        default:
            return nil
        }
    }

    private func wakingPress(_ code: UInt32, pressed: Bool, time: RouterTime, in swallowed: WritableKeyPath<WakingState, Set<UInt32>>) -> RouteOutcome? {
        if !pressed {
            guard state.pointee.waking[keyPath: swallowed].remove(code) != nil else { return nil }
            state.pointee.waking.updateActive()
            return .dropped(.wokeOutput)
        }
        guard !state.pointee.waking.dark.isEmpty else { return nil }
        wake(by: nil, at: time)
        guard !state.pointee.waking.letKeysThrough else { return nil }
        state.pointee.waking[keyPath: swallowed].insert(code)
        state.pointee.waking.updateActive()
        return .dropped(.wokeOutput)
    }

    /// Every dark output lights: the seat's idle is one timer, so a touch on one screen
    /// wakes them all.
    private func wake(by output: OutputID?, at time: RouterTime) {
        markDecided()
        let woken = state.pointee.waking.dark.sorted()
        state.pointee.waking.dark.removeAll()
        state.pointee.waking.updateActive()
        state.pointee.waking.observer?.outputsWoke(woken, by: output, at: time)
    }
}
