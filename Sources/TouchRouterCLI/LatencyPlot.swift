import Foundation

/// `bench route --plot FILE.svg`: each stage's HDR percentile series written to a temporary
/// JSON file, drawn by the repository's tools/plot-latency.py with matplotlib (Debian:
/// python3-matplotlib) rather than by a hand-written SVG writer.
enum LatencyPlot {
    static let scriptName = "tools/plot-latency.py"

    static func write(_ runs: [RouteStages], to output: String) throws {
        let series: String
        if runs.count == 1 {
            series = runs[0].plotJSON
        } else {
            // Several scenes: one line per scene and interval.
            let entries = runs.flatMap { run in
                RouteStages.intervals.map { interval in
                    "\"\(run.leaves) leaves: \(interval.name)\":[" + run.series[interval]!.map { "[\($0.percentile),\($0.nanoseconds)]" }.joined(separator: ",") + "]"
                }
            }
            series = "{\"title\":\"touch-router bench route: \(runs[0].fingers) fingers at \(runs[0].rateHz) Hz\",\"unit\":\"ns\",\"series\":{" + entries.joined(separator: ",") + "}}"
        }
        try write(seriesJSON: series, to: output)
    }

    /// Draws `series` (tools/plot-latency.py's SERIES.json) into `output`.
    static func write(seriesJSON series: String, to output: String) throws {
        let script = try findScript()
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("touch-router-plot-\(getpid()).json")
        defer { try? FileManager.default.removeItem(at: temporary) }
        do {
            try Data(series.utf8).write(to: temporary)
        } catch {
            throw Failure(description: "\(temporary.path): error: cannot write the plot's series: \(error)")
        }
        let python = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : "python3"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [python, script, temporary.path, output]
        let errors = Pipe()
        process.standardError = errors
        do {
            try process.run()
        } catch {
            throw Failure(description: "\(output): error: cannot run \(python) for the plot: \(error)")
        }
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = String(decoding: message, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw Failure(description: "\(output): error: \(script) failed (status \(process.terminationStatus); it needs matplotlib, Debian: python3-matplotlib): \(text.split(separator: "\n").last.map(String.init) ?? "")")
        }
    }

    /// $TOUCH_ROUTER_PLOT_SCRIPT, else tools/plot-latency.py in a directory above the
    /// executable (the repository, for .build/…/touch-router), else in the current directory.
    static func findScript() throws -> String {
        if let path = ProcessInfo.processInfo.environment["TOUCH_ROUTER_PLOT_SCRIPT"], !path.isEmpty { return path }
        var directory = (Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])).resolvingSymlinksInPath().deletingLastPathComponent()
        while directory.path != "/" && !directory.path.isEmpty {
            let candidate = directory.appendingPathComponent(scriptName).path
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        let local = FileManager.default.currentDirectoryPath + "/" + scriptName
        if FileManager.default.fileExists(atPath: local) { return local }
        throw Failure(description: "error: --plot needs \(scriptName) from the repository: set TOUCH_ROUTER_PLOT_SCRIPT to its path, or run from the repository")
    }
}
