import CWaylandShim
import TouchRouterCore
#if canImport(Glibc)
import Glibc
#endif

// presentation-time (protocols/presentation-time.xml): a client learns when each commit
// reached the screen, on CLOCK_MONOTONIC. Each output has its own frame clock
// (Handlers/Output/OutputFrames.swift). At its deadline the commits waiting on that output
// go with the frame composed then; they are presented when that frame reaches the screen:
// at the page flip on drm, at the host's frame callback on the wayland backend, and when
// the composition is done on headless, where nothing scans out. A commit superseded by the
// same surface's next commit before its frame, or on no output, is discarded.
//
// The session follows the commits that carry feedbacks or a touch answer
// (touch_router_surface_input_v1.answer): their commit-to-present and touch-to-present go
// into `msg stats`.

/// A commit whose presentation the session follows.
package struct FollowedCommit {
    package var client: ClientID
    package var surface: SurfaceID
    package var committedAt: RouterTime
    package var feedbacks: [PresentationFeedbackObject]
    /// The device times of the input events the commit shows the client's answer to, with
    /// the time of the commit that first carried each.
    package var answers: [(eventTime: Int64, committedAt: RouterTime)]

    package init(client: ClientID, surface: SurfaceID, committedAt: RouterTime, feedbacks: [PresentationFeedbackObject], answers: [Int64]) {
        self.client = client
        self.surface = surface
        self.committedAt = committedAt
        self.feedbacks = feedbacks
        self.answers = answers.map { ($0, committedAt) }
    }
}

/// What presentation feedback may ask of the server.
package protocol PresentationHandler: AnyObject {
    /// The output showing `surface` now; nil when it is not in the tree or not shown.
    func presentingOutput(of surface: SurfaceID) -> OutputID?
    /// The wl_output resources of `client` for `output`.
    func outputResources(of client: OpaquePointer, on output: OutputID) -> [OpaquePointer]
    /// A followed commit reached the screen at `time`: the statistics take it.
    func commitPresented(_ commit: FollowedCommit, at time: RouterTime)
}

package final class PresentationState {
    package init() {}
    /// Each surface's latest followed commit not yet in a frame.
    private var committed: [SurfaceID: FollowedCommit] = [:]
    /// A followed commit is not in a frame yet.
    package var awaitsFrames: Bool { !committed.isEmpty }

    /// A followed commit waits on a surface shown on no output: `discardUnshown` has work.
    package func awaitsDiscarding(_ handler: any PresentationHandler) -> Bool {
        guard !committed.isEmpty else { return false }
        return committed.keys.contains { handler.presentingOutput(of: $0) == nil }
    }
    /// The commits in each output's frame on its way to the screen.
    private var inFlight: [OutputID: [FollowedCommit]] = [:]
    /// Frames each output has shown, counted from the session's start (the `seq` sent).
    private var shownFrames: [OutputID: UInt64] = [:]

    /// A commit made `commit` current. An earlier commit of the surface still waiting is
    /// superseded: its feedbacks are discarded, and its answers are carried by this one,
    /// whose pixels show them too.
    package func committed(_ commit: FollowedCommit) {
        var commit = commit
        if let superseded = committed[commit.surface] {
            for feedback in superseded.feedbacks { feedback.discard() }
            // Bounded as one commit's are: an output that never composes (off, away) must not
            // let a client answering in a loop grow the list.
            commit.answers = Array((superseded.answers + commit.answers).suffix(SurfaceState.mostAnswers))
        }
        committed[commit.surface] = commit
    }

    /// Whether a commit waits for a frame of `output`.
    package func waiting(on output: OutputID, _ handler: any PresentationHandler) -> Bool {
        committed.keys.contains { handler.presentingOutput(of: $0) == output }
    }

    /// `output`'s frame was composed: the commits waiting on it go with it.
    package func frameComposed(on output: OutputID, _ handler: any PresentationHandler) {
        guard !committed.isEmpty else { return }
        for (surface, commit) in committed where handler.presentingOutput(of: surface) == output {
            inFlight[output, default: []].append(commit)
            committed[surface] = nil
        }
    }

    /// `output`'s frame reached the screen at `time`; `refresh` is its period (ns), and
    /// `hardwareClock` says the time is the display's own (a page flip's).
    package func frameShown(on output: OutputID, at time: RouterTime, refresh: UInt32, hardwareClock: Bool, _ handler: any PresentationHandler) {
        shownFrames[output, default: 0] += 1
        guard let commits = inFlight.removeValue(forKey: output) else { return }
        let sequence = shownFrames[output] ?? 0
        for commit in commits {
            let shown = max(time, commit.committedAt)
            for feedback in commit.feedbacks where !feedback.settled {
                feedback.present(at: shown, refresh: refresh, sequence: sequence,
                                 outputs: handler.outputResources(of: feedback.client, on: output), hardwareClock: hardwareClock)
            }
            handler.commitPresented(commit, at: shown)
        }
    }

    /// Commits on no output, or on one not shown, are discarded: nothing will present them.
    package func discardUnshown(_ handler: any PresentationHandler) {
        guard !committed.isEmpty else { return }
        for (surface, commit) in committed where handler.presentingOutput(of: surface) == nil {
            for feedback in commit.feedbacks { feedback.discard() }
            committed[surface] = nil
        }
    }

    /// `output`'s screen refused its frame: the commits in it were never shown.
    package func frameRefused(on output: OutputID) {
        for commit in inFlight.removeValue(forKey: output) ?? [] {
            for feedback in commit.feedbacks { feedback.discard() }
        }
    }

    /// An output went: its frame on the way will not be shown.
    package func outputRemoved(_ output: OutputID) {
        frameRefused(on: output)
        shownFrames[output] = nil
    }

    package static let globals = [ProtocolGlobal(interface: tr_wp_presentation_interface, version: PresentationGlobal.version, bind: PresentationGlobal.bind)]
}

package enum PresentationGlobal {
    package static let version: Int32 = 1

    package static let bind: wl_global_bind_func_t = { client, data, version, id in
        guard let resource = GlobalHost.bind(client, data, version, id, tr_wp_presentation_interface(), table, handler: { $0.presentationState }) else { return }
        wp_presentation_send_clock_id(resource, UInt32(CLOCK_MONOTONIC))
    }

    package nonisolated(unsafe) static let table = implementation(wp_presentation_interface(
        destroy: destroyRequest,
        feedback: { client, resource, surfaceResource, id in
            let presentation = WaylandObject.of(resource, as: RoomGlobal<PresentationState>.self)
            let surface = WaylandObject.of(surfaceResource, as: SurfaceObject.self)
            guard let created = createResource(client, tr_wp_presentation_feedback_interface(), version: wl_resource_get_version(resource), id: id) else { return }
            let feedback = PresentationFeedbackObject(resource: created, madeBy: presentation)
            WaylandObject.install(feedback, implementation: nil)
            surface.pending.presentationFeedbacks.append(feedback)
        }))
}

/// wp_presentation_feedback: told once, presented or discarded, then destroyed.
package final class PresentationFeedbackObject: WaylandObject {
    package private(set) var settled = false

    /// Its resource went (its client did, or it was settled): nothing may be sent to it. It
    /// stays in its commit's list, settled, until the commit is presented or discarded, so
    /// that a client dying with thousands of feedbacks costs no search.
    package override func resourceDestroyed() {
        settled = true
    }

    package func discard() {
        guard !settled else { return }
        settled = true
        wp_presentation_feedback_send_discarded(resource)
        wl_resource_destroy(resource)
    }

    package func present(at time: RouterTime, refresh: UInt32, sequence: UInt64, outputs: [OpaquePointer], hardwareClock: Bool) {
        guard !settled else { return }
        settled = true
        for output in outputs { wp_presentation_feedback_send_sync_output(resource, output) }
        let nanoseconds = max(time.nanoseconds, 0)
        let seconds = UInt64(nanoseconds / 1_000_000_000)
        var flags = WP_PRESENTATION_FEEDBACK_KIND_VSYNC.rawValue
        if hardwareClock { flags |= WP_PRESENTATION_FEEDBACK_KIND_HW_CLOCK.rawValue | WP_PRESENTATION_FEEDBACK_KIND_HW_COMPLETION.rawValue }
        wp_presentation_feedback_send_presented(resource, UInt32(truncatingIfNeeded: seconds >> 32), UInt32(truncatingIfNeeded: seconds),
                                                UInt32(nanoseconds % 1_000_000_000), refresh,
                                                UInt32(truncatingIfNeeded: sequence >> 32), UInt32(truncatingIfNeeded: sequence), flags)
        wl_resource_destroy(resource)
    }
}
