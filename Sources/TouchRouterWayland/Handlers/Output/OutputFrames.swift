import CWaylandShim
import TouchRouterCore

// Each output's own frame clock. Its deadline is the measured composition margin before
// its next vblank (FrameSchedule): at the deadline the output is composed and the frame
// handed to its screen, so that a commit that arrives until then, a touch's answer among
// them, makes that vblank. When the frame reaches the screen (the page flip on drm, the
// host's frame callback on the wayland backend), the commits in it are presented, the frame
// callbacks of the surfaces on the output are sent, and the next deadline is armed from the
// flip's time. A headless output has no screen: its vblanks are counted from its start, it
// is composed only when a followed commit waits for it, and its frame counts as shown when
// composed.
//
// An idle output (no frame composed and no frame callback sent for a whole period, none on
// its way) composes at once when a commit arrives, rather than at its next deadline: a tap
// after a quiet spell shows at the first vblank the composition can make, and on a display
// with no vblank of its own (QEMU's, headless) as soon as it is composed. A stream of
// commits keeps the output busy, and the deadline rules.
//
// A headless output's clock sleeps after each frame shown: with no screen, a deadline with
// no commit and no frame callback waiting does nothing. A commit on it wakes it (at once
// when idle, as above, or at the next deadline), and so does a frame callback or a followed
// commit waiting after any round (`wakeRestingFrameClocks`), as when a surface is placed on
// it without committing.
//
// An output with a screen cannot sleep so: what changed on it is found by composing, and a
// cursor moved, a window gone or a screen lit changes it without a commit. After half a
// second of deadlines with nothing new to show (or a screen off) and no frame callback sent,
// it goes quiet: its next look is a quarter of a second away. What may change what it shows
// wakes it: a settle that finds the tree or the cursor's visibility changed since it went
// quiet (`PictureStamp`), pointer input and touch downs, a drag's icon moving, drawing or
// leaving, a screen's power or mode changing, the session's return to its VT, a commit on
// it. A woken output that finds nothing new goes quiet again; one that shows something keeps
// its deadlines for another half second. Anything else that changes the picture shows at the
// next look.
//
// A deadline missed (composition ran past the vblank, or the last flip is still on its way)
// costs a refresh: the frame goes at the next deadline with everything committed since, no
// frame is queued behind another, and the slow composition widens the margin. A flip not
// reported within four periods is abandoned and its frame taken as shown.

/// What a composed picture depends on that no wake of its own reports (see above).
struct PictureStamp: Equatable {
    var tree: UInt64
    var geometry: UInt64
    var cursorVisible: Bool
}

/// One output's frame clock.
package final class OutputFrameClock {
    package var schedule: FrameSchedule
    package let timer: PreciseTimer
    /// The vblank the armed deadline aims at.
    package var target: RouterTime
    /// A frame was handed to the screen and has not been reported shown.
    package var awaitingFlip = false
    /// When the output last composed a frame or sent frame callbacks: a client drawing in a
    /// loop keeps it busy, so that its frames stay paced by the deadlines.
    package var lastFrameAt = RouterTime(nanoseconds: .min / 2)
    /// No deadline is armed: a headless output with nothing waiting (see above).
    package var asleep = false
    /// An output with a screen looks only every `quietLook` (see above).
    package var quiet = false
    /// Deadlines in a row that showed nothing new and sent no frame callback.
    package var quietDeadlines = 0
    /// What the picture was composed from when it went quiet.
    var quietStamp: PictureStamp?
    /// Deadlines and looks run, for the tests.
    package private(set) var deadlinesRun: UInt64 = 0
    func deadlineRuns() { deadlinesRun &+= 1 }

    /// Deadlines with nothing new before it goes quiet: half a second at 60 Hz. Tests that
    /// want it quiet at once set fewer.
    package var quietAfter = 30
    package static let quietLook: Int64 = 250_000_000

    package init(schedule: FrameSchedule, timer: PreciseTimer) {
        self.schedule = schedule
        self.timer = timer
        target = schedule.lastVblank
    }

    /// How long a frame may stay unreported before the clock stops waiting for it: a flip
    /// lost (the seat went away mid-flip) must not stop the output's frames.
    var flipPatience: Int64 { schedule.refresh * 4 }
}

extension WaylandServer {
    /// Starts `output`'s frame clock; its first deadline is armed at once.
    package func startFrameClock(for output: VirtualOutput) throws(WaylandError) {
        let id = output.id
        let timer = try PreciseTimer(on: display) { [unowned self] in self.frameDue(id) }
        let frameClock = OutputFrameClock(schedule: FrameSchedule(refreshMilliHertz: output.mode.refreshMilliHertz, start: clock.now()), timer: timer)
        protocols.output.frameClocks[id] = frameClock
        armNextDeadline(frameClock)
    }

    package func stopFrameClock(of output: OutputID) {
        protocols.output.frameClocks.removeValue(forKey: output)?.timer.close()
        protocols.presentation.outputRemoved(output)
    }

    package func armNextDeadline(_ frameClock: OutputFrameClock) {
        let now = clock.now()
        let deadline = frameClock.schedule.deadline(after: now)
        frameClock.target = frameClock.schedule.vblank(after: deadline)
        arm(frameClock, in: deadline.nanoseconds - now.nanoseconds)
    }

    private func arm(_ frameClock: OutputFrameClock, in nanoseconds: Int64) {
        frameClock.asleep = false
        frameClock.quiet = false
        armTimer(frameClock, in: min(nanoseconds, frameClock.schedule.refresh * 4))
    }

    private func armTimer(_ frameClock: OutputFrameClock, in nanoseconds: Int64) {
        do { try frameClock.timer.arm(nanoseconds: nanoseconds) } catch { report("\(error)") }
    }

    /// The output's deadline: compose and hand the frame over, or, headless, compose and
    /// count it shown.
    private func frameDue(_ id: OutputID) {
        guard let frameClock = protocols.output.frameClocks[id], let output = outputs.first(where: { $0.id == id }) else { return }
        frameClock.deadlineRuns()
        if frameClock.schedule.refresh != FrameSchedule.period(refreshMilliHertz: output.mode.refreshMilliHertz) {
            frameClock.schedule = FrameSchedule(refreshMilliHertz: output.mode.refreshMilliHertz, start: frameClock.schedule.lastVblank,
                                                configuredMargin: frameClock.schedule.configuredMargin)
        }
        let start = clock.now()
        guard let presenter = protocols.output.presenters[id] else {
            if protocols.presentation.waiting(on: id, self) {
                frameClock.lastFrameAt = start
                do { _ = try compose(output: output.name) } catch { report("output \(output.name): cannot compose a frame: \(error)") }
                frameClock.schedule.composed(from: start, to: clock.now(), aimingAt: frameClock.target)
                protocols.presentation.frameComposed(on: id, self)
            }
            frameShown(id, frameClock, at: clock.now(), hardwareClock: false)
            return
        }
        if frameClock.awaitingFlip {
            // The flip was not reported within the patience (lost, or the seat went away
            // mid-flip): the presenter stops waiting for it, and the frame counts as shown now.
            frameClock.awaitingFlip = false
            presenter.abandonFlip()
            return frameShown(id, frameClock, at: start, hardwareClock: false)
        }
        guard presenter.readyForFrame else {
            // A screen off or away shows nothing, so a lock is not held up by it; one still
            // flipping the last frame misses this vblank.
            if !presenter.frameInFlight { protocols.sessionLock.frameComposed(on: id) }
            return armAfterDeadline(frameClock, showedNothing: !presenter.frameInFlight)
        }
        let handOver = presentFrame(of: output, to: presenter)
        frameClock.schedule.composed(from: start, to: clock.now(), aimingAt: frameClock.target)
        protocols.presentation.frameComposed(on: id, self)
        if handOver == .refused {
            // Nothing reached the screen: the frame's feedback is discarded, not presented, and
            // its answers are not recorded. Clients still get their frame callbacks, as at a
            // missed vblank, and the next deadline offers the output whole.
            protocols.presentation.frameRefused(on: id)
            sendFrameCallbacks { $0 == id }
            return armAfterDeadline(frameClock, showedNothing: false)
        }
        protocols.sessionLock.frameComposed(on: id)
        let handed = handOver == .taken
        if handed { frameClock.lastFrameAt = start }
        if handed, presenter.frameInFlight {
            frameClock.awaitingFlip = true
            arm(frameClock, in: frameClock.flipPatience)
        } else {
            // Nothing new to show (or a screen that shows at once): what was committed is
            // what the screen shows now.
            frameShown(id, frameClock, at: clock.now(), hardwareClock: false, showedNothing: !handed)
        }
    }

    /// A frame of `id` reached its screen at `time` (nil: now), as its presenter reports.
    package func outputShown(_ id: OutputID, at time: RouterTime?) {
        guard let frameClock = protocols.output.frameClocks[id], frameClock.awaitingFlip else { return }
        frameClock.awaitingFlip = false
        let shown = time ?? clock.now()
        // The host's frame callback, on the wayland backend, stands for the flip.
        frameClock.schedule.vblank(at: shown)
        frameShown(id, frameClock, at: shown, hardwareClock: time != nil)
    }

    /// A surface on `output` committed: an idle output composes now, a sleeping one that
    /// is not idle at its next deadline (see above).
    package func commitArrived(on output: OutputID) {
        captureMayHaveDamage()
        guard let frameClock = protocols.output.frameClocks[output], !frameClock.awaitingFlip else { return }
        wake(frameClock)
    }

    private func wake(_ frameClock: OutputFrameClock) {
        let now = clock.now()
        guard now.nanoseconds &- frameClock.lastFrameAt.nanoseconds >= frameClock.schedule.refresh else {
            if frameClock.asleep || frameClock.quiet { armNextDeadline(frameClock) }
            return
        }
        frameClock.target = frameClock.schedule.vblank(after: now)
        // Once: until it composes, later commits find the frame due already.
        frameClock.lastFrameAt = now
        arm(frameClock, in: 1)
    }

    /// After each round that settles: a quiet clock wakes if what its picture is composed
    /// from changed since it went quiet; a frame callback or a followed commit waiting wakes
    /// the sleeping ones, whichever output it is on (a surface may reach one without committing).
    package func wakeRestingFrameClocks() {
        let framesWait = !protocols.surface.pendingFrames.isEmpty || protocols.presentation.awaitsFrames
        guard framesWait || protocols.output.someFrameClockQuiet else { return }
        let stamp = protocols.output.someFrameClockQuiet ? pictureStamp : nil
        var stillQuiet = false
        for frameClock in protocols.output.frameClocks.values {
            if frameClock.quiet {
                if frameClock.quietStamp != stamp { wake(frameClock) } else { stillQuiet = true }
            } else if frameClock.asleep, framesWait {
                wake(frameClock)
            }
        }
        protocols.output.someFrameClockQuiet = stillQuiet
    }

    /// What may change what a screen shows without a round that settles (pointer input, a
    /// touch down hiding the cursor, a screen's power): the quiet clocks wake, and a capture
    /// waiting for damage is looked at.
    package func pictureMayHaveChanged() {
        captureMayHaveDamage()
        guard protocols.output.someFrameClockQuiet else { return }
        protocols.output.someFrameClockQuiet = false
        for frameClock in protocols.output.frameClocks.values where frameClock.quiet { wake(frameClock) }
    }

    /// The commits in the frame are presented, the output's surfaces get their frame
    /// callbacks, and the next deadline is armed.
    private func frameShown(_ id: OutputID, _ frameClock: OutputFrameClock, at time: RouterTime, hardwareClock: Bool, showedNothing: Bool = false) {
        protocols.presentation.frameShown(on: id, at: time, refresh: UInt32(clamping: frameClock.schedule.refresh), hardwareClock: hardwareClock, self)
        let sent = sendFrameCallbacks { $0 == id }
        if sent > 0 { frameClock.lastFrameAt = max(frameClock.lastFrameAt, time) }
        // Nothing of this output waits now: its frame was composed and its callbacks sent.
        if protocols.output.presenters[id] == nil {
            frameClock.asleep = true
            return
        }
        armAfterDeadline(frameClock, showedNothing: showedNothing && sent == 0)
    }

    /// An output with a screen after its deadline: the next deadline, or, after enough that
    /// showed nothing, a quiet look (see above).
    private func armAfterDeadline(_ frameClock: OutputFrameClock, showedNothing: Bool) {
        frameClock.quietDeadlines = showedNothing ? frameClock.quietDeadlines &+ 1 : 0
        guard frameClock.quietDeadlines >= frameClock.quietAfter else { return armNextDeadline(frameClock) }
        // The look's composition is timed against the vblank after it, as a deadline's is.
        frameClock.target = frameClock.schedule.vblank(after: RouterTime(nanoseconds: clock.now().nanoseconds &+ OutputFrameClock.quietLook))
        frameClock.asleep = false
        armTimer(frameClock, in: OutputFrameClock.quietLook)
        frameClock.quiet = true
        frameClock.quietStamp = pictureStamp
        protocols.output.someFrameClockQuiet = true
    }

    /// What a picture is composed from beside the surfaces' commits and pointer input, which
    /// wake a quiet output themselves.
    var pictureStamp: PictureStamp {
        PictureStamp(tree: tree.changeStamp, geometry: tree.geometryStamp, cursorVisible: cursor.visible)
    }

    /// Sends done to the frame callbacks of the surfaces whose output `due` takes (nil: on
    /// no output). One whose client went first is skipped here, not searched for when it
    /// goes, so that a client dying with thousands of callbacks costs no more than they do.
    @discardableResult
    package func sendFrameCallbacks(_ due: (OutputID?) -> Bool) -> Int {
        guard !protocols.surface.pendingFrames.isEmpty else { return 0 }
        var sent: [FrameCallback] = []
        protocols.surface.pendingFrames.removeAll { pending in
            guard due(tree.outputOf(pending.surface)) else { return false }
            sent.append(pending.callback)
            return true
        }
        let time = clock.now().waylandMilliseconds
        for callback in sent where !callback.destroyed {
            wl_callback_send_done(callback.resource, time)
            wl_resource_destroy(callback.resource)
        }
        return sent.count
    }
}
