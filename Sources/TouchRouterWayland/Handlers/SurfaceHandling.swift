import TouchRouterCore

/// What the surface family's objects may ask of the server (TouchRouterProtocols/Surface/): the
/// tree's side of a commit is SurfaceMapping.swift's.
extension WaylandServer: SurfaceHandler {
    package func surfaceStateApplied(_ surface: SurfaceObject, _ state: SurfaceState) {
        if !state.presentationFeedbacks.isEmpty || !state.answers.isEmpty, let client = surface.clientRecord?.id {
            protocols.presentation.committed(FollowedCommit(client: client, surface: surface.id, committedAt: clock.now(),
                                                            feedbacks: state.presentationFeedbacks, answers: state.answers))
        }
        pointerConstraintsCommitted(surface)
        surfaceCommitted(surface, frameCallbacks: state.frameCallbacks)
        if surface.inTree, let output = tree.outputOf(surface.id) { commitArrived(on: output) }
        else if protocols.selection.dragAndDrop?.icon === surface { pictureMayHaveChanged() }
        inputPolicyCommitted(surface, state.inputPolicy)
    }

    package func viewport(of surface: SurfaceObject) -> ViewportObject? {
        protocols.viewporter.viewports.extension(of: surface)
    }

    /// After a commit made `change` current (and the surface was mapped if it was due): the
    /// core follows. A surface out of the tree takes its policies when it enters
    /// (`propertiesOnEntry`); its deferral is handed over at its first commit in the tree.
    private func inputPolicyCommitted(_ surface: SurfaceObject, _ change: InputPolicyChange) {
        let id = surface.id
        let entered = surface.inTree && surface.touchInput?.surfaceWasInTree == false
        surface.touchInput?.surfaceWasInTree = surface.inTree
        guard surface.inTree, !change.isEmpty || entered else { return }
        if change.changesProperties {
            do {
                try tree.updateProperties(id) { surface.current.inputPolicy.apply(to: &$0) }
            } catch {
                report("input policies of \(id): \(error)")
            }
        }
        if let rects = change.gestureDeferral ?? (entered ? surface.current.inputPolicy.gestureDeferral : nil) {
            router.setGestureDeferral(rects, on: id)
        }
        router.dispatchAll()
    }
}
