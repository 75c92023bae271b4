import Foundation
import Testing

/// The clipboard and the primary selection with Debian's wl-clipboard (wl-copy, wl-paste).
/// With no data-control protocol, each takes the keyboard focus with a surface of its own
/// for a moment: the session gives a new toplevel the focus, and with it the selection.
@Suite("Copy and paste with wl-copy and wl-paste", .serialized)
struct ClipboardTests {
    static let copy = "/usr/bin/wl-copy", paste = "/usr/bin/wl-paste"

    /// Runs wl-paste (with `arguments`) to its end, 15 s at most: its exit status and what it printed.
    static func paste(_ session: RunningSession, _ arguments: [String] = [], log name: String) throws -> (status: Int32, output: String) {
        let log = session.file(name)
        let paster = try session.client([paste, "--no-newline"] + arguments, output: log)
        let deadline = Date().addingTimeInterval(15)
        while paster.isRunning, Date() < deadline { usleep(20_000) }
        if paster.isRunning { kill(paster.processIdentifier, SIGKILL) }
        paster.waitUntilExit()
        return (paster.terminationStatus, RunningSession.text(of: log))
    }

    /// Polls wl-paste until it prints `text`.
    static func waitForPaste(_ session: RunningSession, _ text: String, _ arguments: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) throws {
        var attempt = 0, last = (status: Int32(0), output: "")
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            attempt += 1
            last = try paste(session, arguments, log: "paste-\(attempt).log")
            if last.status == 0, last.output == text { return }
            usleep(100_000)
        }
        Issue.record("wl-paste \(arguments) never printed \(text.debugDescription): last status \(last.status), \(last.output.debugDescription)", sourceLocation: sourceLocation)
    }

    @Test("wl-copy text, then wl-paste prints it")
    func copyThenPaste() throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.copy), "wl-clipboard is not installed: .ci/setup installs it")
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let copier = try session.client([Self.copy, "--foreground", "hello clipboard"], output: session.file("copy.log"))
        try Self.waitForPaste(session, "hello clipboard")
        // Another copy replaces it: the first wl-copy hears `cancelled` and exits.
        _ = try session.client([Self.copy, "--foreground", "second"], output: session.file("copy2.log"))
        try Self.waitForPaste(session, "second")
        try session.wait(for: "the first wl-copy to exit, its source cancelled") { !copier.isRunning }
        #expect(try session.msg("focus").status == 0, "the session keeps running")
    }

    @Test("wl-copy --primary, then wl-paste --primary prints it; the clipboard is apart")
    func primarySelection() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        _ = try session.client([Self.copy, "--foreground", "clipboard text"], output: session.file("copy.log"))
        try Self.waitForPaste(session, "clipboard text")
        _ = try session.client([Self.copy, "--foreground", "--primary", "primary text"], output: session.file("primary.log"))
        try Self.waitForPaste(session, "primary text", ["--primary"])
        try Self.waitForPaste(session, "clipboard text")
    }

    @Test("a source killed before or during a paste: the paste ends, the session runs, a new copy works")
    func sourceKilled() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        // Killed before the paste: the selection is empty.
        let copier = try session.client([Self.copy, "--foreground", "doomed"], output: session.file("copy.log"))
        try Self.waitForPaste(session, "doomed")
        kill(copier.processIdentifier, SIGKILL)
        copier.waitUntilExit()
        try session.wait(for: "the selection to be empty") {
            let pasted = try Self.paste(session, log: "after-kill.log")
            return pasted.status != 0 && !pasted.output.contains("doomed")
        }

        // Killed while wl-paste reads 64 MiB from it: wl-paste ends, with what it had.
        let big = session.file("big.txt")
        try Data(repeating: UInt8(ascii: "x"), count: 64 << 20).write(to: big)
        let bigCopier = try session.client(["/bin/sh", "-c", "exec \(Self.copy) --foreground < \(big.path)"], output: session.file("big-copy.log"))
        try session.wait(for: "the big selection to be offered") {
            let types = try Self.paste(session, ["--list-types"], log: "types.log")
            return types.status == 0 && !types.output.isEmpty
        }
        // wl-paste's output goes through a reader that takes 4 KiB, then stops until told to go
        // on: the pipes fill, and the source's writer blocks, mid-paste, until it is killed.
        let pasteLog = session.file("big-paste.log"), go = session.file("go"), status = session.file("paste-status")
        func size(_ file: URL) -> Int { (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0 }
        let script = "{ \(Self.paste) --no-newline; echo $? > \(status.path); } | { head -c 4096; while [ ! -e \(go.path) ]; do sleep 0.05; done; cat; } > \(pasteLog.path)"
        let paster = try session.client(["/bin/sh", "-c", script], output: session.file("big-paste-errors.log"))
        try session.wait(for: "wl-paste to start reading") { size(pasteLog) >= 4096 }
        // wl-copy writes from a child it forks for each paste: the child goes too.
        let children = (try? String(contentsOfFile: "/proc/\(bigCopier.processIdentifier)/task/\(bigCopier.processIdentifier)/children", encoding: .utf8)) ?? ""
        for child in children.split(separator: " ").compactMap({ Int32($0) }) { kill(child, SIGKILL) }
        kill(bigCopier.processIdentifier, SIGKILL)
        bigCopier.waitUntilExit()
        _ = FileManager.default.createFile(atPath: go.path, contents: nil)
        try session.wait(for: "wl-paste to end") { !paster.isRunning }
        #expect(size(pasteLog) < 64 << 20, "the paste ends short, its source killed mid-paste")
        #expect(!RunningSession.text(of: status).isEmpty, "wl-paste ended by itself")
        #expect(try session.msg("focus").status == 0, "the session keeps running")

        _ = try session.client([Self.copy, "--foreground", "afterwards"], output: session.file("copy3.log"))
        try Self.waitForPaste(session, "afterwards")
    }
}
