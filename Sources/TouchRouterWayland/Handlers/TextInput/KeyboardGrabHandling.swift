import CWaylandShim
import TouchRouterCore
#if canImport(Glibc)
import Glibc
#endif
import TouchRouterProtocols

extension WaylandServer {
    /// zwp_input_method_v2.grab_keyboard. A grab made while another holds the keyboard, or
    /// by an input method without the seat, is inert until released.
    package func grabKeyboard(_ grab: InputMethodKeyboardGrabObject) {
        guard let inputMethod = grab.inputMethod, inputMethod === self.protocols.textInput.inputMethod, !inputMethod.unavailable,
              protocols.textInput.inputMethodGrab == nil else { return }
        protocols.textInput.inputMethodGrab = grab
        grab.send(protocols.seat.keymap)
        let rate = shell?.keyboard.repeatRate ?? 25, delay = shell?.keyboard.repeatDelay ?? 600
        zwp_input_method_keyboard_grab_v2_send_repeat_info(grab.resource, Int32(clamping: rate), Int32(clamping: delay))
        grab.send(protocols.seat.keymap.modifiers)
    }

    /// Hands a keyboard's key to the input method's grab; false when there is no grab, its
    /// input method is gone, or the key is that input method's own typing.
    package func grabbedKey(_ event: InputEvent) -> Bool {
        guard let grab = protocols.textInput.inputMethodGrab, case .key(let device, let time, let key, let state) = event else { return false }
        guard grab.inputMethod != nil, grab.inputMethod === protocols.textInput.inputMethod else { return false }
        if let keyboard = protocols.virtualInput.virtualKeyboards[device], keyboard.client == grab.client { return false }
        let typing = keymap(of: device)
        grab.send(typing)
        let pressed = state == .pressed
        let changed = typing.update(key: key, pressed: pressed)
        zwp_input_method_keyboard_grab_v2_send_key(grab.resource, display.nextSerial, time.waylandMilliseconds, key,
                                                   pressed ? WL_KEYBOARD_KEY_STATE_PRESSED.rawValue : WL_KEYBOARD_KEY_STATE_RELEASED.rawValue)
        if let changed { grab.send(changed) }
        return true
    }
}
