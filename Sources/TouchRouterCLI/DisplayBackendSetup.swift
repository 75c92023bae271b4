import ArgumentParser
import TouchRouterSeat
import TouchRouterWayland

/// `touch-router run --backend`: where outputs are shown and input comes from.
enum BackendKind: String, ExpressibleByArgument, CaseIterable {
    case drm, wayland, headless

    /// As wlroots chooses: a window on the host compositor when there is one, else the
    /// seat's screens when a seat can be had, else virtual outputs.
    static func automatic(environment: [String: String]) -> BackendKind {
        if let display = environment["WAYLAND_DISPLAY"], !display.isEmpty { return .wayland }
        if DRMBackendSetup.seatAvailable(environment: environment) { return .drm }
        return .headless
    }
}

/// A display backend between its two steps: what it found before the session exists
/// (outputs, their names and modes), and what it does once the session does.
protocol PreparedDisplayBackend {
    func attach(to session: WaylandSession) throws(WaylandError)
    /// Why the backend ended the session (its host went away), if it did: `run` fails with it.
    var failure: WaylandError? { get }
}

extension PreparedDisplayBackend {
    var failure: WaylandError? { nil }
}

enum DisplayBackendSetup {
    /// Finds the backend's outputs and writes them into `options`; `outputOptions` are the
    /// `--output` texts, already parsed into `options.outputs` for headless.
    /// The drm backend opens its card through `seat`.
    static func prepare(_ kind: BackendKind, options: inout WaylandSession.Options, outputOptions: [String],
                        seat: SeatSession?) throws(WaylandError) -> PreparedDisplayBackend {
        switch kind {
        case .headless: return HeadlessBackend()
        case .drm:
            guard let seat else { throw WaylandError("the drm backend needs a seat") }
            return try DRMBackendSetup.prepare(options: &options, outputOptions: outputOptions, seat: seat)
        case .wayland: return try NestedBackendSetup.prepare(options: &options, outputOptions: outputOptions)
        }
    }
}

struct HeadlessBackend: PreparedDisplayBackend {
    func attach(to session: WaylandSession) throws(WaylandError) {}
}
