import Foundation
import TouchRouterDRM
import TouchRouterWayland

/// `touch-router run --backend drm`: the first card with a connected screen, opened by this
/// process (the seat manager's turn comes with libseat), its screens the session's outputs.
enum DRMBackendSetup {
    /// A seat can be had: a card exists, and something may open it for us (root, seatd's
    /// socket, or a logind session).
    static func seatAvailable(environment: [String: String]) -> Bool {
        guard !DRMDevice.cards().isEmpty else { return false }
        return getuid() == 0 || FileManager.default.fileExists(atPath: "/run/seatd.sock") || environment["XDG_SESSION_ID"] != nil
    }

    static func prepare(options: inout WaylandSession.Options, outputOptions: [String]) throws(WaylandError) -> PreparedDisplayBackend {
        var requests: [DRMOutputRequest] = []
        for text in outputOptions {
            do { requests.append(try DRMOutputRequest.parse(option: text)) } catch { throw WaylandError("\(error)") }
        }
        let cards = DRMDevice.cards()
        guard !cards.isEmpty else {
            throw WaylandError("the drm backend found no DRM device in /dev/dri: it needs a GPU with a KMS driver; use --backend headless, or --backend wayland inside another compositor")
        }
        var problems: [String] = []
        for path in cards {
            let fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK)
            guard fd >= 0 else {
                let reason = String(cString: strerror(errno))
                problems.append(errno == EACCES || errno == EPERM
                    ? "cannot open \(path): \(reason): run touch-router through a seat manager (seatd or logind), or add the user to the video and input groups"
                    : "cannot open \(path): \(reason)")
                continue
            }
            do {
                let backend = try DRMBackend(device: DRMDevice(fd: fd, path: path), requests: requests) { warning in
                    FileHandle.standardError.write(Data("touch-router: \(warning)\n".utf8))
                }
                options.outputs = backend.outputs.map(\.mode)
                options.outputIdentities = backend.outputs.map(\.identity)
                return PreparedDRM(backend: backend)
            } catch {
                close(fd)
                problems.append(error.description)
            }
        }
        throw WaylandError("the drm backend has no screen to drive: " + problems.joined(separator: "; "))
    }
}

struct PreparedDRM: PreparedDisplayBackend {
    let backend: DRMBackend
    func attach(to session: WaylandSession) throws(WaylandError) { try backend.attach(to: session) }
}
