import CWaylandShim

/// zxdg_decoration_manager_v1: one decoration object per toplevel.
package enum XdgDecorationManager {
    package static let version: Int32 = 1

    package static let bind: wl_global_bind_func_t = { client, data, version, id in
        GlobalHost.bind(client, data, version, id, tr_zxdg_decoration_manager_v1_interface(), table) { $0 as any DecorationHandler }
    }

    package nonisolated(unsafe) static let table = implementation(zxdg_decoration_manager_v1_interface(
        destroy: destroyRequest,
        get_toplevel_decoration: { client, resource, id, toplevelResource in
            let manager = WaylandObject.of(resource, as: RoomGlobal<any DecorationHandler>.self)
            let toplevel = WaylandObject.of(toplevelResource, as: XdgToplevelObject.self)
            let state = manager.handler.decorationState
            guard state.decorations.allowsAnother(for: toplevel, named: toplevel.name, manager: manager, request: "get_toplevel_decoration",
                                                  code: ZXDG_TOPLEVEL_DECORATION_V1_ERROR_ALREADY_CONSTRUCTED.rawValue) else { return }
            guard toplevel.xdgSurface?.surface?.hasBuffer != true else {
                manager.postError(ZXDG_TOPLEVEL_DECORATION_V1_ERROR_UNCONFIGURED_BUFFER.rawValue,
                                  "\(manager.name).get_toplevel_decoration: \(toplevel.name) has a buffer already; ask before the first buffer")
                return
            }
            guard let created = createResource(client, tr_zxdg_toplevel_decoration_v1_interface(), version: wl_resource_get_version(resource), id: id) else { return }
            let decoration = XdgToplevelDecorationObject(resource: created, madeBy: manager, toplevel: toplevel, state: state, handler: manager.handler)
            WaylandObject.install(decoration, implementation: XdgToplevelDecorationObject.table)
            state.decorations.add(decoration, to: toplevel)
            decoration.configure()
        }))
}

/// zxdg_toplevel_decoration_v1: every request is answered with server-side.
package final class XdgToplevelDecorationObject: WaylandObject {
    package weak var toplevel: XdgToplevelObject?
    /// Its toplevel's identity, its key in the state.
    package let key: ObjectIdentifier
    private let state: DecorationState
    private unowned let handler: any DecorationHandler

    package init(resource: OpaquePointer, madeBy manager: WaylandObject, toplevel: XdgToplevelObject, state: DecorationState, handler: any DecorationHandler) {
        self.toplevel = toplevel
        key = ObjectIdentifier(toplevel)
        self.state = state
        self.handler = handler
        super.init(resource: resource, madeBy: manager)
    }

    package override func resourceDestroyed() {
        state.decorations.remove(self, key: key)
    }

    /// Server-side, then an xdg_surface.configure, as the protocol pairs them.
    package func configure() {
        guard let toplevel else { return }
        zxdg_toplevel_decoration_v1_send_configure(resource, ZXDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE.rawValue)
        handler.decorationModeChanged(toplevel)
    }

    /// A request after its toplevel went is the protocol's orphaned error.
    private func modeRequest(_ request: String, _ mode: UInt32?) {
        guard toplevel != nil else {
            postError(ZXDG_TOPLEVEL_DECORATION_V1_ERROR_ORPHANED.rawValue, "\(name).\(request): its xdg_toplevel was destroyed first")
            return
        }
        // Version 1 has no error for a mode it does not know: it is answered like any other.
        _ = mode
        configure()
    }

    package nonisolated(unsafe) static let table = implementation(zxdg_toplevel_decoration_v1_interface(
        destroy: destroyRequest,
        set_mode: { _, resource, mode in WaylandObject.of(resource, as: XdgToplevelDecorationObject.self).modeRequest("set_mode", mode) },
        unset_mode: { _, resource in WaylandObject.of(resource, as: XdgToplevelDecorationObject.self).modeRequest("unset_mode", nil) }))
}
