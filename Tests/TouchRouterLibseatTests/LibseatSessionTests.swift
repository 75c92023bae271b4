import Testing
import TouchRouterLibseat
#if canImport(Glibc)
import Glibc
#endif

/// libseat's noop backend needs no seat manager: it opens devices itself, as the
/// seat manager would, so the wrapper's bookkeeping and errors can be checked anywhere.
/// seatd, logind and hotplug are the VM's (Tests/KernelInputVM/guest/hotplug.sh).
@Suite("LibseatSession", .serialized)
struct LibseatSessionTests {
    init() { setenv("LIBSEAT_BACKEND", "noop", 1) }

    @Test("a seat opens enabled, named, with a descriptor to watch; a device opens and closes through it")
    func openAndClose() throws {
        let seat = try LibseatSession()
        #expect(seat.isActive)
        #expect(seat.name == "noop", "the noop backend names its seat so")
        #expect(seat.fd >= 0)
        // A file of its own: other suites run alongside and may reuse the descriptor's number
        // at once, so "closed" means the number no longer names this file.
        var template = Array("/tmp/seat-session-test-XXXXXX".utf8CString)
        let own = mkstemp(&template)
        #expect(own >= 0)
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { unlink(path) }
        var ownStat = stat()
        fstat(own, &ownStat)
        close(own)
        let fd = try seat.openDevice(path)
        #expect(fd >= 0 && seat.openDeviceCount == 1)
        #expect(write(fd, "x", 1) == 1, "the descriptor is open for writing")
        seat.closeDevice(fd: fd)
        #expect(seat.openDeviceCount == 0)
        var after = stat()
        let stillThisFile = fstat(fd, &after) == 0 && after.st_ino == ownStat.st_ino && after.st_dev == ownStat.st_dev
        #expect(!stillThisFile, "closeDevice closed the descriptor")
        seat.closeDevice(fd: fd)
        #expect(seat.openDeviceCount == 0, "closing twice is harmless")
    }

    @Test("a device that cannot be opened is an error naming it and the fix")
    func openFailure() throws {
        let seat = try LibseatSession()
        #expect {
            _ = try seat.openDevice("/dev/no-such-card9")
        } throws: { error in
            let text = "\(error)"
            return text.contains("/dev/no-such-card9") && text.contains("the seat noop") && text.contains("run seatd") && text.contains("video and input groups")
        }
        #expect(seat.openDeviceCount == 0)
    }

    @Test("dispatch with nothing pending leaves the seat enabled and calls no hook")
    func dispatchIdle() throws {
        let seat = try LibseatSession()
        var calls = 0
        seat.onDisable = { calls += 1 }
        let id = seat.addListener(disable: { calls += 1 }, enable: { calls += 1 })
        seat.dispatch()
        seat.removeListener(id)
        #expect(seat.isActive && calls == 0)
    }
}
