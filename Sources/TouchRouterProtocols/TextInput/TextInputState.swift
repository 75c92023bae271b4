import TouchRouterCore

/// The seat's input method (one at a time; a second is told it is unavailable) and its
/// keyboard grab, which takes the keyboards' keys. Text inputs themselves hang off their
/// surfaces; the on-screen keyboard rule is OnScreenKeyboard.swift's.
/// What text inputs, input methods and keyboard grabs may ask of the server
/// (Handlers/TextInputHandling.swift and TextInput.swift's server side).
package protocol TextInputHandler: AnyObject {
    var textInputState: TextInputState { get }
    /// A text input of the client with the keyboard focus is entered at once.
    func textInputCreated(_ textInput: TextInputObject, of record: ClientRecord)
    /// The enabled text input on the focused surface, if any: what a new input method serves.
    var activeTextInput: TextInputObject? { get }
    /// The surface with the keyboard focus.
    var focusedSurface: SurfaceID? { get }
    /// A text input committed: the input method serves it, or stops.
    func textInputCommitted(_ textInput: TextInputObject, wasActive: Bool)
    /// A text input went: it leaves its client's list, and the input method stops serving it.
    func textInputDestroyed(_ textInput: TextInputObject)
    /// zwp_input_method_v2.grab_keyboard.
    func grabKeyboard(_ grab: InputMethodKeyboardGrabObject)
    var nextSerial: UInt32 { get }
    func report(_ message: String)
}

package final class TextInputState {
    package init() {}
    package weak var inputMethod: InputMethodObject?
    package weak var inputMethodGrab: InputMethodKeyboardGrabObject?
}
