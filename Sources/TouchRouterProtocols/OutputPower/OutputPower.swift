import CWaylandShim
import TouchRouterCore

// wlr-output-power-management-unstable-v1 (protocols/wlr-output-power-management-unstable-v1.xml,
// from wlroots), for the programs `[privileges] output-power` names: a kiosk's own tools turn
// screens off and on, as wlopm does on sway. Off is the idle timer's dark (SeatIdle.swift): on
// `drm` the CRTC goes off, and the input that lands on a dark screen wakes it and reaches
// nobody, whoever turned it off; the controls of that output then hear `mode` on. One client at
// a time controls an output: a second one's control fails, as the protocol allows.

/// What output power control may ask of the server (Handlers/OutputPowerHandling.swift).
package protocol OutputPowerHandler: AnyObject {
    var outputPowerState: OutputPowerState { get }
    /// Whether the output exists and is on (lit or dimmed).
    func outputPowerIsOn(_ output: OutputID) -> Bool?
    func setOutputPower(_ output: OutputID, on: Bool)
}

package final class OutputPowerState {
    package init() {}
    /// The control of each output, while its client keeps it.
    private var controls: [OutputID: OutputPowerObject] = [:]

    package static let globals = [ProtocolGlobal(interface: tr_zwlr_output_power_manager_v1_interface, version: OutputPowerManager.version,
                                         bind: OutputPowerManager.bind, privilege: .outputPower)]

    fileprivate func take(_ control: OutputPowerObject) -> Bool {
        guard controls[control.output] == nil else { return false }
        controls[control.output] = control
        return true
    }

    fileprivate func release(_ control: OutputPowerObject) {
        if controls[control.output] === control { controls[control.output] = nil }
    }

    /// An output's power changed, by whatever means: its control hears the new mode.
    package func powerChanged(_ output: OutputID, on: Bool) {
        controls[output]?.sendMode(on: on)
    }

    /// An output went: its control fails.
    package func outputRemoved(_ output: OutputID) {
        controls.removeValue(forKey: output)?.fail()
    }
}

package enum OutputPowerManager {
    package static let version: Int32 = 1

    package static let bind: wl_global_bind_func_t = { client, data, version, id in
        GlobalHost.bind(client, data, version, id, tr_zwlr_output_power_manager_v1_interface(), table) { $0 as any OutputPowerHandler }
    }

    package nonisolated(unsafe) static let table = implementation(zwlr_output_power_manager_v1_interface(
        get_output_power: { client, resource, id, outputResource in
            let manager = WaylandObject.of(resource, as: RoomGlobal<any OutputPowerHandler>.self)
            guard let created = createResource(client, tr_zwlr_output_power_v1_interface(), version: wl_resource_get_version(resource), id: id) else { return }
            let handler = manager.handler, state = handler.outputPowerState
            let output = WaylandObject.of(outputResource, as: OutputBinding.self).output.flatMap { $0.retired ? nil : $0 }
            let control = OutputPowerObject(resource: created, madeBy: manager, state: state, handler: handler, output: output?.id ?? OutputID(0))
            WaylandObject.install(control, implementation: OutputPowerObject.table)
            guard let output, let on = handler.outputPowerIsOn(output.id), state.take(control) else {
                control.fail()
                return
            }
            control.sendMode(on: on)
        },
        destroy: destroyRequest))
}

/// zwlr_output_power_v1: one output's power mode, set and heard; failed ends it.
package final class OutputPowerObject: WaylandObject {
    private unowned let state: OutputPowerState
    private unowned let handler: any OutputPowerHandler
    package let output: OutputID
    private var failed = false

    package init(resource: OpaquePointer, madeBy manager: WaylandObject, state: OutputPowerState, handler: any OutputPowerHandler, output: OutputID) {
        self.state = state
        self.handler = handler
        self.output = output
        super.init(resource: resource, madeBy: manager)
    }

    package func sendMode(on: Bool) {
        guard !failed else { return }
        zwlr_output_power_v1_send_mode(resource, on ? ZWLR_OUTPUT_POWER_V1_MODE_ON.rawValue : ZWLR_OUTPUT_POWER_V1_MODE_OFF.rawValue)
    }

    package func fail() {
        guard !failed else { return }
        failed = true
        state.release(self)
        zwlr_output_power_v1_send_failed(resource)
    }

    package override func resourceDestroyed() { state.release(self) }

    package nonisolated(unsafe) static let table = implementation(zwlr_output_power_v1_interface(
        set_mode: { _, resource, mode in
            let control = WaylandObject.of(resource, as: OutputPowerObject.self)
            guard mode == ZWLR_OUTPUT_POWER_V1_MODE_ON.rawValue || mode == ZWLR_OUTPUT_POWER_V1_MODE_OFF.rawValue else {
                control.postError(ZWLR_OUTPUT_POWER_V1_ERROR_INVALID_MODE.rawValue, "\(control.name).set_mode: \(mode) is not a zwlr_output_power_v1.mode (0 off, 1 on)")
                return
            }
            guard !control.failed else { return }
            control.handler.setOutputPower(control.output, on: mode == ZWLR_OUTPUT_POWER_V1_MODE_ON.rawValue)
        },
        destroy: destroyRequest))
}
