/// The words of `play` (docs/benchmarks.md, "End to end"), read apart from a session:
///   play touch FINGERS RATE SECONDS [log=PATH]
///   play recording PATH [log=PATH]
/// Paths are absolute and without spaces (`touch-router msg` makes relative ones absolute).
package enum WorkloadRequest {
    package static let usage = "play: expected 'touch FINGERS RATE SECONDS [log=PATH]' or 'recording PATH [log=PATH]'"

    package static func parse(_ words: [Substring]) throws(ControlRequestError) -> ControlRequest {
        guard words.count >= 2 else { throw ControlRequestError(usage) }
        var rest = Array(words.dropFirst(2))
        var log: String?
        if let last = rest.last, last.hasPrefix("log=") {
            log = try absolute(String(last.dropFirst(4)), what: "log")
            rest.removeLast()
        }
        switch words[1] {
        case "touch":
            guard rest.count == 3 else { throw ControlRequestError(usage) }
            guard let fingers = Int(rest[0]), Workload.fingerRange.contains(fingers) else {
                throw ControlRequestError("play touch: FINGERS must be 1 to 10, found '\(rest[0].prefix(32))'")
            }
            guard let rate = Int(rest[1]), Workload.rateRange.contains(rate) else {
                throw ControlRequestError("play touch: RATE must be 1 to 1000 reports a second, found '\(rest[1].prefix(32))'")
            }
            guard let seconds = Double(rest[2]), seconds.isFinite, Workload.secondsRange.contains(seconds) else {
                throw ControlRequestError("play touch: SECONDS must be 0.01 to 600, found '\(rest[2].prefix(32))'")
            }
            return .play(.touch(fingers: fingers, rate: rate, seconds: seconds), log: log)
        case "recording":
            guard rest.count == 1 else { throw ControlRequestError(usage) }
            return .play(.recording(path: try absolute(String(rest[0]), what: "recording")), log: log)
        default:
            throw ControlRequestError(usage)
        }
    }

    private static func absolute(_ path: String, what: String) throws(ControlRequestError) -> String {
        guard path.hasPrefix("/") else { throw ControlRequestError("play: the \(what) '\(path.prefix(256))' is not an absolute path") }
        return path
    }
}
