internal import CXKBCommon

/// The modifiers a chord names. The session matches them against xkbcommon's depressed
/// and latched modifiers (not locked ones: Caps Lock or Num Lock never stop a chord).
public struct ChordModifiers: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let shift = ChordModifiers(rawValue: 1 << 0)
    public static let control = ChordModifiers(rawValue: 1 << 1)
    public static let alt = ChordModifiers(rawValue: 1 << 2)
    public static let logo = ChordModifiers(rawValue: 1 << 3)

    /// xkbcommon's names of the real modifiers, in the order chords are printed.
    public static let xkbNames: [(ChordModifiers, String)] = [(.control, "Control"), (.alt, "Mod1"), (.shift, "Shift"), (.logo, "Mod4")]

    static let byWord: [String: ChordModifiers] = [
        "ctrl": .control, "control": .control, "alt": .alt, "mod1": .alt, "shift": .shift,
        "super": .logo, "logo": .logo, "mod4": .logo,
    ]
}

/// A key chord such as `Ctrl+Alt+BackSpace`: modifiers and one key, named by its XKB
/// keysym as sway's bindsym names it. The keysym is kept lower-case, since the session
/// compares it with the key's symbol at the keymap's first level (where letters are).
public struct KeyChord: Hashable, Sendable, CustomStringConvertible {
    public var modifiers: ChordModifiers
    public var keysym: UInt32
    /// As written, with the modifiers spelled one way: `Ctrl+Alt+BackSpace`.
    public var text: String

    public init(modifiers: ChordModifiers, keysym: UInt32, text: String) {
        self.modifiers = modifiers
        self.keysym = keysym
        self.text = text
    }

    public var description: String { text }

    /// The same chord however it was spelled.
    public static func == (a: KeyChord, b: KeyChord) -> Bool { a.modifiers == b.modifiers && a.keysym == b.keysym }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(modifiers)
        hasher.combine(keysym)
    }

    public enum ParseError: Error, Equatable {
        case empty
        case unknownModifier(String)
        case unknownKey(String)
        case noKey
    }

    /// `Mod+Mod+Key`, modifiers in any case (Ctrl or Control, Alt or Mod1, Shift, Super,
    /// Logo or Mod4), the key by keysym name (xkbcommon's, exact first, then ignoring case).
    public static func parse(_ text: String) throws(ParseError) -> KeyChord {
        let words = text.split(separator: "+", omittingEmptySubsequences: false).map { String($0).trimmed }
        guard !text.trimmed.isEmpty else { throw .empty }
        guard let keyName = words.last, !keyName.isEmpty else { throw .noKey }
        var modifiers: ChordModifiers = []
        for word in words.dropLast() {
            guard let modifier = ChordModifiers.byWord[word.lowercased()] else { throw .unknownModifier(word) }
            modifiers.insert(modifier)
        }
        // A lone modifier word as the key ("Ctrl+Alt") means the key was left out.
        if ChordModifiers.byWord[keyName.lowercased()] != nil, words.count > 1 { throw .noKey }
        guard let keysym = Self.keysym(named: keyName) else { throw .unknownKey(keyName) }
        let printed = ChordModifiers.xkbNames.compactMap { modifiers.contains($0.0) ? Self.printedName($0.0) : nil } + [keyName]
        return KeyChord(modifiers: modifiers, keysym: keysym, text: printed.joined(separator: "+"))
    }

    private static func printedName(_ modifier: ChordModifiers) -> String {
        switch modifier {
        case .control: "Ctrl"
        case .alt: "Alt"
        case .shift: "Shift"
        default: "Super"
        }
    }

    /// xkbcommon's keysym for a name, lower-cased; nil for a name it does not know.
    public static func keysym(named name: String) -> UInt32? {
        guard !name.isEmpty, !name.contains("\0") else { return nil }
        var keysym = xkb_keysym_from_name(name, XKB_KEYSYM_NO_FLAGS)
        if keysym == 0 { keysym = xkb_keysym_from_name(name, XKB_KEYSYM_CASE_INSENSITIVE) }
        return keysym == 0 ? nil : xkb_keysym_to_lower(keysym)
    }
}

extension String {
    var trimmed: String {
        var scalars = Substring(self).unicodeScalars
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}
