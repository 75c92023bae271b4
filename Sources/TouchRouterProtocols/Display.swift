import CWaylandShim
import TouchRouterCore
#if canImport(Glibc)
import Glibc
#endif

public struct WaylandError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
    package static func errno(_ what: String) -> WaylandError { WaylandError("\(what): \(String(cString: strerror(Glibc.errno)))") }
}

/// libwayland-server's display and its event loop, which is the session's only loop:
/// client sockets, the control socket, frame timers and signals all wait in it, and input
/// sources beside it, read first in each round (LoopRounds.swift).
package final class WaylandDisplay {
    package let display: OpaquePointer
    package let loop: OpaquePointer
    package private(set) var socketName: String = ""
    private var sources: [OpaquePointer] = []
    private var callbacks: [Int: () -> Void] = [:]
    private var fdCallbacks: [Int32: (UInt32) -> Void] = [:]
    private var nextCallback = 1
    private var boxes: [TimerBox] = []
    package private(set) var running = false
    /// What each round reads and writes, behind one pointer: as stored vars of the class,
    /// every access paid a dynamic exclusivity check, several a touch frame.
    struct RoundState {
        var beforeFlush: (() -> Void)?
        var afterSettle: (() -> Void)?
        var afterFlush: (() -> Void)?
        var settleWatch: (any SettleWatch)?
        /// The last round was input alone and changed nothing settling reads.
        var skipNextSettle = false
        /// Something the settle watch does not read changed in this round (a shell binding ran).
        var settleAsked = false
        var settles: UInt64 = 0
        var loopDispatchedLastRound = false
    }
    let rounds = UncheckedState(RoundState())
    /// Runs after each round of the loop, before clients are flushed: the session settles
    /// what a round of requests changed (the pointer's focus) so that clients hear it now.
    package var beforeFlush: (() -> Void)? {
        get { rounds.pointee.beforeFlush }
        set { rounds.pointee.beforeFlush = newValue }
    }
    /// Runs after `beforeFlush`, before clients are flushed: the shell reports what the
    /// round changed (the keyboard focus) and arms the gesture timer for the next deadline.
    package var afterSettle: (() -> Void)? {
        get { rounds.pointee.afterSettle }
        set { rounds.pointee.afterSettle = newValue }
    }
    /// Runs right after clients are flushed: the timelines of the events sent since the
    /// last flush get their `flushed` stage.
    package var afterFlush: (() -> Void)? {
        get { rounds.pointee.afterFlush }
        set { rounds.pointee.afterFlush = newValue }
    }
    /// Told when a settle ends, and asked after a round of input alone whether to settle.
    package var settleWatch: (any SettleWatch)? {
        get { rounds.pointee.settleWatch }
        set { rounds.pointee.settleWatch = newValue }
    }
    /// Input sources, read ahead of the loop's other sources (LoopRounds.swift); the set the
    /// loop waits in.
    package let inputs: InputWatches
    /// How many times the session settled: rounds of input alone that changed nothing
    /// settling reads do not count.
    package var settles: UInt64 { rounds.pointee.settles }
    /// The last round dispatched the libwayland loop (it settles after it, whatever the input).
    package var loopDispatchedLastRound: Bool { rounds.pointee.loopDispatchedLastRound }

    package init() throws(WaylandError) {
        guard let display = wl_display_create() else { throw WaylandError("wl_display_create failed") }
        self.display = display
        loop = wl_display_get_event_loop(display)
        do {
            inputs = try InputWatches(loopFD: wl_event_loop_get_fd(loop))
        } catch {
            wl_display_destroy(display)
            throw error
        }
    }

    deinit { rounds.release() }

    /// Listens on the first free wayland-N socket in XDG_RUNTIME_DIR, as every compositor does.
    package func addSocket() throws(WaylandError) {
        guard getenv("XDG_RUNTIME_DIR") != nil else { throw WaylandError("XDG_RUNTIME_DIR is not set: it says where the Wayland socket goes") }
        guard let name = wl_display_add_socket_auto(display) else { throw WaylandError.errno("no free Wayland socket in XDG_RUNTIME_DIR") }
        socketName = String(cString: name)
    }

    package var nextSerial: UInt32 { wl_display_next_serial(display) }

    /// Watches a file descriptor for reading (or, `writable`, for writing); the callback gets
    /// libwayland's event mask.
    package func watch(fd: Int32, writable: Bool = false, _ callback: @escaping (UInt32) -> Void) throws(WaylandError) -> OpaquePointer {
        fdCallbacks[fd] = callback
        let source = wl_event_loop_add_fd(loop, fd, UInt32(writable ? WL_EVENT_WRITABLE : WL_EVENT_READABLE), { fd, mask, data in
            let display = Unmanaged<WaylandDisplay>.fromOpaque(data!).takeUnretainedValue()
            display.fdCallbacks[fd]?(mask)
            return 0
        }, Unmanaged.passUnretained(self).toOpaque())
        guard let source else {
            fdCallbacks[fd] = nil
            throw WaylandError.errno("cannot watch descriptor \(fd)")
        }
        return source
    }

    package func unwatch(fd: Int32, source: OpaquePointer) {
        fdCallbacks[fd] = nil
        // After `destroy` the loop is freed, and its sources with it.
        guard !destroyed else { return }
        wl_event_source_remove(source)
    }

    /// A repeating timer, every `milliseconds`.
    package func every(milliseconds: Int32, _ callback: @escaping () -> Void) throws(WaylandError) {
        let key = nextCallback
        nextCallback += 1
        let box = TimerBox(display: self, key: key, interval: milliseconds)
        boxes.append(box)
        callbacks[key] = callback
        let source = wl_event_loop_add_timer(loop, { data in
            let box = Unmanaged<TimerBox>.fromOpaque(data!).takeUnretainedValue()
            box.display?.callbacks[box.key]?()
            if let source = box.source { wl_event_source_timer_update(source, box.interval) }
            return 0
        }, Unmanaged.passUnretained(box).toOpaque())
        guard let source else { throw WaylandError.errno("cannot create a timer") }
        box.source = source
        wl_event_source_timer_update(source, milliseconds)
        sources.append(source)
    }

    /// A timer that fires once each time it is armed; the loop's own timerfd, so that its
    /// callback runs on the session's thread like everything else.
    package func oneShotTimer(_ callback: @escaping () -> Void) throws(WaylandError) -> OneShotTimer {
        let key = nextCallback
        nextCallback += 1
        callbacks[key] = callback
        let box = TimerBox(display: self, key: key, interval: 0)
        boxes.append(box)
        guard let source = wl_event_loop_add_timer(loop, { data in
            let box = Unmanaged<TimerBox>.fromOpaque(data!).takeUnretainedValue()
            box.display?.callbacks[box.key]?()
            return 0
        }, Unmanaged.passUnretained(box).toOpaque()) else { throw WaylandError.errno("cannot create a timer") }
        sources.append(source)
        return OneShotTimer(source: source)
    }

    /// A signal taken through the loop (a signalfd), not a handler.
    package func onSignal(_ signal: Int32, _ callback: @escaping () -> Void) throws(WaylandError) {
        let key = nextCallback
        nextCallback += 1
        callbacks[key] = callback
        let box = TimerBox(display: self, key: key, interval: 0)
        boxes.append(box)
        guard let source = wl_event_loop_add_signal(loop, signal, { _, data in
            let box = Unmanaged<TimerBox>.fromOpaque(data!).takeUnretainedValue()
            box.display?.callbacks[box.key]?()
            return 0
        }, Unmanaged.passUnretained(box).toOpaque()) else { throw WaylandError.errno("cannot watch signal \(signal)") }
        sources.append(source)
    }

    /// Runs rounds (`round(timeout:)`) until `stop()`; each flushes clients, since events
    /// sent from outside a libwayland callback are not flushed for us.
    package func run() {
        running = true
        while running {
            if round(timeout: -1) == .failed { break }
        }
        flushClients()
    }

    /// What ends each round of the loop: the session settles what the round changed, and
    /// clients hear it.
    package func settleAndFlush() {
        rounds.pointee.settles &+= 1
        rounds.pointee.beforeFlush?()
        rounds.pointee.afterSettle?()
        rounds.pointee.settleWatch?.settleEnded()
        flushClients()
    }

    /// Writes every client's pending events (ending a client whose write fails), then stamps them.
    package func flushClients() {
        wl_display_flush_clients(display)
        rounds.pointee.afterFlush?()
    }

    /// Writes what each of `clients` was sent, now. Safe inside a client's request, unlike
    /// wl_display_flush_clients, which destroys a client whose write fails: wl_client_flush
    /// leaves a failed or partial write to the end of the round's flush, which handles it.
    /// Not generic: a generic across the module boundary runs unspecialized.
    package func write(_ clients: Dictionary<OpaquePointer, ClientRecord>.Keys) {
        for client in clients { wl_client_flush(client) }
        rounds.pointee.afterFlush?()
    }

    package func stop() { running = false }

    /// `destroy` ran: the loop and every source in it are gone.
    package private(set) var destroyed = false

    package func destroy() {
        wl_display_destroy_clients(display)
        for source in sources { wl_event_source_remove(source) }
        sources.removeAll()
        destroyed = true
        wl_display_destroy(display)
    }
}

/// A one-shot timer armed in nanoseconds (a timerfd of its own on CLOCK_MONOTONIC, watched
/// by the loop): the loop's own timers count whole milliseconds, too coarse to place a
/// frame's composition before a vblank.
package final class PreciseTimer {
    private let fd: Int32
    private weak var display: WaylandDisplay?
    private var source: OpaquePointer?

    package init(on display: WaylandDisplay, _ fired: @escaping () -> Void) throws(WaylandError) {
        let fd = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        guard fd >= 0 else { throw WaylandError.errno("cannot create a frame timer (timerfd_create)") }
        self.fd = fd
        self.display = display
        do throws(WaylandError) {
            source = try display.watch(fd: fd) { _ in
                var expirations: UInt64 = 0
                // Non-blocking: a read that finds nothing (EAGAIN) means it was re-armed meanwhile.
                guard read(fd, &expirations, 8) == 8 else { return }
                fired()
            }
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    /// Fires once, `nanoseconds` from now (at least one), replacing any earlier arming.
    package func arm(nanoseconds: Int64) throws(WaylandError) {
        let delay = max(nanoseconds, 1)
        var spec = itimerspec(it_interval: timespec(tv_sec: 0, tv_nsec: 0),
                              it_value: timespec(tv_sec: Int(delay / 1_000_000_000), tv_nsec: Int(delay % 1_000_000_000)))
        guard timerfd_settime(fd, 0, &spec, nil) == 0 else { throw WaylandError.errno("cannot arm a frame timer (timerfd_settime)") }
    }

    /// Stops watching and closes the timer; it never fires again.
    package func close() {
        guard let source else { return }
        self.source = nil
        display?.unwatch(fd: fd, source: source)
        Glibc.close(fd)
    }

    deinit { close() }
}

/// A timer of the loop, armed for one expiry at a time.
package final class OneShotTimer {
    private let source: OpaquePointer
    package init(source: OpaquePointer) { self.source = source }
    /// Fires once, `milliseconds` (1 or more) from now, replacing any earlier arming.
    package func arm(milliseconds: Int32) { wl_event_source_timer_update(source, max(1, milliseconds)) }
    package func disarm() { wl_event_source_timer_update(source, 0) }
}

private final class TimerBox {
    package weak var display: WaylandDisplay?
    package let key: Int
    package let interval: Int32
    package var source: OpaquePointer?
    package init(display: WaylandDisplay, key: Int, interval: Int32) {
        self.display = display
        self.key = key
        self.interval = interval
    }
}
