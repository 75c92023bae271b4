import CWaylandShim
import TouchRouterCore

// input-method-unstable-v2 (protocols/input-method-unstable-v2.xml): the seat's input
// method (an on-screen keyboard) serves the enabled text input (TextInput.swift) on the
// surface with the keyboard focus. As that text input commits, the input method is sent
// `activate` (when it starts serving it), the text input's surrounding text, change cause
// and content type, and `done`; when it is disabled, destroyed or loses the focus,
// `deactivate` and `done`. The input method's commit_string, set_preedit_string and
// delete_surrounding_text are gathered until its `commit`, then go to the served text
// input, ended by `done` with the text input's serial. One input method at a time: a
// second is sent `unavailable` and is inert. Privileged like the virtual keyboard
// (`[privileges] input-method`, Privileges.swift).
//
// The keyboard grab is InputMethodKeyboardGrab.swift's. Minimal part: a
// zwp_input_popup_surface_v2 gives its surface no role and never shows it.

package enum InputMethodManagerGlobal {
    package static let version: Int32 = 1

    package static let bind: wl_global_bind_func_t = { client, data, version, id in
        GlobalHost.bind(client, data, version, id, tr_zwp_input_method_manager_v2_interface(), InputMethodManagerGlobal.table) { $0 as any TextInputHandler }
    }

    package nonisolated(unsafe) static let table = implementation(zwp_input_method_manager_v2_interface(
        get_input_method: { client, resource, _, id in
            let manager = WaylandObject.of(resource, as: RoomGlobal<any TextInputHandler>.self)
            let handler = manager.handler, state = handler.textInputState
            guard let created = createResource(client, tr_zwp_input_method_v2_interface(), version: wl_resource_get_version(resource), id: id) else { return }
            let inputMethod = InputMethodObject(resource: created, madeBy: manager, handler: handler, state: state)
            WaylandObject.install(inputMethod, implementation: InputMethodObject.table)
            guard state.inputMethod == nil else {
                inputMethod.unavailable = true
                zwp_input_method_v2_send_unavailable(created)
                return
            }
            state.inputMethod = inputMethod
            if let textInput = handler.activeTextInput { inputMethod.serve(textInput) }
        },
        destroy: destroyRequest))
}

/// One zwp_input_method_v2.
package final class InputMethodObject: WaylandObject {
    private unowned let handler: any TextInputHandler
    private unowned let state: TextInputState
    /// The text input it was last activated for; nil once deactivated.
    package private(set) weak var served: TextInputObject?
    /// `activate` was sent, and no `deactivate` since.
    package private(set) var isActive = false
    /// Another input method had the seat when this one was made: it is sent nothing more.
    package var unavailable = false

    private var pendingCommit: String?
    private var pendingPreedit: (text: String, begin: Int32, end: Int32)?
    private var pendingDelete: (before: UInt32, after: UInt32)?

    package init(resource: OpaquePointer, madeBy manager: WaylandObject, handler: any TextInputHandler, state: TextInputState) {
        self.handler = handler
        self.state = state
        super.init(resource: resource, madeBy: manager)
    }

    package override func resourceDestroyed() {
        if state.inputMethod === self { state.inputMethod = nil }
        if state.inputMethodGrab?.inputMethod === self { state.inputMethodGrab = nil }
    }

    /// The text input committed while enabled and focused: its state, after `activate`
    /// if it is newly served.
    package func serve(_ textInput: TextInputObject) {
        guard !unavailable else { return }
        if isActive, served !== textInput { deactivate() }
        if !isActive {
            isActive = true
            zwp_input_method_v2_send_activate(resource)
        }
        served = textInput
        let state = textInput.current
        if let surrounding = state.surrounding {
            // The protocol's cursor and anchor are byte offsets, never negative.
            zwp_input_method_v2_send_surrounding_text(resource, surrounding.text, UInt32(clamping: surrounding.cursor), UInt32(clamping: surrounding.anchor))
        }
        zwp_input_method_v2_send_text_change_cause(resource, state.changeCause)
        zwp_input_method_v2_send_content_type(resource, state.contentHint, state.contentPurpose)
        zwp_input_method_v2_send_done(resource)
    }

    package func deactivate() {
        served = nil
        guard isActive, !unavailable else { return }
        isActive = false
        zwp_input_method_v2_send_deactivate(resource)
        zwp_input_method_v2_send_done(resource)
    }

    /// The gathered requests go to the served text input, if it is still the active one.
    private func commit() {
        let commitText = pendingCommit, preedit = pendingPreedit, delete = pendingDelete
        pendingCommit = nil
        pendingPreedit = nil
        pendingDelete = nil
        guard !unavailable, isActive, let textInput = served, textInput.isActive else { return }
        if let preedit { zwp_text_input_v3_send_preedit_string(textInput.resource, preedit.text, preedit.begin, preedit.end) }
        if let commitText { zwp_text_input_v3_send_commit_string(textInput.resource, commitText) }
        if let delete { zwp_text_input_v3_send_delete_surrounding_text(textInput.resource, delete.before, delete.after) }
        textInput.sendDone()
    }

    package nonisolated(unsafe) static let table = implementation(zwp_input_method_v2_interface(
        commit_string: { _, resource, text in
            WaylandObject.of(resource, as: InputMethodObject.self).pendingCommit = text.map { String(cString: $0) } ?? ""
        },
        set_preedit_string: { _, resource, text, begin, end in
            WaylandObject.of(resource, as: InputMethodObject.self).pendingPreedit = (text.map { String(cString: $0) } ?? "", begin, end)
        },
        delete_surrounding_text: { _, resource, before, after in
            WaylandObject.of(resource, as: InputMethodObject.self).pendingDelete = (before, after)
        },
        commit: { _, resource, _ in
            WaylandObject.of(resource, as: InputMethodObject.self).commit()
        },
        get_input_popup_surface: { client, resource, id, _ in
            let inputMethod = WaylandObject.of(resource, as: InputMethodObject.self)
            guard let created = createResource(client, tr_zwp_input_popup_surface_v2_interface(), version: wl_resource_get_version(resource), id: id) else { return }
            WaylandObject.install(InputPopupSurfaceObject(resource: created, madeBy: inputMethod), implementation: InputPopupSurfaceObject.table)
        },
        grab_keyboard: { client, resource, id in
            let inputMethod = WaylandObject.of(resource, as: InputMethodObject.self)
            guard let created = createResource(client, tr_zwp_input_method_keyboard_grab_v2_interface(), version: wl_resource_get_version(resource), id: id) else { return }
            let grab = InputMethodKeyboardGrabObject(resource: created, madeBy: inputMethod, handler: inputMethod.handler, state: inputMethod.state, inputMethod: inputMethod)
            WaylandObject.install(grab, implementation: InputMethodKeyboardGrabObject.table)
            inputMethod.handler.grabKeyboard(grab)
        },
        destroy: destroyRequest))
}

/// A zwp_input_popup_surface_v2: kept until destroyed; its surface is never shown.
package final class InputPopupSurfaceObject: WaylandObject {
    package nonisolated(unsafe) static let table = implementation(zwp_input_popup_surface_v2_interface(destroy: destroyRequest))
}
