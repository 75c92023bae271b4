/// Why an event reached whom it reached.
public enum DeliveryReason: String, Sendable {
    /// The hit test found the surface.
    case hit
    /// A touch goes to the surface it went down on, wherever it moves.
    case boundTouch = "bound touch"
    case pointerFocus = "pointer focus"
    /// Buttons are held: the pointer stays with the surface they were pressed on.
    case implicitGrab = "implicit grab"
    case keyboardFocus = "keyboard focus"
    /// The client has wl_pointer but no wl_touch, so its touch arrives as pointer input.
    case pointerEmulation = "pointer emulation"
    /// A surface further up the chain than the first one took it.
    case fallback
    case frame
    case cancel
    case focusChange = "focus change"
    /// The surface a touch was bound to went away, which ends the touch for its client.
    case surfaceRemoved = "surface removed"
}

/// Why an event reached nobody.
public enum DropReason: Sendable, Hashable, CustomStringConvertible {
    case interactionIgnored
    /// `exclusive` is the exclusive-touch surface involved; `tracking` the one already
    /// tracking a touch (the same surface when the new touch is on another one).
    case blockedByExclusiveTouch(exclusive: SurfaceID, tracking: SurfaceID)
    case multipleTouchDisabled(surface: SurfaceID)
    /// Another touch is already being turned into pointer input.
    case pointerEmulationBusy
    case unknownTouch
    case duplicateTouch
    /// The surface the touch was bound to is gone.
    case surfaceGone
    /// The touch was cancelled earlier; the rest of its sequence is swallowed.
    case touchCancelled
    /// The touch went down where no surface nor responder took it.
    case touchDiscarded
    case nothingPending
    /// A press outside the grabbing client's surfaces: it dismissed the grab (its popups).
    case outsideGrab
    /// A gesture recognizer won the touch's sequence and claimed it.
    case claimedByGesture
    /// The sequence had the configured number of fingers down: it is the compositor's.
    case fingerLimit
    /// It went down on a dark output and woke it, or belongs to the sequence that did.
    case wokeOutput
    /// The session is locked: what no lock surface takes reaches nobody.
    case sessionLocked
    /// A key's release whose press went to the lock before the session unlocked.
    case pressedUnderLock
    /// Its output was turned or resized while the finger was down: the touch was cancelled.
    case outputChanged

    public var description: String {
        switch self {
        case .interactionIgnored: "interaction ignored"
        case .blockedByExclusiveTouch(let exclusive, let tracking):
            exclusive == tracking ? "blocked: exclusive-touch surface \(exclusive.raw) is tracking a touch"
                : "blocked: surface \(exclusive.raw) is exclusive-touch and surface \(tracking.raw) is tracking a touch"
        case .multipleTouchDisabled(let surface): "multiple touch off on surface \(surface.raw)"
        case .pointerEmulationBusy: "pointer emulation busy with another touch"
        case .unknownTouch: "unknown touch"
        case .duplicateTouch: "touch id already down"
        case .surfaceGone: "its surface is gone"
        case .touchCancelled: "touch was cancelled"
        case .touchDiscarded: "touch was discarded at down"
        case .nothingPending: "nothing pending"
        case .outsideGrab: "outside the grabbing client's surfaces: the grab is dismissed"
        case .claimedByGesture: "claimed by a gesture recognizer"
        case .fingerLimit: "the sequence reached the finger limit"
        case .wokeOutput: "it woke the output"
        case .sessionLocked: "the session is locked"
        case .pressedUnderLock: "it was pressed while the session was locked"
        case .outputChanged: "its output was reconfigured under it"
        }
    }
}

public enum RouteOutcome: Sendable, Equatable {
    /// Clients received it.
    case delivered(DeliveryReason)
    /// A compositor responder took it after `declined` links passed it on.
    case handled(by: Responder, declined: Int)
    case dropped(DropReason)
    /// Every link passed it on.
    case discarded(declined: Int)
    /// Bookkeeping only (devices), or state the router keeps for itself.
    case recorded
    /// Held from clients while the gesture arena decides (a hold-back zone, the finger rule).
    case held
}

public enum DeliveryKind: String, Sendable {
    case touchDown = "touch down", touchMotion = "touch motion", touchUp = "touch up"
    case touchFrame = "touch frame", touchCancel = "touch cancel"
    case keyboardEnter = "keyboard enter", keyboardLeave = "keyboard leave", key, modifiers
    case pointerEnter = "pointer enter", pointerLeave = "pointer leave", pointerMotion = "pointer motion"
    case pointerButton = "pointer button", pointerAxis = "pointer axis", pointerFrame = "pointer frame"
}

public struct DeliveryRecord: Sendable, Equatable {
    public var kind: DeliveryKind
    public var surface: SurfaceID?
    public var client: ClientID
    public var local: Point<SurfaceSpace>?
    public var reason: DeliveryReason

    public init(kind: DeliveryKind, surface: SurfaceID?, client: ClientID, local: Point<SurfaceSpace>?, reason: DeliveryReason) {
        self.kind = kind
        self.surface = surface
        self.client = client
        self.local = local
        self.reason = reason
    }
}

/// One record per routed event, with the times of its stages from the router's clock.
public struct RouteRecord: Sendable {
    public var sequence: UInt64
    public var event: InputEvent
    public var arrival: RouterTime
    public var dequeued: RouterTime
    public var decided: RouterTime
    public var delivered: RouterTime
    public var outcome: RouteOutcome
    public var deliveries: [DeliveryRecord]
    /// Every stage of the event's timeline (Timeline.swift); `flushed` is set by the
    /// Wayland layer where it holds the record until clients are flushed.
    public var stamps: EventStamps
}

public enum FocusKind: String, Sendable { case keyboard, pointer, touch }

public enum FocusChangeCause: String, Sendable {
    case request
    case press
    case surfaceRemoved = "surface removed"
    case surfaceCannotTakeFocus = "surface can no longer take focus"
    case interactionIgnored = "interaction ignored"
    case sessionLocked = "session locked"
    /// A popup's grab ended, and the focus went from the popup to its window.
    case grabEnded = "grab ended"
    /// The scene changed under a still pointer.
    case sceneChanged = "scene changed"
}

public struct FocusChangeRecord: Sendable, Equatable {
    public var kind: FocusKind
    public var from: SurfaceID?
    public var to: SurfaceID?
    public var cause: FocusChangeCause
    public var deliveries: [DeliveryRecord]
}

/// What the gesture arena decided, and about whom.
public enum ArenaDecision: String, Sendable {
    /// A recognizer saw a down in its area and joined the sequence's arena.
    case joined
    /// It may begin or recognize only once another fails (require-to-fail).
    case waiting
    case won
    case failed
    /// A touch went down in a hold-back zone (or under the finger rule) and waits.
    case held
    /// Held events went to clients, in order, with their own times.
    case released
    /// Held events that clients will never see: a recognizer claimed their touch.
    case discarded
    /// A client lost touches to a winner: wl_touch.cancel.
    case cancelled
    /// A client rejected a touch it had (XInput 2.2's reject): it went on down the chain.
    case rejected
    /// A winner's state as bindings hear it: began, changed, ended, cancelled, recognized.
    case reported
    /// Every finger is up and no recognizer waits: the arena closes.
    case closed
}

public struct ArenaRecord: Sendable, Equatable {
    public var decision: ArenaDecision
    public var recognizer: String?
    public var touches: [TouchID]
    public var client: ClientID?
    /// Why, in words; for `reported`, the state.
    public var detail: String
    public var time: RouterTime

    public init(decision: ArenaDecision, recognizer: String?, touches: [TouchID], client: ClientID?, detail: String, time: RouterTime) {
        self.decision = decision
        self.recognizer = recognizer
        self.touches = touches
        self.client = client
        self.detail = detail
        self.time = time
    }
}

/// Receives routing decisions. Called after each event and each focus change.
public protocol RoutingTraceSink: AnyObject {
    func routed(_ record: RouteRecord)
    func focusChanged(_ record: FocusChangeRecord)
    func interactionIgnoringChanged(depth: Int, cancelled: [DeliveryRecord])
    func arenaDecided(_ record: ArenaRecord)
}

extension RoutingTraceSink {
    public func focusChanged(_ record: FocusChangeRecord) {}
    public func interactionIgnoringChanged(depth: Int, cancelled: [DeliveryRecord]) {}
    public func arenaDecided(_ record: ArenaRecord) {}
}

/// Sees every event of the kinds it names before it is routed, as UIApplication.sendEvent:
/// does (and as AppKit's event monitors, by a mask), and cannot change delivery.
public protocol EventMonitor: AnyObject {
    /// The kinds it is shown, read once when it is added: all, unless it names fewer. Calling
    /// a monitor costs two retains and releases, so the router skips those that do not care.
    var observedKinds: EventKinds { get }
    func observe(_ event: InputEvent, sequence: UInt64, arrival: RouterTime)
}

extension EventMonitor {
    public var observedKinds: EventKinds { .all }
}
