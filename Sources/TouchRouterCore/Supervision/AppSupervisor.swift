/// When a supervised app is started again after it exits (`touch-router run --supervise`,
/// `[supervise]`).
public enum RestartPolicy: String, Sendable, CaseIterable {
    /// After every exit, a clean one included.
    case always
    /// After an exit with a status other than 0 or by a signal; a clean exit ends the session with 0.
    case onFailure = "on-failure"
    /// Never: a failure shows the fallback at once; a clean exit ends the session with 0.
    case never
}

/// What the session does with a client that stopped answering xdg_wm_base.ping.
public enum HangPolicy: String, Sendable, CaseIterable {
    /// The supervised app is killed and started again at once (counted as a failure); any
    /// other client is killed.
    case restart
    /// The client's process is killed (SIGKILL); the supervised app is then restarted as after any exit.
    case kill
    /// Only reported: its windows take no touches until it answers again.
    case report
}

/// `[supervise]`: the app supervised, how it is restarted, and when a client counts as hung.
/// Times in nanoseconds (seconds in the file).
public struct SupervisionSettings: Sendable, Equatable {
    /// The app; empty: the command given after `--`.
    public var command: [String] = []
    public var restart = RestartPolicy.always
    /// The first restart's delay; each quick failure after it doubles it, up to `backoffMax`.
    public var backoffInitial: Int64 = 1_000_000_000
    public var backoffMax: Int64 = 30_000_000_000
    /// An app that ran this long before it exited ran well: the delay starts again at `backoffInitial`.
    public var resetAfter: Int64 = 10_000_000_000
    /// This many failures within `window` and the fallback is shown instead of a restart.
    public var maxFailures = 5
    public var window: Int64 = 60_000_000_000
    /// Run when the app failed `maxFailures` times; empty: the session stays up, showing
    /// nothing, and says why on stderr and to subscribers.
    public var fallback: [String] = []
    /// A client with a mapped toplevel is pinged every `pingEvery`, and hung when a ping
    /// goes unanswered for `hangAfter`; nil: never pinged.
    public var hangAfter: Int64? = 5_000_000_000
    public var pingEvery: Int64 = 2_000_000_000
    public var onHang = HangPolicy.restart

    public init() {}
}

/// The supervisor's decisions, from the exits it is told of; time is passed in (the
/// session's clock), never read here.
public struct AppSupervisor: Sendable {
    public let settings: SupervisionSettings
    /// How many times the app was started again.
    public private(set) var restarts = 0
    /// Failures within the window, oldest first.
    public private(set) var failures: [RouterTime] = []
    /// Quick failures in a row: the exponent of the next delay.
    private var streak = 0
    private var startedAt = RouterTime.zero

    public init(settings: SupervisionSettings) { self.settings = settings }

    /// What to do after an exit.
    public enum Decision: Equatable, Sendable {
        /// Start it again after this many nanoseconds.
        case restart(afterNanoseconds: Int64)
        /// Give up: show the fallback; the reason says why, for people.
        case fallback(reason: String)
        /// End the session with this status (a clean exit the policy does not restart).
        case end(status: Int32)
    }

    public mutating func started(at time: RouterTime) { startedAt = time }

    /// Called when the app starts again after `.restart`.
    public mutating func restarted(at time: RouterTime) {
        restarts += 1
        startedAt = time
    }

    /// The app exited: `status` its exit status, `signal` the signal that ended it (one of
    /// them is nil), `hung` whether the session killed it for not answering pings.
    public mutating func exited(status: Int32?, signal: Int32?, hung: Bool = false, at time: RouterTime) -> Decision {
        let failed = hung || signal != nil || (status ?? 0) != 0
        if !failed, settings.restart != .always { return .end(status: 0) }
        let ran = time.nanoseconds &- startedAt.nanoseconds
        if ran >= settings.resetAfter { streak = 0 }
        if failed {
            failures.append(time)
            failures.removeAll { time.nanoseconds &- $0.nanoseconds > settings.window }
            let what = hung ? "it stopped answering pings" : signal.map { "it was killed by signal \($0)" } ?? "it exited with status \(status ?? 0)"
            if settings.restart == .never {
                return .fallback(reason: "the app failed (\(what)) and restart = \"never\"")
            }
            if failures.count >= settings.maxFailures {
                return .fallback(reason: "the app failed \(failures.count) times within \(Self.seconds(settings.window)) s (the last time \(what))")
            }
        }
        let delay = Self.delay(streak: streak, initial: settings.backoffInitial, max: settings.backoffMax)
        streak += 1
        return .restart(afterNanoseconds: delay)
    }

    /// `initial` doubled `streak` times, at most `max`; never overflows.
    public static func delay(streak: Int, initial: Int64, max: Int64) -> Int64 {
        var delay = initial
        for _ in 0..<Swift.min(streak, 62) {
            if delay >= max / 2 { return max }
            delay *= 2
        }
        return Swift.min(delay, max)
    }

    public static func seconds(_ nanoseconds: Int64) -> String {
        nanoseconds % 1_000_000_000 == 0 ? String(nanoseconds / 1_000_000_000) : String(Double(nanoseconds) / 1e9)
    }
}

/// One client's pings (xdg_wm_base.ping and pong): when to send the next, and when an
/// unanswered one makes the client hung. Time is passed in.
public struct PingState: Sendable {
    public private(set) var pendingSerial: UInt32?
    public private(set) var sentAt = RouterTime.zero
    public private(set) var hung = false

    public init() {}

    public enum Step: Equatable, Sendable {
        case nothing
        /// Send a ping now, and call `sent`.
        case ping
        /// The ping has gone unanswered for `hangAfter`.
        case becameHung
    }

    /// Called periodically while the client has a mapped toplevel.
    public mutating func tick(at now: RouterTime, every: Int64, hangAfter: Int64) -> Step {
        if pendingSerial != nil {
            if !hung, now.nanoseconds &- sentAt.nanoseconds >= hangAfter {
                hung = true
                return .becameHung
            }
            return .nothing
        }
        return now.nanoseconds &- sentAt.nanoseconds >= every ? .ping : .nothing
    }

    public mutating func sent(serial: UInt32, at time: RouterTime) {
        pendingSerial = serial
        sentAt = time
    }

    /// A pong: true when it answers the ping of a client that was hung (it is no longer).
    /// A serial that was not sent is ignored.
    public mutating func pong(serial: UInt32) -> Bool {
        guard serial == pendingSerial else { return false }
        pendingSerial = nil
        defer { hung = false }
        return hung
    }
}
