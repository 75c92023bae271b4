import Foundation
import Testing
import TouchRouterConfig
import TouchRouterCore
import TouchRouterWayland

/// The shell's side of gesture bindings, without the arena: recognizer state changes are
/// handed to the shell as the core's observer would, and a subscriber on the control
/// socket reads what it did.
@Suite("The session's shell: gesture bindings and their events", .serialized)
struct ShellTests {
    /// A control connection of a session that is served one loop round at a time.
    final class Peer {
        let fd: Int32
        var buffer: [UInt8] = []
        init(path: String) throws {
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, byte) in path.utf8.enumerated() { raw[i] = byte } }
            let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
            try #require(connected == 0)
        }
        deinit { close(fd) }
        func send(_ line: String) { _ = (line + "\n").withCString { write(fd, $0, strlen($0)) } }
        /// The lines the session wrote so far, serving its loop meanwhile.
        func lines(from server: WaylandServer, count: Int) -> [String] {
            var lines: [String] = []
            for _ in 0..<200 where lines.count < count {
                server.dispatchPendingWork()
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 10) > 0 else { continue }
                var chunk = [UInt8](repeating: 0, count: 4096)
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                guard n > 0 else { break }
                buffer += chunk[0..<n]
                while let newline = buffer.firstIndex(of: 10) {
                    lines.append(String(decoding: buffer[..<newline], as: UTF8.self))
                    buffer.removeSubrange(...newline)
                }
            }
            return lines
        }
    }

    @Test("a gesture's success runs the binding without a state; a bound state runs its own; subscribers get the gestures and the emits, in order")
    func gestureBindings() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("touch-router-shell-\(getpid())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        setenv("XDG_RUNTIME_DIR", directory, 1)
        var options = WaylandServer.Options()
        options.listens = false
        let server = try WaylandServer(options: options)
        defer { server.shutdown() }
        try server.shell.apply(try ServerConfiguration.parse("""
            [[recognizer]]
            name = "swipe-up"
            kind = "swipe"
            directions = ["up"]
            [[recognizer]]
            name = "pan"
            kind = "pan"
            [[bind]]
            gesture = "swipe-up"
            action = "emit"
            event = "up"
            [[bind]]
            gesture = "pan"
            state = "began"
            action = "emit"
            event = "pan-began"
            """, file: "shell.toml"))
        let control = try ControlServer(server: server, path: directory + "/control.sock")
        defer { control.close() }
        let peer = try Peer(path: control.path)
        peer.send("subscribe gesture emit")
        #expect(peer.lines(from: server, count: 1) == ["{\"ok\":true,\"subscribed\":[\"gesture\",\"emit\"]}"])

        var values = GestureValues()
        values.direction = .up
        values.touches = 1
        let time = RouterTime(nanoseconds: 2_500_000)
        server.shell.gesture(GestureEvent(name: "swipe-up", state: .recognized, values: values, time: time))
        server.shell.gesture(GestureEvent(name: "pan", state: .changed, values: GestureValues(), time: time))
        server.shell.gesture(GestureEvent(name: "pan", state: .began, values: GestureValues(), time: time))
        let lines = peer.lines(from: server, count: 5)
        #expect(lines.count == 5, "\(lines)")
        guard lines.count == 5 else { return }
        #expect(lines[0].hasPrefix("{\"type\":\"gesture\",\"name\":\"swipe-up\",\"state\":\"recognized\",\"time_ms\":2.5,\"values\":{"), "\(lines[0])")
        #expect(lines[0].contains("\"touches\":1") && lines[0].hasSuffix("\"direction\":\"up\"}}"), "\(lines[0])")
        #expect(lines[1] == "{\"type\":\"emit\",\"event\":\"up\"}")
        #expect(lines[2].contains("\"name\":\"pan\",\"state\":\"changed\""), "a changed pan runs nothing: \(lines[2])")
        #expect(lines[3].contains("\"name\":\"pan\",\"state\":\"began\""))
        #expect(lines[4] == "{\"type\":\"emit\",\"event\":\"pan-began\"}")
    }
}
