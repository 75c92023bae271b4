import CWaylandShim
import TouchRouterConfig

/// Every global the server offers, in the order wl_registry lists them: its interface, its
/// version, its bind function, and who sees it (every client, a kiosk only, or the clients
/// a privilege allows: Privileges.swift filters by this table alone). Adding a protocol
/// adds its room's globals here.
extension ProtocolStates {
    package static let globals: [ProtocolGlobal] = core + ProtocolStates.privileged + rooms

    /// The globals of the protocols that predate the rooms, each still in its own file.
    private static let core: [ProtocolGlobal] = [
        ProtocolGlobal(interface: tr_wl_shm_interface, version: ShmGlobal.version, bind: { client, data, version, id in
            guard let resource = GlobalHost.bindPlain(client, data, version, id, tr_wl_shm_interface(), ShmGlobal.table) else { return }
            ShmGlobal.sendFormats(to: resource)
        }),
        ProtocolGlobal(interface: tr_wl_compositor_interface, version: CompositorGlobal.version, bind: { client, data, version, id in
            GlobalHost.bind(client, data, version, id, tr_wl_compositor_interface(), CompositorGlobal.table) { $0 as any SurfaceHandler }
        }),
        ProtocolGlobal(interface: tr_wl_subcompositor_interface, version: SubcompositorGlobal.version, bind: { client, data, version, id in
            GlobalHost.bind(client, data, version, id, tr_wl_subcompositor_interface(), SubcompositorGlobal.table) { $0 as any SurfaceHandler }
        }),
        ProtocolGlobal(interface: tr_xdg_wm_base_interface, version: XdgWmBaseGlobal.version, bind: { client, data, version, id in
            GlobalHost.bind(client, data, version, id, tr_xdg_wm_base_interface(), XdgWmBaseGlobal.table) { $0 as any ShellHandler }
        }),
        ProtocolGlobal(interface: tr_zxdg_shell_v6_interface, version: XdgShellV6Global.version, bind: XdgShellV6Global.bind),
        ProtocolGlobal(interface: tr_wl_shell_interface, version: WlShellGlobal.version, bind: { client, data, version, id in
            GlobalHost.bind(client, data, version, id, tr_wl_shell_interface(), WlShellGlobal.table) { $0 as any ShellHandler }
        }),
        ProtocolGlobal(interface: tr_wl_seat_interface, version: SeatGlobal.version, bind: { client, data, version, id in
            guard let resource = GlobalHost.bind(client, data, version, id, tr_wl_seat_interface(), SeatGlobal.table, handler: { $0 as any SeatHandler }) else { return }
            wl_seat_send_capabilities(resource, WL_SEAT_CAPABILITY_POINTER.rawValue | WL_SEAT_CAPABILITY_KEYBOARD.rawValue | WL_SEAT_CAPABILITY_TOUCH.rawValue)
            if version >= 2 { wl_seat_send_name(resource, "seat0") }
        }),
        ProtocolGlobal(interface: tr_wl_data_device_manager_interface, version: DataDeviceManagerGlobal.version, bind: { client, data, version, id in
            GlobalHost.bind(client, data, version, id, tr_wl_data_device_manager_interface(), DataDeviceManagerGlobal.table) { $0 as any SelectionHandler }
        }),
        ProtocolGlobal(interface: tr_zwp_primary_selection_device_manager_v1_interface, version: PrimarySelectionGlobal.version, bind: PrimarySelectionGlobal.bind),
        ProtocolGlobal(interface: tr_gtk_primary_selection_device_manager_interface, version: GtkPrimarySelectionGlobal.version, bind: GtkPrimarySelectionGlobal.bind),
        ProtocolGlobal(interface: tr_touch_router_input_manager_v1_interface, version: TouchInputManagerGlobal.version, bind: TouchInputManagerGlobal.bind),
        ProtocolGlobal(interface: tr_zwp_input_timestamps_manager_v1_interface, version: InputTimestampsManagerGlobal.version, bind: InputTimestampsManagerGlobal.bind),
        ProtocolGlobal(interface: tr_zxdg_output_manager_v1_interface, version: XdgOutputManagerGlobal.version, bind: XdgOutputManagerGlobal.bind),
        ProtocolGlobal(interface: tr_zwp_relative_pointer_manager_v1_interface, version: RelativePointerManagerGlobal.version, bind: RelativePointerManagerGlobal.bind),
        ProtocolGlobal(interface: tr_zwp_pointer_constraints_v1_interface, version: PointerConstraintsGlobal.version, bind: PointerConstraintsGlobal.bind),
    ]

    /// The globals a client sees only if a privilege allows it (`[privileges]`, grant sockets).
    private static let privileged: [ProtocolGlobal] = [
        ProtocolGlobal(interface: tr_zwlr_virtual_pointer_manager_v1_interface, version: VirtualPointerManagerGlobal.version, bind: VirtualPointerManagerGlobal.bind, privilege: .virtualInput),
        ProtocolGlobal(interface: tr_zwp_virtual_keyboard_manager_v1_interface, version: VirtualKeyboardManagerGlobal.version, bind: VirtualKeyboardManagerGlobal.bind, privilege: .virtualInput),
        ProtocolGlobal(interface: tr_zwlr_layer_shell_v1_interface, version: LayerShellGlobal.version, bind: LayerShellGlobal.bind, privilege: .layerShell),
        ProtocolGlobal(interface: tr_zwlr_foreign_toplevel_manager_v1_interface, version: ForeignToplevelManagerGlobal.version, bind: ForeignToplevelManagerGlobal.bind, privilege: .foreignToplevel),
        ProtocolGlobal(interface: tr_zwp_text_input_manager_v3_interface, version: TextInputManagerGlobal.version, bind: TextInputManagerGlobal.bind),
        ProtocolGlobal(interface: tr_zwp_input_method_manager_v2_interface, version: InputMethodManagerGlobal.version, bind: InputMethodManagerGlobal.bind, privilege: .inputMethod),
    ]

    /// The rooms' globals (TouchRouterProtocols/<Name>/).
    private static let rooms: [ProtocolGlobal] = DecorationState.globals + IdleInhibitState.globals + FractionalScaleState.globals + ActivationState.globals
        + ViewporterState.globals + SinglePixelBufferState.globals + PresentationState.globals + KdeIdleState.globals + IdleNotifyState.globals
        + SessionLockState.globals + ScreencopyState.globals + OutputPowerState.globals
}
