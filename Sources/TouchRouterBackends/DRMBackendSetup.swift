import Foundation
import TouchRouterDRM
import TouchRouterLibseat
import TouchRouterWayland

/// `touch-router run --backend drm`: the first card with a connected screen, opened through
/// the seat manager, its screens the session's outputs. A VT switch away pauses drawing and
/// hands the card back; the switch back sets each screen's mode again and redraws it whole.
public enum DRMBackendSetup {
    /// A seat can be had: a card exists, and something may open it for us (root, seatd's
    /// socket, or a logind session).
    public static func seatAvailable(environment: [String: String]) -> Bool {
        guard !DRMDevice.cards().isEmpty else { return false }
        return getuid() == 0 || FileManager.default.fileExists(atPath: "/run/seatd.sock") || environment["XDG_SESSION_ID"] != nil
    }

    /// A card to try, else an error saying what the backend needs.
    public static func checkCards() throws(WaylandError) {
        guard DRMDevice.cards().isEmpty else { return }
        throw WaylandError("the drm backend found no DRM device in /dev/dri: it needs a GPU with a KMS driver; use --backend headless, or --backend wayland inside another compositor")
    }

    public static func prepare(options: inout WaylandServer.Options, outputOptions: [String], seat: LibseatSession) throws(WaylandError) -> PreparedDisplayBackend {
        var requests: [DRMOutputRequest] = []
        for text in outputOptions {
            do { requests.append(try DRMOutputRequest.parse(option: text)) } catch { throw WaylandError("\(error)") }
        }
        try checkCards()
        let cards = DRMDevice.cards()
        var problems: [String] = []
        for path in cards {
            let fd: Int32
            do { fd = try seat.openDevice(path) } catch {
                problems.append(error.description)
                continue
            }
            do {
                let backend = try DRMBackend(device: DRMDevice(fd: fd, path: path), requests: requests) { warning in
                    FileHandle.standardError.write(Data("touch-router: \(warning)\n".utf8))
                }
                options.outputs = backend.outputs.map(\.mode)
                options.outputIdentities = backend.outputs.map(\.identity)
                seat.addListener(disable: { [weak backend] in backend?.pause() }, enable: { [weak backend] in backend?.resume() })
                return PreparedDRM(backend: backend)
            } catch {
                seat.closeDevice(fd: fd)
                problems.append(error.description)
            }
        }
        throw WaylandError("the drm backend has no screen to drive: " + problems.joined(separator: "; "))
    }
}

struct PreparedDRM: PreparedDisplayBackend {
    let backend: DRMBackend
    func attach(to server: WaylandServer) throws(WaylandError) { try backend.attach(to: server) }
}
