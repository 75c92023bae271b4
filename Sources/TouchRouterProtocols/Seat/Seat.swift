import CWaylandShim
import TouchRouterConfig
import TouchRouterCore
#if canImport(Glibc)
import Glibc
#endif

// wl_seat, wl_touch, wl_pointer, wl_keyboard, and the keymap.

package enum SeatGlobal {
    package static let version: Int32 = 8

    package nonisolated(unsafe) static let table = implementation(wl_seat_interface(
        get_pointer: { client, resource, id in
            WaylandObject.of(resource, as: RoomGlobal<any SeatHandler>.self).handler.seatDeviceRequested(.pointer, client: client, seat: resource, id: id)
        },
        get_keyboard: { client, resource, id in
            WaylandObject.of(resource, as: RoomGlobal<any SeatHandler>.self).handler.seatDeviceRequested(.keyboard, client: client, seat: resource, id: id)
        },
        get_touch: { client, resource, id in
            WaylandObject.of(resource, as: RoomGlobal<any SeatHandler>.self).handler.seatDeviceRequested(.touch, client: client, seat: resource, id: id)
        },
        release: destroyRequest))
}

/// What the seat's objects may ask of the server, whose delivery and send lists hold the
/// devices (SeatDevices.swift, Delivery.swift, TouchSendLists.swift, PointerConstraints.swift).
package protocol SeatHandler: AnyObject {
    var seatState: SeatState { get }
    /// wl_seat.get_pointer, get_keyboard or get_touch: the device is made, counted against
    /// its client's limit, and given its keymap.
    func seatDeviceRequested(_ kind: SeatDevice.Kind, client: OpaquePointer?, seat: OpaquePointer?, id: UInt32)
    /// The pointer constraint in force is chosen again (a new one may take the pointer).
    func updatePointerConstraint()
    /// A device's timestamps objects changed: the touch send lists are made again.
    func seatDevicesChanged()
    func seatDeviceDestroyed(_ device: SeatDevice)
    /// A relative pointer went: it leaves its client's list.
    func relativePointerDestroyed(_ relative: RelativePointerObject)
    /// A pointer constraint went: it lets the pointer go, and another may take it.
    func pointerConstraintDestroyed(_ constraint: PointerConstraintObject)
    /// An active constraint's region or hint changed at its surface's commit.
    func activePointerConstraintChanged(_ constraint: PointerConstraintObject)
    /// Adds `delta` to the client's count of region rectangles; its new count, nil for a
    /// client already gone.
    func countRegionRectangles(of client: OpaquePointer, adding delta: Int) -> Int?
}

/// One wl_touch, wl_pointer or wl_keyboard of a client.
package final class SeatDevice: WaylandObject {
    private unowned let handler: any SeatHandler
    package enum Kind { case touch, pointer, keyboard }
    package let kind: Kind
    package let clientID: ClientID
    /// zwp_input_timestamps_v1 objects made for this resource (InputTimestamps.swift), held
    /// until either side's resource is destroyed, which unlinks both (libwayland destroys a
    /// dying client's objects in id order, either one first). Not weak: a weak reference
    /// costs a side-table load on every routed event, and gives its object one. Behind one
    /// pointer (`UncheckedState`): as a stored property of the class, every routed event paid
    /// a dynamic exclusivity check to look at it.
    package var timestamps: [InputTimestampsObject] {
        _read { yield timestampObjects.pointee }
        _modify {
            // The touch send lists hold these objects' resources (TouchSendLists.swift).
            handler.seatDevicesChanged()
            yield &timestampObjects.pointee
        }
    }
    /// Read directly by the server's delivery (Delivery.swift), for every routed event.
    package let timestampObjects = UncheckedState<[InputTimestampsObject]>([])
    /// The keymap this wl_keyboard was last sent (weak: a keymap replaced and freed is not
    /// mistaken for a later one at the same address).
    package weak var sentKeymap: Keymap?

    package init(resource: OpaquePointer, madeBy manager: WaylandObject, handler: any SeatHandler, kind: Kind, clientID: ClientID) {
        self.handler = handler
        self.kind = kind
        self.clientID = clientID
        super.init(resource: resource, madeBy: manager)
    }

    deinit {
        timestampObjects.release()
    }

    package override func resourceDestroyed() {
        for object in timestamps { object.device = nil }
        timestamps.removeAll()
        handler.seatDeviceDestroyed(self)
    }

    package nonisolated(unsafe) static let touchTable = implementation(wl_touch_interface(release: destroyRequest))
    package nonisolated(unsafe) static let keyboardTable = implementation(wl_keyboard_interface(release: destroyRequest))
    package nonisolated(unsafe) static let pointerTable = implementation(wl_pointer_interface(
        set_cursor: { _, _, _, _, _, _ in },
        release: destroyRequest))
}

/// An xkbcommon keymap and the state that tracks modifiers. The layout comes from
/// XKB_DEFAULT_* (xkbcommon reads them when a name is left empty) or from the names given.
/// The LEDs of a keyboard, as the keymap's state lights them.
public struct KeyboardLEDs: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let numLock = KeyboardLEDs(rawValue: 1 << 0)
    public static let capsLock = KeyboardLEDs(rawValue: 1 << 1)
    public static let scrollLock = KeyboardLEDs(rawValue: 1 << 2)
}

package final class Keymap {
    private let context: OpaquePointer
    private let keymap: OpaquePointer
    private let state: OpaquePointer
    package let text: String

    package init(rules: String? = nil, model: String? = nil, layout: String? = nil, variant: String? = nil, options: String? = nil) throws(WaylandError) {
        guard let context = xkb_context_new(XKB_CONTEXT_NO_FLAGS) else { throw WaylandError("xkb_context_new failed") }
        self.context = context
        let made: OpaquePointer? = withOptionalCString(rules) { rules in
            withOptionalCString(model) { model in
                withOptionalCString(layout) { layout in
                    withOptionalCString(variant) { variant in
                        withOptionalCString(options) { options in
                            var names = xkb_rule_names(rules: rules, model: model, layout: layout, variant: variant, options: options)
                            return xkb_keymap_new_from_names(context, &names, XKB_KEYMAP_COMPILE_NO_FLAGS)
                        }
                    }
                }
            }
        }
        guard let made else {
            xkb_context_unref(context)
            throw WaylandError("xkbcommon could not compile a keymap for layout '\(layout ?? getenv("XKB_DEFAULT_LAYOUT").map { String(cString: $0) } ?? "")' (check XKB_DEFAULT_* and that xkb-data is installed)")
        }
        keymap = made
        state = xkb_state_new(made)
        guard let string = xkb_keymap_get_as_string(made, XKB_KEYMAP_FORMAT_TEXT_V1) else { throw WaylandError("xkb_keymap_get_as_string failed") }
        text = String(cString: string)
        free(string)
    }

    /// A keymap a client sent (a virtual keyboard's), as text; nil when xkbcommon cannot
    /// compile it. Its complaints are not logged: a hostile client's garbage is not news.
    package init?(clientText bytes: UnsafeRawBufferPointer) {
        guard let context = xkb_context_new(xkb_context_flags(rawValue: XKB_CONTEXT_NO_DEFAULT_INCLUDES.rawValue | XKB_CONTEXT_NO_ENVIRONMENT_NAMES.rawValue)) else { return nil }
        xkb_context_set_log_level(context, XKB_LOG_LEVEL_CRITICAL)
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self),
              let made = xkb_keymap_new_from_buffer(context, base, bytes.count, XKB_KEYMAP_FORMAT_TEXT_V1, XKB_KEYMAP_COMPILE_NO_FLAGS) else {
            xkb_context_unref(context)
            return nil
        }
        guard let string = xkb_keymap_get_as_string(made, XKB_KEYMAP_FORMAT_TEXT_V1) else {
            xkb_keymap_unref(made)
            xkb_context_unref(context)
            return nil
        }
        self.context = context
        keymap = made
        state = xkb_state_new(made)
        text = String(cString: string)
        free(string)
    }

    /// Sets the modifiers as a client serialized them (a virtual keyboard's modifiers
    /// request); xkbcommon keeps only the bits its keymap has. The modifiers, if they changed.
    package func setModifiers(depressed: UInt32, latched: UInt32, locked: UInt32, group: UInt32) -> KeyboardModifiers? {
        let changed = xkb_state_update_mask(state, depressed, latched, locked, 0, 0, group)
        return changed.rawValue == 0 ? nil : modifiers
    }

    deinit {
        xkb_state_unref(state)
        xkb_keymap_unref(keymap)
        xkb_context_unref(context)
    }

    /// A sealed memfd with the keymap and its terminating NUL, for wl_keyboard.keymap.
    package func makeFile() throws(WaylandError) -> (fd: Int32, size: UInt32) {
        let bytes = Array(text.utf8CString)
        let fd = bytes.withUnsafeBytes { tr_sealed_memfd("touch-router-keymap", $0.baseAddress, $0.count) }
        guard fd >= 0 else { throw WaylandError.errno("cannot make the keymap file") }
        return (fd, UInt32(bytes.count))
    }

    /// Feeds an evdev key to the state; returns the modifiers if they changed.
    package func update(key: UInt32, pressed: Bool) -> KeyboardModifiers? {
        let changed = xkb_state_update_key(state, key &+ 8, pressed ? XKB_KEY_DOWN : XKB_KEY_UP)
        return changed.rawValue == 0 ? nil : modifiers
    }

    /// The key's symbol at the first level of its current layout, lower-cased: what a
    /// chord names (Ctrl+Shift+Q is q with Ctrl and Shift held, not Q).
    package func firstLevelKeysym(evdev key: UInt32) -> UInt32 {
        let code = key &+ 8
        let layout = xkb_state_key_get_layout(state, code)
        var symbols: UnsafePointer<xkb_keysym_t>?
        guard layout != XKB_LAYOUT_INVALID, xkb_keymap_key_get_syms_by_level(keymap, code, layout, 0, &symbols) > 0, let symbols else { return 0 }
        return xkb_keysym_to_lower(symbols[0])
    }

    /// The modifiers held (depressed or latched; locks do not count) that a chord can name.
    package var chordModifiers: ChordModifiers {
        var held: ChordModifiers = []
        let components = xkb_state_component(rawValue: XKB_STATE_MODS_DEPRESSED.rawValue | XKB_STATE_MODS_LATCHED.rawValue)
        for (modifier, name) in ChordModifiers.xkbNames where xkb_state_mod_name_is_active(state, name, components) > 0 {
            held.insert(modifier)
        }
        return held
    }

    /// The keyboard LEDs the state lights: Num Lock, Caps Lock, Scroll Lock.
    package var leds: KeyboardLEDs {
        var lit: KeyboardLEDs = []
        for (led, name) in [(KeyboardLEDs.numLock, "Num Lock"), (.capsLock, "Caps Lock"), (.scrollLock, "Scroll Lock")]
        where xkb_state_led_name_is_active(state, name) > 0 {
            lit.insert(led)
        }
        return lit
    }

    package var modifiers: KeyboardModifiers {
        KeyboardModifiers(
            depressed: xkb_state_serialize_mods(state, XKB_STATE_MODS_DEPRESSED),
            latched: xkb_state_serialize_mods(state, XKB_STATE_MODS_LATCHED),
            locked: xkb_state_serialize_mods(state, XKB_STATE_MODS_LOCKED),
            group: xkb_state_serialize_layout(state, XKB_STATE_LAYOUT_EFFECTIVE))
    }
}

private func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let string else { return body(nil) }
    return string.withCString { body($0) }
}
