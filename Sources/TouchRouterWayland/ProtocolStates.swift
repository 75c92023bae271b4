import CWaylandShim
import TouchRouterConfig
import TouchRouterProtocols

/// The state object of each protocol family's room (TouchRouterProtocols/<Family>/), and what the
/// registry filter needs to know of the globals made from the table in Globals.swift.
package final class ProtocolStates {
    /// The globals made from `globals` that only a kiosk shows, and those a privilege
    /// gates, by the global libwayland made (Privileges.swift filters them).
    package var kioskOnlyGlobals: Set<OpaquePointer> = []
    package var privilegedGlobals: [OpaquePointer: Privilege] = [:]
    package let decoration = DecorationState()
    package let idleInhibit = IdleInhibitState()
    package let fractionalScale = FractionalScaleState()
    package let activation = ActivationState()
    package let viewporter = ViewporterState()
    package let presentation = PresentationState()
    package let kdeIdle = KdeIdleState()
    package let idleNotify = IdleNotifyState()
    package let sessionLock = SessionLockState()
    package let screencopy = ScreencopyState()
    package let outputPower = OutputPowerState()
    package let layerShell = LayerShellState()
    package let foreignToplevel = ForeignToplevelState()
    package let output = OutputState()
    package let surface = SurfaceRegistry()
    package let seat: SeatState
    package let virtualInput = VirtualInputState()
    package let textInput = TextInputState()
    package let selection = SelectionState()
    package let shell = ShellState()
    package let xwayland = XWaylandState()

    package init(keymap: Keymap) {
        seat = SeatState(keymap: keymap)
    }
}
