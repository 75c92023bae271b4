import CWaylandShim
import TouchRouterCore
#if canImport(Glibc)
import Glibc
#endif

/// What a host that runs the session inside its own process needs beyond `touch-router
/// run`: clients handed over on sockets, windows placed from outside, input devices
/// made and fed in-process, and a second event loop to serve. The WLCS integration
/// module is such a host.
extension WaylandServer {
    /// Serves a client on one end of a fresh socket pair and returns the other end,
    /// which the caller owns.
    public func addClient() throws(WaylandError) -> Int32 {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw WaylandError.errno("socketpair for a new client")
        }
        guard let client = wl_client_create(display.display, ends[0]) else {
            close(ends[0])
            close(ends[1])
            throw WaylandError.errno("wl_client_create")
        }
        record(for: client)
        clientsBySocket[ends[1]] = client
        return ends[1]
    }

    /// Places the toplevel of surface `surfaceID` of the client behind `socket` (as
    /// `addClient` returned it) with the top left of its window geometry at (x, y), now
    /// if it is mapped, else when it maps. Anything else it names is refused with a reason.
    public func placeWindow(clientSocket socket: Int32, surfaceID: UInt32, x: Int, y: Int) throws(WaylandError) {
        guard let client = clientsBySocket[socket] else { throw WaylandError("no client was handed socket \(socket)") }
        guard let resource = wl_client_get_object(client, surfaceID),
              wl_resource_instance_of(resource, tr_wl_surface_interface(), SurfaceObject.table) != 0 else {
            throw WaylandError("object \(surfaceID) of client on socket \(socket) is not a wl_surface")
        }
        let surface = WaylandObject.of(resource, as: SurfaceObject.self)
        // (x, y) is where the window's geometry goes; its shadows may lie outside it.
        let geometry = surface.xdgSurface?.geometry
        let origin = Offset(dx: x - (geometry?.x ?? 0), dy: y - (geometry?.y ?? 0))
        surface.requestedPosition = origin
        guard surface.inTree, tree.role(of: surface.id) == .toplevel, let output = tree.outputOf(surface.id).flatMap({ tree.output($0) }) else { return }
        do {
            try tree.move(surface.id, to: Offset(dx: origin.dx - output.rect.x, dy: origin.dy - output.rect.y))
        } catch {
            throw WaylandError("cannot move surface \(surfaceID): \(error)")
        }
    }

    /// A new input device with touch or pointer capability, as if libinput had found one.
    public func addDevice(touch: Bool) -> DeviceID {
        let device = DeviceID(protocols.virtualInput.nextHostDevice)
        protocols.virtualInput.nextHostDevice += 1
        inject(.deviceAdded(device: device, time: clock.now(), capabilities: touch ? [.touch] : [.pointer]))
        return device
    }

    public func removeDevice(_ device: DeviceID) {
        inject(.deviceRemoved(device: device, time: clock.now()))
    }

    /// Routes one event now, as `msg inject` does; the loop flushes clients on its next turn.
    public func inject(_ event: InputEvent) {
        if case .key(_, _, let key, let state) = event {
            if shell.takesKey(key, state: state) || grabbedKey(event) { return }
        }
        router.enqueue(event)
        router.dispatchAll()
    }

    /// Feeds the router from a source of input events behind a file descriptor (a libinput
    /// context): whenever it is readable, `read` hands over what it has, and the events are
    /// routed at once. `name` names a device the first time it is added, for traces and `msg`.
    /// It is also read once at once: libinput queues its devices' added events before its
    /// descriptor is readable, and a touchscreen's mapping is chosen when it is added.
    /// A round that read only devices settles only if the routing changed what settling
    /// reads; a source that does more than deliver events (`onlyDevices` false: the seat
    /// manager's messages, a host compositor's connection) settles every round it is read.
    public func addInputSource(fd: Int32, onlyDevices: Bool = true, name: @escaping (DeviceID) -> String?, read: @escaping (_ deliver: (InputEvent) -> Void) -> Void) throws(WaylandError) {
        let drain = { [unowned self] in
            if !onlyDevices { self.display.settleThisRound() }
            read { event in
                if case .deviceAdded(let device, _, _) = event, let deviceName = name(device) { self.router.nameDevice(device, deviceName) }
                self.enqueueAsDevice(event)
            }
            self.router.dispatchAll()
            self.writeToClients()
        }
        try display.watchInput(fd: fd, drain)
        drain()
    }

    /// Queues an event of a device, as libinput's are queued: a key waits for the keys before
    /// it to be dispatched (the keymap's modifiers follow them), then a bound chord or the
    /// input method's keyboard grab may take it.
    package func enqueueAsDevice(_ event: InputEvent) {
        if case .key(_, _, let key, let state) = event {
            router.dispatchAll()
            if shell.takesKey(key, state: state) || grabbedKey(event) { return }
        }
        router.enqueue(event)
    }

    /// Routes a device's events the session makes itself (virtual pointers and keyboards)
    /// as libinput's are routed, and writes them to the clients at once; `name` names a
    /// device it adds. It runs inside the virtual device's request, so the settling waits
    /// for the end of the loop's round.
    package func routeAsDevice(_ events: [InputEvent], naming name: String? = nil) {
        for event in events {
            if case .deviceAdded(let device, _, _) = event, let name { router.nameDevice(device, name) }
            enqueueAsDevice(event)
        }
        router.dispatchAll()
        display.write(clients.keys)
    }

    /// The first output's rectangle in the layout, where a touchscreen is mapped.
    public var firstOutputArea: Rect<GlobalSpace>? { outputs.first?.rect }

    /// The outputs in layout order, with their transforms, for mapping touchscreens.
    public var outputPlacements: [(name: String, rect: Rect<GlobalSpace>, transform: OutputTransform)] {
        outputs.map { ($0.name, $0.rect, $0.mode.transform) }
    }

    /// Dispatches `loop` (a `wl_event_loop` the host owns) from the session's loop
    /// whenever it has work, so that the host's calls run on the session's thread.
    public func serve(loop: OpaquePointer) throws(WaylandError) {
        let fd = wl_event_loop_get_fd(loop)
        _ = try display.watch(fd: fd) { _ in _ = wl_event_loop_dispatch(loop, 0) }
    }
}
