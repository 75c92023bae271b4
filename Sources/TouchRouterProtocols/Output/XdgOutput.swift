import CWaylandShim
import TouchRouterCore

// xdg-output-unstable-v1 (protocols/xdg-output-unstable-v1.xml) at version 3: each
// output's place and size in the layout (logical: the mode turned, divided by the output's
// scale), its name and description, sent again when the output is reconfigured. From version 3 the batch ends with the
// wl_output's done, not zxdg_output_v1.done.

package enum XdgOutputManagerGlobal {
    package static let version: Int32 = 3

    package static let bind: wl_global_bind_func_t = { client, data, version, id in
        GlobalHost.bindPlain(client, data, version, id, tr_zxdg_output_manager_v1_interface(), XdgOutputManagerGlobal.table)
    }

    package nonisolated(unsafe) static let table = implementation(zxdg_output_manager_v1_interface(
        destroy: destroyRequest,
        get_xdg_output: { client, resource, id, outputResource in
            let manager = WaylandObject.of(resource, as: PlainGlobal.self)
            guard let created = createResource(client, tr_zxdg_output_v1_interface(), version: wl_resource_get_version(resource), id: id) else { return }
            let xdgOutput = XdgOutputObject(resource: created, madeBy: manager)
            WaylandObject.install(xdgOutput, implementation: XdgOutputObject.table)
            // libwayland has checked the argument is a wl_output; every one is an OutputBinding.
            // An output already removed from the session says nothing.
            let binding = WaylandObject.of(outputResource, as: OutputBinding.self)
            guard let output = binding.output, !output.retired else { return }
            xdgOutput.binding = binding
            binding.xdgOutputs.append(xdgOutput)
            output.sendLogicalState(to: created, output: binding.resource)
        }))
}

/// One zxdg_output_v1: it only ever receives.
package final class XdgOutputObject: WaylandObject {
    /// The wl_output it describes, while both live.
    package weak var binding: OutputBinding?

    package override func resourceDestroyed() {
        binding?.xdgOutputs.removeAll { $0 === self }
    }

    package nonisolated(unsafe) static let table = implementation(zxdg_output_v1_interface(destroy: destroyRequest))
}

extension VirtualOutput {
    /// The xdg_output's events for this output, then the batch's done.
    package func sendLogicalState(to resource: OpaquePointer, output: OpaquePointer) {
        let version = wl_resource_get_version(resource)
        sendLogicalPlace(to: resource)
        if version >= 2 {
            zxdg_output_v1_send_name(resource, name)
            zxdg_output_v1_send_description(resource, description)
        }
        if version >= 3 {
            if wl_resource_get_version(output) >= 2 { wl_output_send_done(output) }
        } else {
            zxdg_output_v1_send_done(resource)
        }
    }

    /// Its place and size in the layout.
    package func sendLogicalPlace(to resource: OpaquePointer) {
        zxdg_output_v1_send_logical_position(resource, Int32(clamping: rect.x), Int32(clamping: rect.y))
        zxdg_output_v1_send_logical_size(resource, Int32(clamping: rect.width), Int32(clamping: rect.height))
    }

    /// What wl_output.description and zxdg_output_v1.description say.
    package var description: String { "\(identity.make) \(identity.model) \(name) (\(mode))" }
}
