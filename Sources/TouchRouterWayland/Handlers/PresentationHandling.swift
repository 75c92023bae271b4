import TouchRouterCore

/// What presentation feedback may ask of the session (TouchRouterProtocols/Presentation/).
extension WaylandServer: PresentationHandler {
    package func presentingOutput(of surface: SurfaceID) -> OutputID? {
        tree.isShown(surface) ? tree.outputOf(surface) : nil
    }

    package func presentationClock(of output: OutputID) -> (inFlight: Bool, lastShown: RouterTime?, refresh: UInt32) {
        let millihertz = outputs.first { $0.id == output }?.mode.refreshMilliHertz ?? 60_000
        let refresh = UInt32(clamping: 1_000_000_000_000 / Int64(max(millihertz, 1)))
        guard let presenter = protocols.output.presenters[output] else { return (false, nil, refresh) }
        return (!presenter.readyForFrame, presenter.lastShown, refresh)
    }

    package func outputResources(of client: OpaquePointer, on output: OutputID) -> [OpaquePointer] {
        outputs.first { $0.id == output }?.bindings(of: client) ?? []
    }
}
