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

/// Input sources (libinput, `msg play`), polled together with the libwayland loop's own
/// descriptor and read ahead of it: each round routes what input is ready first, then
/// dispatches the loop's sources (clients' requests, timers) if any is ready.
package final class InputWatches {
    // Behind one pointer: a class's stored vars pay an exclusivity check on every access.
    /// The loop's descriptor first, then each input source's, with its callback.
    fileprivate let watched: UncheckedState<(polled: [pollfd], callbacks: [() -> Void])>

    init(loopFD: Int32) {
        watched = UncheckedState(([pollfd(fd: loopFD, events: Int16(POLLIN), revents: 0)], [{}]))
    }

    deinit { watched.release() }

    fileprivate func add(fd: Int32, _ callback: @escaping () -> Void) {
        watched.pointee.polled.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0))
        watched.pointee.callbacks.append(callback)
    }

    fileprivate func remove(fd: Int32) {
        guard let i = index(of: fd) else { return }
        watched.pointee.polled.remove(at: i)
        watched.pointee.callbacks.remove(at: i)
    }

    fileprivate func index(of fd: Int32) -> Int? {
        var i = 1
        while i < watched.pointee.polled.count {
            if watched.pointee.polled[i].fd == fd { return i }
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
    package func watchInput(fd: Int32, _ callback: @escaping () -> Void) {
        inputs.add(fd: fd, callback)
    }

    package func unwatchInput(fd: Int32) {
        inputs.remove(fd: fd)
    }

    /// This round settles whatever its input changed: for what input can set off that the
    /// settle watch does not read (a shell binding's action).
    package func settleThisRound() {
        settleAsked = true
    }

    /// One round: settle and flush what the last round changed (after input that changed
    /// nothing settling reads, only flush), wait up to `timeout` ms, then route the input
    /// sources that are ready and dispatch the loop if it is.
    package func round(timeout: Int32) -> LoopRound {
        if skipNextSettle {
            skipNextSettle = false
            wl_display_flush_clients(display)
            afterFlush?()
        } else {
            settleAndFlush()
        }
        wl_event_loop_dispatch_idle(loop)
        let ready = inputs.watched.pointee.polled.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), timeout) }
        guard ready > 0 else {
            if ready == 0 { return .idle }
            return Glibc.errno == EINTR ? .dispatched : .failed
        }
        let polled = inputs.watched.pointee.polled
        var inputRan = false
        for entry in polled.dropFirst() where entry.revents != 0 {
            // An earlier callback of this round may have stopped watching it.
            guard let i = inputs.index(of: entry.fd) else { continue }
            inputs.watched.pointee.callbacks[i]()
            inputRan = true
        }
        let loopReady = polled[0].revents != 0
        if loopReady, wl_event_loop_dispatch(loop, 0) < 0, Glibc.errno != EINTR { return .failed }
        skipNextSettle = inputRan && !loopReady && !settleAsked && settleWatch?.needsSettling() == false
        settleAsked = false
        return .dispatched
    }
}
