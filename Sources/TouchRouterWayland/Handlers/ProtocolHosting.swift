import TouchRouterProtocols

/// The server as the protocol layer's host (TouchRouterProtocols/GlobalHost.swift): every
/// client's accounting, and the states of the rooms whose binds need only their state. The
/// rooms' handlers are conformed to each in its own file of this folder.
extension WaylandServer: ProtocolHost {
    package var presentationState: PresentationState { protocols.presentation }
    package var viewporterState: ViewporterState { protocols.viewporter }
    package var idleInhibitState: IdleInhibitState { protocols.idleInhibit }
    package var foreignToplevelState: ForeignToplevelState { protocols.foreignToplevel }
}
