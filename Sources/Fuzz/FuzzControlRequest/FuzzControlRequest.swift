// libFuzzer target: the control socket's request parser, `ControlRequest.parse`, one call
// per line of the input (the socket reads a line at a time), with what it accepts checked
// to survive a round trip: an injected event, formatted as traces print it, must read
// back as the same request. Build and run: Sources/Fuzz/README.md.
import TouchRouterCore
import TouchRouterReplay
import TouchRouterWayland
import FuzzDriver

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzControlRequest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        let request: ControlRequest
        do {
            request = try ControlRequest.parse(String(line))
        } catch {
            _ = error.description
            continue
        }
        if case .inject(let event) = request {
            let formatted = "inject " + EventSyntax.format(event)
            let again: ControlRequest
            do { again = try ControlRequest.parse(formatted) } catch {
                fatalError("\"\(line)\" was read as \(event), whose formatting \"\(formatted)\" does not read back: \(error)")
            }
            // Formatting what was read back gives the same text again...
            let reformatted: String
            if case .inject(let back) = again { reformatted = "inject " + EventSyntax.format(back) } else { reformatted = "\(again)" }
            guard reformatted == formatted else {
                fatalError("\"\(line)\" formats as \"\(formatted)\", which reads back and formats as \"\(reformatted)\"")
            }
            // ...and it is the same request. ControlRequest is not Equatable, but its
            // description shows every value (doubles exactly); a zero's sign is not kept
            // by the format, and -0 is the same coordinate or delta as 0.
            func described(_ request: ControlRequest) -> String {
                "\(request)".replacing(": -0.0,", with: ": 0.0,").replacing(": -0.0)", with: ": 0.0)")
            }
            guard described(again) == described(request) else {
                fatalError("\"\(line)\" was read as \(request), but its formatting \"\(formatted)\" reads back as \(again)")
            }
        }
    }
    return 0
}

// SwiftPM links this executable's `main` here; FuzzDriver hands over to libFuzzer.
@_cdecl("FuzzControlRequest_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    runLibFuzzer(argc, argv) { data, size in fuzzControlRequest(data, size) }
}
