// libFuzzer target: the X11 window manager's event decoding and property parsing, and its
// state, as Xwayland's X11 clients can drive them: every event is decoded from 32 wire
// bytes (`X11Event(wire:)`), every property read through `X11PropertyValue`'s checked
// accessors, over recorded requests (no X server) and a real session for placement. A
// crash, trap or hang is a finding; so is a window count past the manager's limit, or a
// window left after Xwayland's end.
//
// The input is a program, one operation a step (byte % 6):
//   0  an event: the next 32 bytes, as they are
//   1  an event on a known window: 32 bytes with their window fields (4 and 8) folded
//      into eight ids, and a CreateNotify's parent made the root
//   2  a property: window, atom (by AtomName's order), format, length, then its bytes
//   3  the session's focus: a window, or none
//   4  close a window
//   5  outputs changed, a surface created, or Xwayland gone
// Build and run: Sources/Fuzz/README.md.
import FuzzDriver
import TouchRouterWayland
import TouchRouterXWayland

nonisolated(unsafe) let server: WaylandServer = {
    var options = WaylandServer.Options()
    options.listens = false
    let server = try! WaylandServer(options: options)
    try! server.start()
    return server
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXWM(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let requests = RecordedRequests()
    let manager = XWindowManager(requests: requests, handler: server, ownWindow: 1)
    var at = 0
    func take(_ count: Int) -> ArraySlice<UInt8>? {
        guard at + count <= bytes.count else { return nil }
        defer { at += count }
        return bytes[at..<(at + count)]
    }
    func window(_ byte: UInt8) -> X11Window { 0x200000 + X11Window(byte % 8) }
    while let op = take(1)?.first {
        switch op % 6 {
        case 0:
            guard let event = take(32) else { break }
            manager.handle(X11Event(wire: Array(event), xfixesFirstEvent: 87))
        case 1:
            guard var event = take(32).map(Array.init) else { break }
            for offset in [4, 8] {
                let id = window(event[offset])
                for i in 0..<4 { event[offset + i] = UInt8(truncatingIfNeeded: id >> (8 * X11Window(i))) }
            }
            if event[0] & 0x7f == 16, event[1] % 2 == 0 {
                for i in 0..<4 { event[4 + i] = UInt8(truncatingIfNeeded: requests.root >> (8 * X11Window(i))) }
            }
            manager.handle(X11Event(wire: event, xfixesFirstEvent: 87))
        case 2:
            guard let head = take(4) else { break }
            let head0 = head[head.startIndex], head1 = head[head.startIndex + 1], head2 = head[head.startIndex + 2], length = Int(head[head.startIndex + 3])
            let name = AtomName.allCases[Int(head1) % AtomName.allCases.count]
            let value = take(min(length, bytes.count - at)).map(Array.init) ?? []
            requests.properties[window(head0), default: [:]][requests.atoms[name]] = X11PropertyValue(type: requests.atoms[.STRING], format: [0, 8, 16, 32][Int(head2) % 4], bytes: value)
        case 3:
            guard let byte = take(1)?.first else { break }
            manager.focus(byte & 0x80 == 0 ? manager.windows[window(byte)] : nil)
        case 4:
            guard let byte = take(1)?.first, let target = manager.windows[window(byte)] else { break }
            manager.close(target)
        default:
            guard let byte = take(1)?.first else { break }
            switch byte % 3 {
            case 0: manager.placementsChanged()
            case 1: manager.surfaceCreated(id: UInt32(byte))
            default:
                manager.disconnected()
                precondition(manager.windows.isEmpty, "windows left after Xwayland's end")
            }
        }
        precondition(manager.windows.count <= XWindowManager.maximumWindows, "past the window limit")
    }
    manager.disconnected()
    server.dispatchPendingWork()
    return 0
}

// SwiftPM links this executable's `main` here; FuzzDriver hands over to libFuzzer.
@_cdecl("FuzzXWM_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    runLibFuzzer(argc, argv) { data, size in fuzzXWM(data, size) }
}
