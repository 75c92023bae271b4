import CWaylandShim
import TouchRouterCore

// text-input-unstable-v3 (protocols/text-input-unstable-v3.xml): a client's text field
// tells the session, through a zwp_text_input_v3, that it takes text, with its surrounding
// text, content type and cursor; the seat's input method (InputMethod.swift) hears it and
// types into it. Each text input of the client with the keyboard focus is sent `enter`
// with the focused surface, and `leave` as the focus goes (Delivery.swift's keyboardEnter
// and keyboardLeave). Its requests are double-buffered, applied on `commit`; `done`'s
// serial is the number of commits the text input has made, as the protocol says. The
// session has one seat: the seat argument is not kept.

package enum TextInputManagerGlobal {
    package static let version: Int32 = 1

    package static let bind: wl_global_bind_func_t = { client, data, version, id in
        GlobalHost.bind(client, data, version, id, tr_zwp_text_input_manager_v3_interface(), TextInputManagerGlobal.table) { $0 as any TextInputHandler }
    }

    package nonisolated(unsafe) static let table = implementation(zwp_text_input_manager_v3_interface(
        destroy: destroyRequest,
        get_text_input: { client, resource, id, _ in
            let manager = WaylandObject.of(resource, as: RoomGlobal<any TextInputHandler>.self)
            guard let client, let record = manager.clientRecord else { return }
            guard record.textInputs.count < ClientLimits.textInputs else {
                manager.endClient("\(manager.name).get_text_input", pastLimit: "past \(ClientLimits.textInputs) text inputs, the most one client may have")
                return
            }
            guard let created = createResource(client, tr_zwp_text_input_v3_interface(), version: wl_resource_get_version(resource), id: id) else { return }
            let textInput = TextInputObject(resource: created, madeBy: manager, handler: manager.handler)
            WaylandObject.install(textInput, implementation: TextInputObject.table)
            record.textInputs.append(textInput)
            manager.handler.textInputCreated(textInput, of: record)
        }))
}

/// What a text input's requests set, double-buffered.
package struct TextFieldState: Equatable {
    package struct Surrounding: Equatable {
        package var text: String
        package var cursor: Int32
        package var anchor: Int32
    }
    package var enabled = false
    package var surrounding: Surrounding?
    package var changeCause = ZWP_TEXT_INPUT_V3_CHANGE_CAUSE_INPUT_METHOD.rawValue
    package var contentHint = ZWP_TEXT_INPUT_V3_CONTENT_HINT_NONE.rawValue
    package var contentPurpose = ZWP_TEXT_INPUT_V3_CONTENT_PURPOSE_NORMAL.rawValue
    package var cursorRectangle: (x: Int32, y: Int32, width: Int32, height: Int32)?

    package static func == (a: TextFieldState, b: TextFieldState) -> Bool {
        a.enabled == b.enabled && a.surrounding == b.surrounding && a.changeCause == b.changeCause
            && a.contentHint == b.contentHint && a.contentPurpose == b.contentPurpose
            && a.cursorRectangle.map { [$0.x, $0.y, $0.width, $0.height] } == b.cursorRectangle.map { [$0.x, $0.y, $0.width, $0.height] }
    }
}

/// One zwp_text_input_v3.
package final class TextInputObject: WaylandObject {
    private unowned let handler: any TextInputHandler
    /// The surface it was last sent `enter` for, until its `leave`.
    package var entered: SurfaceID?
    package var pending = TextFieldState()
    package private(set) var current = TextFieldState()
    /// Commit requests so far: the serial of each `done` (the protocol's count, wrapping).
    package private(set) var commits: UInt32 = 0

    package init(resource: OpaquePointer, madeBy manager: WaylandObject, handler: any TextInputHandler) {
        self.handler = handler
        super.init(resource: resource, madeBy: manager)
    }

    package override func resourceDestroyed() {
        handler.textInputDestroyed(self)
    }

    /// The text input the input method serves: enabled, on the surface with the keyboard focus.
    package var isActive: Bool {
        current.enabled && entered != nil && entered == handler.focusedSurface
    }

    package func sendEnter(_ surface: SurfaceObject) {
        entered = surface.id
        zwp_text_input_v3_send_enter(resource, surface.resource)
    }

    package func sendLeave(_ surfaceResource: OpaquePointer?) {
        entered = nil
        if let surfaceResource { zwp_text_input_v3_send_leave(resource, surfaceResource) }
    }

    private func commit() {
        commits &+= 1
        let wasActive = isActive
        current = pending
        handler.textInputCommitted(self, wasActive: wasActive)
    }

    package func sendDone() {
        zwp_text_input_v3_send_done(resource, commits)
    }

    package nonisolated(unsafe) static let table = implementation(zwp_text_input_v3_interface(
        destroy: destroyRequest,
        enable: { _, resource in
            // Enabling starts from the initial state: what follows it in the same commit sets it.
            WaylandObject.of(resource, as: TextInputObject.self).pending = TextFieldState(enabled: true)
        },
        disable: { _, resource in
            WaylandObject.of(resource, as: TextInputObject.self).pending.enabled = false
        },
        set_surrounding_text: { _, resource, text, cursor, anchor in
            let textInput = WaylandObject.of(resource, as: TextInputObject.self)
            textInput.pending.surrounding = .init(text: text.map { String(cString: $0) } ?? "", cursor: cursor, anchor: anchor)
        },
        set_text_change_cause: { _, resource, cause in
            WaylandObject.of(resource, as: TextInputObject.self).pending.changeCause = cause
        },
        set_content_type: { _, resource, hint, purpose in
            let textInput = WaylandObject.of(resource, as: TextInputObject.self)
            textInput.pending.contentHint = hint
            textInput.pending.contentPurpose = purpose
        },
        set_cursor_rectangle: { _, resource, x, y, width, height in
            WaylandObject.of(resource, as: TextInputObject.self).pending.cursorRectangle = (x, y, width, height)
        },
        commit: { _, resource in
            WaylandObject.of(resource, as: TextInputObject.self).commit()
        }))
}
