import TouchRouterConfig
import TouchRouterCore

/// What the seat's idle timer may ask of the server (Handlers/IdleHandling.swift).
package protocol IdleHandler: AnyObject {
    /// Every output now.
    var idleOutputs: [OutputID] { get }
    /// Whether an idle inhibitor on a shown surface holds the timer.
    var idleInhibited: Bool { get }
    /// The outputs' screens go to `power`. Dark outputs are the router's to light again:
    /// the input that wakes one reaches nobody (`Router.setOutputs(_:dark:)`).
    func powerOutputs(_ outputs: [OutputID], to power: OutputPower, blanking: IdleBlanking)
    /// The phase changed, or an inhibitor came or went: subscribers hear it.
    func idleChanged(_ idle: SeatIdle)
}

/// A screen as the idle timer left it.
package enum OutputPower: String {
    case on, dimmed, off
}

/// The seat's idle timer, as `[idle]` sets it: it dims the outputs, then darkens them, and
/// hears from the router when input woke them. Input counts as `SeatTracker` sees it: touch
/// downs, keys, pointer motion, buttons and scrolling.
package final class SeatIdle: WakeObserver {
    package private(set) var timer = IdleTimer(configuration: .never, start: .zero)
    package private(set) var settings = IdleSettings()
    /// Unowned and unchecked, as `SeatTracker.server`: the server owns the seat's state, so it
    /// outlives every call; a weak reference would give the server a side table, and every
    /// retain and release of it, on every routed event, would take the slow path.
    package unowned(unsafe) var handler: (any IdleHandler)?

    package var phase: IdlePhase { timer.phase }

    /// A new `[idle]`: the count starts again now.
    package func configure(_ settings: IdleSettings, at now: RouterTime) {
        guard settings != self.settings else { return }
        self.settings = settings
        let inhibited = timer.inhibited
        let wasDimmed = timer.phase == .dimmed
        timer = IdleTimer(configuration: settings.timer, start: now)
        _ = timer.setInhibited(inhibited, at: now)
        // The count starts over active: dimmed outputs come back now, since no input may come
        // to bring them back; dark ones stay dark until input wakes them.
        if wasDimmed, let handler { handler.powerOutputs(handler.idleOutputs, to: .on, blanking: settings.blanking) }
    }

    /// Input on the seat, before it is routed. A dimmed screen comes back here; a dark one
    /// comes back when the router says the input woke it.
    package func input(at time: RouterTime) {
        guard let old = timer.input(at: time) else { return }
        if old == .dimmed, let handler { handler.powerOutputs(handler.idleOutputs, to: .on, blanking: settings.blanking) }
        handler?.idleChanged(self)
    }

    /// When `tick` may next dim or darken the outputs; nil while it will not without input.
    package var nextDeadline: RouterTime? { settings.timer == .never ? nil : timer.nextDeadline }
    /// An inhibitor held the timer at the last tick.
    package var isHeld: Bool { timer.inhibited }
    /// Whether `tick` looks at the inhibitors: the timer counts, or one held it.
    package var watchesInhibitors: Bool { settings.timer != .never || timer.inhibited }

    /// When the session's tick runs: at `nextDeadline`, and at the next frame when an
    /// inhibitor's surface is shown or hidden.
    package func tick(at now: RouterTime) {
        guard watchesInhibitors, let handler else { return }
        let inhibited = handler.idleInhibited
        if inhibited != timer.inhibited {
            _ = timer.setInhibited(inhibited, at: now)
            handler.idleChanged(self)
        }
        guard timer.tick(at: now) != nil else { return }
        switch timer.phase {
        case .active: break
        case .dimmed: handler.powerOutputs(handler.idleOutputs, to: .dimmed, blanking: settings.blanking)
        case .blanked: handler.powerOutputs(handler.idleOutputs, to: .off, blanking: settings.blanking)
        }
        handler.idleChanged(self)
    }

    package func outputsWoke(_ outputs: [OutputID], by output: OutputID?, at time: RouterTime) {
        guard let handler else { return }
        _ = timer.input(at: time)
        handler.powerOutputs(outputs, to: .on, blanking: settings.blanking)
        handler.idleChanged(self)
    }

    /// The milliseconds since the last input (or since the count last started), at `now`.
    package func idleMilliseconds(at now: RouterTime) -> Int64 {
        max(0, (now.nanoseconds &- timer.since.nanoseconds) / 1_000_000)
    }
}
