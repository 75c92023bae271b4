import Foundation
#if canImport(Glibc)
import Glibc
#endif

// glibc declares it only for _GNU_SOURCE, which Swift's Glibc module is not built with.
@_silgen_name("sched_setaffinity") private func tr_sched_setaffinity(_ pid: Int32, _ size: Int, _ mask: UnsafeRawPointer) -> Int32

/// `bench e2e --cpu`: the benchmark's process, every thread of it, on one CPU, so that the
/// processes it starts inherit the CPU (docs/benchmarks.md, "Where the processes run").
enum CPUPinning {
    /// The CPUs a mask can name: glibc's `cpu_set_t`, 1024 bits.
    static let maskBits = 1024

    static func pinProcess(to cpu: Int) throws {
        guard (0..<maskBits).contains(cpu) else { throw Failure(description: "touch-router bench e2e: --cpu \(cpu) is past the \(maskBits) CPUs a mask names") }
        var mask = [UInt8](repeating: 0, count: maskBits / 8)
        mask[cpu / 8] = 1 << UInt8(cpu % 8)
        // Every thread already running, not only this one: a later child may be started from any.
        let threads = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []).compactMap { Int32($0) }
        for thread in threads.isEmpty ? [0] : threads {
            let result = mask.withUnsafeBytes { tr_sched_setaffinity(thread, $0.count, $0.baseAddress!) }
            // A thread that ended meanwhile is gone from the list; any other failure is the CPU's.
            if result != 0 && errno != ESRCH {
                throw Failure(description: "touch-router bench e2e: cannot run on CPU \(cpu) (sched_setaffinity): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// The CPUs this process may run on, as the kernel lists them (`Cpus_allowed_list`).
    static func allowedList() -> String? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("Cpus_allowed_list:") {
            return line.dropFirst("Cpus_allowed_list:".count).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }
}
