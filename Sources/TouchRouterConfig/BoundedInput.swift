#if canImport(Glibc)
import Glibc
#endif

/// Reading a file a person or a client named, from the session's one thread: only a regular
/// file, opened without blocking (a FIFO with no writer stopped the loop), and its size checked
/// by fstat before a byte is read (a 3 GiB sparse file was read whole first). The
/// configuration reader uses it, and so does `msg play recording`.
public enum RegularFile {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public static func read(path: String, limit: Int) throws(Failure) -> [UInt8] {
        func failure(_ message: String) -> Failure { Failure(description: message) }
        // O_NONBLOCK: opening a FIFO with no writer returns at once, and fstat then names it.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw failure("cannot read the file: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw failure("cannot read the file: \(String(cString: strerror(errno)))") }
        guard status.st_mode & S_IFMT == S_IFREG else { throw failure("not a regular file") }
        guard status.st_size <= limit else { throw failure("the file holds \(status.st_size) bytes: expected at most \(limit)") }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        var filled = 0
        while filled < bytes.count {
            let got = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw failure("cannot read the file: \(String(cString: strerror(errno)))") }
            if got == 0 { break }
            filled += got
        }
        return Array(bytes.prefix(filled))
    }

    /// Opens `path` to be written, created or emptied, without blocking: a FIFO with no
    /// reader is an error at once, and anything but a regular file is refused.
    public static func create(path: String) throws(Failure) -> UnsafeMutablePointer<FILE> {
        let fd = open(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(description: "cannot write the file: \(String(cString: strerror(errno)))") }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw Failure(description: "not a regular file")
        }
        guard ftruncate(fd, 0) == 0, let file = fdopen(fd, "w") else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw Failure(description: "cannot write the file: \(reason)")
        }
        return file
    }
}
