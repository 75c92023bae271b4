import TouchRouterCore

/// What a scene file or an input script may hold. A file past a limit is refused with an
/// error naming its line and column and the limit, so no file can make the reader crash,
/// recurse without bound or take more than about n log n steps. Each limit is far above
/// what a hand-written or recorded file needs.
public enum InputLimits {
    /// Bytes in one scene file or script (16 MiB).
    public static let fileBytes = 16 << 20
    /// Arrays and objects open at once in a scene file. A scene with surfaces nested as
    /// deep as `surfaceDepth` needs 72.
    public static let jsonDepth = 128
    /// Subsurfaces and popups nested below one toplevel, as `SurfaceTree` allows.
    public static let surfaceDepth = SurfaceTree.maximumDepth
    /// Outputs in one scene.
    public static let outputs = 16
    /// An output's width and height, in pixels: the hit-test index keeps a grid of cells
    /// over each output, so its area is memory and work.
    public static let outputDimension = 16_384
    /// The area of all outputs together, in pixels (one 16384x16384 output, or eight 8K ones).
    public static let outputPixels = 16_384 * 16_384
    /// Surfaces (toplevels, subsurfaces and popups) in one scene.
    public static let surfaces = 100_000
    /// Subsurfaces and popups below one toplevel, at any depth: the index flattens the whole
    /// toplevel again after a change inside it, so this bounds that work. As many as one
    /// client of the session may have surfaces.
    public static let surfacesPerToplevel = 4096
    /// Rectangles listed in one input region (a scene's `inputRegion`, a script's
    /// `scene region` line).
    public static let regionRectangles = 256
    /// Touches down and not yet up or cancelled at once in a script. Touch ids are seat
    /// slots; a touchscreen has tens.
    public static let liveTouches = 256
    /// The magnitude of an event's positions, deltas, scroll amounts, scale and rotation,
    /// so sums of them stay exact and finite.
    public static let eventNumber: Double = 1e9
    /// Script times, absolute or reached by adding relative times, in milliseconds
    /// (10^12 ms is about 31 years; nanoseconds stay far within Int64).
    public static let scriptMilliseconds: Double = 1e12
    /// Devices in one `libinput record` recording (libinput's seat has 32 touch slots in all).
    public static let recordingDevices = 32
    /// Kernel events (`[sec, usec, type, code, value]` lines) in one recording: about what a
    /// 16 MiB file of them holds.
    public static let recordingEvents = 1 << 20
    /// A recording frame's seconds (about 31 years, as `scriptMilliseconds`).
    public static let recordingSeconds: Int64 = 1_000_000_000
}

/// The text of an input file, checked before any parsing: its size against
/// `InputLimits.fileBytes` and its bytes as UTF-8, naming the line and column of the
/// first byte that is not.
public enum InputText {
    public static func decode(_ bytes: [UInt8], file: String, what: String = "input") throws(InputFileError) -> String {
        if bytes.count > InputLimits.fileBytes {
            let at = position(ofByte: InputLimits.fileBytes, in: bytes)
            throw InputFileError(
                SourceLocation(file: file, line: at.line, column: at.column),
                "the \(what) file is \(bytes.count) bytes, more than the limit of \(InputLimits.fileBytes) bytes (16 MiB); it goes past the limit here")
        }
        if let bad = firstInvalidUTF8(bytes) {
            let at = position(ofByte: bad, in: bytes)
            throw InputFileError(
                SourceLocation(file: file, line: at.line, column: at.column),
                "the \(what) file is not UTF-8 text: byte 0x\(String(bytes[bad], radix: 16, uppercase: true)) at byte offset \(bad) is not valid UTF-8")
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The offset of the first byte that does not belong to a valid UTF-8 sequence.
    static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
        var i = 0
        let n = bytes.count
        while i < n {
            let b = bytes[i]
            if b < 0x80 { i += 1; continue }
            let length: Int, low: UInt8, high: UInt8
            switch b {
            case 0xC2...0xDF: length = 2; low = 0x80; high = 0xBF
            case 0xE0: length = 3; low = 0xA0; high = 0xBF
            case 0xE1...0xEC, 0xEE...0xEF: length = 3; low = 0x80; high = 0xBF
            case 0xED: length = 3; low = 0x80; high = 0x9F
            case 0xF0: length = 4; low = 0x90; high = 0xBF
            case 0xF1...0xF3: length = 4; low = 0x80; high = 0xBF
            case 0xF4: length = 4; low = 0x80; high = 0x8F
            default: return i
            }
            // The first continuation byte has the narrowed range, the rest 0x80...0xBF.
            for k in 1..<length {
                guard i + k < n else { return i }
                let c = bytes[i + k]
                let (lo, hi) = k == 1 ? (low, high) : (UInt8(0x80), UInt8(0xBF))
                guard c >= lo, c <= hi else { return i }
            }
            i += length
        }
        return nil
    }

    /// Line and column (in Unicode scalars, from 1) of a byte offset.
    static func position(ofByte offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        var line = 1, column = 1
        for i in 0..<min(offset, bytes.count) {
            if bytes[i] == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if bytes[i] & 0xC0 != 0x80 {
                column += 1
            }
        }
        return (line, column)
    }
}

extension Scene {
    /// Reads a scene file's bytes: size and UTF-8 checked first (`InputText`), then parsed.
    public static func parse(bytes: [UInt8], file: String) throws(InputFileError) -> Scene {
        try parse(try InputText.decode(bytes, file: file, what: "scene"), file: file)
    }
}

extension Script {
    /// Reads a script's bytes: size and UTF-8 checked first (`InputText`), then parsed.
    public static func parse(bytes: [UInt8], file: String) throws(InputFileError) -> Script {
        try parse(try InputText.decode(bytes, file: file, what: "script"), file: file)
    }
}
