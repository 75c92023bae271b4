#if canImport(Glibc)
import Glibc
#endif

/// sd_notify(3) without libsystemd: one datagram a message to the unix socket NOTIFY_SOCKET
/// names (a path, or an abstract name written with a leading '@'), as systemd's Type=notify
/// services send READY=1 and WATCHDOG=1. Without NOTIFY_SOCKET it is nil.
public struct SystemdNotifier: Sendable {
    public let socketPath: String
    /// Half of WATCHDOG_USEC, in milliseconds, as sd_watchdog_enabled(3) advises; nil
    /// without it, or when WATCHDOG_PID names another process.
    public let watchdogMilliseconds: Int32?

    public init?(environment: [String: String]) {
        guard let path = environment["NOTIFY_SOCKET"], !path.isEmpty else { return nil }
        socketPath = path
        if let text = environment["WATCHDOG_USEC"], let usec = Int64(text), usec > 0,
           environment["WATCHDOG_PID"].map({ Int32($0) == getpid() }) ?? true {
            watchdogMilliseconds = Int32(clamping: max(1, usec / 2_000))
        } else {
            watchdogMilliseconds = nil
        }
    }

    /// Sends `state` ("READY=1", "WATCHDOG=1", "STATUS=…", newline-separated assignments).
    public func send(_ state: String) throws(WaylandError) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(socketPath.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path), !bytes.dropFirst().contains(0), bytes.first != 0 || abstract else {
            throw WaylandError("NOTIFY_SOCKET \(socketPath) is not a socket path this session can use")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in bytes.enumerated() { raw[i] = byte }
        }
        // An abstract name's length is exactly its bytes; a path's includes its NUL.
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1))
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw WaylandError.errno("sd_notify: socket") }
        defer { close(fd) }
        let sent = state.withCString { text in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, text, strlen(text), Int32(MSG_NOSIGNAL), $0, length) }
            }
        }
        guard sent == state.utf8.count else { throw WaylandError.errno("sd_notify: cannot send \(state) to NOTIFY_SOCKET \(socketPath)") }
    }
}
