import TouchRouterConfig
import TouchRouterCore
import TouchRouterLibinput
import TouchRouterLibseat
import TouchRouterWayland
import TouchRouterXWayland

/// `touch-router run --input`: where input devices come from.
public enum InputKind: String, CaseIterable, Sendable {
    /// Every input device of the seat, through libinput's udev backend on a libseat seat.
    case udev
    /// Only the `--input-device` nodes, through libinput's path backend.
    case path
}

/// `touch-router run` once its options are parsed: the display backend chosen, the input
/// sources wired to the session, and the session run. The order is the one that stops
/// early: the configuration is read already (the CLI reads it first); devices, then the
/// card and the seat, then the backend's outputs, all before any socket exists.
public struct ServerLaunch {
    public var backend: BackendKind
    /// The session's options; the drm and wayland backends write their outputs into them.
    public var options: WaylandServer.Options
    /// The `--output` texts, for the drm and wayland backends (headless has them in `options`).
    public var outputOptions: [String]
    /// `--input-device`: nodes read through libinput's path backend.
    public var inputDevices: [String]
    /// `--input`; nil chooses udev on the drm backend without `--input-device`, else path.
    public var input: InputKind?
    public var command: [String]
    public var commandGrants: Set<Privilege>?
    public var configuration: ServerConfiguration
    public var source: ConfigurationSource?
    /// `--supervise` or `[supervise] command`: the command is restarted when it exits.
    public var supervise: SupervisionSettings?

    public init(backend: BackendKind, options: WaylandServer.Options, outputOptions: [String], inputDevices: [String], input: InputKind?,
                command: [String], commandGrants: Set<Privilege>?, configuration: ServerConfiguration, source: ConfigurationSource?) {
        self.backend = backend
        self.options = options
        self.outputOptions = outputOptions
        self.inputDevices = inputDevices
        self.input = input
        self.command = command
        self.commandGrants = commandGrants
        self.configuration = configuration
        self.source = source
    }

    /// Runs the session until its command exits or a signal stops it, and returns the
    /// command's exit status (0 without one). Throws `WaylandError`, `LibinputError` or
    /// `SeatError`, and the backend's failure (its host went away) once the session ended.
    public func run() throws -> Int32 {
        var options = self.options
        // Devices first: one that cannot be opened stops everything before a socket exists.
        let inputBackend = inputDevices.isEmpty ? nil : try LibinputBackend(paths: inputDevices, absoluteArea: Rect(x: 0, y: 0, width: 1, height: 1))
        let inputKind = input ?? (backend == .drm && inputDevices.isEmpty ? .udev : .path)
        // No card is said before a seat is asked for: the seat would not help.
        if backend == .drm { try DRMBackendSetup.checkCards() }
        // One seat for the process: the drm backend opens its card through it, udev input its devices.
        let seat = inputKind == .udev || backend == .drm ? try LibseatSession() : nil
        let display = try DisplayBackendSetup.prepare(backend, options: &options, outputOptions: outputOptions, seat: seat)
        let runner = try ServerRunner(options: options, command: command, commandGrants: commandGrants, configuration: configuration, source: source, supervise: supervise)
        let server = runner.server
        try display.attach(to: server)
        // Modes are set on screens from here on: `[[output]]` tables apply now.
        server.startApplyingOutputRules()
        if let hostInput = display.inputSource { try server.addInputSource(hostInput) }
        if let inputBackend, let area = server.firstOutputArea {
            inputBackend.absoluteArea = area
            configureInput(inputBackend, server: server, configuration: configuration)
            try server.addInputSource(inputBackend)
        }
        if let seat { try watchSeat(seat, server: server) }
        let seatInput = try seat.flatMap { seat in
            inputKind == .udev ? try startSeatInput(server: server, seat: seat, configuration: configuration) : nil
        }
        // After the outputs, so that Xwayland's first screen has them; before the command, which gets DISPLAY.
        // It ends itself as the server shuts down (ServerHooks.onShutdown), while the loop it watches in lives.
        let xwayland = configuration.xwayland == .off ? nil : try XWayland(server: server, mode: configuration.xwayland)
        runner.x11Display = xwayland?.displayName
        let status = try withExtendedLifetime((seat, seatInput, display, xwayland)) { try runner.run() }
        if let failure = display.failure { throw failure }
        return status
    }
}
