/// When the compositor draws its pointer cursor, as sway and phoc decide it for a touch
/// screen with a mouse beside it: shown while a pointer moves, clicks or scrolls; hidden at a
/// touch, and after `hideAfter` without pointer activity. Hidden from the start, so a seat
/// with no pointer never shows one. Time is passed in; nothing here reads a clock.
public struct CursorVisibility: Sendable, Equatable {
    /// Nanoseconds of pointer inactivity after which the cursor hides; nil never hides it.
    public var hideAfter: Int64?
    public private(set) var visible = false
    private var lastActivity = RouterTime.zero

    public init(hideAfter: Int64? = 5_000_000_000) {
        self.hideAfter = hideAfter
    }

    /// One case for each kind of input that changes it; other events leave it as it is.
    public mutating func observe(_ event: InputEvent, at time: RouterTime) {
        switch event {
        case .pointerMotion, .pointerMotionAbsolute, .pointerButton, .pointerAxis:
            visible = true
            lastActivity = time
        case .touchDown:
            visible = false
        default:
            break
        }
    }

    /// Hides the cursor once `hideAfter` has passed since the last pointer activity.
    public mutating func advanceTime(to now: RouterTime) {
        guard visible, let deadline else { return }
        if now >= deadline { visible = false }
    }

    /// When the cursor will hide if the pointer stays still; nil while hidden or never.
    public var deadline: RouterTime? {
        guard visible, let hideAfter else { return nil }
        let (sum, overflow) = lastActivity.nanoseconds.addingReportingOverflow(hideAfter)
        return RouterTime(nanoseconds: overflow ? .max : sum)
    }
}
