import CWaylandShim
import TouchRouterCore
#if canImport(Glibc)
import Glibc
#endif

/// What the session's settling reads, watched so that a round of input alone can skip it.
///
/// Settling (the display's `beforeFlush` and `afterSettle`) costs thousands of instructions
/// however little changed, and it runs after a touch is written: a client woken on the
/// session's CPU waits for it. A round in which only input sources ran and their routing
/// changed nothing settling reads has nothing to settle.
package protocol SettleWatch: AnyObject {
    /// A settle ended: remember what it read.
    func settleEnded()
    /// After a round of input alone: whether anything settling reads changed since the last settle.
    func needsSettling() -> Bool
}

/// Input sources (libinput, `msg play`) in one epoll set with the libwayland loop's own
/// descriptor, read ahead of it: each round routes what input is ready first, then
/// dispatches the loop's sources (clients' requests, timers) if any is ready. One wait a
/// round, as the loop's own was: a round of input alone makes no other call to wait.
package final class InputWatches {
    fileprivate let set: Int32
    fileprivate let loopFD: Int32
    fileprivate static let capacity = 16
    // Behind one pointer: a class's stored vars pay an exclusivity check on every access.
    /// Each input source's descriptor with its callback, and the last wait's ready descriptors.
    fileprivate let watched = UncheckedState<(fds: [Int32], callbacks: [() -> Void], ready: [Int32])>(([], [], Array(repeating: -1, count: InputWatches.capacity)))

    init(loopFD: Int32) throws(WaylandError) {
        set = tr_epoll_create()
        guard set >= 0 else { throw WaylandError.errno("cannot make the loop's epoll set (epoll_create1)") }
        self.loopFD = loopFD
        guard tr_epoll_add(set, loopFD) == 0 else {
            let error = WaylandError.errno("cannot watch the libwayland loop's descriptor (epoll_ctl)")
            close(set)
            throw error
        }
    }

    deinit {
        close(set)
        watched.release()
    }

    fileprivate func add(fd: Int32, _ callback: @escaping () -> Void) throws(WaylandError) {
        guard tr_epoll_add(set, fd) == 0 else { throw WaylandError.errno("cannot watch input descriptor \(fd) (epoll_ctl)") }
        watched.pointee.fds.append(fd)
        watched.pointee.callbacks.append(callback)
    }

    fileprivate func remove(fd: Int32) {
        guard let i = index(of: fd) else { return }
        // Fails only if the descriptor was closed first, which took it out of the set anyway.
        _ = tr_epoll_remove(set, fd)
        watched.pointee.fds.remove(at: i)
        watched.pointee.callbacks.remove(at: i)
    }

    fileprivate func index(of fd: Int32) -> Int? {
        var i = 0
        while i < watched.pointee.fds.count {
            if watched.pointee.fds[i] == fd { return i }
            i += 1
        }
        return nil
    }
}

/// How a round of the loop ended.
package enum LoopRound {
    /// Something was ready and was dispatched.
    case dispatched
    /// Nothing was ready within the timeout.
    case idle
    /// The wait failed (not by a signal); `errno` says why.
    case failed
}

extension WaylandDisplay {
    /// Reads `fd` whenever it is readable, ahead of the loop's other sources, in rounds that
    /// settle only if the routing changed what settling reads (`SettleWatch`).
    package func watchInput(fd: Int32, _ callback: @escaping () -> Void) throws(WaylandError) {
        try inputs.add(fd: fd, callback)
    }

    package func unwatchInput(fd: Int32) {
        inputs.remove(fd: fd)
    }

    /// This round settles whatever its input changed: for what input can set off that the
    /// settle watch does not read (a shell binding's action).
    package func settleThisRound() {
        rounds.pointee.settleAsked = true
    }

    /// One round: settle and flush what the last round changed (after input that changed
    /// nothing settling reads, only flush), wait up to `timeout` ms, then route the input
    /// sources that are ready and dispatch the loop if it is.
    package func round(timeout: Int32) -> LoopRound {
        if rounds.pointee.skipNextSettle {
            rounds.pointee.skipNextSettle = false
            flushClients()
        } else {
            settleAndFlush()
        }
        wl_event_loop_dispatch_idle(loop)
        let ready = inputs.watched.pointee.ready.withUnsafeMutableBufferPointer { tr_epoll_wait(inputs.set, $0.baseAddress, Int32($0.count), timeout) }
        guard ready > 0 else {
            if ready == 0 { return .idle }
            return Glibc.errno == EINTR ? .dispatched : .failed
        }
        var inputRan = false, loopReady = false
        for r in 0..<Int(ready) {
            let fd = inputs.watched.pointee.ready[r]
            if fd == inputs.loopFD {
                loopReady = true
                continue
            }
            // An earlier callback of this round may have stopped watching it.
            guard let i = inputs.index(of: fd) else { continue }
            inputs.watched.pointee.callbacks[i]()
            inputRan = true
        }
        rounds.pointee.loopDispatchedLastRound = loopReady
        if loopReady, wl_event_loop_dispatch(loop, 0) < 0, Glibc.errno != EINTR { return .failed }
        rounds.pointee.skipNextSettle = inputRan && !loopReady && !rounds.pointee.settleAsked && rounds.pointee.settleWatch?.needsSettling() == false
        rounds.pointee.settleAsked = false
        return .dispatched
    }
}
