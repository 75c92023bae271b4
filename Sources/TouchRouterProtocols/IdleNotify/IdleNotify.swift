import CWaylandShim
import TouchRouterCore

// ext-idle-notify-v1 (protocols/ext-idle-notify-v1.xml, wayland-protocols' staging): what
// swayidle 1.8 binds first. A client asks to hear `idled` when the seat has had no input for
// its timeout, and `resumed` at the next input. Inhibitors hold it back, as version 1 says.
// The seat argument names the one seat there is.

package final class IdleNotifyState {
    package init() {}
    package let timeouts = IdleTimeouts()

    package static let globals = [ProtocolGlobal(interface: tr_ext_idle_notifier_v1_interface, version: IdleNotifier.version, bind: IdleNotifier.bind)]
}

/// What the idle timeouts' managers (ext-idle-notify and KDE's idle) may ask of the server
/// (Handlers/IdleHandling.swift).
package protocol IdleTimeoutHandler: AnyObject {
    var idleNotifyState: IdleNotifyState { get }
    var kdeIdleState: KdeIdleState { get }
    /// The clock a timeout counts from.
    var idleClock: any RouterClock { get }
}

package enum IdleNotifier {
    package static let version: Int32 = 1

    package static let bind: wl_global_bind_func_t = { client, data, version, id in
        GlobalHost.bind(client, data, version, id, tr_ext_idle_notifier_v1_interface(), table) { $0 as any IdleTimeoutHandler }
    }

    package nonisolated(unsafe) static let table = implementation(ext_idle_notifier_v1_interface(
        destroy: destroyRequest,
        get_idle_notification: { client, resource, id, milliseconds, _ in
            let manager = WaylandObject.of(resource, as: RoomGlobal<any IdleTimeoutHandler>.self)
            guard let created = createResource(client, tr_ext_idle_notification_v1_interface(), version: wl_resource_get_version(resource), id: id) else { return }
            let state = manager.handler.idleNotifyState
            let notification = IdleNotificationObject(resource: created, madeBy: manager, state: state,
                                                      nanoseconds: Int64(milliseconds) * 1_000_000, started: manager.handler.idleClock.now())
            WaylandObject.install(notification, implementation: IdleNotificationObject.table)
            state.timeouts.add(notification)
        }))
}

/// ext_idle_notification_v1: idled after its time without input, resumed at the next input.
package final class IdleNotificationObject: WaylandObject, IdleTimeout {
    package let nanoseconds: Int64
    package let started: RouterTime
    package var idle = false
    private unowned let state: IdleNotifyState

    package init(resource: OpaquePointer, madeBy manager: WaylandObject, state: IdleNotifyState, nanoseconds: Int64, started: RouterTime) {
        self.state = state
        self.nanoseconds = nanoseconds
        self.started = started
        super.init(resource: resource, madeBy: manager)
    }

    package func sendIdle() { ext_idle_notification_v1_send_idled(resource) }
    package func sendResumed() { ext_idle_notification_v1_send_resumed(resource) }

    package override func resourceDestroyed() { state.timeouts.remove(self) }

    package nonisolated(unsafe) static let table = implementation(ext_idle_notification_v1_interface(destroy: destroyRequest))
}
