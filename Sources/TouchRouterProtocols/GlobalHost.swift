import CWaylandShim

/// What every protocol object needs of the server that hosts it: its client's record, the
/// limits counted in it, and the way a client is ended (ClientLimits.swift).
package protocol ClientAccounting: AnyObject {
    func existingRecord(for client: OpaquePointer) -> ClientRecord?
    @discardableResult func record(for client: OpaquePointer) -> ClientRecord
    /// Counts a bind against `ClientLimits.globalBindings`; false once that ended the client.
    func mayBind(_ client: OpaquePointer, _ interface: String) -> Bool
    /// Ends a client with wl_display's implementation error, and says so in the log.
    func endClient(_ client: OpaquePointer, _ message: String)
}

/// The server as a global's bind sees it: the accounting, the rooms' states, and every room's
/// handler. A bind hands its manager only the one handler its room names.
package protocol ProtocolHost: ClientAccounting, SurfaceHandler, ShellHandler, SeatHandler, SelectionHandler, TextInputHandler,
                               LayerSurfaceHandler, TouchInputHandler, VirtualInputHandler, SessionLockHandler, OutputPowerHandler,
                               ScreencopyHandler, ActivationHandler, DecorationHandler, FractionalScaleHandler, IdleTimeoutHandler {
    // The states of the rooms whose binds need only them.
    var presentationState: PresentationState { get }
    var viewporterState: ViewporterState { get }
    var idleInhibitState: IdleInhibitState { get }
    var foreignToplevelState: ForeignToplevelState { get }
}

/// The data of every global the server makes: the host, behind the one pointer libwayland
/// keeps. The server holds it as long as its globals live.
package final class GlobalHost {
    package unowned let host: any ProtocolHost

    package init(host: any ProtocolHost) { self.host = host }

    /// The pointer to give wl_global_create.
    package var data: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    private static func host(_ data: UnsafeMutableRawPointer?) -> any ProtocolHost {
        Unmanaged<GlobalHost>.fromOpaque(data!).takeUnretainedValue().host
    }

    /// Every bind's start: the bind counted against the client's limit, its resource made at
    /// the version asked (at most the global's: libwayland refuses a bind above it), and the
    /// client given its record. Nil when the client was ended or is out of memory.
    private static func bound(_ client: OpaquePointer?, _ data: UnsafeMutableRawPointer?, _ version: UInt32, _ id: UInt32,
                              _ interface: UnsafePointer<wl_interface>) -> (host: any ProtocolHost, resource: OpaquePointer)? {
        let host = host(data)
        guard let client, host.mayBind(client, String(cString: interface.pointee.name)),
              let resource = createResource(client, interface, version: Int32(clamping: version), id: id) else { return nil }
        host.record(for: client)
        return (host, resource)
    }

    /// Binds a global whose requests need nothing of the server: its resource is a `PlainGlobal`.
    @discardableResult
    package static func bindPlain(_ client: OpaquePointer?, _ data: UnsafeMutableRawPointer?, _ version: UInt32, _ id: UInt32,
                                  _ interface: UnsafePointer<wl_interface>, _ table: UnsafeRawPointer) -> OpaquePointer? {
        guard let (host, resource) = bound(client, data, version, id, interface) else { return nil }
        WaylandObject.install(PlainGlobal(resource: resource, server: host), implementation: table)
        return resource
    }

    /// Binds a room's global: its resource is a `RoomGlobal`, whose requests reach the server
    /// through `handler(host)`, the room's handler protocol (checked by the compiler where the
    /// room names it), and nothing else.
    @discardableResult
    package static func bind<Handler>(_ client: OpaquePointer?, _ data: UnsafeMutableRawPointer?, _ version: UInt32, _ id: UInt32,
                                      _ interface: UnsafePointer<wl_interface>, _ table: UnsafeRawPointer,
                                      handler: (any ProtocolHost) -> Handler) -> OpaquePointer? {
        guard let (host, resource) = bound(client, data, version, id, interface) else { return nil }
        WaylandObject.install(RoomGlobal(resource: resource, server: host, handler: handler(host)), implementation: table)
        return resource
    }

    /// Binds a global whose manager is its room's own object, made by `make` with the host.
    @discardableResult
    package static func bind(_ client: OpaquePointer?, _ data: UnsafeMutableRawPointer?, _ version: UInt32, _ id: UInt32,
                             _ interface: UnsafePointer<wl_interface>, make: (OpaquePointer, any ProtocolHost) -> Void) -> OpaquePointer? {
        guard let (host, resource) = bound(client, data, version, id, interface) else { return nil }
        make(resource, host)
        return resource
    }
}
