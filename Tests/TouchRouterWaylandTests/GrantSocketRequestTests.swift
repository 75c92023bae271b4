import Testing
import TouchRouterConfig
import TouchRouterWayland

@Suite("grant-socket and revoke-socket requests, read by ControlRequest.parse")
struct GrantSocketRequestTests {
    @Test("grant-socket takes one comma-separated list; revoke-socket one absolute path")
    func reads() throws {
        guard case .grantSocket(let grants) = try ControlRequest.parse("grant-socket virtual-input,layer-shell") else {
            Issue.record("not a grant-socket")
            return
        }
        #expect(grants == [.virtualInput, .layerShell])
        guard case .revokeSocket(let path) = try ControlRequest.parse("revoke-socket /run/user/0/touch-router.1.wayland-1.grant-1.sock") else {
            Issue.record("not a revoke-socket")
            return
        }
        #expect(path == "/run/user/0/touch-router.1.wayland-1.grant-1.sock")
    }

    @Test("what grant-socket and revoke-socket refuse, each named", arguments: [
        ("grant-socket virtual-input,teleport", "grant-socket: 'teleport' is not a privilege: expected one or more of virtual-input, input-method, layer-shell, foreign-toplevel, session-lock, screen-capture, output-power"),
        ("grant-socket", "grant-socket: expected one comma-separated list of privileges"),
        ("grant-socket virtual-input layer-shell", "grant-socket: expected one comma-separated list of privileges"),
        ("revoke-socket", "revoke-socket: expected the socket's path"),
        ("revoke-socket grant-1.sock", "revoke-socket: 'grant-1.sock' is not an absolute path"),
        ("revoke-socket /a /b", "revoke-socket: expected the socket's path"),
    ])
    func refuses(line: String, message: String) {
        do {
            let request = try ControlRequest.parse(line)
            Issue.record("'\(line)' was read as \(request)")
        } catch {
            #expect(error.description.hasPrefix(message), "\(error)")
        }
    }
}
