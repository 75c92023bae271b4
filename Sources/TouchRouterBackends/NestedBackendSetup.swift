import Foundation
import TouchRouterNested
import TouchRouterWayland

/// `touch-router run --backend wayland`: each output a window on the host compositor of
/// WAYLAND_DISPLAY (TouchRouterNested), named WL-1, WL-2…, 1280x720 unless `--output` says.
public enum NestedBackendSetup {
    public static let defaultMode = OutputMode(width: 1280, height: 720)

    /// Connects to the host now: ServerRunner replaces WAYLAND_DISPLAY with the session's own.
    public static func prepare(options: inout WaylandServer.Options, outputOptions: [String]) throws(WaylandError) -> PreparedDisplayBackend {
        guard let host = ProcessInfo.processInfo.environment["WAYLAND_DISPLAY"], !host.isEmpty else {
            throw WaylandError("the wayland backend needs a host compositor, and WAYLAND_DISPLAY is not set")
        }
        var modes: [OutputMode] = []
        for text in outputOptions {
            do { modes.append(try OutputMode.parse(option: text)) } catch { throw WaylandError(error.description) }
        }
        if modes.isEmpty { modes = [defaultMode] }
        options.outputs = modes
        options.outputIdentities = modes.indices.map(NestedBackend.identity(of:))
        return NestedPrepared(backend: try NestedBackend(hostName: host, modes: modes))
    }
}

struct NestedPrepared: PreparedDisplayBackend {
    let backend: NestedBackend
    func attach(to server: WaylandServer) throws(WaylandError) { try backend.attach(to: server) }
    var failure: WaylandError? { backend.failure }
    var inputSource: (any InputSource)? { backend }
}
