import Foundation

/// A progress bar on standard error for bench runs longer than a few seconds, drawn only on a
/// terminal (a log or a pipe gets nothing): `label [#######.....] 12/20 s`. Time-based: the
/// caller says how long the phase should take, and stops it when it ends.
final class BenchProgress: @unchecked Sendable {
    private let lock = NSLock()
    private var running = false
    private var thread: Thread?

    static var enabled: Bool { isatty(2) != 0 }

    func start(_ label: String, seconds: Double) {
        guard Self.enabled, seconds >= 3 else { return }
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
        guard Self.enabled, lock.withLock({ running }) else { return }
        lock.withLock { running = false }
        Thread.sleep(forTimeInterval: 0.3)
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
