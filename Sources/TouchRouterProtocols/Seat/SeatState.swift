import TouchRouterCore

/// The seat's state beyond the router's: its keymap, the keymap the focused client's
/// keyboards are to have (the seat's, or a virtual keyboard's since it last typed), and the
/// pointer constraints alive (oldest first; each leaves as its object goes).
package final class SeatState {
    package var keymap: Keymap
    package var activeKeymap: Keymap
    package var pointerConstraints: [PointerConstraintObject] = []
    package let idle = SeatIdle()

    package init(keymap: Keymap) {
        self.keymap = keymap
        activeKeymap = keymap
    }
}
