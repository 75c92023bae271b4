import Foundation

/// The processes of `bench e2e`: a compositor, benchmark clients, a control connection,
/// each read line by line with a deadline, so that a stuck one ends the run with a reason
/// rather than hanging it.
final class LineReader {
    let fd: Int32
    private var buffer: [UInt8] = []
    private(set) var everything = ""

    init(fd: Int32) { self.fd = fd }

    /// The next line, without its newline; nil at the end of the stream. Throws past the deadline.
    func line(within seconds: Double, what: String) throws -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                everything += line + "\n"
                return line
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw Failure(description: "touch-router bench e2e: timed out waiting for \(what)") }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(left * 1000, 1000)))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            if count <= 0 {
                if buffer.isEmpty { return nil }
                let line = String(decoding: buffer, as: UTF8.self)
                buffer.removeAll()
                everything += line
                return line
            }
            buffer += chunk[0..<count]
        }
    }

    /// Reads lines until one starts with `prefix`; the rest of it.
    func value(after prefix: String, within seconds: Double, what: String) throws -> String {
        while let line = try line(within: seconds, what: what) {
            if line.hasPrefix(prefix) { return String(line.dropFirst(prefix.count)) }
        }
        throw Failure(description: "touch-router bench e2e: the stream ended before \(what); it said: \(everything.suffix(2000))")
    }
}

/// A child process with its standard output read by lines and its standard error kept in a file.
final class BenchChild {
    let process = Process()
    let output: LineReader
    private let pipe = Pipe()
    let errorLog: URL
    let name: String
    /// The child's standard input, when it takes commands there (the floor).
    private let input: Pipe?

    init(_ name: String, executable: String, arguments: [String], environment: [String: String], errorLog: URL, user: BenchUser? = nil,
         takesCommands: Bool = false) throws {
        input = takesCommands ? Pipe() : nil
        self.name = name
        self.errorLog = errorLog
        if let user {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=\(user.uid)", "--regid=\(user.gid)", "--init-groups", "--", executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        }
        process.environment = environment
        process.standardOutput = pipe
        if let input { process.standardInput = input }
        _ = FileManager.default.createFile(atPath: errorLog.path, contents: nil)
        if let user { chown(errorLog.path, user.uid, user.gid) }
        process.standardError = try FileHandle(forWritingTo: errorLog)
        output = LineReader(fd: pipe.fileHandleForReading.fileDescriptor)
        do {
            try process.run()
        } catch {
            throw Failure(description: "touch-router bench e2e: cannot start \(executable): \(error)")
        }
    }

    /// The rest of the first output line starting with `prefix`; a failure says what the process wrote on standard error.
    func value(after prefix: String, within seconds: Double, what: String) throws -> String {
        do {
            return try output.value(after: prefix, within: seconds, what: what)
        } catch {
            usleep(100_000)
            throw Failure(description: "\(error); \(name) said: \(errors)")
        }
    }

    /// Writes one command line to the child's standard input.
    func send(_ command: String) throws {
        guard let input else { throw Failure(description: "touch-router bench e2e: \(name) takes no commands") }
        do {
            try input.fileHandleForWriting.write(contentsOf: Data((command + "\n").utf8))
        } catch {
            throw Failure(description: "touch-router bench e2e: cannot write to \(name): \(error); it said: \(errors)")
        }
    }

    /// Ends the child's standard input: the floor's signal to disconnect its clients and exit.
    func endCommands() { try? input?.fileHandleForWriting.close() }

    var errors: String { ((try? String(contentsOf: errorLog, encoding: .utf8)) ?? "").suffix(2000).description }

    func terminate() { if process.isRunning { kill(process.processIdentifier, SIGTERM) } }

    /// Waits for the exit (SIGKILL past the deadline); the status, or nil when it had to be killed.
    @discardableResult
    func waitForExit(within seconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// An unprivileged user to run a compositor that refuses root (sway) and its clients as.
struct BenchUser {
    var name: String
    var uid: uid_t
    var gid: gid_t
}

/// One connection to a session's control socket, kept open for every request of the run.
final class BenchControl {
    private let fd: Int32
    private let reader: LineReader

    init(path: String) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "touch-router bench e2e: socket: \(String(cString: strerror(errno)))") }
        self.fd = fd
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else { throw Failure(description: "touch-router bench e2e: control socket path \(path) is too long") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, byte) in path.utf8.enumerated() { raw[i] = byte } }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw Failure(description: "touch-router bench e2e: cannot connect to \(path): \(String(cString: strerror(errno)))")
        }
        reader = LineReader(fd: fd)
    }

    deinit { close(fd) }

    /// One request and its reply, which must say ok.
    func request(_ line: String, within seconds: Double = 15) throws -> [String: Any] {
        let bytes = Array((line + "\n").utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { throw Failure(description: "touch-router bench e2e: writing '\(line)' to the control socket: \(String(cString: strerror(errno)))") }
            sent += n
        }
        guard let reply = try reader.line(within: seconds, what: "the session's reply to '\(line)'") else {
            throw Failure(description: "touch-router bench e2e: the session closed the control socket after '\(line)'")
        }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(reply.utf8))) as? [String: Any] else {
            throw Failure(description: "touch-router bench e2e: '\(line)': the reply is not JSON: \(reply.prefix(500))")
        }
        guard object["ok"] as? Bool == true else {
            throw Failure(description: "touch-router bench e2e: '\(line)': \(object["error"] as? String ?? reply)")
        }
        return object
    }
}
