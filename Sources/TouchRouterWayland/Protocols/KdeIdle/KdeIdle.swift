import CWaylandShim
import TouchRouterCore

// KDE's idle protocol (protocols/idle.xml, `org_kde_kwin_idle`), as cage serves it and
// Chromium binds it (for its idle detection): a client asks to hear when the seat has had no
// input for a time of its choosing, and when input comes again. Input is what the seat's
// tracker sees: touch downs, keys, pointer motion, buttons and scrolling (a finger already
// down moving is not, as it is not for the cursor). An inhibitor (idle-inhibit) holds back
// no idle event here: that waits for the session's own idle timer. The timers are checked at
// each frame tick, so an idle event comes up to one refresh late.

final class KdeIdleState {
    private var timeouts: [ObjectIdentifier: KdeIdleTimeoutObject] = [:]
    /// When the seat last had input; the session's start before any.
    private var lastActivity: RouterTime?
    private var anyIdle = false
    /// No timeout is due before this: the frame tick looks at none until then, so that a
    /// client's thousands of timeouts cost a scan only when one may be due.
    private var nextDue: Int64?
    /// The shortest timeout made; kept when it goes, which only makes checks earlier.
    private var shortest = Int64.max

    /// Input on the seat: every idle timeout resumes and starts again.
    func activity(at time: RouterTime) {
        lastActivity = time
        if shortest != .max { nextDue = time.nanoseconds &+ shortest }
        guard anyIdle else { return }
        anyIdle = false
        for timeout in timeouts.values where timeout.idle {
            timeout.idle = false
            org_kde_kwin_idle_timeout_send_resumed(timeout.resource)
        }
    }

    /// At each frame tick: the timeouts whose time without input has passed hear `idle`.
    func tick(at now: RouterTime) {
        guard let due = nextDue, now.nanoseconds >= due else { return }
        nextDue = nil
        for timeout in timeouts.values where !timeout.idle {
            let since = max(lastActivity ?? timeout.started, timeout.started)
            let deadline = since.nanoseconds &+ timeout.nanoseconds
            guard now.nanoseconds >= deadline else {
                nextDue = min(nextDue ?? deadline, deadline)
                continue
            }
            timeout.idle = true
            anyIdle = true
            org_kde_kwin_idle_timeout_send_idle(timeout.resource)
        }
    }

    fileprivate func add(_ timeout: KdeIdleTimeoutObject) {
        timeouts[ObjectIdentifier(timeout)] = timeout
        shortest = min(shortest, timeout.nanoseconds)
        let deadline = timeout.started.nanoseconds &+ timeout.nanoseconds
        nextDue = min(nextDue ?? deadline, deadline)
    }
    fileprivate func remove(_ timeout: KdeIdleTimeoutObject) { timeouts[ObjectIdentifier(timeout)] = nil }

    static let globals = [ProtocolGlobal(interface: tr_org_kde_kwin_idle_interface, version: KdeIdleGlobal.version, bind: KdeIdleGlobal.bind)]
}

enum KdeIdleGlobal {
    static let version: Int32 = 1

    static let bind: wl_global_bind_func_t = { client, data, version, id in
        WaylandServer.bindGlobal(client, data, version, id, tr_org_kde_kwin_idle_interface(), table)
    }

    nonisolated(unsafe) static let table = implementation(org_kde_kwin_idle_interface(
        get_idle_timeout: { client, resource, id, _, milliseconds in
            let manager = WaylandObject.of(resource, as: BoundGlobal.self)
            guard let created = createResource(client, tr_org_kde_kwin_idle_timeout_interface(), version: wl_resource_get_version(resource), id: id) else { return }
            let state = manager.server.protocols.kdeIdle
            let timeout = KdeIdleTimeoutObject(resource: created, server: manager.server, state: state,
                                               nanoseconds: Int64(milliseconds) * 1_000_000, started: manager.server.clock.now())
            WaylandObject.install(timeout, implementation: KdeIdleTimeoutObject.table)
            state.add(timeout)
        }))
}

/// org_kde_kwin_idle_timeout: idle after its time without input, resumed at the next input.
final class KdeIdleTimeoutObject: WaylandObject {
    let nanoseconds: Int64
    let started: RouterTime
    fileprivate var idle = false
    private unowned let state: KdeIdleState

    init(resource: OpaquePointer, server: WaylandServer, state: KdeIdleState, nanoseconds: Int64, started: RouterTime) {
        self.state = state
        self.nanoseconds = nanoseconds
        self.started = started
        super.init(resource: resource, server: server)
    }

    override func resourceDestroyed() { state.remove(self) }

    nonisolated(unsafe) static let table = implementation(org_kde_kwin_idle_timeout_interface(
        release: destroyRequest,
        simulate_user_activity: { _, resource in
            let timeout = WaylandObject.of(resource, as: KdeIdleTimeoutObject.self)
            // As KWin does: activity of the seat, for every timeout.
            timeout.state.activity(at: timeout.server.clock.now())
        }))
}
