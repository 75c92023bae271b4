import ArgumentParser
import Foundation

/// `--progress` / `--no-progress`: benchmark runs longer than a few seconds say how far
/// they are, on standard error, so that standard output stays the table or the JSON.
struct ProgressOptions: ParsableArguments {
    @Flag(inversion: .prefixedNo, help: "Show a progress bar on standard error (default: when it is a terminal).")
    var progress: Bool?

    func bar(steps: Int) -> ProgressBar {
        ProgressBar(steps: steps, shown: progress ?? (isatty(STDERR_FILENO) == 1))
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
