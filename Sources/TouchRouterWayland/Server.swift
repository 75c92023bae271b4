import CWaylandShim
import TouchRouterConfig
import TouchRouterCore
import TouchRouterStats
@_exported import TouchRouterProtocols
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

/// A headless Wayland compositor around the routing core: it translates protocol
/// requests into changes of the core's surface tree, and the core's deliveries into
/// wl_touch, wl_pointer and wl_keyboard events. It decides nothing about routing.
public final class WaylandServer {
    public struct Options: Sendable {
        public var outputs: [OutputMode] = [OutputMode(width: 1920, height: 1080)]
        /// What each output of `outputs` is called and what it is, in the same order; an
        /// output past its end is HEADLESS-N, "TouchRouter virtual".
        public var outputIdentities: [OutputIdentity] = []
        /// The first toplevel fills the first output, as in cage.
        public var kiosk = false
        public var keyboardLayout: String? = nil
        /// Privileged globals every client sees, whatever the configuration's `[privileges]`
        /// says: for hosts whose clients live in their own process (WLCS), fuzzing, and tests.
        public var grantedToEveryClient: Set<Privilege> = []
        /// Listen on a wayland-N socket in XDG_RUNTIME_DIR. Off where clients arrive on
        /// sockets handed over one by one (`addClient(socket:)`), as under WLCS.
        public var listens = true
        public init() {}

        package func grantsEveryClient(_ privilege: Privilege) -> Bool { grantedToEveryClient.contains(privilege) }
    }

    public let options: Options
    package let display: WaylandDisplay
    public let tree = SurfaceTree()
    /// The protocols that have a room of their own (TouchRouterProtocols/).
    package let protocols: ProtocolStates
    public private(set) var router: Router!
    public let clock = CounterClock()
    /// Every routed event's timeline in HDR histograms, for `msg stats` (TouchRouterStats).
    public let stats = LatencyStats()
    /// Who hears what the server does: the host, the runner, the control socket's trace.
    public let hooks = ServerHooks()
    /// The compositor's side: configuration, bindings, app policies, subscribers' events.
    public private(set) var shell: ServerShell!
    package var outputs: [VirtualOutput] = []
    /// The LEDs lit now.
    public internal(set) var keyboardLEDs: KeyboardLEDs = []
    /// Whether the compositor's cursor is drawn (Cursor.swift).
    package var cursor: CursorVisibility
    package var clients: [OpaquePointer: ClientRecord] = [:]
    /// Clients by their id in the core, looked up for every delivered event (ServerClients.swift).
    package let clientTables = UncheckedState(ClientTables())
    deinit {
        clientTables.pointee.touchSends.removeAll()
        clientTables.release()
    }
    package var nextClient: UInt32 = 1
    /// Clients a host handed a socket to (`addClient`), by the host's end.
    package var clientsBySocket: [Int32: OpaquePointer] = [:]
    /// Grant sockets and the clients that came through them (PrivilegedSockets.swift); made at the first grant.
    package var privilegedSockets: PrivilegedSockets?
    private let seatTracker = SeatTracker()
    /// The data of every global: the server as the protocol layer's host.
    package private(set) lazy var globalHost = GlobalHost(host: self)
    /// The device `inject` speaks for; real devices come from libinput.
    public static let injectionDevice = DeviceID(1)

    public var socketName: String { display.socketName }
    /// `[supervise]`'s pings (Pings.swift); nil: clients are never pinged.
    package var pingSettings: PingSettings?
    /// The session's own tick (SessionTick.swift), armed only while something waits for it.
    package var sessionTick: SessionTick?

    public init(options: Options) throws(WaylandError) {
        self.options = options
        display = try WaylandDisplay()
        protocols = ProtocolStates(keymap: try Keymap(layout: options.keyboardLayout))
        cursor = CursorVisibility()
        router = Router(tree: tree, delivery: self, clock: clock)
        router.focusPolicy = .onPress
        // Wayland's keyboard focus is a window's (docs/focus.md).
        router.keyboardFocusUnit = .window
        router.defaultClientCapabilities = []
        router.timelineObserver = stats
        seatTracker.server = self
        router.addMonitor(seatTracker)
        router.pressObserver = seatTracker
        router.wakeObserver = protocols.seat.idle
        protocols.seat.idle.handler = self
        protocols.idleInhibit.handler = self
        protocols.foreignToplevel.handler = self
        shell = ServerShell(server: self)
        var x = 0
        for (i, mode) in options.outputs.enumerated() {
            let id = OutputID(protocols.output.nextOutput)
            protocols.output.nextOutput += 1
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
        let data = globalHost.data
        @discardableResult
        func add(_ interface: UnsafePointer<wl_interface>, _ version: Int32, _ bind: wl_global_bind_func_t) throws(WaylandError) -> OpaquePointer {
            guard let global = wl_global_create(display.display, interface, version, data, bind) else { throw WaylandError("cannot create the \(String(cString: interface.pointee.name)) global") }
            return global
        }
        for global in ProtocolStates.globals {
            let created = try add(global.interface()!, global.version, global.bind)
            if global.kioskOnly { protocols.kioskOnlyGlobals.insert(created) }
            if let privilege = global.privilege { protocols.privilegedGlobals[created] = privilege }
        }
        installGlobalFilter()
        for output in outputs {
            try createGlobal(for: output)
            try startFrameClock(for: output)
        }
        // The index is brought up to date once a round, after the round's commits, so that
        // the next input event does not pay for flattening what clients changed.
        display.beforeFlush = { [unowned self] in
            self.showOnScreenKeyboard()
            self.arrangeWaitingLayers()
            self.holdExclusiveLayerFocus()
            self.tree.settleIndex()
            self.router.refreshPointerFocus()
            if !self.protocols.seat.pointerConstraints.isEmpty || self.router.pointerConstraint != nil { self.updatePointerConstraint() }
            self.wakeRestingFrameClocks()
            self.scheduleSessionTick()
        }
        display.settleWatch = SettledReading(router: router, tree: tree, seat: protocols.seat, layerShell: protocols.layerShell)
        // One stamp per flush, for every event delivered since the last one. It runs after
        // each input write, before the session sleeps; through `self`, each use took and
        // dropped a reference (a third of its cost), so it holds guaranteed ones to what the
        // server owns and outlives it.
        let stats = Unmanaged.passUnretained(stats), hooks = Unmanaged.passUnretained(hooks), clock = Unmanaged.passUnretained(clock)
        display.afterFlush = {
            stats._withUnsafeGuaranteedRef { stats in
                hooks._withUnsafeGuaranteedRef { hooks in
                    let heard = hooks.hearsFlushes
                    guard stats.awaitingFlush || heard else { return }
                    let now = clock._withUnsafeGuaranteedRef { $0.now() }
                    stats.flushed(at: now)
                    if heard { hooks.onFlushed?(now) }
                }
            }
        }
        if options.listens { try display.addSocket() }
        try startSessionTick()
        try display.every(milliseconds: 1000) { [unowned self] in self.disconnectClientsNotReading() }
    }

    /// Counts a bind of a global against `ClientLimits.globalBindings`; past it the client
    /// is ended (libwayland's wl_registry, which it binds through, is the object named).
    package func mayBind(_ client: OpaquePointer, _ interface: String) -> Bool {
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

    /// Ends every client and frees the display; grant sockets are closed and their files removed.
    public func shutdown() {
        let onShutdown = hooks.onShutdown
        hooks.onShutdown = []
        for callback in onShutdown { callback() }
        for output in Array(protocols.output.frameClocks.keys) { stopFrameClock(of: output) }
        privilegedSockets?.closeAll()
        display.destroy()
    }

    package func onSignal(_ signal: Int32, _ callback: @escaping () -> Void) throws(WaylandError) { try display.onSignal(signal, callback) }
    package func watch(fd: Int32, _ callback: @escaping (UInt32) -> Void) throws(WaylandError) -> OpaquePointer { try display.watch(fd: fd, callback) }
    package func runOffLoop<Result: Sendable>(_ what: String, _ work: @escaping @Sendable () -> Result, then deliver: @escaping (Result) -> Void) throws(WaylandError) {
        try display.runOffLoop(what, work, then: deliver)
    }
    package func unwatch(fd: Int32, source: OpaquePointer) { display.unwatch(fd: fd, source: source) }
    /// Watches an input source's descriptor, read ahead of the loop's other sources.
    package func watchInput(fd: Int32, _ callback: @escaping () -> Void) throws(WaylandError) { try display.watchInput(fd: fd, callback) }
    package func unwatchInput(fd: Int32) { display.unwatchInput(fd: fd) }

    public func report(_ message: String) {
        var line = "touch-router: \(message)\n"
        line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    }

    /// The surface a touch at `point` reaches, the point in it, and the pixel it shows
    /// there (nil where its buffer has none), its buffer's transform undone as composition does.
    public func pixel(at point: Point<GlobalSpace>) -> (SurfaceID, Point<SurfaceSpace>, UInt32?)? {
        guard let hit = tree.hitTest(point), let surface = protocols.surface.surfaces[hit.surface] else { return nil }
        let size = surface.size
        guard size.width > 0, size.height > 0, let contents = surface.contents else { return (hit.surface, hit.local, nil) }
        let transform = OutputTransform(rawValue: surface.current.transform) ?? .normal
        var (x, y) = (hit.local.x / Double(size.width), hit.local.y / Double(size.height))
        if let viewport = surface.layerViewport { (x, y) = viewport.unviewported(x, y) }
        let (u, v) = transform.unapply(x, y)
        // A flip takes the surface's near edge to the buffer's far one: kept inside it.
        func index(_ fraction: Double, _ length: Int) -> Int { min(max(Int((fraction * Double(length)).rounded(.down)), 0), length - 1) }
        let pixel = contents.pixel(atBuffer: index(u, contents.width), index(v, contents.height))
        return (hit.surface, hit.local, pixel)
    }

}
