import TouchRouterCore

/// The seat's state beyond the router's: the pointer constraints alive (oldest first; each
/// leaves as its object goes), and the keymap the focused client's keyboards are to have: the
/// seat's, or a virtual keyboard's since it last typed.
final class SeatState {
    var pointerConstraints: [PointerConstraintObject] = []
}
