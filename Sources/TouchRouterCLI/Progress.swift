import ArgumentParser
import Foundation

/// `--progress` / `--no-progress`: benchmark runs longer than a few seconds say how far
/// they are, on standard error, so that standard output stays the table or the JSON.
struct ProgressOptions: ParsableArguments {
    @Flag(inversion: .prefixedNo, help: "Show a progress bar on standard error (default: when it is a terminal).")
    var progress: Bool?

    var shown: Bool { progress ?? (isatty(STDERR_FILENO) == 1) }

    func bar(steps: Int) -> ProgressBar {
        ProgressBar(steps: steps, shown: shown)
    }
}

/// A bar of whole steps, redrawn in place on a terminal. Steps are coarse (a scene size, a
/// phase), so each is drawn; what it says is the step about to run, since that is what
/// the wait is for.
final class ProgressBar {
    private let steps: Int
    private let shown: Bool
    private var done = 0
    private let width = 30

    init(steps: Int, shown: Bool) {
        self.steps = max(steps, 1)
        self.shown = shown
    }

    /// Runs one step, named `label` on the bar while it runs.
    func step<T>(_ label: String, _ body: () throws -> T) rethrows -> T {
        draw(label)
        defer { done = min(done + 1, steps) }
        return try body()
    }

    /// The bar full, then the line it used cleared.
    func finish() {
        guard shown else { return }
        draw("done")
        FileHandle.standardError.write(Data("\n".utf8))
    }

    private func draw(_ label: String) {
        guard shown else { return }
        let filled = done * width / steps
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let percent = done * 100 / steps
        FileHandle.standardError.write(Data("\r\u{1B}[K[\(bar)] \(percent)% \(label)".utf8))
    }
}

/// A bar of seconds, for a phase that another process carries out (`bench e2e` playing a
/// workload): `label [#######.....] 12/20 s`, redrawn from a thread of its own until
/// stopped. Phases under 3 s get none. The caller decides whether it is shown
/// (`ProgressOptions.shown`).
final class TimedProgressBar: @unchecked Sendable {
    private let lock = NSLock()
    private var running = false
    private var thread: Thread?

    func start(_ label: String, seconds: Double) {
        guard seconds >= 3 else { return }
        lock.withLock { running = true }
        let begin = Date()
        let thread = Thread { [weak self] in
            while let self, self.lock.withLock({ self.running }) {
                let elapsed = min(Date().timeIntervalSince(begin), seconds)
                let filled = Int(30 * elapsed / seconds)
                let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: 30 - filled)
                FileHandle.standardError.write(Data("\r\(label) [\(bar)] \(Int(elapsed))/\(Int(seconds.rounded())) s".utf8))
                Thread.sleep(forTimeInterval: 0.25)
            }
        }
        self.thread = thread
        thread.start()
    }

    func stop() {
        guard lock.withLock({ running }) else { return }
        lock.withLock { running = false }
        Thread.sleep(forTimeInterval: 0.3)
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
