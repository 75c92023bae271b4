#if canImport(Glibc)
import Glibc
#endif

/// posix_spawnp with the signal mask and SIGPIPE put back: the session blocks the
/// signals its loop reads through signalfd, and a child must not inherit that. Used for
/// `touch-router run`'s command and for the configuration's exec actions; the runner's
/// SIGCHLD handler reaps both.
///
/// `waylandSocket`, a descriptor of this process, is handed to the child as that same
/// descriptor, named by WAYLAND_SOCKET, as a compositor hands a client its connection: its
/// close-on-exec flag is cleared in the child alone (glibc's dup2 of a descriptor onto itself).
///
/// `newProcessGroup`: the child leads a process group of its own, so that a supervisor can
/// end it and everything it started (`kill(-pid, …)`).
///
/// `inheriting`: more descriptors the child keeps as they are numbered here (Xwayland's
/// listening sockets, its window manager's socket and its `-displayfd` pipe).
package func spawnProcess(_ command: [String], waylandSocket: Int32? = nil, newProcessGroup: Bool = false,
                          inheriting: [Int32] = []) throws(WaylandError) -> pid_t {
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
    var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
    if newProcessGroup {
        posix_spawnattr_setpgroup(&attributes, 0)
        flags |= POSIX_SPAWN_SETPGROUP
    }
    posix_spawnattr_setflags(&attributes, Int16(flags))
    let arguments = command.map { strdup($0) } + [nil]
    defer { for argument in arguments { free(argument) } }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    var environment: [UnsafeMutablePointer<CChar>?] = []
    defer { for variable in environment { free(variable) } }
    for fd in inheriting {
        let added = posix_spawn_file_actions_adddup2(&actions, fd, fd)
        guard added == 0 else { throw WaylandError("cannot hand \(program) descriptor \(fd): \(String(cString: strerror(added)))") }
    }
    if let waylandSocket {
        let added = posix_spawn_file_actions_adddup2(&actions, waylandSocket, waylandSocket)
        guard added == 0 else { throw WaylandError("cannot hand \(program) its Wayland socket: \(String(cString: strerror(added)))") }
        var index = 0
        while let variable = environ[index] {
            if strncmp(variable, "WAYLAND_SOCKET=", 15) != 0 { environment.append(strdup(variable)) }
            index += 1
        }
        environment.append(strdup("WAYLAND_SOCKET=\(waylandSocket)"))
    }
    var pid: pid_t = 0
    let result = waylandSocket == nil
        ? posix_spawnp(&pid, arguments[0]!, &actions, &attributes, arguments, environ)
        : posix_spawnp(&pid, arguments[0]!, &actions, &attributes, arguments, environment + [nil])
    guard result == 0 else { throw WaylandError("cannot run \(program): \(String(cString: strerror(result)))") }
    return pid
}
