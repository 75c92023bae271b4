import TouchRouterLibseat
import TouchRouterWayland

/// `touch-router run --backend`: where outputs are shown and input comes from.
public enum BackendKind: String, CaseIterable, Sendable {
    case drm, wayland, headless

    /// As wlroots chooses: a window on the host compositor when there is one, else the
    /// seat's screens when a seat can be had, else virtual outputs.
    public static func automatic(environment: [String: String]) -> BackendKind {
        if let display = environment["WAYLAND_DISPLAY"], !display.isEmpty { return .wayland }
        if DRMBackendSetup.seatAvailable(environment: environment) { return .drm }
        return .headless
    }
}

/// A display backend between its two steps: what it found before the session exists
/// (outputs, their names and modes), and what it does once the session does.
public protocol PreparedDisplayBackend {
    func attach(to server: WaylandServer) throws(WaylandError)
    /// Why the backend ended the session (its host went away), if it did: `run` fails with it.
    var failure: WaylandError? { get }
    /// The backend's own input, registered after `attach`: the host seat of the wayland
    /// backend. The drm backend's input is libinput's (udev input on its seat); headless has none.
    var inputSource: (any InputSource)? { get }
}

extension PreparedDisplayBackend {
    public var failure: WaylandError? { nil }
    public var inputSource: (any InputSource)? { nil }
}

public enum DisplayBackendSetup {
    /// Finds the backend's outputs and writes them into `options`; `outputOptions` are the
    /// `--output` texts, already parsed into `options.outputs` for headless.
    /// The drm backend opens its card through `seat`.
    public static func prepare(_ kind: BackendKind, options: inout WaylandServer.Options, outputOptions: [String],
                        seat: LibseatSession?) throws(WaylandError) -> PreparedDisplayBackend {
        switch kind {
        case .headless: return HeadlessBackend()
        case .drm:
            guard let seat else { throw WaylandError("the drm backend needs a seat") }
            return try DRMBackendSetup.prepare(options: &options, outputOptions: outputOptions, seat: seat)
        case .wayland: return try NestedBackendSetup.prepare(options: &options, outputOptions: outputOptions)
        }
    }
}

/// `--backend headless`: virtual outputs, composed only when something asks for their
/// pixels (`msg screenshot`, `msg pixel`). It has no input source: its input comes from the
/// control socket (`msg inject`, `msg play`) and from clients' virtual pointers and
/// keyboards, unless `--input-device` or `--input udev` adds libinput's.
public struct HeadlessBackend: PreparedDisplayBackend {
    public init() {}
    public func attach(to server: WaylandServer) throws(WaylandError) {}
}
