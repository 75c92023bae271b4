import TouchRouterCore

/// What the server keeps for its outputs besides the list of them: the outputs removed and
/// waiting for their globals to go (OutputLifecycle.swift), the next output's number, each
/// output's software framebuffer (OutputComposition.swift), and where the frames of the
/// outputs a backend shows go, with the damage not yet shown (OutputPresentation.swift).
package final class OutputState {
    /// Outputs removed while the server runs, kept until their globals are destroyed.
    package var retiredOutputs: [VirtualOutput] = []
    package var retirementTimer: OneShotTimer?
    package var nextOutput: UInt32 = 1
    /// Each output's software framebuffer, made at its first composition.
    package var composers: [OutputID: OutputComposer] = [:]
    /// Where each output's composed frames go, for outputs a backend shows.
    package var presenters: [OutputID: OutputPresenter] = [:]
    package var unpresented: [OutputID: UnpresentedDamage] = [:]
    /// Each output's own frame clock (OutputFrames.swift).
    package var frameClocks: [OutputID: OutputFrameClock] = [:]
    /// A frame clock of a screen may be quiet (OutputFrames.swift): each settle looks whether
    /// its picture's stamp changed.
    package var someFrameClockQuiet = false
    /// Outputs the idle timer dimmed or darkened; the others are on.
    package var power: [OutputID: OutputPower] = [:]
    /// Sets modes on the screens (OutputReconfiguration.swift); nil: any mode is taken.
    package weak var modeSetter: (any OutputModeSetter)?
    /// `[[output]]` tables apply: the display backend is attached.
    package var rulesApply = false
}
