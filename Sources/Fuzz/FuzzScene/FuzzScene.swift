// libFuzzer target: the scene-file reader (Scene.parse, then load), as `touch-router route`
// uses it, and a fixed script routed through every scene that loads, so hit testing and
// routing see the odd trees the reader lets through. Build and run: Sources/Fuzz/README.md.
import TouchRouterCore
import TouchRouterReplay
import FuzzDriver

/// Touches, keys and pointer events spread over a 1920x1080 layout and beyond its edges.
private let probeScript: Script = {
    var text = "0 device add 7 touch,pointer,keyboard\n"
    for (i, point) in [(0, 0), (400, 300), (1500, 300), (1400, 950), (-5, -5), (1919, 1079), (5000, 200), (960, 540)].enumerated() {
        text += "+1 touch down \(i) \(point.0) \(point.1)\n+0 touch frame\n"
        text += "+1 pointer motion \(point.0) \(point.1)\n+0 pointer button press BTN_LEFT\n+0 pointer button release BTN_LEFT\n"
        text += "+1 key press KEY_A\n+0 key release KEY_A\n"
    }
    for i in 0..<8 { text += "+1 touch up \(i)\n" }
    text += "+0 touch frame\n+1 pointer axis vertical 10 discrete 1 source wheel\n"
    do { return try Script.parse(text, file: "probe.script") } catch { fatalError("the probe script does not parse: \(error)") }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzScene(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    // As `touch-router route` reads a file: bytes, refused unless they are UTF-8.
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let scene: Scene
    do { scene = try Scene.parse(bytes: bytes, file: "fuzz.json") } catch { _ = error.description; return 0 }
    let loaded: LoadedScene
    do { loaded = try scene.load() } catch { _ = error.description; return 0 }
    let replay = Replay(scene: loaded)
    var lines = 0
    replay.run(probeScript, trace: TraceWriter(format: size % 2 == 0 ? .text : .json, names: loaded.names) { _ in lines += 1 })
    return 0
}

// SwiftPM links this executable's `main` here; FuzzDriver hands over to libFuzzer.
@_cdecl("FuzzScene_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    runLibFuzzer(argc, argv) { data, size in fuzzScene(data, size) }
}
