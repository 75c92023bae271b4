import TouchRouterCore

/// What presentation feedback may ask of the session (TouchRouterProtocols/Presentation/).
extension WaylandServer: PresentationHandler {
    package func presentingOutput(of surface: SurfaceID) -> OutputID? {
        tree.isShown(surface) ? tree.outputOf(surface) : nil
    }

    package func outputResources(of client: OpaquePointer, on output: OutputID) -> [OpaquePointer] {
        outputs.first { $0.id == output }?.bindings(of: client) ?? []
    }

    package func commitPresented(_ commit: FollowedCommit, at time: RouterTime) {
        let answers = commit.answers.map { ($0.eventTime, $0.committedAt.nanoseconds) }
        guard let onPresented = hooks.onPresented else {
            stats.presented(client: commit.client, committedAt: commit.committedAt.nanoseconds, presentedAt: time.nanoseconds, answers: answers)
            return
        }
        var timelines: [EventTimeline] = []
        stats.presented(client: commit.client, committedAt: commit.committedAt.nanoseconds, presentedAt: time.nanoseconds, answers: answers) {
            timelines.append($0)
        }
        onPresented(commit.client, commit.committedAt, time, timelines)
    }
}
