import TouchRouterConfig
import TouchRouterCore
import TouchRouterReplay

/// One request line of the control socket, read into what it asks for: the whole of the
/// socket's grammar, and nothing else, so that it can be read (and fuzzed) apart from a session.
public enum ControlRequest: Sendable {
    case tree
    case pick(Point<GlobalSpace>)
    case pixel(Point<GlobalSpace>)
    case inject(InputEvent)
    case focus
    case ignoreInteraction(Bool)
    case trace
    /// Streams the shell's events of these topics (all of them when none is named).
    case subscribe(Set<ShellTopic>)
    /// Reads the configuration file again.
    case reload
    /// The seat's idle phase, the time without input, the dark outputs and the inhibitors.
    case idle
    /// The host's input devices: for a touchscreen, what it maps to and why.
    case devices
    /// Composes an output (the first when none is named) and writes it as a PNG to an absolute path.
    case screenshot(file: String, output: String?)
    /// A new virtual output right of the others, as sway's create_output; it is named HEADLESS-N.
    case createOutput(OutputMode)
    /// An output goes; its windows move to the first that stays.
    case removeOutput(String)
    /// An output's mode or transform changes, as `swaymsg output NAME mode …` does.
    case setOutput(String, OutputChange)
    /// The timeline's percentiles per stage, kind and client (`stats`).
    case stats
    /// Starts the statistics over (`stats reset`).
    case statsReset
    /// The events slower than the threshold, with their stages (`stats slow`).
    case statsSlow
    /// Plays a workload into the session as a touchscreen would, replying when it ends
    /// (`play touch F R S [log=PATH]`, `play recording PATH [log=PATH]`; WorkloadPlayer.swift).
    case play(Workload, log: String?)
    /// A new grant socket whose clients see exactly these privileged globals
    /// (`grant-socket virtual-input,layer-shell`; PrivilegedSockets.swift).
    case grantSocket(Set<Privilege>)
    /// Stops accepting on a grant socket and removes it; its clients keep what they have.
    case revokeSocket(String)

    public static let names = "tree, pick, pixel, screenshot, inject, trace, subscribe, reload, devices, output, stats, idle, play, focus, ignore-interaction, grant-socket or revoke-socket"

    /// Reads one line, without its newline. `time` stamps an injected event.
    public static func parse(_ line: String, time: RouterTime = RouterTime(nanoseconds: 0), device: DeviceID = DeviceID(0)) throws(ControlRequestError) -> ControlRequest {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
        guard let command = words.first else { throw ControlRequestError("empty request: expected \(names)") }
        switch command {
        case "tree": return try noArguments(.tree, words)
        case "focus": return try noArguments(.focus, words)
        case "trace": return try noArguments(.trace, words)
        case "reload": return try noArguments(.reload, words)
        case "devices": return try noArguments(.devices, words)
        case "idle": return try noArguments(.idle, words)
        case "stats":
            switch (words.count, words.count > 1 ? words[1] : "") {
            case (1, _): return .stats
            case (2, "reset"): return .statsReset
            case (2, "slow"): return .statsSlow
            default: throw ControlRequestError("stats: expected nothing, 'reset' or 'slow'")
            }
        case "subscribe":
            var topics: Set<ShellTopic> = []
            for word in words.dropFirst() {
                guard let topic = ShellTopic(rawValue: String(word)) else {
                    throw ControlRequestError("subscribe: '\(word.prefix(64))' is not an event type: expected any of \(ShellTopic.names), or none for all")
                }
                topics.insert(topic)
            }
            return .subscribe(topics.isEmpty ? Set(ShellTopic.allCases) : topics)
        case "pick": return .pick(try point(words, for: "pick"))
        case "pixel": return .pixel(try point(words, for: "pixel"))
        case "screenshot":
            // The line is split at spaces, so a path holds none; the session's working
            // directory is not the asker's, so a path is absolute (`touch-router msg` makes it so).
            guard words.count == 2 || words.count == 3 else {
                throw ControlRequestError("screenshot: expected FILE.png [OUTPUT], a path without spaces and an output name")
            }
            guard words[1].hasPrefix("/") else {
                throw ControlRequestError("screenshot: '\(words[1].prefix(256))' is not an absolute path")
            }
            return .screenshot(file: String(words[1]), output: words.count == 3 ? String(words[2]) : nil)
        case "output":
            switch (words.count, words.count > 1 ? words[1] : "") {
            case (3, "create"):
                do { return .createOutput(try OutputMode.parse(option: String(words[2]))) } catch { throw ControlRequestError("output create: \(error)") }
            case (3, "remove"):
                return .removeOutput(String(words[2].prefix(64)))
            case (_, "set") where words.count >= 3:
                do { return .setOutput(String(words[2].prefix(64)), try OutputChange.parse(Array(words.dropFirst(3)))) } catch { throw ControlRequestError("output set: \(error)") }
            default:
                throw ControlRequestError("output: expected 'create WxH[@Hz][,transform=T]', 'remove NAME' or '\(OutputChange.syntax)'")
            }
        case "play": return try WorkloadRequest.parse(words)
        case "inject":
            do {
                return .inject(try EventSyntax.parse(Array(words.dropFirst()), time: time, device: device))
            } catch {
                throw ControlRequestError("inject: \(error)")
            }
        case "grant-socket":
            guard words.count == 2 else { throw ControlRequestError("grant-socket: expected one comma-separated list of privileges, \(Privilege.names)") }
            do { return .grantSocket(try Privilege.parseList(words[1])) } catch { throw ControlRequestError("grant-socket: \(error)") }
        case "revoke-socket":
            guard words.count == 2 else { throw ControlRequestError("revoke-socket: expected the socket's path, as grant-socket gave it") }
            guard words[1].hasPrefix("/") else { throw ControlRequestError("revoke-socket: '\(words[1].prefix(256))' is not an absolute path") }
            return .revokeSocket(String(words[1]))
        case "ignore-interaction":
            guard words.count == 2, words[1] == "on" || words[1] == "off" else { throw ControlRequestError("ignore-interaction: expected on or off") }
            return .ignoreInteraction(words[1] == "on")
        default:
            throw ControlRequestError("unknown request '\(command.prefix(64))': expected \(names)")
        }
    }

    private static func noArguments(_ request: ControlRequest, _ words: [Substring]) throws(ControlRequestError) -> ControlRequest {
        guard words.count == 1 else { throw ControlRequestError("\(words[0]): expected no arguments, found '\(words[1].prefix(64))'") }
        return request
    }

    /// Two finite numbers: a point in the layout.
    private static func point(_ words: [Substring], for request: String) throws(ControlRequestError) -> Point<GlobalSpace> {
        guard words.count == 3, let x = Double(words[1]), let y = Double(words[2]), x.isFinite, y.isFinite else {
            throw ControlRequestError("\(request): expected two numbers, X Y")
        }
        return Point(x, y)
    }
}

public struct ControlRequestError: Error, CustomStringConvertible, Equatable {
    public var description: String
    package init(_ description: String) { self.description = description }
}
