// libFuzzer target: the configuration reader, `ServerConfiguration.parse(bytes:file:)`, as
// `touch-router run --config` and `msg reload` read a file: the UTF-8 and NUL checks, the key
// depth bound, TOMLKit (toml++) and every table's reader. An error is fine; a crash, a trap
// or a stack overflow is not (a key a million parts deep overflowed toml++'s recursion).
// Build and run: Sources/Fuzz/README.md.
import TouchRouterConfig
import FuzzDriver

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfiguration(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do { _ = try ServerConfiguration.parse(bytes: bytes, file: "fuzz.toml") } catch { _ = error.description }
    return 0
}

// SwiftPM links this executable's `main` here; FuzzDriver hands over to libFuzzer.
@_cdecl("FuzzConfiguration_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    runLibFuzzer(argc, argv) { data, size in fuzzConfiguration(data, size) }
}
