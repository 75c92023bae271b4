/// The stages of one routed event, in the order they happen (docs/benchmarks.md, "The
/// timeline and `msg stats`"). `device` is the device's own clock, which may be another clock than the
/// router's; the others are read from the router's clock, the Wayland layer's for `flushed`.
public enum EventStage: Int, CaseIterable, Sendable {
    /// The event's own `time`, as the device (libinput) or the injector stamped it.
    case device
    /// Queued by the router (`Router.enqueue`).
    case arrival
    /// Taken off the queue for routing. An event that waited behind another in one
    /// `dispatchAll` is dequeued when that one's `encoded` was read, which saves a clock read.
    case dequeued
    /// The gesture arena saw it; only touch events while recognizers are configured.
    case arena
    /// Hit test and focus decided: the first client delivery, or the responder, was chosen.
    case decided
    /// Every delivery of the event was handed to `InputDelivery` and it returned (the
    /// Wayland layer has encoded the events into the clients' buffers); only events that
    /// reached a client.
    case encoded
    /// The Wayland layer flushed clients' sockets after `encoded`; set by that layer.
    case flushed
    /// The client read it, as the client itself reported (touch_router_input_manager_v1's
    /// `received`, by the event's time): only for clients that report, and only in the
    /// statistics, since the report comes after the timeline was handed over.
    case received
    /// The client committed what it drew in answer (touch_router_surface_input_v1's
    /// `answer`); only in the statistics, as `received`.
    case committed
    /// The frame showing that commit reached the screen (the page flip on drm).
    case presented

    public var name: String {
        switch self {
        case .device: "device"
        case .arrival: "arrival"
        case .dequeued: "dequeued"
        case .arena: "arena"
        case .decided: "decided"
        case .encoded: "encoded"
        case .flushed: "flushed"
        case .received: "received"
        case .committed: "committed"
        case .presented: "presented"
        }
    }
}

/// An event's stage times, in nanoseconds; `absent` where a stage does not apply. A fixed
/// size value: taking it costs no allocation.
public struct EventStamps: Sendable, Equatable {
    public static let absent = Int64.min
    public var device = absent
    public var arrival = absent
    public var dequeued = absent
    public var arena = absent
    public var decided = absent
    public var encoded = absent
    public var flushed = absent
    public var received = absent
    public var committed = absent
    public var presented = absent

    @inlinable public init() {}

    // Inlinable, as `interval(from:to:)`: the statistics read six intervals of every event.
    @inlinable public subscript(stage: EventStage) -> Int64 {
        get {
            switch stage {
            case .device: device
            case .arrival: arrival
            case .dequeued: dequeued
            case .arena: arena
            case .decided: decided
            case .encoded: encoded
            case .flushed: flushed
            case .received: received
            case .committed: committed
            case .presented: presented
            }
        }
        set {
            switch stage {
            case .device: device = newValue
            case .arrival: arrival = newValue
            case .dequeued: dequeued = newValue
            case .arena: arena = newValue
            case .decided: decided = newValue
            case .encoded: encoded = newValue
            case .flushed: flushed = newValue
            case .received: received = newValue
            case .committed: committed = newValue
            case .presented: presented = newValue
            }
        }
    }

    @inlinable public func has(_ stage: EventStage) -> Bool { self[stage] != Self.absent }

    /// `to - from`, saturating at Int64's ends (device times may be anything); nil when
    /// either stage is absent.
    @inlinable public func interval(from: EventStage, to: EventStage) -> Int64? {
        let a = self[from], b = self[to]
        guard a != Self.absent, b != Self.absent else { return nil }
        let (difference, overflow) = b.subtractingReportingOverflow(a)
        if overflow { return b > a ? .max : .min }
        return difference
    }
}

/// What kind of event a timeline is of, for statistics per kind.
public enum EventKind: Int, CaseIterable, Sendable {
    case touchDown, touchMotion, touchUp, touchCancel, touchFrame
    case key
    case pointerMotion, pointerButton, pointerAxis
    case touchpadGesture
    case switchToggle
    case device

    /// The kind of device the event comes from: touch, keys, pointer or another.
    public var deviceClass: Int {
        switch self {
        case .touchDown, .touchMotion, .touchUp, .touchCancel, .touchFrame: 0
        case .key: 1
        case .pointerMotion, .pointerButton, .pointerAxis: 2
        case .touchpadGesture, .switchToggle, .device: 3
        }
    }

    public var name: String {
        switch self {
        case .touchDown: "touch down"
        case .touchMotion: "touch motion"
        case .touchUp: "touch up"
        case .touchCancel: "touch cancel"
        case .touchFrame: "touch frame"
        case .key: "key"
        case .pointerMotion: "pointer motion"
        case .pointerButton: "pointer button"
        case .pointerAxis: "pointer axis"
        case .touchpadGesture: "touchpad gesture"
        case .switchToggle: "switch"
        case .device: "device"
        }
    }
}

extension InputEvent {
    public var kind: EventKind {
        switch self {
        case .touchDown: .touchDown
        case .touchMotion: .touchMotion
        case .touchUp: .touchUp
        case .touchCancel: .touchCancel
        case .touchFrame: .touchFrame
        case .key: .key
        case .pointerMotion, .pointerMotionAbsolute: .pointerMotion
        case .pointerButton: .pointerButton
        case .pointerAxis: .pointerAxis
        case .swipe, .pinch, .hold: .touchpadGesture
        case .switchToggle: .switchToggle
        case .deviceAdded, .deviceRemoved: .device
        }
    }
}

/// A set of `EventKind`s, one bit each.
public struct EventKinds: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(_ kinds: EventKind...) {
        rawValue = kinds.reduce(0) { $0 | 1 << UInt32($1.rawValue) }
    }
    public static let all = EventKinds(rawValue: (1 << UInt32(EventKind.allCases.count)) - 1)

    @inline(__always)
    public func contains(_ kind: EventKind) -> Bool { rawValue & 1 << UInt32(kind.rawValue) != 0 }
}

/// One routed event's timeline: plain data, handed to a `TimelineObserver` after each event.
public struct EventTimeline: Sendable, Equatable {
    public var sequence: UInt64
    public var kind: EventKind
    /// The first client the event was delivered to; nil when it reached none.
    public var client: ClientID?
    public var stamps: EventStamps

    public init(sequence: UInt64, kind: EventKind, client: ClientID?, stamps: EventStamps) {
        self.sequence = sequence
        self.kind = kind
        self.client = client
        self.stamps = stamps
    }
}

/// Hears every routed event's timeline, always (not only while tracing), so it must be
/// cheap: the session's statistics record it into histograms allocated ahead.
public protocol TimelineObserver: AnyObject {
    func routed(_ timeline: EventTimeline)
}

extension InputEvent {
    /// What the gesture arena sees (`arenaTouch`): touch events.
    var isArenaTouch: Bool {
        switch self {
        case .touchDown, .touchMotion, .touchUp, .touchCancel, .touchFrame: true
        default: false
        }
    }
}
