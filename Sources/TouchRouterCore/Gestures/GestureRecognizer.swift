/// UIGestureRecognizer's states. A discrete recognizer (tap) goes possible → recognized
/// or failed; a continuous one (pan, pinch, long press) goes possible → began →
/// changed … → ended, cancelled or failed.
public enum GestureState: String, Sendable {
    case possible, began, changed, ended, cancelled, failed, recognized

    /// Began or recognized: the moment a recognizer claims its touches.
    public var claims: Bool { self == .began || self == .recognized }
    /// Nothing more happens to it until `reset()`.
    public var isFinal: Bool {
        switch self {
        case .ended, .cancelled, .failed, .recognized: true
        case .possible, .began, .changed: false
        }
    }
}

public enum ScreenEdge: String, Sendable, CaseIterable, Hashable {
    case top, bottom, left, right
}

public enum SwipeDirection: String, Sendable, CaseIterable, Hashable {
    case up, down, left, right
}

/// What a recognizer reports with its states, for bindings and subscribers.
public struct GestureValues: Sendable, Equatable {
    /// The centroid of its touches.
    public var location = Point<GlobalSpace>(0, 0)
    /// From where the gesture began (pan, swipe, edge pan), in layout pixels.
    public var translationX = 0.0
    public var translationY = 0.0
    /// Layout pixels per second.
    public var velocityX = 0.0
    public var velocityY = 0.0
    /// Pinch: the touches' spread relative to when it began.
    public var scale = 1.0
    /// Rotation: radians, clockwise on screen, since it began.
    public var rotation = 0.0
    public var touches = 0
    /// Tap: taps counted so far in this gesture (UITouch.tapCount).
    public var tapCount = 0
    public var edge: ScreenEdge?
    public var direction: SwipeDirection?

    public init() {}
}

/// A gesture recognizer in the C-free core. It never reads a clock: every call carries
/// the event's own time, and `advance(to:)` tells it that time has passed without events.
///
/// The arena feeds it the touches that went down in its area, and reads `state` after
/// every call. It moves itself from `.possible`; the arena decides who wins, and calls
/// `reset()` once the recognizer's gesture is over (or it lost), back to `.possible`.
/// Calls after a final state are ignored until `reset()`.
///
/// A class rather than a protocol, so that the arena calls it through an unretained
/// reference on every motion: an existential call would retain and release it each time,
/// which cost more than the recognizers' own work (docs/benchmarks.md, "Gestures").
open class GestureRecognizer {
    public init() {}

    open var state: GestureState { .possible }
    open var isContinuous: Bool { false }
    open var values: GestureValues { GestureValues() }
    /// `output` is the layout rectangle of the output the touch went down on (edges are its edges).
    open func touchBegan(_ id: TouchID, at position: Point<GlobalSpace>, time: RouterTime, output: Rect<GlobalSpace>) {}
    open func touchMoved(_ id: TouchID, to position: Point<GlobalSpace>, time: RouterTime) {}
    open func touchEnded(_ id: TouchID, time: RouterTime) {}
    /// The device or the router lost the touch: a recognizer that began is cancelled, one still possible fails.
    open func touchCancelled(_ id: TouchID, time: RouterTime) {}
    /// Time passed without an event: a long press begins, a tap's wait for its next tap runs out.
    open func advance(to time: RouterTime) {}
    /// The earliest time at which `advance(to:)` could change its state, if any.
    open var deadline: RouterTime? { nil }
    /// Still possible with no touch down, waiting for the next tap of a multi-tap.
    open var awaitsMoreTouches: Bool { false }
    open func reset() {}
}

/// Where a recognizer is attached: it sees the touches that go down in this area.
public enum GestureAttachment: Hashable, Sendable, CustomStringConvertible {
    /// Every touch, on every output.
    case shell
    /// Touches on the output of this name.
    case output(String)
    /// Touches on a toplevel (or its subsurfaces and popups) whose app id is this.
    case appID(String)
    /// Touches on a surface of this role.
    case role(SurfaceRole)

    public var description: String {
        switch self {
        case .shell: "shell"
        case .output(let name): "output \(name)"
        case .appID(let id): "app \(id)"
        case .role(let role): "role \(role.rawValue)"
        }
    }
}

/// Durations are nanoseconds, as `RouterTime` keeps them; lengths are layout pixels
/// (UIKit's points at scale 1, Android's dp at 160 dpi). Defaults: see docs/gestures.md's table.
public struct TapParameters: Sendable, Hashable {
    public var tapsRequired = 1
    public var touchesRequired = 1
    /// How far a touch may move and still tap (Android's touch slop, 8 dp; UIKit documents none).
    public var allowableMovement = 8.0
    /// A touch held longer than this is no tap: the long press's 0.5 s, so the two hand over at one instant.
    public var maximumPressDuration: Int64 = 500_000_000
    /// The longest wait between one tap's up and the next tap's down (Android's double-tap timeout).
    public var maximumTapInterval: Int64 = 300_000_000
    /// How far the next tap may land from the previous one (Android's double-tap slop).
    public var maximumTapDistance = 100.0
    public init() {}
}

public struct LongPressParameters: Sendable, Hashable {
    /// UIKit's documented default, 0.5 s (Android's is 400 ms since Android 12).
    public var minimumDuration: Int64 = 500_000_000
    /// UIKit's documented default, 10 points.
    public var allowableMovement = 10.0
    public var touchesRequired = 1
    public init() {}
}

public struct PanParameters: Sendable, Hashable {
    public var minimumTouches = 1
    public var maximumTouches = 10
    /// How far the centroid moves before the pan begins (Android's touch slop, 8 dp).
    public var slop = 8.0
    public init() {}
}

public struct SwipeParameters: Sendable, Hashable {
    /// UIKit's default direction is right.
    public var directions: Set<SwipeDirection> = [.right]
    public var touchesRequired = 1
    /// No platform documents one; the project's choice.
    public var minimumDistance = 50.0
    /// Layout pixels per second, along the direction (Android's minimum fling velocity, 50 dp/s).
    public var minimumVelocity = 50.0
    public init() {}
}

public struct PinchParameters: Sendable, Hashable {
    /// How far the touches' spread changes before the pinch begins (Android's
    /// ScaleGestureDetector: twice the touch slop, 16 dp).
    public var slop = 16.0
    public init() {}
}

public struct RotationParameters: Sendable, Hashable {
    /// Radians turned before the rotation begins: 5°, the project's choice (SwiftUI's
    /// RotateGesture starts at 1°, which two resting fingers' jitter reaches).
    public var minimumAngle = 0.0873
    public init() {}
}

public struct ScreenEdgePanParameters: Sendable, Hashable {
    /// UIKit's default is no edge at all; the left edge here, so a default recognizer does something.
    public var edges: Set<ScreenEdge> = [.left]
    /// How far from the edge the touch must go down: the project's choice, below the 30 dp
    /// of AOSP's gestural-navigation back zone (see RECOGNIZER-DEFAULTS.md).
    public var zoneWidth = 24.0
    /// How far it moves away from the edge before the pan begins (Android's touch slop, 8 dp).
    public var slop = 8.0
    public var touchesRequired = 1
    public init() {}
}

public enum GestureKind: Sendable, Hashable {
    case tap(TapParameters)
    case longPress(LongPressParameters)
    case pan(PanParameters)
    case swipe(SwipeParameters)
    case pinch(PinchParameters)
    case rotation(RotationParameters)
    case screenEdgePan(ScreenEdgePanParameters)

    public var name: String {
        switch self {
        case .tap: "tap"
        case .longPress: "long-press"
        case .pan: "pan"
        case .swipe: "swipe"
        case .pinch: "pinch"
        case .rotation: "rotation"
        case .screenEdgePan: "screen-edge-pan"
        }
    }
}

/// One configured recognizer: what it recognizes, where, and how it gets along with the others.
public struct GestureSpec: Sendable, Hashable {
    public var name: String
    public var kind: GestureKind
    public var attachment: GestureAttachment
    /// UIKit's cancelsTouchesInView: when it wins, clients that had its touches get wl_touch.cancel.
    public var cancelsTouchesInView = true
    /// Names of recognizers that may recognize at the same time as this one.
    public var simultaneousWith: [String] = []
    /// Names of recognizers that must fail before this one may begin.
    public var requiresFailureOf: [String] = []
    /// A screen-edge pan that clients' deferral regions (touch-router-input-v1's
    /// `set_gesture_deferral`) may keep out; false for a kiosk's exit gesture.
    public var deferrable = true

    public init(name: String, kind: GestureKind, attachment: GestureAttachment) {
        self.name = name
        self.kind = kind
        self.attachment = attachment
    }
}
