import TouchRouterCore
import TouchRouterProtocols

// The session's own tick does what is not one output's frame (OutputFrames.swift): the
// lock's and screencopy's frames, feedback for commits on no output, frame callbacks of
// surfaces on no output, layers waiting to be arranged, the cursor hiding, and the idle
// timeouts. It runs only while one of them waits: every frame while frame work waits (sooner
// if a deadline known when it is armed falls within the frame), and at the soonest deadline
// (the cursor's, an idle timeout's, the seat's idle timer's) otherwise.
// Screencopy frames that wait only for damage, and found none at the last tick, need a look
// only when the picture may have changed (a commit on an output, the tree or the cursor's
// visibility changed, pointer input, a power change) and otherwise every quarter of a
// second, as a quiet screen (OutputFrames.swift).
// An idle session with nothing waiting sleeps until input, a client or a timer of its own
// wakes it, instead of waking at every refresh (sway 1.7 and cage 0.1.4 headless still wake
// at theirs: docs/benchmarks.md).
//
// What makes the tick wanted is looked at after every round (`display.beforeFlush`) and after
// the input the seat's tracker sees (a pointer showing the cursor, input resuming idle
// timeouts), since a round of input alone may not settle. Deadlines only move later without
// a round that reads them, so a tick armed for an old deadline runs once, early, and arms
// itself for the new one.
//
// While an idle inhibitor lives, whether its surface is shown is asked again after each round
// that changed the tree or the inhibitors (it depends on nothing else), and when an inhibitor
// goes (a client ended by the round's flush loses its own after the round looked). When the
// answer is not what the idle timers last saw, the tick runs at the next frame and they see it,
// so an inhibitor on a still window leaves the session asleep.

/// The session's tick timer and what it is armed for.
package final class SessionTick {
    package enum Arming: Equatable {
        case asleep
        /// At the next frame: frame work waits.
        case frame
        /// At a deadline, nothing before it.
        case deadline(RouterTime)
    }

    let timer: OneShotTimer
    /// The fastest output's refresh period, whole milliseconds.
    package let period: Int32
    package private(set) var arming = Arming.asleep
    /// What the picture was, and how many frames had been asked for, when the last tick left
    /// screencopy frames waiting for damage; nil when it left none, or ones to copy at once.
    var captureLook: (stamp: PictureStamp, framesAsked: UInt64, again: RouterTime)?
    /// Something may have changed the picture since `captureLook`.
    var captureMayHaveDamage = false
    /// Whether an idle inhibitor's surface was shown, and the tree's change stamp and the
    /// inhibitors' generation when that was asked: it stands while both do.
    var inhibition: (tree: UInt64, inhibitors: UInt64, shown: Bool)?
    /// Times the tick ran, and the milliseconds it was last armed for, for the tests.
    package private(set) var runs: UInt64 = 0
    package private(set) var armedMilliseconds: Int32 = 0

    init(timer: OneShotTimer, period: Int32) {
        self.timer = timer
        self.period = period
    }

    /// At the next frame, or at `deadline` if that comes first: an idle timeout due within
    /// the frame is not held back to its end.
    func armForFrame(orAt deadline: RouterTime?, now: RouterTime) {
        arming = .frame
        armedMilliseconds = min(period, deadline.map { Self.milliseconds(from: now, to: $0) } ?? period)
        timer.arm(milliseconds: armedMilliseconds)
    }

    func arm(at deadline: RouterTime, now: RouterTime) {
        arming = .deadline(deadline)
        armedMilliseconds = Self.milliseconds(from: now, to: deadline)
        timer.arm(milliseconds: armedMilliseconds)
    }

    /// Rounded up: a tick that runs early finds nothing due and sleeps again until it is. One
    /// at least, as the timer takes it: zero would disarm it.
    private static func milliseconds(from now: RouterTime, to deadline: RouterTime) -> Int32 {
        let (millis, rest) = max(0, deadline.nanoseconds &- now.nanoseconds).quotientAndRemainder(dividingBy: 1_000_000)
        return max(1, Int32(clamping: millis + (rest > 0 ? 1 : 0)))
    }

    func fired() {
        arming = .asleep
        runs &+= 1
    }
}

extension WaylandServer {
    /// Starts the session's tick, at the fastest output's refresh while frame work waits.
    func startSessionTick() throws(WaylandError) {
        let fastest = outputs.map(\.mode.refreshMilliHertz).max() ?? 60_000
        let timer = try display.oneShotTimer { [unowned self] in self.sessionTickDue() }
        sessionTick = SessionTick(timer: timer, period: Int32(max(1, 1_000_000 / fastest)))
        scheduleSessionTick()
    }

    /// Frame work waits: the tick runs at the next frame. Frame callbacks and followed
    /// commits count only where no output's clock takes them: a screen that is off holds
    /// its own until it is on again, and must not keep the tick running all night.
    private func tickFrameWorkWaits(_ tick: SessionTick) -> Bool {
        frameCallbacksWaitForTick
            || protocols.presentation.awaitsDiscarding(self)
            || protocols.sessionLock.awaitsFrames
            || captureWaitsForTick
            || !protocols.layerShell.outputsToArrange.isEmpty
            || idleNeedsLooking(tick)
    }

    /// A screencopy frame may have something to copy: one without damage asked, a new one,
    /// or a picture that may have changed since the last look; or one whose buffer went fails.
    private var captureWaitsForTick: Bool {
        guard !protocols.screencopy.isEmpty else { return false }
        guard let tick = sessionTick, let look = tick.captureLook else { return true }
        return tick.captureMayHaveDamage || look.framesAsked != protocols.screencopy.framesAsked || look.stamp != pictureStamp
            || !protocols.screencopy.awaitsOnlyDamage || protocols.screencopy.awaitsFailing
    }

    /// The picture may have changed: a capture waiting for damage is looked at.
    func captureMayHaveDamage() {
        guard let tick = sessionTick, tick.captureLook != nil, !tick.captureMayHaveDamage else { return }
        tick.captureMayHaveDamage = true
        scheduleSessionTick()
    }

    /// Whether the tick sends the frame callbacks of surfaces on `output`: on no output, or on
    /// one without a frame clock.
    package func tickSendsFrames(on output: OutputID?) -> Bool {
        output.map { protocols.output.frameClocks[$0] == nil } ?? true
    }

    /// A frame callback the tick sends waits.
    private var frameCallbacksWaitForTick: Bool {
        let pending = protocols.surface.pendingFrames
        guard !pending.isEmpty else { return false }
        return pending.contains { tickSendsFrames(on: tree.outputOf($0.surface)) }
    }

    /// An idle timer that watches the inhibitors did not see the one whose surface is shown
    /// now, or still sees one whose surface is not.
    private func idleNeedsLooking(_ tick: SessionTick) -> Bool {
        let seat = protocols.seat.idle, kde = protocols.kdeIdle.timeouts, notify = protocols.idleNotify.timeouts
        guard !protocols.idleInhibit.isEmpty || seat.isHeld || kde.isHeld || notify.isHeld else { return false }
        guard seat.watchesInhibitors || !kde.isEmpty || !notify.isEmpty else { return false }
        let inhibited = inhibitorShown(tick)
        return (seat.watchesInhibitors && seat.isHeld != inhibited) || (!kde.isEmpty && kde.isHeld != inhibited)
            || (!notify.isEmpty && notify.isHeld != inhibited)
    }

    /// `idleInhibited`, asked again only when the tree or the inhibitors changed: this runs
    /// after every round while an inhibitor lives.
    private func inhibitorShown(_ tick: SessionTick) -> Bool {
        let treeStamp = tree.changeStamp, inhibitors = protocols.idleInhibit.generation
        if let known = tick.inhibition, known.tree == treeStamp, known.inhibitors == inhibitors { return known.shown }
        let shown = idleInhibited
        tick.inhibition = (treeStamp, inhibitors, shown)
        return shown
    }

    /// The soonest time the tick has something to do when no frame work waits.
    private var tickDeadline: RouterTime? {
        // Pairwise, not a list: this runs after every round.
        func sooner(_ a: RouterTime?, _ b: RouterTime?) -> RouterTime? {
            guard let a else { return b }
            guard let b else { return a }
            return min(a, b)
        }
        let captureAgain = protocols.screencopy.isEmpty ? nil : sessionTick?.captureLook?.again
        return sooner(sooner(sooner(cursor.deadline, protocols.seat.idle.nextDeadline), captureAgain),
                      sooner(protocols.kdeIdle.timeouts.nextDeadline, protocols.idleNotify.timeouts.nextDeadline))
    }

    /// Arms the tick for what waits soonest, or leaves it as it is: one armed for the next
    /// frame runs, and looks again then.
    package func scheduleSessionTick() {
        guard let tick = sessionTick, tick.arming != .frame else { return }
        if tickFrameWorkWaits(tick) { return tick.armForFrame(orAt: tickDeadline, now: clock.now()) }
        guard let deadline = tickDeadline else { return }
        if case .deadline(let armed) = tick.arming, armed <= deadline { return }
        tick.arm(at: deadline, now: clock.now())
    }

    private func sessionTickDue() {
        sessionTick?.fired()
        cursor.advanceTime(to: clock.now())
        arrangeWaitingLayers()
        protocols.sessionLock.sendLocked(screensShown: !protocols.output.presenters.values.contains { $0.frameInFlight },
                                         shown: Set(protocols.output.presenters.keys))
        protocols.presentation.discardUnshown(self)
        protocols.screencopy.frameTick(self)
        let now = clock.now()
        if let tick = sessionTick {
            tick.captureMayHaveDamage = false
            tick.captureLook = protocols.screencopy.isEmpty || !protocols.screencopy.awaitsOnlyDamage ? nil
                : (pictureStamp, protocols.screencopy.framesAsked, RouterTime(nanoseconds: now.nanoseconds &+ OutputFrameClock.quietLook))
        }
        if !protocols.kdeIdle.timeouts.isEmpty || !protocols.idleNotify.timeouts.isEmpty {
            let inhibited = idleInhibited
            protocols.kdeIdle.timeouts.tick(at: now, inhibited: inhibited)
            protocols.idleNotify.timeouts.tick(at: now, inhibited: inhibited)
        }
        protocols.seat.idle.tick(at: now)
        sendFrameCallbacks { tickSendsFrames(on: $0) }
        scheduleSessionTick()
    }
}
