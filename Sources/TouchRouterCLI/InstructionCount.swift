import ArgumentParser
import Foundation

/// Instructions per routed motion, counted by valgrind's callgrind: this program's own
/// `bench motion-loop` is run twice under it, with few and with many reports, and the
/// difference of the two totals over the difference of the motions routed leaves out
/// start-up and the scene's construction.
enum InstructionCount {
    static let fewReports = 500
    static let manyReports = 2500

    static func perMotion(leaves: Int, fingers: Int, rate: Int, seed: UInt64) throws -> Double {
        guard let valgrind = ["/usr/bin/valgrind", "/usr/local/bin/valgrind"].first(where: FileManager.default.isExecutableFile) else {
            throw ValidationError("--instructions needs valgrind (Debian: apt-get install valgrind)")
        }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("touch-router-callgrind-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        // Swift's DWARF is more than this valgrind reads; copies without it, the launcher and
        // the CLI library it loads from its own directory, run the same code.
        let binary = work.appendingPathComponent("touch-router")
        let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let library = URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("libTouchRouterCLI.so").path
        try run("/usr/bin/objcopy", ["--strip-debug", me, binary.path])
        try run("/usr/bin/objcopy", ["--strip-debug", library, work.appendingPathComponent("libTouchRouterCLI.so").path])
        func total(_ reports: Int) throws -> Double {
            let out = work.appendingPathComponent("callgrind.\(reports)")
            try run(valgrind, ["--tool=callgrind", "--callgrind-out-file=\(out.path)", binary.path, "bench", "motion-loop",
                               "--leaves", "\(leaves)", "--fingers", "\(fingers)", "--rate", "\(rate)", "--seed", "\(seed)", "--reports", "\(reports)"])
            let text = try String(contentsOf: out, encoding: .utf8)
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("totals:") || $0.hasPrefix("summary:") }),
                  let value = line.split(separator: " ").last.flatMap({ Double($0) }) else {
                throw ValidationError("callgrind wrote no totals in \(out.path)")
            }
            return value
        }
        let few = try total(fewReports), many = try total(manyReports)
        return (many - few) / Double((manyReports - fewReports) * fingers)
    }

    private static func run(_ program: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        // Swift seeds its hashing per process; fixed, dictionaries do the same work each run.
        process.environment = ProcessInfo.processInfo.environment.merging(["SWIFT_DETERMINISTIC_HASHING": "1"]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ValidationError("\(URL(fileURLWithPath: program).lastPathComponent) \(arguments.prefix(3).joined(separator: " ")) … exited with \(process.terminationStatus)")
        }
    }
}
