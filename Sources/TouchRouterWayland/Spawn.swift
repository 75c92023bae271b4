#if canImport(Glibc)
import Glibc
#endif

/// posix_spawnp with the signal mask and SIGPIPE put back: the session blocks the
/// signals its loop reads through signalfd, and a child must not inherit that. Used for
/// `touch-router run`'s command and for the configuration's exec actions; the runner's
/// SIGCHLD handler reaps both.
func spawnProcess(_ command: [String]) throws(WaylandError) -> pid_t {
    guard let program = command.first, !command.contains(where: { $0.contains("\0") }) else {
        throw WaylandError("cannot run an empty command, or one holding NUL")
    }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    sigaddset(&defaults, SIGPIPE)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let arguments = command.map { strdup($0) } + [nil]
    defer { for argument in arguments { free(argument) } }
    var pid: pid_t = 0
    let result = posix_spawnp(&pid, arguments[0]!, nil, &attributes, arguments, environ)
    guard result == 0 else { throw WaylandError("cannot run \(program): \(String(cString: strerror(result)))") }
    return pid
}
