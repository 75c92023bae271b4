import TouchRouterCore

/// The callbacks through which others hear what the server does, set by whoever owns them:
/// the host's input backends, the runner, the control socket's trace. Each is called on the
/// server's loop thread.
public final class ServerHooks {
    public init() {}

    deinit { flushHook.release() }

    /// Hears each flush of the clients, after `stats`: the control socket's trace stamps
    /// the records it held back with it.
    public var onFlushed: ((RouterTime) -> Void)? {
        get { flushHook.pointee }
        set { flushHook.pointee = newValue }
    }
    /// Whether anything hears flushes, asked after every input write: behind a pointer, as
    /// a stored var it paid an exclusivity check each time.
    public var hearsFlushes: Bool { flushHook.pointee != nil }
    private let flushHook = UncheckedState<((RouterTime) -> Void)?>(nil)
    /// Hears each client's receipt report with the events it matched (`seq`s), while the
    /// control socket traces.
    public var onReceipt: ((ClientID, Int64, Int64, [UInt64]) -> Void)?
    /// Hears each followed commit presented (its client, commit and present times), with the
    /// input events it answered, their timelines carrying the committed and presented stages.
    public var onPresented: ((ClientID, RouterTime, RouterTime, [EventTimeline]) -> Void)?
    /// The host's input devices as JSON objects, for `msg devices` (set by the host).
    public var deviceReport: (() -> [String])?
    /// Called when the keymap's state lights other LEDs (Caps Lock pressed), for the input
    /// backend to set them on the keyboards.
    public var onKeyboardLEDs: ((KeyboardLEDs) -> Void)?
    /// Called when an output came or went, or a reload may have changed the `[[touchscreen]]`
    /// rules: the input backends choose their touchscreens' mappings again.
    public var onTouchscreenLayoutChanged: (() -> Void)?
    /// Hears of a client found hung (true) or answering again (false), and of one
    /// disconnected for a socket that stayed full (true, reason "socket-full").
    public var onResponsiveness: ((ClientResponsiveness, Bool) -> Void)?
    /// Hears of each toplevel mapped (for sd_notify's READY=1), with its client's pid.
    public var onToplevelMapped: ((Int32) -> Void)?
    /// Called as `shutdown` begins, while the loop and its sources still exist: what watches
    /// descriptors in it (Xwayland's process and sockets) lets them go.
    public var onShutdown: [() -> Void] = []
}
