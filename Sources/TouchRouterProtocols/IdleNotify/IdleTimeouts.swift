import TouchRouterCore

/// A client's request to hear when the seat has had no input for its time, and when input
/// comes again: ext-idle-notify's notification and KDE's idle timeout.
package protocol IdleTimeout: AnyObject {
    var nanoseconds: Int64 { get }
    var started: RouterTime { get }
    var idle: Bool { get set }
    func sendIdle()
    func sendResumed()
}

/// The idle timeouts of one protocol, checked by the session's tick, which is armed for
/// `nextDeadline`, so an idle event comes about a millisecond late, and for the next frame
/// when an inhibitor's surface is shown or hidden. Input is what the seat's tracker sees:
/// touch downs, keys, pointer motion, buttons and scrolling (a finger already down moving is
/// not, as it is not for the cursor). While an inhibitor's surface is shown no timeout goes
/// idle, and the time without input counts again from the tick that saw the inhibitor end.
package final class IdleTimeouts {
    private var timeouts: [ObjectIdentifier: any IdleTimeout] = [:]
    /// When the seat last had input, or an inhibition ended; the server's start before any.
    private var lastActivity: RouterTime?
    private var anyIdle = false
    private var held = false
    /// No timeout is due before this: the session's tick looks at none until then, so that a
    /// client's thousands of timeouts cost a scan only when one may be due.
    private var nextDue: Int64?
    /// The shortest timeout made; kept when it goes, which only makes checks earlier.
    private var shortest = Int64.max

    package var isEmpty: Bool { timeouts.isEmpty }
    /// When `tick` may next send idle; nil while none may go idle without input, or while an
    /// inhibitor holds them (its end restarts the count).
    package var nextDeadline: RouterTime? { held ? nil : nextDue.map { RouterTime(nanoseconds: $0) } }
    /// An inhibitor held the timeouts at the last tick.
    package var isHeld: Bool { held }

    /// Input on the seat: every idle timeout resumes and starts again.
    package func activity(at time: RouterTime) {
        restart(at: time)
        guard anyIdle else { return }
        anyIdle = false
        for timeout in timeouts.values where timeout.idle {
            timeout.idle = false
            timeout.sendResumed()
        }
    }

    /// At the session's tick: the timeouts whose time without input has passed hear idle.
    package func tick(at now: RouterTime, inhibited: Bool) {
        if inhibited {
            held = true
            return
        }
        if held {
            held = false
            restart(at: now)
        }
        guard let due = nextDue, now.nanoseconds >= due else { return }
        nextDue = nil
        for timeout in timeouts.values where !timeout.idle {
            let since = max(lastActivity ?? timeout.started, timeout.started)
            let deadline = since.nanoseconds &+ timeout.nanoseconds
            guard now.nanoseconds >= deadline else {
                nextDue = min(nextDue ?? deadline, deadline)
                continue
            }
            timeout.idle = true
            anyIdle = true
            timeout.sendIdle()
        }
    }

    package func add(_ timeout: any IdleTimeout) {
        timeouts[ObjectIdentifier(timeout)] = timeout
        shortest = min(shortest, timeout.nanoseconds)
        let deadline = timeout.started.nanoseconds &+ timeout.nanoseconds
        nextDue = min(nextDue ?? deadline, deadline)
    }

    package func remove(_ timeout: any IdleTimeout) {
        timeouts[ObjectIdentifier(timeout)] = nil
        guard timeouts.isEmpty else { return }
        // Nothing left to be due: a deadline kept would arm the session's tick for nothing,
        // again after every input.
        nextDue = nil
        held = false
        shortest = .max
    }

    private func restart(at time: RouterTime) {
        lastActivity = max(lastActivity ?? time, time)
        if shortest != .max { nextDue = time.nanoseconds &+ shortest }
    }
}
