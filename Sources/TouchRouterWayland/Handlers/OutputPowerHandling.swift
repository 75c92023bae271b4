import TouchRouterCore

/// What output power control may ask of the server (TouchRouterProtocols/OutputPower/).
extension WaylandServer: OutputPowerHandler {
    package var outputPowerState: OutputPowerState { protocols.outputPower }

    package func outputPowerIsOn(_ output: OutputID) -> Bool? {
        guard outputs.contains(where: { $0.id == output && !$0.retired }) else { return nil }
        return protocols.output.power[output] != .off
    }

    package func setOutputPower(_ output: OutputID, on: Bool) {
        powerOutputs([output], to: on ? .on : .off, blanking: protocols.seat.idle.settings.blanking)
        router.dispatchAll()
    }
}
