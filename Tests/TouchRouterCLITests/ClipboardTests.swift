import Foundation
import Testing

/// The clipboard and the primary selection with Debian's wl-clipboard (wl-copy, wl-paste).
/// With no data-control protocol, each takes the keyboard focus with a surface of its own
/// for a moment: the session gives a new toplevel the focus, and with it the selection.
/// Then real applications (issue 14): GTK 3's zenity on either side, and foot to foot.
@Suite("Copy and paste with wl-copy and wl-paste, GTK 3 (zenity) and foot", .serialized)
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

    // MARK: A real toolkit application: GTK 3's `zenity --entry`, which prints its entry's text when Enter is pressed.

    /// Starts `zenity --entry` (with `arguments`) and waits until its window is mapped and holds the keyboard focus.
    static func entry(_ session: RunningSession, _ arguments: [String] = [], log name: String) throws -> Process {
        let zenity = try session.client(["zenity", "--entry", "--text", "Text"] + arguments, output: session.file(name), environment: ["GDK_BACKEND": "wayland"])
        try session.wait(for: "zenity to map and take the keyboard focus") {
            let window = try session.toplevels().first { $0["mapped"] as? Bool == true }
            return try window != nil && session.msg("focus").json["keyboard"] as? Int == window?["id"] as? Int
        }
        return zenity
    }

    /// Ctrl with `key` (a `KEY_` name without the prefix), as a person presses it.
    static func control(_ key: String) -> [String] {
        ["key press KEY_LEFTCTRL", "key press KEY_\(key)", "key release KEY_\(key)", "key release KEY_LEFTCTRL"]
    }

    /// Enter; then zenity's exit status and what it printed.
    static func enter(_ session: RunningSession, _ zenity: Process, log name: String) throws -> (status: Int32, output: String) {
        try session.inject(["key press KEY_ENTER", "key release KEY_ENTER"])
        try session.wait(for: "zenity to end on Enter") { !zenity.isRunning }
        if zenity.isRunning { kill(zenity.processIdentifier, SIGKILL) }
        zenity.waitUntilExit()
        // GTK's own warnings go to the same log; the entry's text is its last line.
        let lines = RunningSession.text(of: session.file(name)).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        return (zenity.terminationStatus, lines.dropLast().last ?? "")
    }

    @Test("paste into GTK: wl-copy's text, Ctrl+V in zenity's entry, Enter: zenity prints it")
    func pasteIntoGTK() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        _ = try session.client([Self.copy, "--foreground", "from wl-copy"], output: session.file("copy.log"))
        try Self.waitForPaste(session, "from wl-copy")
        let zenity = try Self.entry(session, log: "zenity.log")
        try session.inject(Self.control("V"))
        let ended = try Self.enter(session, zenity, log: "zenity.log")
        #expect(ended.status == 0 && ended.output == "from wl-copy", "zenity's log:\n\(RunningSession.text(of: session.file("zenity.log")))")
    }

    @Test("copy from GTK: Ctrl+A, Ctrl+C in zenity's entry; wl-paste prints the entry's text while zenity, the source, runs")
    func copyFromGTK() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let zenity = try Self.entry(session, ["--entry-text", "gtk text"], log: "zenity.log")
        try session.inject(Self.control("A") + Self.control("C"))
        try Self.waitForPaste(session, "gtk text")
        #expect(zenity.isRunning, "zenity, the source, still runs")
        // The paste took the focus from zenity for a moment; it has it back and the selection is its own still.
        try Self.waitForPaste(session, "gtk text")
        // SIGKILL: a client of the test process starts with SIGTERM blocked.
        kill(zenity.processIdentifier, SIGKILL)
        zenity.waitUntilExit()
        try session.wait(for: "the selection to be empty, its source gone") {
            let pasted = try Self.paste(session, log: "after-zenity.log")
            return pasted.status != 0 && !pasted.output.contains("gtk text")
        }
    }

    @Test("GTK the source, killed mid-paste: wl-paste ends short, the session runs, and wl-copy's next text pastes into GTK")
    func gtkSourceKilledMidPaste() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        // 2 MiB in lines of 64 (GtkTextView takes many short lines well), more than the pipes between
        // GTK and the stalled reader hold (the offer's pipe, wl-paste's cat, its output's pipe).
        let big = session.file("big.txt"), line = String(repeating: "y", count: 63) + "\n"
        let whole = String(repeating: line, count: (2 << 20) / 64)
        try Data(whole.utf8).write(to: big)
        let zenity = try session.client(["zenity", "--text-info", "--editable", "--filename", big.path], output: session.file("zenity.log"), environment: ["GDK_BACKEND": "wayland"])
        var window: [String: Any] = [:]
        try session.wait(for: "zenity to map and take the keyboard focus") {
            window = try session.toplevels().first { $0["mapped"] as? Bool == true } ?? [:]
            return try !window.isEmpty && session.msg("focus").json["keyboard"] as? Int == window["id"] as? Int
        }
        // A click in the text view gives it GTK's focus; then Ctrl+A, Ctrl+C copies the whole text.
        let position = window["position"] as? [Int] ?? [0, 0], extent = window["size"] as? [Int] ?? [0, 0]
        try session.inject(["pointer motion \(position[0] + extent[0] / 2) \(position[1] + extent[1] / 3)", "pointer button press BTN_LEFT", "pointer button release BTN_LEFT"])
        try session.inject(Self.control("A") + Self.control("C"))
        try session.wait(for: "zenity's text to be offered") {
            let types = try Self.paste(session, ["--list-types"], log: "types.log")
            return types.status == 0 && types.output.contains("text/plain")
        }
        // As in sourceKilled: wl-paste's output goes through a reader that takes 4 KiB and then
        // stops until told to go on, so that GTK's writing stalls mid-paste, until it is killed.
        let pasteLog = session.file("big-paste.log"), go = session.file("go"), status = session.file("paste-status")
        func size(_ file: URL) -> Int { (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0 }
        let script = "{ \(Self.paste) --no-newline; echo $? > \(status.path); } | { head -c 4096; while [ ! -e \(go.path) ]; do sleep 0.05; done; cat; } > \(pasteLog.path)"
        let paster = try session.client(["/bin/sh", "-c", script], output: session.file("big-paste-errors.log"))
        try session.wait(for: "wl-paste to start reading") { size(pasteLog) >= 4096 }
        usleep(300_000)
        kill(zenity.processIdentifier, SIGKILL)
        zenity.waitUntilExit()
        _ = FileManager.default.createFile(atPath: go.path, contents: nil)
        try session.wait(for: "wl-paste to end") { !paster.isRunning }
        let pasted = RunningSession.text(of: pasteLog)
        #expect(pasted.count >= 4096 && pasted.count < whole.count, "the paste ends short, its source killed mid-paste: \(pasted.count) of \(whole.count)")
        #expect(whole.hasPrefix(pasted), "what came is the start of the text")
        #expect(!RunningSession.text(of: status).isEmpty, "wl-paste ended by itself")
        #expect(try session.msg("focus").status == 0, "the session keeps running")

        // Afterwards, wl-copy to GTK.
        _ = try session.client([Self.copy, "--foreground", "afterwards"], output: session.file("copy2.log"))
        try Self.waitForPaste(session, "afterwards")
        let entry = try Self.entry(session, log: "entry.log")
        try session.inject(Self.control("V"))
        let ended = try Self.enter(session, entry, log: "entry.log")
        #expect(ended.status == 0 && ended.output == "afterwards", "zenity's log:\n\(RunningSession.text(of: session.file("entry.log")))")
    }

    @Test("foot to foot: a word double-clicked in one foot, Ctrl+Shift+C; Ctrl+Shift+V in a second foot, whose shell reads it")
    func footToFoot() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let source = try session.client(["foot", "sh", "-c", "echo foottext; sleep 60"], output: session.file("foot1.log"))
        var window: [String: Any] = [:]
        try session.wait(for: "the first foot to map") {
            window = try session.toplevels().first { $0["mapped"] as? Bool == true } ?? [:]
            return !window.isEmpty
        }
        usleep(500_000)
        // A double click on the first cell of the first row selects the word there.
        let position = window["position"] as? [Int] ?? [0, 0], point = "\(position[0] + 3) \(position[1] + 5)"
        try session.inject(["pointer motion \(point)"] + Array(repeating: ["pointer button press BTN_LEFT", "pointer button release BTN_LEFT"], count: 2).flatMap { $0 })
        try session.inject(["key press KEY_LEFTCTRL", "key press KEY_LEFTSHIFT", "key press KEY_C", "key release KEY_C", "key release KEY_LEFTSHIFT", "key release KEY_LEFTCTRL"])
        try Self.waitForPaste(session, "foottext")
        // foot puts a selection in the primary selection too.
        try Self.waitForPaste(session, "foottext", ["--primary"])

        let typed = session.file("typed.txt")
        let sink = try session.client(["foot", "sh", "-c", "read x; echo \"got:$x\" > \(typed.path); sleep 60"], output: session.file("foot2.log"))
        try session.wait(for: "the second foot to map and take the keyboard focus") {
            let windows = try session.toplevels().filter { $0["mapped"] as? Bool == true }
            return try windows.count == 2 && session.msg("focus").json["keyboard"] as? Int != window["id"] as? Int && session.msg("focus").json["keyboard"] as? Int != nil
        }
        usleep(300_000)
        try session.inject(["key press KEY_LEFTCTRL", "key press KEY_LEFTSHIFT", "key press KEY_V", "key release KEY_V", "key release KEY_LEFTSHIFT", "key release KEY_LEFTCTRL"])
        usleep(300_000)
        try session.inject(["key press KEY_ENTER", "key release KEY_ENTER"])
        try session.wait(for: "the second foot's shell to write what it read") { RunningSession.text(of: typed).hasSuffix("\n") }
        #expect(RunningSession.text(of: typed) == "got:foottext\n", "foot's log:\n\(RunningSession.text(of: session.file("foot2.log")))")
        #expect(source.isRunning && sink.isRunning)
    }
}
