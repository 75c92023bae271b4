// libFuzzer target: the input-script reader (Script.parse, and through it EventSyntax.parse),
// then the script replayed over the sample kiosk scene with a trace writer, as
// `touch-router route` does, so scene edits and events with odd values reach the router.
// Build and run: Sources/Fuzz/README.md.
import TouchRouterCore
import TouchRouterReplay
import FuzzDriver

/// Sources/TouchRouterCLI/Samples/kiosk-scene.json, parsed once.
private let kioskScene: Scene = {
    do { return try Scene.parse(kioskSceneText, file: "kiosk-scene.json") } catch { fatalError("the kiosk scene does not parse: \(error)") }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzScript(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    // As `touch-router route` reads a file: bytes, refused unless they are UTF-8.
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let script: Script
    do { script = try Script.parse(bytes: bytes, file: "fuzz.script") } catch { _ = error.description; return 0 }
    // The events' own formatting, as traces and `msg` print them.
    for line in script.lines { if case .event(let event) = line.action { _ = EventSyntax.format(event) } }
    let loaded: LoadedScene
    do { loaded = try kioskScene.load() } catch { fatalError("the kiosk scene does not load: \(error)") }
    let replay = Replay(scene: loaded)
    var lines = 0
    replay.run(script, trace: TraceWriter(format: size % 2 == 0 ? .text : .json, names: loaded.names) { _ in lines += 1 })
    return 0
}

private let kioskSceneText = #"""
{
  "outputs": [
    {
      "name": "HDMI-A-1", "x": 0, "y": 0, "width": 1920, "height": 1080,
      "toplevels": [
        {
          "name": "map", "client": "maps", "x": 0, "y": 0, "width": 1280, "height": 1080,
          "subsurfaces": [
            { "name": "map-tiles", "x": 0, "y": 0, "width": 1280, "height": 1080, "placement": "below" },
            { "name": "zoom-buttons", "x": 1180, "y": 880, "width": 80, "height": 160 }
          ]
        },
        {
          "name": "legacy-form", "client": "legacy", "x": 200, "y": 700, "width": 400, "height": 300
        },
        {
          "name": "sensor-overlay", "client": "overlay", "x": 900, "y": 700, "width": 300, "height": 300
        },
        {
          "name": "keypad", "client": "kiosk", "x": 1280, "y": 0, "width": 640, "height": 1080,
          "inputRegion": { "add": [[0, 0, 640, 1080]], "subtract": [[0, 0, 640, 100]] },
          "subsurfaces": [
            { "name": "pay-button", "x": 40, "y": 900, "width": 560, "height": 140, "exclusiveTouch": true },
            { "name": "pin-field", "x": 40, "y": 140, "width": 560, "height": 80, "multipleTouch": false }
          ],
          "popups": [
            { "name": "language-menu", "x": -200, "y": 100, "width": 240, "height": 200 }
          ]
        },
        {
          "name": "toast", "client": "kiosk", "x": 700, "y": 40, "width": 500, "height": 80, "opacity": 0.0
        }
      ]
    }
  ],
  "clients": [
    { "name": "maps", "capabilities": ["touch", "pointer", "keyboard"] },
    { "name": "kiosk", "capabilities": ["touch", "keyboard"] },
    { "name": "legacy", "capabilities": ["pointer", "keyboard"] },
    { "name": "overlay", "capabilities": [] }
  ],
  "keyboardFocus": "pin-field"
}
"""#

// SwiftPM links this executable's `main` here; FuzzDriver hands over to libFuzzer.
@_cdecl("FuzzScript_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    runLibFuzzer(argc, argv) { data, size in fuzzScript(data, size) }
}
