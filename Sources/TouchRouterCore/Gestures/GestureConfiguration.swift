/// Where touches are held from clients until every recognizer in their arena has failed
/// (UIKit's delaysTouchesBegan), for example a band along an output's edge.
public struct HoldZone: Sendable, Hashable {
    public enum Area: Sendable, Hashable {
        /// Bands of this width along these edges of the output.
        case edges(Set<ScreenEdge>, width: Double)
        /// A rectangle of the layout.
        case rect(Rect<GlobalSpace>)
        /// All of the output.
        case wholeOutput
    }

    /// The output's name; nil for every output.
    public var output: String?
    public var area: Area

    public init(output: String? = nil, area: Area) {
        self.output = output
        self.area = area
    }
}

/// The compositor's side of the responder chain: recognizers, hold-back zones and the
/// kiosk's finger rule. Durations are nanoseconds.
public struct GestureConfiguration: Sendable, Hashable {
    public var recognizers: [GestureSpec] = []
    public var holdZones: [HoldZone] = []
    /// A held touch is released to clients when no recognizer has begun this long after its down.
    public var holdLimit: Int64 = 300_000_000
    /// Sequences with this many fingers down are never forwarded to clients; every touch
    /// is held until the sequence can no longer reach it. nil: no such rule.
    public var fingerLimit: Int?
    /// The longest stretch of an output's edge, in layout pixels, that a client may
    /// exclude from edge gestures (Android caps it at 200 dp per edge).
    public var maximumDeferralLength = 200.0

    public init() {}

    public static let maximumRecognizers = 64
}

public enum GestureConfigurationError: Error, Equatable, CustomStringConvertible {
    case duplicateName(String)
    case unknownName(String, referencedBy: String)
    /// Each requires the next to fail, and the last the first.
    case failureCycle([String])
    case invalidParameter(recognizer: String, parameter: String, problem: String)
    case invalidFingerLimit(Int)
    case invalidHoldLimit(Int64)
    case tooManyRecognizers(Int)

    public var description: String {
        switch self {
        case .duplicateName(let name): "two recognizers are named \"\(name)\""
        case .unknownName(let name, let owner): "recognizer \"\(owner)\" names \"\(name)\", which is not a recognizer"
        case .failureCycle(let names): "recognizers require each other to fail in a cycle: \((names + [names[0]]).joined(separator: " → "))"
        case .invalidParameter(let recognizer, let parameter, let problem): "recognizer \"\(recognizer)\": \(parameter) \(problem)"
        case .invalidFingerLimit(let n): "the finger limit must be from 2 to 10, not \(n)"
        case .invalidHoldLimit(let ns): "the hold limit must be from 0 to 10 s, not \(Double(ns) / 1_000_000) ms"
        case .tooManyRecognizers(let n): "\(n) recognizers, more than the \(GestureConfiguration.maximumRecognizers) allowed"
        }
    }
}

/// A recognizer's state change that bindings and subscribers hear: began, changed, ended,
/// cancelled, recognized. Failures are only traced.
public struct GestureEvent: Sendable, Equatable {
    public var name: String
    public var state: GestureState
    public var values: GestureValues
    public var time: RouterTime

    public init(name: String, state: GestureState, values: GestureValues, time: RouterTime) {
        self.name = name
        self.state = state
        self.values = values
        self.time = time
    }
}

/// Hears what the winning recognizers do: the session runs the bound actions.
public protocol GestureObserver: AnyObject {
    func gesture(_ event: GestureEvent)
}
