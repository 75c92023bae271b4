import Foundation
import Testing

/// The session's two streams, `msg trace` and `msg subscribe`, left running beside a test
/// with their lines collected in a log.
extension RunningSession {
    /// `msg subscribe TYPES…` (every type without any), once its reply has come.
    func subscribe(_ types: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) throws -> URL {
        let log = file("subscriber-\(UUID().uuidString.prefix(4)).log")
        _ = try client([ToolRun.executable.path, "msg", "--socket", controlSocket, "subscribe"] + types, output: log)
        try wait(for: "the subscription to be answered") { RunningSession.text(of: log).contains("\"subscribed\"") }
        return log
    }

    /// `msg trace`, once it has started.
    func startTrace() throws -> URL {
        let log = file("trace-\(UUID().uuidString.prefix(4)).log")
        _ = try client([ToolRun.executable.path, "msg", "--socket", controlSocket, "trace"], output: log)
        try wait(for: "the trace to start") { RunningSession.text(of: log).contains("\"tracing\":true") }
        return log
    }

    /// A stream's lines read as JSON objects (the reply to the request included).
    static func objects(of log: URL) -> [[String: Any]] {
        text(of: log).split(separator: "\n").compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
    }
}
