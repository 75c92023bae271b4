import Foundation
import Testing
import TouchRouterCore
import TouchRouterReplay

/// The sample scene and script that README's first command plays.
enum Samples {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/TouchRouterCLI/Samples")
    static var scenePath: String { directory.appendingPathComponent("kiosk-scene.json").path }
    static var scriptPath: String { directory.appendingPathComponent("demo.script").path }

    static func trace(_ format: TraceFormat) throws -> [String] {
        let scene = try Scene.parse(try String(contentsOfFile: scenePath, encoding: .utf8), file: "kiosk-scene.json").load()
        let script = try Script.parse(try String(contentsOfFile: scriptPath, encoding: .utf8), file: "demo.script")
        var lines: [String] = []
        Replay(scene: scene).run(script, trace: TraceWriter(format: format, names: scene.names) { lines.append($0) })
        return lines
    }
}

@Suite("Replay of the sample")
struct ReplayTests {
    @Test("the sample trace shows each rule, with who got the event, where, and why")
    func sampleTrace() throws {
        let trace = try Samples.trace(.text).joined(separator: "\n")
        for expected in [
            "touch motion → \"map\" [maps] at (1500, 300) (bound touch)",
            "#5 touch down 1 1400 950 → dropped: blocked: \"pay-button\" is exclusive-touch and \"map\" is tracking a touch",
            "touch down → \"pay-button\" [kiosk] at (80, 50) (hit)",
            "#11 touch down 3 400 300 → dropped: blocked: exclusive-touch \"pay-button\" is tracking a touch",
            "#17 touch down 5 1600 170 → dropped: multiple touch is off on \"pin-field\", which already has a touch",
            "touch down → \"map\" [maps] at (900, 60) (hit)",
            "touch down → \"language-menu\" [kiosk] at (70, 100) (hit)",
            "#28 touch down 8 300 800 → delivered (pointer emulation)",
            "#33 touch down 9 1000 800 → discarded: all 5 links of the fallback chain passed it on",
            "keyboard focus \"pin-field\" → \"keypad\" (surface removed)",
            "#43 touch motion 10 1510 170 → dropped: its surface is gone",
            "touch motion → \"map\" [maps] at (410, 400) (bound touch)",
            "#49 touch down 12 400 300 → dropped: interaction ignored",
            "pointer motion → \"legacy-form\" [legacy] at (500, 100) (implicit grab)",
        ] {
            #expect(trace.contains(expected), "missing: \(expected)")
        }
    }

    @Test("replay is deterministic: the same files give the same trace, byte for byte")
    func deterministic() throws {
        #expect(try Samples.trace(.json) == Samples.trace(.json))
        #expect(try Samples.trace(.text) == Samples.trace(.text))
    }

    @Test("the JSON trace is one valid object per line with stage times")
    func jsonTrace() throws {
        let lines = try Samples.trace(.json)
        #expect(lines.count > 50)
        var routed = 0
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            if let stages = object["stages_ns"] as? [String: Int] {
                routed += 1
                let (a, q, c, d) = (stages["arrival"]!, stages["dequeued"]!, stages["decided"]!, stages["delivered"]!)
                #expect(a <= q && q <= c && c <= d)
                #expect(object["outcome"] is String)
            }
        }
        #expect(routed == 59)
    }

    @Test("an action the tree refuses is reported and the replay goes on")
    func refusedAction() throws {
        let scene = try Scene.parse(#"{"outputs": [{"name": "A", "width": 100, "height": 100, "toplevels": [{"name": "a", "width": 50, "height": 50}]}]}"#, file: "s.json").load()
        let script = try Script.parse("0 scene remove ghost\n1 scene place a above a\n2 touch down 0 10 10\n", file: "t.script")
        var lines: [String] = []
        let replay = Replay(scene: scene)
        replay.run(script, trace: TraceWriter(format: .text, names: scene.names) { lines.append($0) })
        #expect(replay.refusedActions == 2)
        #expect(lines.contains("    refused: no surface is named \"ghost\""))
        #expect(lines.last == "    touch down → \"a\" [a] at (10, 10) (hit)")
    }
}
