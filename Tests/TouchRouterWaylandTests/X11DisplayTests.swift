import Foundation
import Testing
import TouchRouterProtocols
import TouchRouterXWayland

/// The X11 socket directory: made 1777 whatever the umask, as X servers make it, so that a
/// session run as another user (a browser's, as nobody) can put its socket there.
@Suite("X11 socket directory: 1777 whatever the umask, a narrowed one widened, a file in its place named")
struct X11DisplayTests {
    private func scratch() throws -> String {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("x11-dir-\(getpid())-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: false)
        return base
    }

    private func mode(_ path: String) -> mode_t {
        var info = stat()
        guard lstat(path, &info) == 0 else { return 0 }
        return info.st_mode & 0o7777
    }

    @Test("a new directory is 1777, and one an earlier umask left 1755 is widened when root owns it")
    func modes() throws {
        let base = try scratch()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let fresh = base + "/fresh"
        try X11Display.prepareSocketDirectory(fresh)
        #expect(mode(fresh) == 0o1777)
        try #require(getuid() == 0, "the tests run as root, as CI runs them")
        let narrowed = base + "/narrowed"
        #expect(mkdir(narrowed, 0o755) == 0)
        chmod(narrowed, 0o1755)
        try X11Display.prepareSocketDirectory(narrowed)
        #expect(mode(narrowed) == 0o1777)
    }

    @Test("a file where the directory goes is an error naming it")
    func fileInItsPlace() throws {
        let base = try scratch()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let path = base + "/not-a-directory"
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        do {
            try X11Display.prepareSocketDirectory(path)
            Issue.record("a file was taken for the socket directory")
        } catch {
            #expect(error.description.contains("\(path) is not a directory"), "\(error)")
        }
    }
}
