#if canImport(Glibc)
import Glibc
#endif

/// Work whose time grows with sizes given from outside (an output's pixels, a file) runs on a
/// thread of its own, so that the loop goes on serving clients and the control socket; its
/// result comes back on the loop, through a pipe the loop watches.
extension WaylandDisplay {
    package func runOffLoop<Result: Sendable>(_ what: String, _ work: @escaping @Sendable () -> Result, then deliver: @escaping (Result) -> Void) throws(WaylandError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw WaylandError.errno("a pipe for \(what)") }
        let (readEnd, writeEnd) = (ends[0], ends[1])
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(readEnd, F_SETFL, O_NONBLOCK)
        let box = OffLoopResult<Result>()
        var watched: OpaquePointer?
        do {
            watched = try watch(fd: readEnd) { [unowned self] _ in
                var byte: UInt8 = 0
                guard Glibc.read(readEnd, &byte, 1) == 1, let source = watched, let result = box.take() else { return }
                self.unwatch(fd: readEnd, source: source)
                close(readEnd)
                deliver(result)
            }
        } catch {
            close(readEnd)
            close(writeEnd)
            throw error
        }
        let job = Unmanaged.passRetained(OffLoopJob {
            box.put(work())
            // The byte follows the result: the loop reads the result only after the byte.
            var byte: UInt8 = 1
            _ = Glibc.write(writeEnd, &byte, 1)
            close(writeEnd)
        })
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { raw in
            Unmanaged<OffLoopJob>.fromOpaque(raw!).takeRetainedValue().run()
            return nil
        }, job.toOpaque())
        guard started == 0 else {
            job.release()
            if let source = watched { unwatch(fd: readEnd, source: source) }
            close(readEnd)
            close(writeEnd)
            throw WaylandError("cannot start a thread for \(what): \(String(cString: strerror(started)))")
        }
        pthread_detach(thread)
    }
}

/// The closure a thread runs; handed to it retained, released when it is done.
private final class OffLoopJob: @unchecked Sendable {
    package let run: () -> Void
    package init(_ run: @escaping () -> Void) { self.run = run }
}

/// The result of work off the loop, written by its thread before the byte that says it is
/// there and read by the loop after that byte: the pipe's write and read order the two.
private final class OffLoopResult<Result>: @unchecked Sendable {
    private var result: Result?
    package func put(_ value: Result) { result = value }
    package func take() -> Result? {
        defer { result = nil }
        return result
    }
}
