import Foundation

/// `touch-router help TOPIC`: a man page, built from the scdoc source the binary carries
/// (ManPages.generated.swift) and shown with `man -l`, or, where scdoc or man is missing,
/// its source as text. Any other `help` goes to ArgumentParser's help of a subcommand.
enum ManualHelp {
    /// Topics by the word people type, and the page each shows.
    static let topics: [(words: [String], page: String, what: String)] = [
        (["commands", "touch-router", "touch-router.1"], "touch-router.1", "the commands and their options"),
        (["config", "configuration", "touch-router.5"], "touch-router.5", "the configuration file"),
        (["control", "ipc", "touch-router-msg", "touch-router-msg.7"], "touch-router-msg.7", "the control socket's requests (touch-router msg)"),
    ]

    static let topicList = topics.map { "  touch-router help \($0.words[0])".padding(toLength: 34, withPad: " ", startingAt: 0) + $0.what }.joined(separator: "\n")

    /// Shows the page `arguments` asks for and returns true; false when they ask something else.
    static func show(_ arguments: [String]) -> Bool {
        guard arguments.count == 2, arguments[0] == "help" else { return false }
        guard let topic = topics.first(where: { $0.words.contains(arguments[1]) }),
              let source = ManPageSources.pages.first(where: { $0.name == topic.page })?.source else { return false }
        if let scdoc = executable("scdoc"), let man = executable("man"), let page = try? build(source, name: topic.page, with: scdoc) {
            defer { try? FileManager.default.removeItem(at: page.deletingLastPathComponent()) }
            if run(man, ["-l", page.path]) == 0 { return true }
        }
        print(source)
        return true
    }

    private static func executable(_ name: String) -> String? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// The page as roff, in a fresh temporary directory.
    private static func build(_ source: String, name: String, with scdoc: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("touch-router-help-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let page = directory.appendingPathComponent(name)
        _ = FileManager.default.createFile(atPath: page.path, contents: nil)
        let output = try FileHandle(forWritingTo: page)
        defer { try? output.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: scdoc)
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(source.utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure(description: "scdoc could not build \(name)") }
        return page
    }

    private static func run(_ path: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
