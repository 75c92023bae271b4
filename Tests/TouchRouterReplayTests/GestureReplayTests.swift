import Foundation
import Testing
import TouchRouterCore
import TouchRouterReplay

/// The gesture sample: a kiosk scene with an edge pan, a hold-back zone, the finger rule
/// and a four-finger secret tap, played by `gestures.script`.
enum GestureSamples {
    static func trace(_ format: TraceFormat = .text) throws -> [String] {
        let scenePath = Samples.directory.appendingPathComponent("gestures-scene.json").path
        let scriptPath = Samples.directory.appendingPathComponent("gestures.script").path
        let scene = try Scene.parse(try String(contentsOfFile: scenePath, encoding: .utf8), file: "gestures-scene.json").load()
        let script = try Script.parse(try String(contentsOfFile: scriptPath, encoding: .utf8), file: "gestures.script")
        var lines: [String] = []
        Replay(scene: scene).run(script, trace: TraceWriter(format: format, names: scene.names) { lines.append($0) })
        return lines
    }
}

@Suite("Replay of gestures")
struct GestureReplayTests {
    @Test("the gesture sample's trace names every arena decision, and the app sees only what no recognizer claimed")
    func sampleTrace() throws {
        let trace = try GestureSamples.trace().joined(separator: "\n")
        for expected in [
            "0.000ms #1 touch down 0 8 400 → held while the gesture arena decides",
            "arena: \"admin-panel\" won touch 0: it began first",
            "arena: discarded touch 0: claimed by admin-panel",
            "arena: \"admin-panel\" reported touch 0: ended",
            "48.000ms #7 touch up 0 → dropped: claimed by a gesture recognizer",
            "arena: released touch 1: every recognizer of its arena failed",
            "348.000ms #9 touch down 1 640 400 → delivered (hit)",
            "408.000ms #11 touch up 1 → delivered (bound touch)",
            "arena: released touch 2: no recognizer began within the hold limit of 250.0 ms",
            "1024.000ms #15 touch motion 2 650 400 → delivered (bound touch)",
            "arena: won touches 3,4,5,6: 4 fingers are down: the finger rule takes the sequence",
            "1370.000ms #22 touch down 6 600 300 → dropped: the sequence reached the finger limit",
            "arena: \"secret-tap\" reported touch 6: recognized",
        ] {
            #expect(trace.contains(expected), "missing: \(expected)")
        }
        // Not one of the edge swipe's or the four fingers' events reached the app.
        for touch in [0, 3, 4, 5, 6] {
            #expect(!trace.contains("touch down \(touch) ") || !trace.contains("#\(touch) touch down → \"kiosk-app\""))
        }
        let deliveredDowns = trace.split(separator: "\n").filter { $0.contains("touch down →") }
        #expect(deliveredDowns.count == 2, "only the tap and the long touch reach the app: \(deliveredDowns)")
    }

    @Test("gesture replay is deterministic, in text and JSON")
    func deterministic() throws {
        #expect(try GestureSamples.trace(.json) == GestureSamples.trace(.json))
        let json = try GestureSamples.trace(.json)
        #expect(json.contains { $0.contains("\"arena\":\"won\"") && $0.contains("\"recognizer\":\"admin-panel\"") })
    }

    @Test("a scene's gestures section is checked: a failure cycle and an unknown key are errors naming where")
    func badGestures() throws {
        let cycle = """
        { "outputs": [ { "name": "O", "width": 100, "height": 100 } ],
          "gestures": { "recognizers": [
            { "name": "a", "kind": "tap", "requiresFailureOf": ["b"] },
            { "name": "b", "kind": "pan", "requiresFailureOf": ["a"] } ] } }
        """
        #expect { try Scene.parse(cycle, file: "cycle.json") } throws: { error in
            "\(error)".contains("cycle.json:2:") && "\(error)".contains("a → b → a")
        }
        let unknown = """
        { "outputs": [ { "name": "O", "width": 100, "height": 100 } ],
          "gestures": { "recognizers": [ { "name": "a", "kind": "tap", "tapz": 2 } ] } }
        """
        #expect { try Scene.parse(unknown, file: "unknown.json") } throws: { error in
            "\(error)".contains("unknown.json:2:") && "\(error)".contains("unknown key \"tapz\"")
        }
    }
}
