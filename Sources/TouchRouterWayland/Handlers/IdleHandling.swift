import TouchRouterConfig
import TouchRouterCore

/// What the idle timeouts' managers may ask of the server (TouchRouterProtocols/IdleNotify/, TouchRouterProtocols/KdeIdle/).
extension WaylandServer: IdleTimeoutHandler {
    package var idleNotifyState: IdleNotifyState { protocols.idleNotify }
    package var kdeIdleState: KdeIdleState { protocols.kdeIdle }
    package var idleClock: any RouterClock { clock }
}

/// What the idle inhibitors may ask of the server (TouchRouterProtocols/IdleInhibit/).
extension WaylandServer: IdleInhibitHandler {
    package func idleInhibitorGone() { scheduleSessionTick() }
}

/// What the seat's idle timer may ask of the server (TouchRouterProtocols/Seat/SeatIdle.swift).
extension WaylandServer: IdleHandler {
    package var idleOutputs: [OutputID] { outputs.map(\.id) }

    package var idleInhibited: Bool { protocols.idleInhibit.anyShown(shown: tree.isShown) }

    package func powerOutputs(_ ids: [OutputID], to power: OutputPower, blanking: IdleBlanking) {
        var changed: [OutputID] = []
        for id in ids {
            let old = protocols.output.power[id] ?? .on
            // Dimming never lights a screen that is off (turned off by a tool, or dark already).
            guard old != power, !(power == .dimmed && old == .off) else { continue }
            changed.append(id)
            protocols.output.power[id] = power == .on ? nil : power
            guard power == .off || old == .off else { continue }
            protocols.outputPower.powerChanged(id, on: power != .off)
            // A screen coming back shows everything again.
            protocols.output.unpresented[id] = UnpresentedDamage()
            guard let presenter = protocols.output.presenters[id] else { continue }
            // Off only when blanking powers off; on whatever blanking is now, since it may have
            // changed by a reload while the screen was off.
            guard power != .off || blanking == .powerOff else { continue }
            do { try presenter.setPowered(power != .off) } catch { report("output \(id.raw): cannot turn it \(power == .off ? "off" : "on"): \(error)") }
        }
        router.setOutputs(changed, dark: power == .off)
        if !changed.isEmpty { pictureMayHaveChanged() }
    }

    package func idleChanged(_ idle: SeatIdle) {
        shell.publish(.idle) { idleReport().json }
    }

    /// `msg idle` and the `idle` topic's events: the phase, the time without input, and the
    /// inhibitors.
    package func idleReport() -> JSONValue {
        let idle = protocols.seat.idle
        let inhibitors = protocols.idleInhibit.report(shown: tree.isShown)
        return [
            "type": .string("idle"),
            "state": .string(idle.phase.rawValue),
            "idle_ms": .number(idle.idleMilliseconds(at: clock.now())),
            "inhibited": .bool(idle.timer.inhibited),
            "dim_after_ms": .optional(idle.settings.dimAfter) { .number($0 / 1_000_000) },
            "blank_after_ms": .optional(idle.settings.blankAfter) { .number($0 / 1_000_000) },
            "blanking": .string(idle.settings.blanking.rawValue),
            "dark_outputs": .array(outputs.filter { router.darkOutputs.contains($0.id) }.map { .string($0.name) }),
            "inhibitors": .array(inhibitors.map { ["surface": .number($0.surface.raw), "shown": .bool($0.shown)] }),
        ]
    }
}
