/// An output turned, resized or moved under fingers that are down on it (`msg output set`,
/// a reload's `[[output]]`): their touches end, cancelled, as UIKit cancels the touches of
/// an interface that rotates, so that no client sees a finger jump across its surface and no
/// recognizer reads the jump as a swipe. The rest of each sequence reaches nobody.
extension Router {
    public func outputReconfigured(_ output: OutputID) {
        guard touches.contains(where: { $0.output == output }) else { return }
        let now = clock.now()
        if arena.open, arena.touches.contains(where: { touch in touches.contains { $0.id == touch.id && $0.output == output } }) {
            abandonArena(time: now)
        }
        _ = cancelLiveTouches(time: now) { $0.output == output }
        for i in touches.indices where touches[i].output == output {
            // A waking sequence stays one: its fingers are swallowed for waking, to their last up.
            if case .swallowed(.wokeOutput) = touches[i].target { continue }
            touches[i].target = .swallowed(.outputChanged)
        }
    }
}
