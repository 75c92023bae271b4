import CWaylandShim
#if canImport(Glibc)
import Glibc
#endif

/// What a new listening socket may take the place of at its path.
package enum StalePath {
    /// Anything there: a path only this process names (the control socket's has its pid).
    case anything
    /// Only a socket, left by a dead session; any other file is an error.
    case socketOnly
}

/// A non-blocking, close-on-exec Unix stream socket listening at `path`, mode 0600, created
/// with no permissions for anyone else (so there is no window before the chmod): the control
/// socket and the grant sockets. Each failure is an error naming the socket (`name`), the
/// path and errno's reason.
package func listeningSocket(at path: String, named name: String, replacing stale: StalePath) throws(WaylandError) -> Int32 {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    guard path.utf8.count < capacity else { throw WaylandError("\(name) path \(path) is longer than \(capacity - 1) bytes") }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (i, byte) in path.utf8.enumerated() { raw[i] = byte }
    }
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
    guard fd >= 0 else { throw WaylandError.errno("cannot make the \(name) \(path)") }
    switch stale {
    case .anything:
        unlink(path)
    case .socketOnly:
        var status = stat()
        if lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFSOCK { unlink(path) }
    }
    let oldMask = umask(0o177)
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    umask(oldMask)
    guard bound == 0 else {
        let error = WaylandError.errno("cannot create the \(name) \(path)")
        Glibc.close(fd)
        throw error
    }
    guard chmod(path, 0o600) == 0 else {
        let error = WaylandError.errno("cannot make the \(name) \(path) private")
        Glibc.close(fd)
        unlink(path)
        throw error
    }
    guard listen(fd, 16) == 0 else {
        let error = WaylandError.errno("cannot listen on the \(name) \(path)")
        Glibc.close(fd)
        unlink(path)
        throw error
    }
    return fd
}
