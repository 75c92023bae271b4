/// A link of the fallback chain (UIKit's responder chain).
///
/// Positional events start at the hit surface: surface → its role object → parent
/// surface … → toplevel → output ("window") → shell ("application") → shell delegate
/// → discarded. Non-positional events start at the keyboard focus (first responder).
public enum Responder: Hashable, Sendable, CustomStringConvertible {
    case surface(SurfaceID)
    /// The surface's xdg_toplevel or xdg_popup: UIKit's view controller.
    case role(SurfaceID, SurfaceRole)
    case output(OutputID)
    case shell
    case shellDelegate

    public var description: String {
        switch self {
        case .surface(let id): "surface \(id.raw)"
        case .role(let id, let role): "\(role.rawValue) of surface \(id.raw)"
        case .output(let id): "output \(id.raw)"
        case .shell: "shell"
        case .shellDelegate: "shell delegate"
        }
    }
}

public enum ResponderAnswer: Sendable {
    case handled
    case notHandled
}

/// A compositor-side responder: a shell binding, a gesture, a kiosk's catch-all.
/// A touch sequence whose down it handled stays with it until up or cancel.
public protocol CompositorResponder: AnyObject {
    func respond(to event: InputEvent, at link: Responder) -> ResponderAnswer
}
