import CWaylandShim
import TouchRouterCore
import TouchRouterStats
#if canImport(Glibc)
import Glibc
#endif

/// The monotonic clock: the session is the one part of TouchRouter that reads real time.
public final class MonotonicClock: RouterClock {
    public init() {}
    public func now() -> RouterTime {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return RouterTime(nanoseconds: Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec))
    }
}

/// What a client has: its id in the core, and its seat devices.
final class ClientRecord {
    let id: ClientID
    let client: OpaquePointer
    var devices: [SeatDevice] = []
    var destroyListener: Listener?
    var usage = ClientUsage()
    /// An app policy says `touch = false` for one of its toplevels: the router is told it has no wl_touch.
    var touchWithheld = false

    init(id: ClientID, client: OpaquePointer) {
        self.id = id
        self.client = client
    }

    func devices(_ kind: SeatDevice.Kind) -> [SeatDevice] { devices.filter { $0.kind == kind } }

    /// The client's process, as its socket's peer credentials say.
    var pid: Int32 {
        var pid: pid_t = 0, uid: uid_t = 0, gid: gid_t = 0
        wl_client_get_credentials(client, &pid, &uid, &gid)
        return pid
    }

    var capabilities: ClientCapabilities {
        var capabilities: ClientCapabilities = []
        for device in devices {
            switch device.kind {
            case .touch: if !touchWithheld { capabilities.insert(.touch) }
            case .pointer: capabilities.insert(.pointer)
            case .keyboard: capabilities.insert(.keyboard)
            }
        }
        return capabilities
    }
}

/// A headless Wayland compositor around the routing core: it translates protocol
/// requests into changes of the core's surface tree, and the core's deliveries into
/// wl_touch, wl_pointer and wl_keyboard events. It decides nothing about routing.
public final class WaylandSession {
    public struct Options: Sendable {
        public var outputs: [OutputMode] = [OutputMode(width: 1920, height: 1080)]
        /// What each output of `outputs` is called and what it is, in the same order; an
        /// output past its end is HEADLESS-N, "TouchRouter virtual".
        public var outputIdentities: [OutputIdentity] = []
        /// The first toplevel fills the first output, as in cage.
        public var kiosk = false
        public var keyboardLayout: String? = nil
        /// Listen on a wayland-N socket in XDG_RUNTIME_DIR. Off where clients arrive on
        /// sockets handed over one by one (`addClient(socket:)`), as under WLCS.
        public var listens = true
        public init() {}
    }

    public let options: Options
    let display: WaylandDisplay
    public let tree = SurfaceTree()
    public private(set) var router: Router!
    public let clock = CounterClock()
    /// Every routed event's timeline in HDR histograms, for `msg stats` (TouchRouterStats).
    public let stats = LatencyStats()
    /// Hears each flush of the clients, after `stats`: the control socket's trace stamps
    /// the records it held back with it.
    var onFlushed: ((RouterTime) -> Void)?
    private(set) var keymap: Keymap
    /// The compositor's side: configuration, bindings, app policies, subscribers' events.
    public private(set) var shell: SessionShell!
    var outputs: [VirtualOutput] = []
    /// Outputs removed while the session runs, kept until their globals are destroyed (OutputLifecycle.swift).
    var retiredOutputs: [VirtualOutput] = []
    var retirementTimer: OneShotTimer?
    var nextOutput: UInt32 = 1
    /// The host's input devices as JSON objects, for `msg devices` (set by the host).
    public var deviceReport: (() -> [String])?
    /// Called when the keymap's state lights other LEDs (Caps Lock pressed), for the input
    /// backend to set them on the keyboards.
    public var onKeyboardLEDs: ((KeyboardLEDs) -> Void)?
    /// The LEDs lit now.
    public private(set) var keyboardLEDs: KeyboardLEDs = []
    var surfaces: [SurfaceID: SurfaceObject] = [:]
    /// Where each output's composed frames go, for outputs a backend shows (OutputPresentation.swift).
    var presenters: [OutputID: OutputPresenter] = [:]
    var unpresented: [OutputID: UnpresentedDamage] = [:]
    /// Whether the compositor's cursor is drawn (Cursor.swift).
    var cursor: CursorVisibility
    /// Each output's software framebuffer, made at its first composition (OutputComposition.swift).
    var compositors: [OutputID: OutputCompositor] = [:]
    private var nextSurface: UInt32 = 1
    private var clients: [OpaquePointer: ClientRecord] = [:]
    private var clientsByID: [ClientID: ClientRecord] = [:]
    private var nextClient: UInt32 = 1
    /// Clients a host handed a socket to (`addClient`), by the host's end.
    var clientsBySocket: [Int32: OpaquePointer] = [:]
    /// Devices a host made (`addDevice`); the injection device is 1.
    var nextHostDevice: UInt32 = 100
    /// Frame callbacks committed and not yet done, with the surface each was committed on.
    private var pendingFrames: [(callback: FrameCallback, surface: SurfaceID)] = []
    /// Mapped popups that asked for a grab, innermost last; they hold the core's client grab.
    private var grabbingPopups: [XdgPopupObject] = []
    private var placedToplevels = 0
    var globals: [OpaquePointer] = []
    private let seatTracker = SeatTracker()
    /// The device `inject` speaks for; real devices come from libinput.
    public static let injectionDevice = DeviceID(1)

    public var socketName: String { display.socketName }

    public init(options: Options) throws(WaylandError) {
        self.options = options
        display = try WaylandDisplay()
        keymap = try Keymap(layout: options.keyboardLayout)
        cursor = CursorVisibility()
        router = Router(tree: tree, delivery: self, clock: clock)
        router.focusPolicy = .onPress
        router.defaultClientCapabilities = []
        router.timelineObserver = stats
        seatTracker.session = self
        router.addMonitor(seatTracker)
        shell = SessionShell(session: self)
        var x = 0
        for (i, mode) in options.outputs.enumerated() {
            let id = OutputID(nextOutput)
            nextOutput += 1
            let rect = Rect<GlobalSpace>(origin: Offset(dx: x, dy: 0), size: mode.layoutSize)
            let identity = i < options.outputIdentities.count ? options.outputIdentities[i] : OutputIdentity(headless: i + 1)
            do { try tree.addOutput(id, name: identity.name, rect: rect) } catch { throw WaylandError("output \(identity.name): \(error)") }
            let output = VirtualOutput(id: id, identity: identity, rect: rect, mode: mode)
            outputs.append(output)
            x += rect.width
        }
        // After the outputs: the shell takes each output's link of the chain.
        try shell.install()
        router.enqueue(.deviceAdded(device: Self.injectionDevice, time: clock.now(), capabilities: [.touch, .pointer, .keyboard]))
        router.nameDevice(Self.injectionDevice, "touch-router inject")
        router.dispatchAll()
    }

    /// Creates the globals, opens the socket and starts the frame clock.
    public func start() throws(WaylandError) {
        let data = Unmanaged.passUnretained(self).toOpaque()
        func add(_ interface: UnsafePointer<wl_interface>, _ version: Int32, _ bind: wl_global_bind_func_t) throws(WaylandError) {
            guard let global = wl_global_create(display.display, interface, version, data, bind) else { throw WaylandError("cannot create the \(String(cString: interface.pointee.name)) global") }
            globals.append(global)
        }
        try add(tr_wl_shm_interface(), ShmGlobal.version) { client, data, version, id in
            guard let resource = WaylandSession.bindGlobal(client, data, version, id, tr_wl_shm_interface(), ShmGlobal.table) else { return }
            ShmGlobal.sendFormats(to: resource)
        }
        try add(tr_wl_compositor_interface(), CompositorGlobal.version) { client, data, version, id in
            WaylandSession.bindGlobal(client, data, version, id, tr_wl_compositor_interface(), CompositorGlobal.table)
        }
        try add(tr_wl_subcompositor_interface(), SubcompositorGlobal.version) { client, data, version, id in
            WaylandSession.bindGlobal(client, data, version, id, tr_wl_subcompositor_interface(), SubcompositorGlobal.table)
        }
        try add(tr_xdg_wm_base_interface(), XdgWmBaseGlobal.version) { client, data, version, id in
            WaylandSession.bindGlobal(client, data, version, id, tr_xdg_wm_base_interface(), XdgWmBaseGlobal.table)
        }
        try add(tr_wl_seat_interface(), SeatGlobal.version) { client, data, version, id in
            guard let resource = WaylandSession.bindGlobal(client, data, version, id, tr_wl_seat_interface(), SeatGlobal.table) else { return }
            wl_seat_send_capabilities(resource, WL_SEAT_CAPABILITY_POINTER.rawValue | WL_SEAT_CAPABILITY_KEYBOARD.rawValue | WL_SEAT_CAPABILITY_TOUCH.rawValue)
            if version >= 2 { wl_seat_send_name(resource, "seat0") }
        }
        try add(tr_wl_data_device_manager_interface(), DataDeviceManagerGlobal.version) { client, data, version, id in
            WaylandSession.bindGlobal(client, data, version, id, tr_wl_data_device_manager_interface(), DataDeviceManagerGlobal.table)
        }
        try add(tr_touch_router_input_manager_v1_interface(), TouchInputManagerGlobal.version, TouchInputManagerGlobal.bind)
        for output in outputs { try createGlobal(for: output) }
        // The index is brought up to date once a round, after the round's commits, so that
        // the next input event does not pay for flattening what clients changed.
        display.beforeFlush = { [unowned self] in
            self.tree.settleIndex()
            self.router.refreshPointerFocus()
        }
        // One stamp per flush, for every event delivered since the last one.
        display.afterFlush = { [unowned self] in
            guard self.stats.awaitingFlush || self.onFlushed != nil else { return }
            let now = self.clock.now()
            self.stats.flushed(at: now)
            self.onFlushed?(now)
        }
        if options.listens { try display.addSocket() }
        let fastest = outputs.map(\.mode.refreshMilliHertz).max() ?? 60_000
        try display.every(milliseconds: Int32(max(1, 1_000_000 / fastest))) { [unowned self] in self.frameTick() }
        try display.every(milliseconds: 1000) { [unowned self] in self.disconnectClientsNotReading() }
    }

    @discardableResult
    static func bindGlobal(_ client: OpaquePointer?, _ data: UnsafeMutableRawPointer?, _ version: UInt32, _ id: UInt32,
                           _ interface: UnsafePointer<wl_interface>, _ table: UnsafeRawPointer) -> OpaquePointer? {
        let session = Unmanaged<WaylandSession>.fromOpaque(data!).takeUnretainedValue()
        guard let client, session.mayBind(client, String(cString: interface.pointee.name)),
              let resource = createResource(client, interface, version: Int32(version), id: id) else { return nil }
        session.record(for: client)
        WaylandObject.install(BoundGlobal(resource: resource, session: session), implementation: table)
        return resource
    }

    /// Counts a bind of a global against `ClientLimits.globalBindings`; past it the client
    /// is ended (libwayland's wl_registry, which it binds through, is the object named).
    func mayBind(_ client: OpaquePointer, _ interface: String) -> Bool {
        let record = record(for: client)
        guard record.usage.globalBindings < ClientLimits.globalBindings else {
            endClient(client, "wl_registry.bind of \(interface): past \(ClientLimits.globalBindings) bound globals, the most one client may have")
            return false
        }
        record.usage.globalBindings += 1
        return true
    }

    public func run() { display.run() }
    public func stop() { display.stop() }

    /// Ends every client and frees the display.
    public func shutdown() {
        display.destroy()
    }

    func onSignal(_ signal: Int32, _ callback: @escaping () -> Void) throws(WaylandError) { try display.onSignal(signal, callback) }
    func watch(fd: Int32, _ callback: @escaping (UInt32) -> Void) throws(WaylandError) -> OpaquePointer { try display.watch(fd: fd, callback) }
    func unwatch(fd: Int32, source: OpaquePointer) { display.unwatch(fd: fd, source: source) }

    // MARK: Clients

    @discardableResult
    func record(for client: OpaquePointer) -> ClientRecord {
        if let record = clients[client] { return record }
        let record = ClientRecord(id: ClientID(nextClient), client: client)
        nextClient += 1
        clients[client] = record
        clientsByID[record.id] = record
        let listener = Listener { [weak self, unowned record] _ in self?.clientDestroyed(record) }
        wl_client_add_destroy_listener(client, listener.wlListener)
        listener.didLink()
        record.destroyListener = listener
        stats.clientConnected(record.id, pid: record.pid)
        shell.clientConnected(record)
        return record
    }

    var clientRecords: [ClientRecord] { Array(clients.values) }

    /// The record of a client that is still connected; nil once it is going, so that
    /// resources destroyed with it neither count nor make a new record.
    func existingRecord(for client: OpaquePointer) -> ClientRecord? { clients[client] }

    /// libwayland tells this before it destroys the client's resources: from here on
    /// nothing is sent to the client, and its resources leave the tree as they go.
    private func clientDestroyed(_ record: ClientRecord) {
        record.destroyListener?.remove()
        record.destroyListener = nil
        clients[record.client] = nil
        clientsByID[record.id] = nil
        clientsBySocket = clientsBySocket.filter { $0.value != record.client }
        record.devices.removeAll()
        router.forgetClient(record.id)
        router.dispatchAll()
        stats.clientDisconnected(record.id)
        shell.clientDisconnected(record)
    }

    // MARK: Surfaces

    func surfaceCreated(_ surface: SurfaceObject) {
        surface.assignID(SurfaceID(nextSurface))
        nextSurface += 1
        WaylandObject.install(surface, implementation: SurfaceObject.table)
        surfaces[surface.id] = surface
    }

    func surfaceDestroyed(_ surface: SurfaceObject) {
        // Out of the lookup first: the leaves the core sends as it leaves the tree are
        // not for an object the client has destroyed.
        surfaces[surface.id] = nil
        surface.replaceContents(with: nil)
        surface.countRegionRectangles(nil)
        existingRecord(for: surface.client)?.usage.surfaces -= 1
        surface.subsurface?.detach()
        takeOutOfTree(surface)
    }

    /// The role object (xdg_toplevel or xdg_popup) went: the surface leaves the tree, and
    /// may take a role again.
    func roleDestroyed(surface: SurfaceObject?) {
        guard let surface else { return }
        takeOutOfTree(surface)
        if surface.role == .toplevel || surface.role == .popup { surface.role = .none }
    }

    private func takeOutOfTree(_ surface: SurfaceObject) {
        guard surface.inTree else { return }
        surface.inTree = false
        do { markOutOfTree(try tree.remove(surface.id)) } catch { report("removing \(surface.id): \(error)") }
        router.dispatchAll()
    }

    /// Everything stacked on a removed surface (subsurfaces and popups) left the tree with it.
    private func markOutOfTree(_ removed: [SurfaceID]) {
        for id in removed {
            surfaces[id]?.inTree = false
            shell.surfaceLeft(id)
        }
    }

    func subsurfaceCreated(_ subsurface: SubsurfaceObject) {
        guard let parent = subsurface.parent, parent.inTree, let surface = subsurface.surface else { return }
        addToTree(surface, parent: parent, below: false)
    }

    func subsurfaceDestroyed(_ subsurface: SubsurfaceObject) {
        subsurface.detach()
        if let surface = subsurface.surface {
            takeOutOfTree(surface)
            surface.cached = nil
        }
    }

    func labelChanged(_ toplevel: XdgToplevelObject) {
        guard let surface = toplevel.xdgSurface?.surface, surface.inTree else { return }
        try? tree.setLabel(surface.id, label(of: toplevel))
    }

    private func label(of toplevel: XdgToplevelObject) -> String {
        toplevel.appID.isEmpty ? toplevel.title : toplevel.title.isEmpty ? toplevel.appID : "\(toplevel.appID): \(toplevel.title)"
    }

    /// The size a toplevel is asked to take: the output's in kiosk mode, its own choice otherwise.
    func configureSize(for toplevel: XdgToplevelObject) -> Size {
        guard options.kiosk, let output = outputs.first else { return Size(width: 0, height: 0) }
        return output.mode.layoutSize
    }

    /// After a commit made state current: configure a new xdg surface, map it once it has
    /// acked and has a buffer, and bring the core's tree up to date.
    func surfaceCommitted(_ surface: SurfaceObject, frameCallbacks: [FrameCallback]) {
        pendingFrames += frameCallbacks.map { ($0, surface.id) }
        if let xdg = surface.xdgSurface, xdg.toplevel != nil || xdg.popup != nil {
            if !xdg.sentFirstConfigure { xdg.sendConfigure() }
            // Mapping waits for a buffer, not for ack_configure: WLCS's clients attach
            // their first buffer before they have read the configure, some even in the
            // very first commit. Mir maps them; wlroots and Weston end them with a
            // protocol error.
            if !surface.inTree, surface.hasBuffer {
                if let toplevel = xdg.toplevel { mapToplevel(surface, toplevel) }
                else if let popup = xdg.popup, let parent = popup.parent, parent.inTree { mapPopup(surface, popup, parent: parent) }
            }
        }
        guard surface.inTree else { return }
        do {
            try tree.resize(surface.id, to: surface.size)
            try tree.setInputRegion(surface.id, surface.inputRegionForTree)
            let mapped = surface.hasBuffer
            if tree.properties(of: surface.id)?.mapped != mapped { try tree.updateProperties(surface.id) { $0.mapped = mapped } }
            for child in surface.below + surface.above {
                guard let childSurface = child.surface, childSurface.inTree else { continue }
                if tree.surface(childSurface.id)?.position != child.position { try tree.move(childSurface.id, to: child.position) }
            }
            // A repositioned popup, or one whose window geometry changed, lines up again.
            if let popup = surface.xdgSurface?.popup, let parent = popup.parent {
                let origin = popupOrigin(popup, parent: parent)
                if tree.surface(surface.id)?.position != origin { try tree.move(surface.id, to: origin) }
            }
            if surface.pendingRestack {
                surface.pendingRestack = false
                try restackChildren(of: surface)
            }
        } catch {
            report("updating \(surface.id): \(error)")
        }
        router.dispatchAll()
    }

    /// Makes the core's order of a surface's subsurfaces match the protocol's.
    private func restackChildren(of surface: SurfaceObject) throws(SurfaceTreeError) {
        let inTree = { (list: [SubsurfaceObject]) in list.compactMap { $0.surface }.filter(\.inTree).map(\.id) }
        let wanted = (below: inTree(surface.below), above: inTree(surface.above))
        let actual = tree.subsurfaces(of: surface.id)
        guard actual.below != wanted.below || actual.above != wanted.above else { return }
        // Built outwards from the parent, each child next to the one placed before it.
        var next = surface.id
        for child in wanted.below.reversed() {
            try tree.place(child, below: next)
            next = child
        }
        var previous = surface.id
        for child in wanted.above {
            try tree.place(child, above: previous)
            previous = child
        }
    }

    private func mapToplevel(_ surface: SurfaceObject, _ toplevel: XdgToplevelObject) {
        guard let output = outputs.first else { return }
        // Placement is of the window geometry: client-side decorations (foot's title bar)
        // and shadows may lie outside the buffer's origin, and must land on the output too.
        let geometry = surface.xdgSurface?.geometry ?? Rect(x: 0, y: 0, width: surface.size.width, height: surface.size.height)
        let corner: Offset
        if options.kiosk {
            corner = .zero
        } else {
            // Cascade from the top left, as Weston's desktop shell does, wrapping within the output.
            let step = 32 * placedToplevels
            let room = (width: max(1, output.rect.width - geometry.width), height: max(1, output.rect.height - geometry.height))
            corner = Offset(dx: step % room.width, dy: step % room.height)
        }
        let position = Offset(dx: corner.dx - geometry.x, dy: corner.dy - geometry.y)
        let requested = surface.requestedPosition.map { Offset(dx: $0.dx - output.rect.x, dy: $0.dy - output.rect.y) }
        placedToplevels += 1
        let entered = enterTree(surface, as: "toplevel") { client, properties throws(SurfaceTreeError) in
            try tree.addToplevel(surface.id, client: client, output: output.id, position: requested ?? position,
                                 size: surface.size, properties: properties, label: label(of: toplevel))
        }
        guard entered else { return }
        // A new window ends any popup grab, as in Mir and GNOME Shell.
        router.dismissClientGrab()
        for resource in output.bindings(of: surface.client) { wl_surface_send_enter(surface.resource, resource) }
        _ = router.setKeyboardFocus(surface.id)
        router.dispatchAll()
    }

    private func mapPopup(_ surface: SurfaceObject, _ popup: XdgPopupObject, parent: SurfaceObject) {
        let entered = enterTree(surface, as: "popup") { client, properties throws(SurfaceTreeError) in
            try tree.addPopup(surface.id, client: client, parent: parent.id, position: popupOrigin(popup, parent: parent),
                              size: surface.size, properties: properties, label: "popup")
        }
        guard entered else { return }
        if popup.grabbed {
            grabbingPopups.append(popup)
            router.beginClientGrab(record(for: surface.client).id) { [unowned self] in self.dismissGrabbingPopups() }
            router.setKeyboardFocus(surface.id)
        }
        router.dispatchAll()
    }

    /// Where the popup's window geometry goes relative to its parent's: the positioner's
    /// box, moved inside the parent's output as its constraint adjustment allows (as is,
    /// while the parent is not on an output).
    func popupBox(_ popup: XdgPopupObject) -> Rect<SurfaceSpace> {
        guard let parent = popup.parent, parent.inTree, let origin = tree.surface(parent.id)?.originInOutput,
              let output = tree.outputOf(parent.id).flatMap({ tree.output($0) }) else { return popup.placement.box }
        let geometry = parent.xdgSurface?.geometry
        let bounds = Rect<SurfaceSpace>(x: -origin.dx - (geometry?.x ?? 0), y: -origin.dy - (geometry?.y ?? 0),
                                        width: output.rect.width, height: output.rect.height)
        return popup.placement.unconstrained(in: bounds)
    }

    /// The popup surface's origin in its parent surface: window geometries lined up as configured.
    private func popupOrigin(_ popup: XdgPopupObject, parent: SurfaceObject) -> Offset {
        let parentGeometry = parent.xdgSurface?.geometry, ownGeometry = popup.xdgSurface?.geometry
        return Offset(dx: (parentGeometry?.x ?? 0) + popup.box.x - (ownGeometry?.x ?? 0),
                      dy: (parentGeometry?.y ?? 0) + popup.box.y - (ownGeometry?.y ?? 0))
    }

    /// popup_done to every grabbing popup, innermost first, as xdg-shell asks; their
    /// clients then destroy them.
    private func dismissGrabbingPopups() {
        let dismissed = grabbingPopups
        grabbingPopups.removeAll()
        for popup in dismissed.reversed() { xdg_popup_send_popup_done(popup.resource) }
    }

    /// A popup's role object went: it no longer holds the grab; the last one ends it.
    func popupGone(_ popup: XdgPopupObject) {
        guard let at = grabbingPopups.firstIndex(where: { $0 === popup }) else { return }
        grabbingPopups.remove(at: at)
        if grabbingPopups.isEmpty { router.endClientGrab() }
    }

    private func addToTree(_ surface: SurfaceObject, parent: SurfaceObject, below: Bool) {
        guard !surface.inTree, let subsurface = surface.subsurface else { return }
        enterTree(surface, as: "subsurface") { client, properties throws(SurfaceTreeError) in
            try tree.addSubsurface(surface.id, client: client, parent: parent.id, position: subsurface.position,
                                   size: surface.size, below: below, properties: properties, label: "subsurface")
        }
    }

    /// Adds a surface to the core's tree with `add` (given its client and properties, mapped
    /// once it has a buffer), sets its input region, and brings in the subsurfaces waiting on it.
    @discardableResult
    private func enterTree(_ surface: SurfaceObject, as role: String,
                           _ add: (ClientID, SurfaceProperties) throws(SurfaceTreeError) -> Void) -> Bool {
        var properties = surface.propertiesOnEntry
        properties.mapped = surface.hasBuffer
        do {
            try add(record(for: surface.client).id, properties)
            try tree.setInputRegion(surface.id, surface.inputRegionForTree)
        } catch .tooDeep(_, let limit) {
            surface.endClient("\(surface.name).commit", pastLimit: "maps a \(role) past \(limit) levels, the most surfaces may nest")
            return false
        } catch {
            report("adding \(role) \(surface.id) to the tree: \(error)")
            return false
        }
        surface.inTree = true
        shell.surfaceEntered(surface)
        attachChildren(of: surface)
        return true
    }

    /// Subsurfaces made before their parent entered the tree follow it in, in order.
    private func attachChildren(of surface: SurfaceObject) {
        for child in surface.below.reversed() { if let s = child.surface { addToTree(s, parent: surface, below: true) } }
        for child in surface.above { if let s = child.surface { addToTree(s, parent: surface, below: false) } }
    }

    // MARK: Frames

    /// Each frame tick sends done to the callbacks committed since the last one; one
    /// whose client went first is skipped there, not searched for here, so that a client
    /// dying with thousands of callbacks costs no more than they do.
    private func frameTick() {
        cursor.advanceTime(to: clock.now())
        if !presenters.isEmpty { presentFrames() }
        guard !pendingFrames.isEmpty else { return }
        // A surface on a screen whose frame is still on its way waits for that frame to be
        // shown: clients draw at the pace of the screen they are on.
        let waiting = Set(presenters.filter { !$0.value.readyForFrame }.keys)
        var due: [FrameCallback] = []
        if waiting.isEmpty {
            due = pendingFrames.map(\.callback)
            pendingFrames.removeAll()
        } else {
            var kept: [(callback: FrameCallback, surface: SurfaceID)] = []
            for pending in pendingFrames {
                if let output = tree.outputOf(pending.surface), waiting.contains(output) { kept.append(pending) } else { due.append(pending.callback) }
            }
            pendingFrames = kept
        }
        let time = clock.now().waylandMilliseconds
        for callback in due where !callback.destroyed {
            wl_callback_send_done(callback.resource, time)
            wl_resource_destroy(callback.resource)
        }
    }

    // MARK: Seat

    func seatDeviceRequested(_ kind: SeatDevice.Kind, client: OpaquePointer?, seat: OpaquePointer?, id: UInt32) {
        guard let client else { return }
        let interface: UnsafePointer<wl_interface>, table: UnsafeRawPointer
        switch kind {
        case .touch: (interface, table) = (tr_wl_touch_interface(), SeatDevice.touchTable)
        case .pointer: (interface, table) = (tr_wl_pointer_interface(), SeatDevice.pointerTable)
        case .keyboard: (interface, table) = (tr_wl_keyboard_interface(), SeatDevice.keyboardTable)
        }
        let record = record(for: client)
        guard record.devices.count < ClientLimits.seatDevices else {
            WaylandObject.of(seat, as: BoundGlobal.self).endClient("wl_seat@\(wl_resource_get_id(seat)).get_\(kind)", pastLimit: "past \(ClientLimits.seatDevices) pointers, keyboards and touches, the most one client may have")
            return
        }
        guard let resource = createResource(client, interface, version: wl_resource_get_version(seat), id: id) else { return }
        let device = SeatDevice(resource: resource, session: self, kind: kind, clientID: record.id)
        WaylandObject.install(device, implementation: table)
        record.devices.append(device)
        router.setCapabilities(record.capabilities, for: record.id)
        if kind == .keyboard { sendKeymap(to: device) }
    }

    /// A reloaded configuration's keyboard: every keyboard gets the new keymap, and the
    /// focused client the modifiers of its fresh state.
    func replaceKeymap(_ new: Keymap) {
        keymap = new
        for record in clients.values {
            for keyboard in record.devices(.keyboard) {
                do {
                    let file = try keymap.makeFile()
                    wl_keyboard_send_keymap(keyboard.resource, WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1.rawValue, file.fd, file.size)
                    close(file.fd)
                } catch {
                    report("keymap for a client: \(error)")
                }
                sendRepeatInfo(to: keyboard)
            }
        }
        keyboardModifiersChanged(keymap.modifiers)
    }

    /// [keyboard]'s repeat-rate (keys a second, 0: no repeat) and repeat-delay (ms).
    private func sendRepeatInfo(to device: SeatDevice) {
        guard device.version >= 4 else { return }
        // Before the shell exists, sway's defaults, as KeyboardSettings has them.
        let rate = shell?.keyboard.repeatRate ?? 25, delay = shell?.keyboard.repeatDelay ?? 600
        wl_keyboard_send_repeat_info(device.resource, Int32(clamping: rate), Int32(clamping: delay))
    }

    private func sendKeymap(to device: SeatDevice) {
        do {
            let file = try keymap.makeFile()
            wl_keyboard_send_keymap(device.resource, WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1.rawValue, file.fd, file.size)
            close(file.fd)
        } catch {
            report("keymap for a client: \(error)")
        }
        sendRepeatInfo(to: device)
        // A keyboard bound after focus arrived gets its enter now.
        if let focus = router.keyboardFocus, let surface = surfaces[focus], tree.client(of: focus) == device.clientID {
            sendKeyboardEnter(surface, to: [device], pressedKeys: [])
        }
    }

    func seatDeviceDestroyed(_ device: SeatDevice) {
        guard let record = clientsByID[device.clientID] else { return }
        record.devices.removeAll { $0 === device }
        router.setCapabilities(record.capabilities, for: record.id)
    }

    func keyboardModifiersChanged(_ modifiers: KeyboardModifiers) {
        let lit = keymap.leds
        if lit != keyboardLEDs {
            keyboardLEDs = lit
            onKeyboardLEDs?(lit)
        }
        guard let focus = router.keyboardFocus, let client = tree.client(of: focus), let record = clientsByID[client] else { return }
        let serial = display.nextSerial
        for keyboard in record.devices(.keyboard) {
            wl_keyboard_send_modifiers(keyboard.resource, serial, modifiers.depressed, modifiers.latched, modifiers.locked, modifiers.group)
        }
    }

    func sendKeyboardEnter(_ surface: SurfaceObject, to keyboards: [SeatDevice], pressedKeys: [UInt32]) {
        let serial = display.nextSerial
        var keys = wl_array()
        wl_array_init(&keys)
        for key in pressedKeys {
            if let slot = wl_array_add(&keys, MemoryLayout<UInt32>.size) { slot.storeBytes(of: key, as: UInt32.self) }
        }
        let modifiers = keymap.modifiers
        for keyboard in keyboards where wl_resource_get_client(keyboard.resource) == wl_resource_get_client(surface.resource) {
            wl_keyboard_send_enter(keyboard.resource, serial, surface.resource, &keys)
            wl_keyboard_send_modifiers(keyboard.resource, serial, modifiers.depressed, modifiers.latched, modifiers.locked, modifiers.group)
        }
        wl_array_release(&keys)
    }

    /// A pointer or touch press raises its toplevel (not in kiosk mode), as a desktop shell does.
    func pressed(at point: Point<GlobalSpace>) {
        guard !options.kiosk, let hit = tree.hitTest(point), let top = tree.toplevel(of: hit.surface) else { return }
        guard let output = tree.outputOf(top), tree.output(output)?.toplevels.last != top else { return }
        try? tree.raise(top)
    }

    public func report(_ message: String) {
        var line = "touch-router: \(message)\n"
        line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    }

    /// The surface a touch at `point` reaches, the point in it, and the pixel it shows
    /// there (nil where its buffer has none), its buffer's transform undone as composition does.
    public func pixel(at point: Point<GlobalSpace>) -> (SurfaceID, Point<SurfaceSpace>, UInt32?)? {
        guard let hit = tree.hitTest(point), let surface = surfaces[hit.surface] else { return nil }
        let size = surface.size
        guard size.width > 0, size.height > 0, let contents = surface.contents else { return (hit.surface, hit.local, nil) }
        let transform = OutputTransform(rawValue: surface.current.transform) ?? .normal
        let (u, v) = transform.unapply(hit.local.x / Double(size.width), hit.local.y / Double(size.height))
        // A flip takes the surface's near edge to the buffer's far one: kept inside it.
        func index(_ fraction: Double, _ length: Int) -> Int { min(max(Int((fraction * Double(length)).rounded(.down)), 0), length - 1) }
        let pixel = contents.pixel(atBuffer: index(u, contents.width), index(v, contents.height))
        return (hit.surface, hit.local, pixel)
    }

    // MARK: Delivery lookups

    func devices(_ kind: SeatDevice.Kind, of client: ClientID) -> [SeatDevice] {
        clientsByID[client]?.devices(kind) ?? []
    }
}

/// Watches every event before routing: keeps xkbcommon's modifier state, and raises on press.
final class SeatTracker: EventMonitor {
    weak var session: WaylandSession?

    func observe(_ event: InputEvent, sequence: UInt64, arrival: RouterTime) {
        guard let session else { return }
        session.cursor.observe(event, at: arrival)
        switch event {
        case .key(_, _, let key, let state):
            if let modifiers = session.keymap.update(key: key, pressed: state == .pressed) { session.keyboardModifiersChanged(modifiers) }
        case .touchDown(_, _, _, let position):
            session.pressed(at: position)
        case .pointerButton(_, _, _, .pressed):
            session.pressed(at: session.router.pointerPosition)
        default:
            break
        }
    }
}

enum DataDeviceManagerGlobal {
    static let version: Int32 = 3

    /// Enough for GTK and Qt clients to start: data devices and sources exist, nothing is ever offered.
    nonisolated(unsafe) static let table = implementation(wl_data_device_manager_interface(
        create_data_source: { client, resource, id in
            let manager = WaylandObject.of(resource, as: BoundGlobal.self)
            guard let created = createResource(client, tr_wl_data_source_interface(), version: wl_resource_get_version(resource), id: id) else { return }
            WaylandObject.install(BoundGlobal(resource: created, session: manager.session), implementation: DataDeviceManagerGlobal.sourceTable)
        },
        get_data_device: { client, resource, id, _ in
            let manager = WaylandObject.of(resource, as: BoundGlobal.self)
            guard let created = createResource(client, tr_wl_data_device_interface(), version: wl_resource_get_version(resource), id: id) else { return }
            WaylandObject.install(BoundGlobal(resource: created, session: manager.session), implementation: DataDeviceManagerGlobal.deviceTable)
        }))

    nonisolated(unsafe) static let sourceTable = implementation(wl_data_source_interface(
        offer: { _, _, _ in }, destroy: destroyRequest,
        set_actions: { _, resource, actions in
            guard actions & ~7 == 0 else {
                let source = WaylandObject.of(resource, as: BoundGlobal.self)
                source.postError(WL_DATA_SOURCE_ERROR_INVALID_ACTION_MASK.rawValue, "\(source.name).set_actions: 0x\(String(actions, radix: 16)) has bits that are not wl_data_device_manager.dnd_action")
                return
            }
        }))
    nonisolated(unsafe) static let deviceTable = implementation(wl_data_device_interface(
        start_drag: { _, _, _, _, _, _ in }, set_selection: { _, _, _, _ in }, release: destroyRequest))
}
