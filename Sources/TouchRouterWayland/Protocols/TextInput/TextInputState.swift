import TouchRouterCore

/// The seat's input method (one at a time; a second is told it is unavailable) and its
/// keyboard grab, which takes the keyboards' keys. Text inputs themselves hang off their
/// surfaces; the on-screen keyboard rule is OnScreenKeyboard.swift's.
final class TextInputState {
    weak var inputMethod: InputMethodObject?
    weak var inputMethodGrab: InputMethodKeyboardGrabObject?
}
