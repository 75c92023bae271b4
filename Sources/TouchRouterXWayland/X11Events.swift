/// An X11 window id, as the X server names windows.
package typealias X11Window = UInt32
/// An interned X11 atom.
package typealias X11Atom = UInt32

/// The events the window manager selects, decoded from the X server's 32-byte wire form
/// (X11 protocol, "Events"). Decoding is pure so that it can be fuzzed: every field is read
/// within the 32 bytes, and an event the manager does not handle decodes as `.other`.
package enum X11Event: Equatable {
    case createNotify(window: X11Window, parent: X11Window, x: Int16, y: Int16, width: UInt16, height: UInt16, overrideRedirect: Bool)
    case destroyNotify(window: X11Window)
    case unmapNotify(window: X11Window)
    case mapNotify(window: X11Window, overrideRedirect: Bool)
    case mapRequest(window: X11Window, parent: X11Window)
    case reparentNotify(window: X11Window, parent: X11Window, x: Int16, y: Int16, overrideRedirect: Bool)
    case configureNotify(window: X11Window, x: Int16, y: Int16, width: UInt16, height: UInt16, overrideRedirect: Bool)
    case configureRequest(window: X11Window, x: Int16, y: Int16, width: UInt16, height: UInt16, mask: UInt16, stackMode: UInt8)
    case propertyNotify(window: X11Window, atom: X11Atom, deleted: Bool)
    case clientMessage(window: X11Window, type: X11Atom, format: UInt8, data: [UInt32])
    case focusIn(window: X11Window, mode: UInt8, detail: UInt8)
    case selectionRequest(time: UInt32, owner: X11Window, requestor: X11Window, selection: X11Atom, target: X11Atom, property: X11Atom)
    case selectionNotify(time: UInt32, requestor: X11Window, selection: X11Atom, target: X11Atom, property: X11Atom)
    case selectionClear(time: UInt32, owner: X11Window, selection: X11Atom)
    /// XFIXES' SelectionNotify: `selection` has a new owner (`owner` 0: none).
    case selectionOwnerChanged(owner: X11Window, selection: X11Atom, time: UInt32)
    /// An error the X server sent for one of the manager's requests: its code, the request's
    /// major opcode and the resource it named.
    case error(code: UInt8, majorOpcode: UInt8, resource: UInt32)
    case other(code: UInt8)

    /// ConfigureRequest's value-mask bits (X11 protocol, ConfigureWindow).
    package static let configureX: UInt16 = 1, configureY: UInt16 = 2, configureWidth: UInt16 = 4, configureHeight: UInt16 = 8
    package static let configureSibling: UInt16 = 32, configureStackMode: UInt16 = 64

    /// Decodes one event; `xfixesFirstEvent` is where XFIXES' events begin on this connection (0: not used).
    package init<Bytes: RandomAccessCollection>(wire bytes: Bytes, xfixesFirstEvent: UInt8 = 0) where Bytes.Element == UInt8, Bytes.Index == Int {
        guard bytes.count >= 32 else {
            self = .other(code: 0xff)
            return
        }
        let base = bytes.startIndex
        func u8(_ at: Int) -> UInt8 { bytes[base + at] }
        func u16(_ at: Int) -> UInt16 { UInt16(u8(at)) | UInt16(u8(at + 1)) << 8 }
        func i16(_ at: Int) -> Int16 { Int16(bitPattern: u16(at)) }
        func u32(_ at: Int) -> UInt32 { UInt32(u16(at)) | UInt32(u16(at + 2)) << 16 }
        let code = u8(0) & 0x7f
        switch code {
        case 0: self = .error(code: u8(1), majorOpcode: u8(10), resource: u32(4))
        case 9: self = .focusIn(window: u32(4), mode: u8(8), detail: u8(1))
        case 16: self = .createNotify(window: u32(8), parent: u32(4), x: i16(12), y: i16(14), width: u16(16), height: u16(18), overrideRedirect: u8(22) != 0)
        case 17: self = .destroyNotify(window: u32(8))
        case 18: self = .unmapNotify(window: u32(8))
        case 19: self = .mapNotify(window: u32(8), overrideRedirect: u8(12) != 0)
        case 20: self = .mapRequest(window: u32(8), parent: u32(4))
        case 21: self = .reparentNotify(window: u32(8), parent: u32(12), x: i16(16), y: i16(18), overrideRedirect: u8(20) != 0)
        case 22: self = .configureNotify(window: u32(8), x: i16(16), y: i16(18), width: u16(20), height: u16(22), overrideRedirect: u8(26) != 0)
        case 23: self = .configureRequest(window: u32(8), x: i16(16), y: i16(18), width: u16(20), height: u16(22), mask: u16(26), stackMode: u8(1))
        case 28: self = .propertyNotify(window: u32(4), atom: u32(8), deleted: u8(16) != 0)
        case 29: self = .selectionClear(time: u32(4), owner: u32(8), selection: u32(12))
        case 30: self = .selectionRequest(time: u32(4), owner: u32(8), requestor: u32(12), selection: u32(16), target: u32(20), property: u32(24))
        case 31: self = .selectionNotify(time: u32(4), requestor: u32(8), selection: u32(12), target: u32(16), property: u32(20))
        case 33: self = .clientMessage(window: u32(4), type: u32(8), format: u8(1), data: (0..<5).map { u32(12 + 4 * $0) })
        case xfixesFirstEvent where xfixesFirstEvent != 0:
            self = .selectionOwnerChanged(owner: u32(8), selection: u32(12), time: u32(16))
        default: self = .other(code: code)
        }
    }
}

/// A property's value as GetProperty returned it, read only through accessors that check
/// its format and length: an X11 client sets its own windows' properties to anything.
package struct X11PropertyValue: Equatable {
    package var type: X11Atom
    /// 8, 16 or 32 bits an item; 0 when the property does not exist.
    package var format: UInt8
    package var bytes: [UInt8]

    /// The most the manager reads of one property (GetProperty's long-length is this / 4):
    /// titles and class names past it are cut, atom lists past it ignored beyond it.
    package static let maximumBytes = 4096

    /// `limit`: the most bytes kept (`maximumBytes` for a window's property; selection data
    /// is read up to `XSelectionBridge.maximumBytes`).
    package init(type: X11Atom, format: UInt8, bytes: [UInt8], limit: Int = maximumBytes) {
        self.type = type
        self.format = format
        self.bytes = Array(bytes.prefix(limit))
    }

    /// The 32-bit items, or nil when the property is not of format 32.
    package var words: [UInt32]? {
        guard format == 32 else { return nil }
        return stride(from: 0, to: bytes.count - bytes.count % 4, by: 4).map { (at: Int) -> UInt32 in
            let low = UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8
            let high = UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
            return low | high
        }
    }

    /// Text of format 8: UTF-8 for UTF8_STRING (invalid sequences replaced), Latin-1 for
    /// STRING and anything else; cut at the first NUL.
    package func text(utf8: Bool) -> String? {
        guard format == 8 else { return nil }
        let visible = bytes.prefix { $0 != 0 }
        if utf8 { return String(decoding: visible, as: UTF8.self) }
        return String(String.UnicodeScalarView(visible.map { Unicode.Scalar($0) }))
    }

    /// WM_CLASS: "instance\0class\0" (ICCCM 4.1.2.5); a missing class is the instance.
    package var windowClass: (instance: String, class: String)? {
        guard format == 8, !bytes.isEmpty else { return nil }
        let parts = bytes.split(separator: 0, maxSplits: 2, omittingEmptySubsequences: false)
        let latin1 = { (part: ArraySlice<UInt8>) in String(String.UnicodeScalarView(part.map { Unicode.Scalar($0) })) }
        let instance = latin1(parts[0])
        let windowClass = parts.count > 1 && !parts[1].isEmpty ? latin1(parts[1]) : instance
        return (instance, windowClass)
    }

    /// WM_HINTS' input field (ICCCM 4.1.2.4), when its InputHint flag is set.
    package var acceptsInput: Bool? {
        guard let words, words.count >= 2, words[0] & 1 != 0 else { return nil }
        return words[1] != 0
    }

    /// WM_NORMAL_HINTS' minimum and maximum sizes (ICCCM 4.1.2.3), when set.
    package var sizeHints: (minimum: (Int, Int)?, maximum: (Int, Int)?) {
        guard let words, words.count >= 9 else { return (nil, nil) }
        let flags = words[0]
        let size = { (w: UInt32, h: UInt32) -> (Int, Int)? in
            let width = Int(Int32(bitPattern: w)), height = Int(Int32(bitPattern: h))
            return width > 0 && height > 0 ? (width, height) : nil
        }
        return (flags & 16 != 0 ? size(words[5], words[6]) : nil, flags & 32 != 0 ? size(words[7], words[8]) : nil)
    }
}
