import Foundation
import Testing

@Suite("Foreign toplevel management: zwlr_foreign_toplevel_manager_v1 with a wire-protocol client", .serialized)
struct ForeignToplevelTests {
    /// A configuration allowing foreign toplevel management to the Python running the raw client.
    static func configuration() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("touch-router-foreign-\(getpid())-\(UUID().uuidString.prefix(8)).toml").path
        let python = URL(fileURLWithPath: "/usr/bin/python3").resolvingSymlinksInPath().path
        try "[privileges]\nforeign-toplevel = [\"\(python)\"]\n".write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("with [privileges] foreign-toplevel: a handle for the mapped window with its title, activated, ended by done; close reaches the window; a negative rectangle is invalid_rectangle")
    func allowed() throws {
        let session = try RunningSession(arguments: ["--config", try Self.configuration()])
        defer { _ = session.terminate() }
        let log = session.file("raw.log")
        let raw = try session.client(["/usr/bin/python3", SessionTests.rawClient, "foreign"], output: log)
        raw.waitUntilExit()
        let said = RunningSession.text(of: log)
        #expect(raw.terminationStatus == 0, "\(said)")
        #expect(said.contains("foreign raw window [2]\n"), "titled, activated (2): \(said)")
        #expect(said.contains("close\n"), "\(said)")
        #expect(said.contains("code 0: zwlr_foreign_toplevel_handle_v1@"), "\(said)")
    }

    @Test("without [privileges] foreign-toplevel the global is not listed")
    func hidden() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let log = session.file("raw.log")
        let raw = try session.client(["/usr/bin/python3", SessionTests.rawClient, "foreign"], output: log)
        raw.waitUntilExit()
        #expect(raw.terminationStatus != 0)
        #expect(RunningSession.text(of: log).contains("KeyError: 'zwlr_foreign_toplevel_manager_v1'"), "\(RunningSession.text(of: log))")
    }
}
