import TouchRouterCore
import Testing

@Suite("The app supervisor's decisions and a client's pings, on time passed in")
struct AppSupervisorTests {
    private func seconds(_ s: Double) -> RouterTime { RouterTime(nanoseconds: Int64(s * 1e9)) }

    @Test("quick failures double the delay up to the cap; a long run resets it; too many failures in the window give the fallback")
    func backoff() {
        var settings = SupervisionSettings()
        settings.maxFailures = 5
        settings.backoffMax = 5_000_000_000
        var supervisor = AppSupervisor(settings: settings)
        supervisor.started(at: seconds(0))
        do {
            let result = supervisor.exited(status: 1, signal: nil, at: seconds(0.1))
            #expect(result == .restart(afterNanoseconds: 1_000_000_000))
        }
        supervisor.restarted(at: seconds(1.1))
        do {
            let result = supervisor.exited(status: nil, signal: 11, at: seconds(1.2))
            #expect(result == .restart(afterNanoseconds: 2_000_000_000))
        }
        supervisor.restarted(at: seconds(3.2))
        do {
            let result = supervisor.exited(status: 1, signal: nil, at: seconds(3.3))
            #expect(result == .restart(afterNanoseconds: 4_000_000_000))
        }
        supervisor.restarted(at: seconds(7.3))
        // Ran 20 s, past reset-after (10 s): the delay starts again.
        do {
            let result = supervisor.exited(status: 1, signal: nil, at: seconds(27.3))
            #expect(result == .restart(afterNanoseconds: 1_000_000_000))
        }
        supervisor.restarted(at: seconds(28.3))
        do {
            let result = supervisor.exited(status: 2, signal: nil, at: seconds(28.4))
            #expect(result == .fallback(reason: "the app failed 5 times within 60 s (the last time it exited with status 2)"))
        }
        #expect(supervisor.restarts == 4)
        #expect(AppSupervisor.delay(streak: 10, initial: 1_000_000_000, max: 30_000_000_000) == 30_000_000_000)
        #expect(AppSupervisor.delay(streak: 1_000, initial: .max / 2, max: .max) == .max, "no overflow")
    }

    @Test("failures older than the window are forgotten; clean exits end the session unless restart = always")
    func windowAndPolicies() {
        var settings = SupervisionSettings()
        settings.maxFailures = 2
        settings.window = 10_000_000_000
        var supervisor = AppSupervisor(settings: settings)
        supervisor.started(at: seconds(0))
        do {
            let result = supervisor.exited(status: 1, signal: nil, at: seconds(1))
            #expect(result == .restart(afterNanoseconds: 1_000_000_000))
        }
        supervisor.restarted(at: seconds(2))
        do {
            let result = supervisor.exited(status: 1, signal: nil, at: seconds(12))
            #expect(result != .fallback(reason: ""), "the first failure is past the window")
        }
        #expect(supervisor.failures.count == 1)
        do {
            let result = supervisor.exited(status: 0, signal: nil, at: seconds(13))
            #expect(result == .restart(afterNanoseconds: 1_000_000_000), "always restarts a clean exit, not counted as a failure")
        }
        #expect(supervisor.failures.count == 1)

        settings.restart = .onFailure
        var onFailure = AppSupervisor(settings: settings)
        do {
            let result = onFailure.exited(status: 0, signal: nil, at: seconds(1))
            #expect(result == .end(status: 0))
        }
        settings.restart = .never
        var never = AppSupervisor(settings: settings)
        do {
            let result = never.exited(status: nil, signal: 9, hung: true, at: seconds(1))
            #expect(result == .fallback(reason: "the app failed (it stopped answering pings) and restart = \"never\""))
        }
    }

    @Test("a ping goes out every interval; unanswered for hang-after it makes the client hung once; its pong ends that, a stray serial does not")
    func pings() {
        var ping = PingState()
        let every: Int64 = 2_000_000_000, after: Int64 = 5_000_000_000
        do {
            let result = ping.tick(at: seconds(10), every: every, hangAfter: after)
            #expect(result == .ping)
        }
        ping.sent(serial: 7, at: seconds(10))
        do {
            let result = ping.tick(at: seconds(12), every: every, hangAfter: after)
            #expect(result == .nothing, "one ping at a time")
        }
        do {
            let result = ping.pong(serial: 6)
            #expect(!result)
        }
        do {
            let result = ping.tick(at: seconds(14.9), every: every, hangAfter: after)
            #expect(result == .nothing)
        }
        do {
            let result = ping.tick(at: seconds(15), every: every, hangAfter: after)
            #expect(result == .becameHung)
        }
        #expect(ping.hung)
        do {
            let result = ping.tick(at: seconds(16), every: every, hangAfter: after)
            #expect(result == .nothing, "said once")
        }
        do {
            let result = ping.pong(serial: 7)
            #expect(result, "answered while hung")
        }
        #expect(!ping.hung)
        do {
            let result = ping.tick(at: seconds(16), every: every, hangAfter: after)
            #expect(result == .ping, "the next ping, two seconds after the last")
        }
        ping.sent(serial: 8, at: seconds(16))
        do {
            let result = ping.pong(serial: 8)
            #expect(!result, "answered in time: not news")
        }
    }
}
