import CWaylandShim
import TouchRouterCore
#if canImport(Glibc)
import Glibc
#endif

// zwp_input_method_keyboard_grab_v2 (input-method-unstable-v2): while the seat's input
// method holds one, every key of the seat's keyboards (libinput's, another client's
// virtual keyboard, `msg inject`) goes to it instead of the focused client, as sway does.
// The input method composes and types what it means through its own virtual keyboard,
// whose keys are never grabbed: it would hear its own typing. Key chords bound in the
// configuration are taken before the grab. The grab is sent the keymap of the keyboard
// typing before its first key from that keyboard, the repeat rate, and the modifiers as
// its keys change them. Its keys never reach the router, so they are neither traced nor
// timed: the input method's typing is.

package final class InputMethodKeyboardGrabObject: WaylandObject {
    private unowned let handler: any TextInputHandler
    private unowned let state: TextInputState
    package nonisolated(unsafe) static let table = implementation(zwp_input_method_keyboard_grab_v2_interface(release: destroyRequest))

    /// The input method that made it: the grab holds only while that one has the seat.
    package weak var inputMethod: InputMethodObject?
    /// The keymap the grab was last sent, so that a keyboard with another one sends it first.
    package weak var sentKeymap: Keymap?

    package init(resource: OpaquePointer, madeBy parent: WaylandObject, handler: any TextInputHandler, state: TextInputState, inputMethod: InputMethodObject) {
        self.handler = handler
        self.state = state
        self.inputMethod = inputMethod
        super.init(resource: resource, madeBy: parent)
    }

    package override func resourceDestroyed() {
        if state.inputMethodGrab === self { state.inputMethodGrab = nil }
    }

    package func send(_ keymap: Keymap) {
        guard keymap !== sentKeymap else { return }
        do {
            let file = try keymap.makeFile()
            zwp_input_method_keyboard_grab_v2_send_keymap(resource, WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1.rawValue, file.fd, file.size)
            close(file.fd)
            sentKeymap = keymap
        } catch {
            handler.report("keymap for an input method's keyboard grab: \(error)")
        }
    }

    package func send(_ modifiers: KeyboardModifiers) {
        zwp_input_method_keyboard_grab_v2_send_modifiers(resource, handler.nextSerial, modifiers.depressed, modifiers.latched, modifiers.locked, modifiers.group)
    }
}
