import TouchRouterCore

/// The seat's state beyond the router's: its keymap, the keymap the focused client's
/// keyboards are to have (the seat's, or a virtual keyboard's since it last typed), and the
/// pointer constraints alive (oldest first; each leaves as its object goes).
final class SeatState {
    var keymap: Keymap
    var activeKeymap: Keymap
    var pointerConstraints: [PointerConstraintObject] = []
    let idle = SeatIdle()

    init(keymap: Keymap) {
        self.keymap = keymap
        activeKeymap = keymap
    }
}
