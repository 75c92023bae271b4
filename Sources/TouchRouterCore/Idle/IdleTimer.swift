/// How long a seat may go without input before its outputs dim, then go dark. Either may
/// be off; dimming after blanking is never reached, so it is off then too.
public struct IdleConfiguration: Sendable, Equatable {
    /// Nanoseconds without input before the outputs dim; nil: never.
    public var dimAfter: Int64?
    /// Nanoseconds without input before the outputs go dark; nil: never.
    public var blankAfter: Int64?

    public init(dimAfter: Int64? = nil, blankAfter: Int64? = nil) {
        self.dimAfter = dimAfter
        self.blankAfter = blankAfter
    }

    public static let never = IdleConfiguration()
}

/// Where a seat is on its way from input to a dark screen.
public enum IdlePhase: String, Sendable, Comparable {
    case active, dimmed, blanked

    public static func < (a: IdlePhase, b: IdlePhase) -> Bool { a.order < b.order }
    private var order: Int {
        switch self {
        case .active: 0
        case .dimmed: 1
        case .blanked: 2
        }
    }
}

/// A seat's idle timer: a model with the time passed in, so that tests and replays decide
/// when "now" is. Input starts it again; an inhibitor (a shown surface's idle inhibitor)
/// holds it where it is, and the time without input counts again from the moment the last
/// inhibitor went, as a video ending starts the wait for the dark screen then, not at the
/// last touch before it.
public struct IdleTimer: Sendable {
    public var configuration: IdleConfiguration
    public private(set) var phase = IdlePhase.active
    /// The last input, or the end of the last inhibition if later.
    public private(set) var since: RouterTime
    public private(set) var lastInput: RouterTime?
    public private(set) var inhibited = false

    public init(configuration: IdleConfiguration, start: RouterTime) {
        self.configuration = configuration
        since = start
    }

    /// Input on the seat: the phase goes back to active; the old one is returned when it
    /// changed. Lighting a dark output is the router's (`Router.darkenOutputs`), which
    /// swallows the waking input; this only restarts the count.
    public mutating func input(at time: RouterTime) -> IdlePhase? {
        lastInput = time
        since = max(since, time)
        return move(to: .active)
    }

    /// Whether an inhibitor holds the timer; its end starts the count again.
    public mutating func setInhibited(_ inhibited: Bool, at time: RouterTime) -> IdlePhase? {
        guard inhibited != self.inhibited else { return nil }
        self.inhibited = inhibited
        if inhibited {
            // A screen already dimmed or dark stays so until input: an inhibitor keeps a
            // screen on, it does not turn one on.
            return nil
        }
        since = max(since, time)
        return nil
    }

    /// The phase `time` is in, moved to; the old phase is returned when it changed.
    public mutating func tick(at time: RouterTime) -> IdlePhase? {
        guard !inhibited else { return nil }
        let idle = time.nanoseconds &- since.nanoseconds
        var due = IdlePhase.active
        if let dim = configuration.dimAfter, idle >= dim { due = .dimmed }
        if let blank = configuration.blankAfter, idle >= blank { due = .blanked }
        // Only ever deeper without input: a configuration changed to later times leaves a
        // dark screen dark until it is touched.
        guard due > phase else { return nil }
        return move(to: due)
    }

    /// When `tick` may next change the phase, or nil when it will not without input.
    public var nextDeadline: RouterTime? {
        guard !inhibited else { return nil }
        // Without building a list: the session's tick asks after every round.
        var soonest = Int64.max
        if let dim = configuration.dimAfter, phaseAfter(dim) > phase { soonest = dim }
        if let blank = configuration.blankAfter, phaseAfter(blank) > phase { soonest = min(soonest, blank) }
        guard soonest != .max else { return nil }
        return RouterTime(nanoseconds: since.nanoseconds &+ soonest)
    }

    private func phaseAfter(_ nanoseconds: Int64) -> IdlePhase {
        nanoseconds == configuration.blankAfter ? .blanked : .dimmed
    }

    private mutating func move(to new: IdlePhase) -> IdlePhase? {
        guard new != phase else { return nil }
        defer { phase = new }
        return phase
    }
}
