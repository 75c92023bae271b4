import TouchRouterCore

/// The window shell's state across its objects (xdg-shell, the v6 shell, wl_shell): the popups
/// holding a grab, how many toplevels were placed, the activated toplevel, and the touches
/// dragging a window.
package final class ShellState {
    /// Mapped popups that asked for a grab, innermost last; they hold the core's client grab.
    package var grabbingPopups: [XdgPopupObject] = []
    /// Toplevels placed so far: each new one cascades from the last.
    package var placedToplevels = 0
    /// The toplevel whose configures say activated: the one holding the keyboard focus.
    package weak var activeToplevel: XdgToplevelObject?
    /// Touches that drag a window (InteractiveMove.swift), by touch.
    package var touchMoves: [TouchID: TouchMove] = [:]
}
