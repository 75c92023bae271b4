/// How an output's content is turned for its panel, as `wl_output.transform` numbers it:
/// rotations are counter-clockwise (in the y-down coordinates of buffers, so that with 90
/// the content's top lies along the panel's right edge, as Weston and wlroots draw it), and
/// the flipped ones mirror the content around the vertical axis, then rotate it. A
/// touchscreen glued to the panel reports positions in the panel's own (the mode's)
/// orientation; the layout sees the output before the transform, so `apply` undoes it:
/// it un-rotates, then mirrors.
public enum OutputTransform: Int32, CaseIterable, Sendable, CustomStringConvertible {
    case normal = 0
    case rotated90 = 1
    case rotated180 = 2
    case rotated270 = 3
    case flipped = 4
    case flipped90 = 5
    case flipped180 = 6
    case flipped270 = 7

    /// The name `--output …,transform=` and the configuration use.
    public var name: String {
        switch self {
        case .normal: "normal"
        case .rotated90: "90"
        case .rotated180: "180"
        case .rotated270: "270"
        case .flipped: "flipped"
        case .flipped90: "flipped-90"
        case .flipped180: "flipped-180"
        case .flipped270: "flipped-270"
        }
    }

    public init?(name: String) {
        guard let match = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = match
    }

    public static var names: [String] { allCases.map(\.name) }

    public var description: String { name }

    /// 90 and 270, flipped or not, turn the output on its side.
    public var swapsAxes: Bool { rawValue & 1 == 1 }

    /// The output's size in the layout for a mode of `size`: width and height swap for
    /// 90 and 270, as compositors lay rotated outputs out.
    public func layoutSize(of size: Size) -> Size {
        swapsAxes ? Size(width: size.height, height: size.width) : size
    }

    /// A normalized position on the panel (0…1 in the mode's orientation) as a normalized
    /// position in the output's layout rectangle. Exact for every finite input; a
    /// bijection of the unit square onto itself.
    @inlinable
    public func apply(_ u: Double, _ v: Double) -> (x: Double, y: Double) {
        switch self {
        case .normal: (u, v)
        case .rotated90: (v, 1 - u)
        case .rotated180: (1 - u, 1 - v)
        case .rotated270: (1 - v, u)
        case .flipped: (1 - u, v)
        case .flipped90: (1 - v, 1 - u)
        case .flipped180: (u, 1 - v)
        case .flipped270: (v, u)
        }
    }

    /// The inverse of `apply`: a normalized layout position back on the panel.
    @inlinable
    public func unapply(_ x: Double, _ y: Double) -> (u: Double, v: Double) {
        switch self {
        case .normal: (x, y)
        case .rotated90: (1 - y, x)
        case .rotated180: (1 - x, 1 - y)
        case .rotated270: (y, 1 - x)
        case .flipped: (1 - x, y)
        case .flipped90: (1 - y, 1 - x)
        case .flipped180: (x, 1 - y)
        case .flipped270: (y, x)
        }
    }
}

/// libinput's calibration matrix, the first two rows of a 3×3 affine matrix applied to a
/// normalized position: `u' = a·u + b·v + c`, `v' = d·u + e·v + f`
/// (libinput_device_config_calibration_set_matrix, udev's LIBINPUT_CALIBRATION_MATRIX).
public struct CalibrationMatrix: Hashable, Sendable, CustomStringConvertible {
    public var values: (a: Double, b: Double, c: Double, d: Double, e: Double, f: Double)

    public init(_ a: Double, _ b: Double, _ c: Double, _ d: Double, _ e: Double, _ f: Double) {
        values = (a, b, c, d, e, f)
    }

    /// Six numbers in libinput's order; nil for any other count.
    public init?(_ array: [Double]) {
        guard array.count == 6 else { return nil }
        self.init(array[0], array[1], array[2], array[3], array[4], array[5])
    }

    public static let identity = CalibrationMatrix(1, 0, 0, 0, 1, 0)

    public var array: [Double] { [values.a, values.b, values.c, values.d, values.e, values.f] }
    public var isIdentity: Bool { self == .identity }

    @inlinable
    public func apply(_ u: Double, _ v: Double) -> (u: Double, v: Double) {
        (values.a * u + values.b * v + values.c, values.d * u + values.e * v + values.f)
    }

    /// The matrix that undoes this one; nil when it is singular (it folds the plane onto a line).
    public var inverse: CalibrationMatrix? {
        let (a, b, c, d, e, f) = values
        let determinant = a * e - b * d
        guard determinant.isFinite, determinant != 0 else { return nil }
        let ia = e / determinant, ib = -b / determinant, id = -d / determinant, ie = a / determinant
        return CalibrationMatrix(ia, ib, -(ia * c + ib * f), id, ie, -(id * c + ie * f))
    }

    public var description: String { "[" + array.map { "\($0)" }.joined(separator: ", ") + "]" }

    public static func == (l: CalibrationMatrix, r: CalibrationMatrix) -> Bool { l.array == r.array }
    public func hash(into hasher: inout Hasher) { hasher.combine(array) }
}

/// Where one touchscreen's positions go: through its calibration, then its output's
/// transform, onto a rectangle of the layout (an output's, or a configured region).
///
/// Positions outside the unit square after calibration (a miscalibrated panel, a finger on
/// the bezel) are clamped to its edge, so a touch never leaves the rectangle; NaN counts as
/// 0. The far edges (1) land on the rectangle's last representable coordinate below
/// `maxX`/`maxY`, inside the half-open rectangle, so that they hit the last pixel.
public struct TouchMapping: Hashable, Sendable {
    public var area: Rect<GlobalSpace>
    public var transform: OutputTransform
    public var calibration: CalibrationMatrix

    public init(area: Rect<GlobalSpace>, transform: OutputTransform = .normal, calibration: CalibrationMatrix = .identity) {
        self.area = area
        self.transform = transform
        self.calibration = calibration
    }

    /// A normalized device position (libinput's transformed coordinates with width and
    /// height 1) as a layout point. Never traps.
    public func map(_ u: Double, _ v: Double) -> Point<GlobalSpace> {
        let calibrated = calibration.apply(u, v)
        let (x, y) = transform.apply(Self.unit(calibrated.u), Self.unit(calibrated.v))
        return Point(Self.place(x, area.x, area.width), Self.place(y, area.y, area.height))
    }

    /// The normalized device position that `map` takes to `point` (within the rectangle);
    /// nil when the calibration is singular.
    public func devicePosition(of point: Point<GlobalSpace>) -> (u: Double, v: Double)? {
        guard let inverse = calibration.inverse else { return nil }
        let x = area.width > 0 ? (point.x - Double(area.x)) / Double(area.width) : 0
        let y = area.height > 0 ? (point.y - Double(area.y)) / Double(area.height) : 0
        let (u, v) = transform.unapply(x, y)
        return inverse.apply(u, v)
    }

    static func unit(_ value: Double) -> Double {
        value.isNaN ? 0 : Swift.min(Swift.max(value, 0), 1)
    }

    /// `fraction` (0…1) of `length` from `origin`, kept below the far edge.
    static func place(_ fraction: Double, _ origin: Int, _ length: Int) -> Double {
        let start = Double(origin), extent = Double(Swift.max(length, 0))
        let position = start + fraction * extent
        guard extent > 0 else { return start }
        return Swift.min(position, (start + extent).nextDown)
    }
}

/// A display mode as people write it: `WxH` or `WxH@Hz`, as `--output`, `msg output` and
/// `[[output]] mode` take it.
public struct ModeText: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// nil when the text gave none.
    public var refreshMilliHertz: Int?

    /// 1 to 16384 pixels each way, 1 to 1000 Hz; nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        let size = parts[0].split(separator: "x", omittingEmptySubsequences: false)
        guard size.count == 2, let width = Int(size[0]), let height = Int(size[1]), (1...16384).contains(width), (1...16384).contains(height) else { return nil }
        self.width = width
        self.height = height
        if parts.count == 2 {
            guard let hertz = Double(parts[1]), hertz >= 1, hertz <= 1000 else { return nil }
            refreshMilliHertz = Int((hertz * 1000).rounded())
        }
    }

    public static let expected = "WxH or WxH@Hz (1 to 16384 pixels, 1 to 1000 Hz), such as 1280x800 or 1920x1080@60"
}
