#if canImport(Glibc)
import Glibc
#endif

/// What the configuration reader checks before TOMLKit sees a file, so that a hostile file
/// costs the session a bounded amount of time and memory (its text: TOMLSyntax).
enum BoundedInput {
    /// The file's bytes, read only if it is a regular file of at most `limit` bytes: a FIFO
    /// would block the session's loop, and a huge (or sparse) file would be read whole first.
    static func read(path: String, limit: Int) throws(ConfigurationError) -> [UInt8] {
        let start = SourcePosition(line: 1, column: 1)
        func failure(_ message: String) -> ConfigurationError { ConfigurationError(file: path, position: start, message: message) }
        // O_NONBLOCK: opening a FIFO with no writer returns at once, and fstat then names it.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw failure("cannot read the configuration file: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw failure("cannot read the configuration file: \(String(cString: strerror(errno)))") }
        guard status.st_mode & S_IFMT == S_IFREG else { throw failure("not a regular file: expected a TOML file") }
        guard status.st_size <= limit else { throw failure("the file holds \(status.st_size) bytes: expected at most \(limit)") }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        var filled = 0
        while filled < bytes.count {
            let got = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw failure("cannot read the configuration file: \(String(cString: strerror(errno)))") }
            if got == 0 { break }
            filled += got
        }
        return Array(bytes.prefix(filled))
    }
}
