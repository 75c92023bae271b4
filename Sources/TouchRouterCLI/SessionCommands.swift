import ArgumentParser
import Foundation
import TouchRouterBackends
import TouchRouterConfig
import TouchRouterCore
import TouchRouterLibinput
import TouchRouterLibseat
import TouchRouterWayland

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Runs a headless Wayland session with virtual outputs, and its control socket.",
        discussion: """
            With a command, WAYLAND_DISPLAY and TOUCH_ROUTER_SOCKET are exported to it and the session ends \
            when it exits, with its exit status. Without one, both are printed on the first two lines (and \
            DISPLAY on a third when [xwayland] enables X11 apps) and the session runs until SIGINT or SIGTERM. The configuration is --config FILE, else \
            $XDG_CONFIG_HOME/touch-router/config.toml (~/.config/… without XDG_CONFIG_HOME) when it exists; \
            a file with an error stops the command with its file:line:column. SIGHUP or 'msg reload' reads it again.
            """)

    @Option(help: "Where outputs are shown and input comes from: drm (the screens and input devices of this seat), wayland (a window on the host compositor of WAYLAND_DISPLAY), or headless (virtual outputs). Default: wayland when WAYLAND_DISPLAY is set, else drm when a seat can be had, else headless.")
    var backend: BackendKind?

    @Option(name: .customLong("output"), help: "A virtual output, WxH[@Hz][,transform=normal|90|180|270|flipped|flipped-90|flipped-180|flipped-270]; repeat for more, placed left to right (default 1920x1080@60).")
    var outputs: [String] = []

    @Flag(help: "The first toplevel fills the first output, as in cage.")
    var kiosk = false

    @Option(help: "The XKB layout (default: XKB_DEFAULT_LAYOUT, else xkbcommon's default).")
    var keyboardLayout: String?

    @Option(help: "The TOML configuration file (README, \"Configuration\"); default: $XDG_CONFIG_HOME/touch-router/config.toml if it exists.")
    var config: String?

    @Option(name: .customLong("input-device"), help: "A kernel input device to read through libinput, /dev/input/eventN; repeat for more. A touchscreen drives the output [[touchscreen]] names, else the first output.")
    var inputDevices: [String] = []

    @Option(help: "Where input devices come from: udev (every input device of the seat, added and removed as they come and go, opened through libseat: seatd, logind, or LIBSEAT_BACKEND=builtin as root) or path (only the --input-device nodes). Default: udev on the drm backend without --input-device, else path.")
    var input: InputKind?

    @Flag(help: "Restart the command when it exits, with a growing delay, and show [supervise] fallback after too many failures; ping clients' windows and act on hung ones ([supervise] in touch-router(5)). The session no longer ends with the command. Without a command, [supervise] command is run.")
    var supervise = false

    @Option(help: "Privileges for the command alone, comma-separated: virtual-input, input-method, layer-shell, foreign-toplevel. Its first connection is a socket the session hands it (WAYLAND_SOCKET), whose client sees exactly these privileged globals, whatever [privileges] says.")
    var grant: String?

    @Argument(parsing: .postTerminator, help: "The command to run in the session.")
    var command: [String] = []

    func run() throws {
        var options = WaylandServer.Options()
        let kind = backend ?? BackendKind.automatic(environment: ProcessInfo.processInfo.environment)
        // The drm and wayland backends read --output themselves: their outputs have names.
        if kind == .headless, !outputs.isEmpty {
            options.outputs = try outputs.map { text in
                do { return try OutputMode.parse(option: text) } catch { throw ValidationError("\(error)") }
            }
        }
        options.kiosk = kiosk
        options.keyboardLayout = keyboardLayout
        var commandGrants: Set<Privilege>?
        if let grant {
            do { commandGrants = try Privilege.parseList(grant) } catch { throw ValidationError("--grant: \(error)") }
            guard !command.isEmpty else { throw ValidationError("--grant: there is no command to grant them to (touch-router run --grant LIST -- COMMAND)") }
        }
        try reportingFailures {
            // The configuration before anything else: a bad file starts nothing.
            var configuration = ServerConfiguration()
            var source: ConfigurationSource?
            do {
                if let config {
                    source = ConfigurationSource(path: config, explicit: true)
                    configuration = try ServerConfiguration.load(path: config)
                } else if let path = ServerConfiguration.defaultPath(environment: ProcessInfo.processInfo.environment) {
                    source = ConfigurationSource(path: path, explicit: false)
                    if FileManager.default.fileExists(atPath: path) { configuration = try ServerConfiguration.load(path: path) }
                }
            } catch let error as ConfigurationError {
                throw Failure(description: "touch-router run: \(error)")
            }
            // [supervise] command alone supervises too; --supervise needs a command from somewhere.
            var supervision: SupervisionSettings?
            if supervise || configuration.supervise.map({ !$0.command.isEmpty && command.isEmpty }) == true {
                supervision = configuration.supervise ?? SupervisionSettings()
                if command.isEmpty, supervision?.command.isEmpty != false {
                    throw Failure(description: "touch-router run: --supervise: there is no command to supervise (touch-router run --supervise -- COMMAND, or [supervise] command in the configuration)")
                }
            }
            do {
                var launch = ServerLaunch(backend: kind, options: options, outputOptions: outputs, inputDevices: inputDevices, input: input,
                                           command: command, commandGrants: commandGrants, configuration: configuration, source: source)
                launch.supervise = supervision
                let status = try launch.run()
                if status != 0 { throw ExitCode(status) }
            } catch let error as WaylandError {
                throw Failure(description: "touch-router run: \(error)")
            } catch let error as LibinputError {
                throw Failure(description: "touch-router run: \(error)")
            } catch let error as SeatError {
                throw Failure(description: "touch-router run: \(error)")
            }
        }
    }
}

extension BackendKind: ExpressibleByArgument {}
extension InputKind: ExpressibleByArgument {}

struct Msg: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sends one request to a running session's control socket and prints the JSON reply.",
        discussion: """
            Requests: tree; pick X Y; pixel X Y; screenshot FILE.png [OUTPUT] (a PNG of what the output, the first by \
            default, shows); inject EVENT (the script syntax without the time, for example \
            'inject touch down 0 100 200'); focus; ignore-interaction on|off; trace (streams until interrupted); \
            subscribe [gesture|action|emit|focus|client|unhandled|reload|idle|lock|app ...] (streams JSON lines until interrupted; \
            every type without one); reload (reads the configuration file again); devices (each input device: \
            its kinds and node, and for a touchscreen the output or region it maps to, why, and its calibration); \
            output create WxH[@Hz][,transform=T] (a new virtual output, HEADLESS-N, right of the others); \
            output remove NAME (its windows move to the first output that stays); play touch FINGERS RATE SECONDS \
            [log=PATH] or play recording FILE.yml [log=PATH] (plays a workload as a touchscreen would, replying \
            when done; absolute paths; see bench e2e); grant-socket PRIVILEGE[,PRIVILEGE...] (a new socket, \
            its path in the reply, whose clients see exactly those of virtual-input, input-method, layer-shell \
            and foreign-toplevel: WAYLAND_DISPLAY=PATH); revoke-socket PATH (stops accepting on it and removes \
            it; clients connected keep their grants).
            """)

    @Option(help: "The control socket (default: TOUCH_ROUTER_SOCKET).")
    var socket: String?

    @Argument(parsing: .captureForPassthrough, help: "The request's words.")
    var words: [String] = []

    func run() throws {
        try reportingFailures {
            guard let path = socket ?? ProcessInfo.processInfo.environment["TOUCH_ROUTER_SOCKET"] else {
                throw Failure(description: "touch-router msg: no socket: pass --socket or set TOUCH_ROUTER_SOCKET (touch-router run prints it)")
            }
            guard !words.isEmpty else { throw Failure(description: "touch-router msg: no request: expected \(ControlRequest.names)") }
            var words = words
            // The session has its own working directory: it is given the path this one means.
            if words.count >= 2, words[0] == "screenshot", !words[1].hasPrefix("/") {
                words[1] = FileManager.default.currentDirectoryPath + "/" + words[1]
            }
            let ok = try ControlClient.send(words.joined(separator: " "), to: path) { line in
                print(line)
                fflush(nil)
            }
            if !ok { throw ExitCode.failure }
        }
    }
}
