import CWaylandShim
import TouchRouterCore
#if canImport(Glibc)
import Glibc
#endif

// presentation-time (protocols/presentation-time.xml): a client learns when each commit
// reached the screen, on CLOCK_MONOTONIC. A commit's feedbacks are settled at the frame tick
// after it: on a headless output the tick is the output's refresh and the frame is composed
// then, so that is its presentation time; on an output a backend shows (drm, wayland) it is
// the time the backend says the frame it took reached the screen (the page flip on drm), or
// the time it took the frame where it cannot say. A commit superseded by the same surface's
// next commit before its tick, or on no output, or not shown, is discarded.

/// What presentation feedback may ask of the server.
package protocol PresentationHandler: AnyObject {
    /// The output showing `surface` now; nil when it is not in the tree or not shown.
    func presentingOutput(of surface: SurfaceID) -> OutputID?
    /// Whether a frame of `output` is still on its way to its screen, and when the last one
    /// arrived; `refresh` is the output's refresh period in nanoseconds.
    func presentationClock(of output: OutputID) -> (inFlight: Bool, lastShown: RouterTime?, refresh: UInt32)
    /// The wl_output resources of `client` for `output`.
    func outputResources(of client: OpaquePointer, on output: OutputID) -> [OpaquePointer]
    var now: RouterTime { get }
}

package final class PresentationState {
    package init() {}
    /// Each surface's latest commit's feedbacks, not yet settled.
    private var committed: [SurfaceID: [PresentationFeedbackObject]] = [:]
    /// Frames each output has shown, counted from the session's start (the `seq` sent).
    private var shownFrames: [OutputID: UInt64] = [:]

    /// A commit made `feedbacks` current; those of an earlier commit still waiting are superseded.
    package func committed(_ feedbacks: [PresentationFeedbackObject], surface: SurfaceID) {
        for superseded in committed[surface] ?? [] { superseded.discard() }
        committed[surface] = feedbacks
    }

    /// A client's feedbacks go with it: libwayland destroys them with the client.
    package func forget(_ feedback: PresentationFeedbackObject) {
        guard let surface = feedback.surface, var list = committed[surface] else { return }
        list.removeAll { $0 === feedback }
        committed[surface] = list.isEmpty ? nil : list
    }

    /// At each frame tick: every waiting feedback whose output is not mid-flip is settled.
    package func frameTick(_ handler: any PresentationHandler) {
        guard !committed.isEmpty else { return }
        let now = handler.now
        var counted: Set<OutputID> = []
        for (surface, feedbacks) in committed {
            guard let output = handler.presentingOutput(of: surface) else {
                for feedback in feedbacks { feedback.discard() }
                committed[surface] = nil
                continue
            }
            let clock = handler.presentationClock(of: output)
            if clock.inFlight { continue }
            if counted.insert(output).inserted { shownFrames[output, default: 0] += 1 }
            let time = clock.lastShown.map { max($0, feedbacks.first?.committedAt ?? $0) } ?? now
            for feedback in feedbacks where !feedback.settled {
                feedback.present(at: time, refresh: clock.refresh, sequence: shownFrames[output] ?? 0,
                                 outputs: handler.outputResources(of: feedback.client, on: output), hardwareClock: clock.lastShown != nil)
            }
            committed[surface] = nil
        }
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
            let feedback = PresentationFeedbackObject(resource: created, madeBy: presentation, state: presentation.handler)
            WaylandObject.install(feedback, implementation: nil)
            surface.pending.presentationFeedbacks.append(feedback)
        }))
}

/// wp_presentation_feedback: told once, presented or discarded, then destroyed.
package final class PresentationFeedbackObject: WaylandObject {
    package private(set) var settled = false
    /// When its commit made it current, and the surface it was committed on.
    package var committedAt: RouterTime?
    package var surface: SurfaceID?
    private unowned let state: PresentationState

    package init(resource: OpaquePointer, madeBy presentation: WaylandObject, state: PresentationState) {
        self.state = state
        super.init(resource: resource, madeBy: presentation)
    }

    /// Its resource went (its client did, or it was settled): nothing may be sent to it.
    package override func resourceDestroyed() {
        settled = true
        state.forget(self)
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
