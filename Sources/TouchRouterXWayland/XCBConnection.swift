import CXCB
import TouchRouterProtocols
#if canImport(Glibc)
import Glibc
#endif

/// The window manager's connection to Xwayland, over the socket given to Xwayland's `-wm`:
/// every xcb call goes through here, and a broken connection throws.
package final class XCBConnection: X11Requests {
    private let connection: OpaquePointer
    package let root: X11Window
    package private(set) var atoms = X11Atoms([:])
    /// Where XFIXES' events begin on this connection.
    package private(set) var xfixesFirstEvent: UInt8 = 0
    /// The window manager's own window (EWMH's _NET_SUPPORTING_WM_CHECK, and selection owner).
    package let ownWindow: X11Window

    /// Connects over `fd`, which the connection then owns, and interns the atoms.
    package init(fd: Int32) throws(WaylandError) {
        guard let connection = xcb_connect_to_fd(fd, nil) else { throw WaylandError("xwayland: xcb_connect_to_fd failed") }
        self.connection = connection
        guard xcb_connection_has_error(connection) == 0, let setup = xcb_get_setup(connection) else {
            xcb_disconnect(connection)
            throw WaylandError("xwayland: the window manager's connection to Xwayland failed (xcb error)")
        }
        let screen = xcb_setup_roots_iterator(setup).data!
        root = screen.pointee.root
        ownWindow = xcb_generate_id(connection)
        var byName: [AtomName: X11Atom] = [:]
        let cookies = AtomName.allCases.map { name in
            (name, xcb_intern_atom(connection, 0, UInt16(name.rawValue.utf8.count), name.rawValue))
        }
        for (name, cookie) in cookies {
            guard let reply = xcb_intern_atom_reply(connection, cookie, nil) else {
                xcb_disconnect(connection)
                throw WaylandError("xwayland: interning the atom \(name.rawValue) failed")
            }
            byName[name] = reply.pointee.atom
            free(reply)
        }
        atoms = X11Atoms(byName)
    }

    deinit { xcb_disconnect(connection) }

    package var fd: Int32 { xcb_get_file_descriptor(connection) }

    package func check() throws(WaylandError) {
        let code = xcb_connection_has_error(connection)
        guard code == 0 else { throw WaylandError("xwayland: the window manager's connection broke (xcb error \(code))") }
    }

    /// Becomes the window manager: redirects the root's children (compositing them, as
    /// Xwayland's rootless mode needs), owns WM_S0 and the EWMH check, and sets the root's cursor.
    package func becomeWindowManager() throws(WaylandError) {
        var mask = XCB_EVENT_MASK_SUBSTRUCTURE_REDIRECT.rawValue | XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY.rawValue | XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue
        let redirect = xcb_change_window_attributes_checked(connection, root, XCB_CW_EVENT_MASK.rawValue, &mask)
        if let error = xcb_request_check(connection, redirect) {
            free(error)
            throw WaylandError("xwayland: another window manager holds the root window")
        }
        xcb_composite_redirect_subwindows(connection, root, UInt8(XCB_COMPOSITE_REDIRECT_MANUAL.rawValue))
        xcb_create_window(connection, 0, ownWindow, root, -100, -100, 1, 1, 0, UInt16(XCB_WINDOW_CLASS_INPUT_ONLY.rawValue), 0, 0, nil)
        setProperty(ownWindow, atoms[._NET_SUPPORTING_WM_CHECK], type: atoms[.WINDOW], words: [ownWindow])
        setProperty(root, atoms[._NET_SUPPORTING_WM_CHECK], type: atoms[.WINDOW], words: [ownWindow])
        setProperty(ownWindow, atoms[._NET_WM_NAME], type: atoms[.UTF8_STRING], bytes: Array("TouchRouter".utf8))
        let supported: [AtomName] = [._NET_WM_STATE, ._NET_WM_STATE_FULLSCREEN, ._NET_WM_STATE_MAXIMIZED_VERT, ._NET_WM_STATE_MAXIMIZED_HORZ,
                                     ._NET_WM_STATE_FOCUSED, ._NET_ACTIVE_WINDOW, ._NET_WM_WINDOW_TYPE, ._NET_CLOSE_WINDOW, ._NET_WM_NAME, ._NET_WM_PID]
        setProperty(root, atoms[._NET_SUPPORTED], type: atoms[.ATOM], words: supported.map { atoms[$0] })
        setProperty(root, atoms[._NET_ACTIVE_WINDOW], type: atoms[.WINDOW], words: [0])
        xcb_set_selection_owner(connection, ownWindow, atoms[.WM_S0], 0)
        xcb_set_selection_owner(connection, ownWindow, atoms[._NET_WM_CM_S0], 0)
        setRootCursor()
        // Looked up by name: xcb_xfixes_id is an incomplete type Swift cannot take the address of.
        let query = xcb_query_extension(connection, 6, "XFIXES")
        if let xfixes = xcb_query_extension_reply(connection, query, nil) {
            if xfixes.pointee.present != 0 {
                xfixesFirstEvent = xfixes.pointee.first_event
                let version = xcb_xfixes_query_version(connection, UInt32(XCB_XFIXES_MAJOR_VERSION), UInt32(XCB_XFIXES_MINOR_VERSION))
                free(xcb_xfixes_query_version_reply(connection, version, nil))
            }
            free(xfixes)
        }
        flush()
        try check()
    }

    /// The cursor font's left_ptr (glyph 68) on the root: Xwayland shows it over X11 windows
    /// that set none, where a bare root would show X's cross.
    private func setRootCursor() {
        let font = xcb_generate_id(connection)
        "cursor".withCString { _ = xcb_open_font(connection, font, 6, $0) }
        var cursor = xcb_generate_id(connection)
        xcb_create_glyph_cursor(connection, cursor, font, font, 68, 69, 0, 0, 0, 0xffff, 0xffff, 0xffff)
        xcb_change_window_attributes(connection, root, XCB_CW_CURSOR.rawValue, &cursor)
        xcb_free_cursor(connection, cursor)
        xcb_close_font(connection, font)
    }

    /// The next queued event's 32 bytes, nil when none is queued.
    package func nextEvent() -> [UInt8]? {
        guard let event = xcb_poll_for_event(connection) else { return nil }
        defer { free(event) }
        return Array(UnsafeRawBufferPointer(start: event, count: 32))
    }

    package func configure(_ window: X11Window, _ rect: (x: Int, y: Int, width: Int, height: Int)) {
        var values: [UInt32] = [UInt32(bitPattern: Int32(rect.x)), UInt32(bitPattern: Int32(rect.y)), UInt32(rect.width), UInt32(rect.height), 0]
        let mask = XCB_CONFIG_WINDOW_X.rawValue | XCB_CONFIG_WINDOW_Y.rawValue | XCB_CONFIG_WINDOW_WIDTH.rawValue
            | XCB_CONFIG_WINDOW_HEIGHT.rawValue | XCB_CONFIG_WINDOW_BORDER_WIDTH.rawValue
        xcb_configure_window(connection, window, UInt16(mask), &values)
    }

    package func sendConfigureNotify(_ window: X11Window, _ rect: (x: Int, y: Int, width: Int, height: Int)) {
        var event = xcb_configure_notify_event_t()
        event.response_type = UInt8(XCB_CONFIGURE_NOTIFY)
        event.event = window
        event.window = window
        event.x = Int16(rect.x)
        event.y = Int16(rect.y)
        event.width = UInt16(rect.width)
        event.height = UInt16(rect.height)
        send(event, to: window, mask: XCB_EVENT_MASK_STRUCTURE_NOTIFY.rawValue)
    }

    /// SendEvent takes the event as its 32 wire bytes; xcb's event structs are at most that.
    private func send<Event>(_ event: Event, to window: X11Window, mask: UInt32) {
        withUnsafeBytes(of: event) { bytes in
            var padded = [CChar](repeating: 0, count: 32)
            for i in 0..<min(32, bytes.count) { padded[i] = CChar(bitPattern: bytes[i]) }
            xcb_send_event(connection, 0, window, mask, padded)
        }
    }

    package func raise(_ window: X11Window) {
        var mode = XCB_STACK_MODE_ABOVE.rawValue
        xcb_configure_window(connection, window, UInt16(XCB_CONFIG_WINDOW_STACK_MODE.rawValue), &mode)
    }

    package func map(_ window: X11Window) { xcb_map_window(connection, window) }

    package func setInputFocus(_ window: X11Window?) {
        if let window {
            xcb_set_input_focus(connection, UInt8(XCB_INPUT_FOCUS_POINTER_ROOT.rawValue), window, 0)
        } else {
            xcb_set_input_focus(connection, UInt8(XCB_INPUT_FOCUS_POINTER_ROOT.rawValue), 0, 0)
        }
    }

    package func sendClientMessage(_ window: X11Window, type: X11Atom, data: [UInt32]) {
        var event = xcb_client_message_event_t()
        event.response_type = UInt8(XCB_CLIENT_MESSAGE)
        event.format = 32
        event.window = window
        event.type = type
        withUnsafeMutableBytes(of: &event.data) { bytes in
            for (i, word) in data.prefix(5).enumerated() { bytes.storeBytes(of: word, toByteOffset: 4 * i, as: UInt32.self) }
        }
        send(event, to: window, mask: XCB_EVENT_MASK_NO_EVENT.rawValue)
    }

    package func killClient(_ window: X11Window) { xcb_kill_client(connection, window) }

    package func setProperty(_ window: X11Window, _ property: X11Atom, type: X11Atom, words: [UInt32]) {
        words.withUnsafeBufferPointer {
            _ = xcb_change_property(connection, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, property, type, 32, UInt32($0.count), $0.baseAddress)
        }
    }

    package func setProperty(_ window: X11Window, _ property: X11Atom, type: X11Atom, bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer {
            _ = xcb_change_property(connection, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, property, type, 8, UInt32($0.count), $0.baseAddress)
        }
    }

    package func property(_ window: X11Window, _ property: X11Atom) -> X11PropertyValue? {
        let cookie = xcb_get_property(connection, 0, window, property, UInt32(XCB_ATOM_ANY.rawValue), 0, UInt32(X11PropertyValue.maximumBytes / 4))
        guard let reply = xcb_get_property_reply(connection, cookie, nil) else { return nil }
        defer { free(reply) }
        guard reply.pointee.format != 0 else { return nil }
        let count = Int(xcb_get_property_value_length(reply))
        guard count > 0, let value = xcb_get_property_value(reply) else {
            return X11PropertyValue(type: reply.pointee.type, format: reply.pointee.format, bytes: [])
        }
        let bytes = Array(UnsafeRawBufferPointer(start: value, count: min(count, X11PropertyValue.maximumBytes)))
        return X11PropertyValue(type: reply.pointee.type, format: reply.pointee.format, bytes: bytes)
    }

    package func watchWindow(_ window: X11Window) {
        var mask = XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue | XCB_EVENT_MASK_FOCUS_CHANGE.rawValue
        xcb_change_window_attributes(connection, window, XCB_CW_EVENT_MASK.rawValue, &mask)
    }

    package func flush() { xcb_flush(connection) }

    package func setSelectionOwner(_ selection: X11Atom, owner: X11Window) { xcb_set_selection_owner(connection, owner, selection, 0) }

    package func selectionOwner(_ selection: X11Atom) -> X11Window {
        guard let reply = xcb_get_selection_owner_reply(connection, xcb_get_selection_owner(connection, selection), nil) else { return 0 }
        defer { free(reply) }
        return reply.pointee.owner
    }

    package func convertSelection(_ selection: X11Atom, target: X11Atom, property: X11Atom, requestor: X11Window) {
        xcb_convert_selection(connection, requestor, selection, target, property, 0)
    }

    package func sendSelectionNotify(requestor: X11Window, selection: X11Atom, target: X11Atom, property: X11Atom, time: UInt32) {
        var event = xcb_selection_notify_event_t()
        event.response_type = UInt8(XCB_SELECTION_NOTIFY)
        event.time = time
        event.requestor = requestor
        event.selection = selection
        event.target = target
        event.property = property
        send(event, to: requestor, mask: XCB_EVENT_MASK_NO_EVENT.rawValue)
    }

    package func atomName(_ atom: X11Atom) -> String? {
        guard atom != 0, let reply = xcb_get_atom_name_reply(connection, xcb_get_atom_name(connection, atom), nil) else { return nil }
        defer { free(reply) }
        let length = min(Int(xcb_get_atom_name_name_length(reply)), 256)
        guard length > 0, let name = xcb_get_atom_name_name(reply) else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: name, count: length), as: UTF8.self)
    }

    package func intern(_ name: String) -> X11Atom? {
        let bytes = Array(name.utf8.prefix(256))
        let cookie = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { xcb_intern_atom(connection, 0, UInt16(buffer.count), $0.baseAddress) }
        }
        guard let reply = xcb_intern_atom_reply(connection, cookie, nil) else { return nil }
        defer { free(reply) }
        return reply.pointee.atom
    }

    package func takeSelectionData(_ property: X11Atom) -> X11PropertyValue? {
        let cookie = xcb_get_property(connection, 1, ownWindow, property, UInt32(XCB_ATOM_ANY.rawValue), 0, UInt32(XSelectionBridge.maximumBytes / 4))
        guard let reply = xcb_get_property_reply(connection, cookie, nil) else { return nil }
        defer { free(reply) }
        guard reply.pointee.format != 0 else { return nil }
        let count = Int(xcb_get_property_value_length(reply))
        let bytes = count > 0 ? Array(UnsafeRawBufferPointer(start: xcb_get_property_value(reply), count: min(count, XSelectionBridge.maximumBytes))) : []
        return X11PropertyValue(type: reply.pointee.type, format: reply.pointee.format, bytes: bytes, limit: XSelectionBridge.maximumBytes)
    }

    package func watchSelections() {
        let mask = XCB_XFIXES_SELECTION_EVENT_MASK_SET_SELECTION_OWNER.rawValue | XCB_XFIXES_SELECTION_EVENT_MASK_SELECTION_WINDOW_DESTROY.rawValue
            | XCB_XFIXES_SELECTION_EVENT_MASK_SELECTION_CLIENT_CLOSE.rawValue
        for selection in [atoms[.CLIPBOARD], atoms[.PRIMARY]] {
            xcb_xfixes_select_selection_input(connection, ownWindow, selection, mask)
        }
    }
}
