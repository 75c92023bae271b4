import CWaylandShim
import TouchRouterCore

// xdg-activation-v1 (protocols/xdg-activation-v1.xml): a client hands another (or itself) the
// right to take the focus, as a launcher or a link opening a browser does. What the protocol
// leaves to the compositor, chosen as sway and GNOME do against focus stealing: a token is
// good only if the client that asked for it held the keyboard focus when it committed the
// token, it is good once, and for 30 seconds. A good token activates the window (raised,
// shown if minimized, focused); any other is ignored, without an error.

/// What activation may ask of the server.
package protocol ActivationHandler: AnyObject {
    var activationState: ActivationState { get }
    /// Whether `client` holds the keyboard focus now.
    func holdsKeyboardFocus(_ client: OpaquePointer) -> Bool
    /// Raises the window of `surface` and gives it the keyboard focus.
    func activateWindow(_ surface: SurfaceObject)
    var now: RouterTime { get }
}

/// The tokens handed out and not yet used or expired, oldest first.
package final class ActivationState {
    package init() {}
    /// How long a token is good for.
    package static let lifetime: Int64 = 30_000_000_000
    /// The most tokens kept: past it the oldest is forgotten.
    package static let maximumTokens = 64
    private var tokens: [(token: String, good: Bool, issued: RouterTime)] = []

    package func issue(good: Bool, at time: RouterTime) -> String {
        // The system's generator (getrandom): a client cannot guess another's token.
        var generator = SystemRandomNumberGenerator()
        let token = (0..<2).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
        if tokens.count >= Self.maximumTokens { tokens.removeFirst() }
        tokens.append((token, good, time))
        return token
    }

    /// Whether `token` is good now; it is used up either way.
    package func redeem(_ token: String, at time: RouterTime) -> Bool {
        guard let index = tokens.firstIndex(where: { $0.token == token }) else { return false }
        let entry = tokens.remove(at: index)
        return entry.good && time.nanoseconds - entry.issued.nanoseconds <= Self.lifetime
    }

    package static let globals = [ProtocolGlobal(interface: tr_xdg_activation_v1_interface, version: ActivationManager.version, bind: ActivationManager.bind)]
}

package enum ActivationManager {
    package static let version: Int32 = 1

    package static let bind: wl_global_bind_func_t = { client, data, version, id in
        GlobalHost.bind(client, data, version, id, tr_xdg_activation_v1_interface(), table) { $0 as any ActivationHandler }
    }

    package nonisolated(unsafe) static let table = implementation(xdg_activation_v1_interface(
        destroy: destroyRequest,
        get_activation_token: { client, resource, id in
            let manager = WaylandObject.of(resource, as: RoomGlobal<any ActivationHandler>.self)
            guard let created = createResource(client, tr_xdg_activation_token_v1_interface(), version: wl_resource_get_version(resource), id: id) else { return }
            WaylandObject.install(ActivationTokenObject(resource: created, madeBy: manager, state: manager.handler.activationState, handler: manager.handler),
                                  implementation: ActivationTokenObject.table)
        },
        activate: { _, resource, token, surfaceResource in
            let manager = WaylandObject.of(resource, as: RoomGlobal<any ActivationHandler>.self)
            let surface = WaylandObject.of(surfaceResource, as: SurfaceObject.self)
            let handler = manager.handler
            guard let token, handler.activationState.redeem(String(cString: token), at: handler.now) else { return }
            handler.activateWindow(surface)
        }))
}

/// xdg_activation_token_v1: set up, then committed once for its token.
package final class ActivationTokenObject: WaylandObject {
    private unowned let state: ActivationState
    private unowned let handler: any ActivationHandler
    private var committed = false

    package init(resource: OpaquePointer, madeBy manager: WaylandObject, state: ActivationState, handler: any ActivationHandler) {
        self.state = state
        self.handler = handler
        super.init(resource: resource, madeBy: manager)
    }

    /// set_serial, set_app_id and set_surface may come only before commit.
    private func checkNotCommitted(_ request: String) -> Bool {
        guard committed else { return true }
        postError(XDG_ACTIVATION_TOKEN_V1_ERROR_ALREADY_USED.rawValue, "\(name).\(request): the token was committed already")
        return false
    }

    private func commit() {
        guard checkNotCommitted("commit") else { return }
        committed = true
        let token = state.issue(good: handler.holdsKeyboardFocus(client), at: handler.now)
        xdg_activation_token_v1_send_done(resource, token)
    }

    package nonisolated(unsafe) static let table = implementation(xdg_activation_token_v1_interface(
        set_serial: { _, resource, _, _ in _ = WaylandObject.of(resource, as: ActivationTokenObject.self).checkNotCommitted("set_serial") },
        set_app_id: { _, resource, _ in _ = WaylandObject.of(resource, as: ActivationTokenObject.self).checkNotCommitted("set_app_id") },
        set_surface: { _, resource, _ in _ = WaylandObject.of(resource, as: ActivationTokenObject.self).checkNotCommitted("set_surface") },
        commit: { _, resource in WaylandObject.of(resource, as: ActivationTokenObject.self).commit() },
        destroy: destroyRequest))
}
