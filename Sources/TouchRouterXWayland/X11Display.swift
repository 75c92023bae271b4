import TouchRouterProtocols
#if canImport(Glibc)
import Glibc
#endif

/// An X11 display number held for the session: its lock file `/tmp/.X<n>-lock` and its two
/// listening sockets, the abstract `@/tmp/.X11-unix/X<n>` and the path one, as Xwayland
/// itself, sway and Weston make them. The session keeps them across Xwayland's restarts,
/// so that DISPLAY stays the same and a lazy start can wait on them.
package final class X11Display {
    package let number: Int
    package let sockets: [Int32]
    private let lockPath: String
    private let socketPath: String

    package static let socketDirectory = "/tmp/.X11-unix"

    /// The first free display from `first`, skipping numbers whose lock names a live process.
    package init(first: Int = 0) throws(WaylandError) {
        try Self.prepareSocketDirectory()
        for number in first..<(first + 32) {
            let lockPath = "/tmp/.X\(number)-lock"
            guard Self.takeLock(lockPath) else { continue }
            let socketPath = "\(Self.socketDirectory)/X\(number)"
            guard let abstract = Self.listen(path: socketPath, abstract: true) else {
                unlink(lockPath)
                continue
            }
            // The lock was ours to take, so a socket file left at the path is a dead server's.
            unlink(socketPath)
            guard let named = Self.listen(path: socketPath, abstract: false) else {
                close(abstract)
                unlink(lockPath)
                continue
            }
            // Any user's X11 clients may connect, as to Xorg's and Xwayland's own sockets (an
            // app run as another user, a browser as nobody); the abstract socket has no mode.
            chmod(socketPath, 0o777)
            self.number = number
            self.lockPath = lockPath
            self.socketPath = socketPath
            sockets = [abstract, named]
            return
        }
        throw WaylandError("xwayland: no free X11 display from :\(first) to :\(first + 31) (each has a /tmp/.X<n>-lock of a live process, or its socket is taken)")
    }

    /// Makes `path` as X servers make /tmp/.X11-unix, 1777, so that a server run as any user
    /// can put its socket there: mkdir's mode passes through the umask, so it is set again.
    /// One left narrower (by an earlier session's umask) is widened when root owns it and this
    /// is root, as Xtrans does; otherwise one this user cannot write to is an error naming it.
    package static func prepareSocketDirectory(_ path: String = socketDirectory) throws(WaylandError) {
        if mkdir(path, 0o1777) == 0 {
            chmod(path, 0o1777)
            return
        }
        let made = errno
        guard made == EEXIST else { throw WaylandError("xwayland: cannot make \(path): \(String(cString: strerror(made)))") }
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw WaylandError("xwayland: \(path) is not a directory; X11 sockets go there")
        }
        if info.st_mode & 0o7777 != 0o1777, info.st_uid == 0, getuid() == 0 { chmod(path, 0o1777) }
        guard access(path, W_OK | X_OK) == 0 else {
            let mode = String(info.st_mode & 0o7777, radix: 8)
            throw WaylandError("xwayland: \(path) (mode \(mode), owner uid \(info.st_uid)) is not writable by uid \(getuid()); X servers make it 1777")
        }
    }

    /// Creates the lock file holding this process's pid; a lock whose process is gone is taken over.
    private static func takeLock(_ path: String) -> Bool {
        for _ in 0..<2 {
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o444)
            if fd >= 0 {
                let pid = String(getpid())
                let text = Array((String(repeating: " ", count: max(0, 10 - pid.count)) + pid + "\n").utf8)
                let written = text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                close(fd)
                if written != text.count {
                    unlink(path)
                    return false
                }
                return true
            }
            guard errno == EEXIST, let owner = lockOwner(path), owner > 0, kill(owner, 0) != 0, errno == ESRCH else { return false }
            unlink(path)
        }
        return false
    }

    private static func lockOwner(_ path: String) -> pid_t? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 12)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, 11) }
        guard count > 0 else { return nil }
        return pid_t(String(decoding: buffer.prefix(count), as: UTF8.self).trimmingSpaces)
    }

    private static func listen(path: String, abstract: Bool) -> Int32? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = (abstract ? [0] : []) + Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { sunPath in
            for (i, byte) in bytes.enumerated() where i < sunPath.count { sunPath[i] = byte }
        }
        // An abstract name is exactly its bytes long; a path one ends at its NUL.
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1))
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0, Glibc.listen(fd, 16) == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    package var name: String { ":\(number)" }

    /// Closes the sockets and removes the path socket and the lock.
    package func release() {
        for fd in sockets { close(fd) }
        unlink(socketPath)
        unlink(lockPath)
    }
}

extension String {
    /// A lock file's text less its padding and newline.
    var trimmingSpaces: String { String(filter { $0 != " " && $0 != "\n" }) }
}
