import CWaylandShim
import TouchRouterCore

// KDE's idle protocol (protocols/idle.xml, `org_kde_kwin_idle`), as cage serves it and
// Chromium binds it (for its idle detection): a client asks to hear when the seat has had no
// input for a time of its choosing, and when input comes again. The timeouts keep time as
// ext-idle-notify's do (IdleNotify/IdleTimeouts.swift), inhibitors included, as KWin's do.

package final class KdeIdleState {
    package init() {}
    package let timeouts = IdleTimeouts()

    package static let globals = [ProtocolGlobal(interface: tr_org_kde_kwin_idle_interface, version: KdeIdleGlobal.version, bind: KdeIdleGlobal.bind)]
}

package enum KdeIdleGlobal {
    package static let version: Int32 = 1

    package static let bind: wl_global_bind_func_t = { client, data, version, id in
        GlobalHost.bind(client, data, version, id, tr_org_kde_kwin_idle_interface(), table) { $0 as any IdleTimeoutHandler }
    }

    package nonisolated(unsafe) static let table = implementation(org_kde_kwin_idle_interface(
        get_idle_timeout: { client, resource, id, _, milliseconds in
            let manager = WaylandObject.of(resource, as: RoomGlobal<any IdleTimeoutHandler>.self)
            guard let created = createResource(client, tr_org_kde_kwin_idle_timeout_interface(), version: wl_resource_get_version(resource), id: id) else { return }
            let state = manager.handler.kdeIdleState, clock = manager.handler.idleClock
            let timeout = KdeIdleTimeoutObject(resource: created, madeBy: manager, state: state, clock: clock,
                                               nanoseconds: Int64(milliseconds) * 1_000_000, started: clock.now())
            WaylandObject.install(timeout, implementation: KdeIdleTimeoutObject.table)
            state.timeouts.add(timeout)
        }))
}

/// org_kde_kwin_idle_timeout: idle after its time without input, resumed at the next input.
package final class KdeIdleTimeoutObject: WaylandObject, IdleTimeout {
    package let nanoseconds: Int64
    package let started: RouterTime
    package var idle = false
    private unowned let state: KdeIdleState
    /// The session's clock, for simulate_user_activity's time.
    private let clock: any RouterClock

    package init(resource: OpaquePointer, madeBy manager: WaylandObject, state: KdeIdleState, clock: any RouterClock, nanoseconds: Int64, started: RouterTime) {
        self.state = state
        self.clock = clock
        self.nanoseconds = nanoseconds
        self.started = started
        super.init(resource: resource, madeBy: manager)
    }

    package func sendIdle() { org_kde_kwin_idle_timeout_send_idle(resource) }
    package func sendResumed() { org_kde_kwin_idle_timeout_send_resumed(resource) }

    package override func resourceDestroyed() { state.timeouts.remove(self) }

    package nonisolated(unsafe) static let table = implementation(org_kde_kwin_idle_timeout_interface(
        release: destroyRequest,
        simulate_user_activity: { _, resource in
            let timeout = WaylandObject.of(resource, as: KdeIdleTimeoutObject.self)
            // As KWin does: activity of the seat, for every timeout.
            timeout.state.timeouts.activity(at: timeout.clock.now())
        }))
}
