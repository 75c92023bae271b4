import Testing
import TouchRouterCore
import TouchRouterReplay

/// Issue 10: no scene file or script can crash the reader, trap, recurse without bound or
/// take more than about n log n steps. No test here asserts a time: a quadratic path that
/// came back would show as a test that does not finish.
@Suite("Hostile scene files and scripts")
struct HostileFileTests {
    func sceneError(_ text: String) -> InputFileError? {
        do {
            _ = try Scene.parse(text, file: "s.json").load()
            return nil
        } catch {
            return error
        }
    }

    func scriptError(_ text: String) -> InputFileError? {
        do {
            _ = try Script.parse(text, file: "t.script")
            return nil
        } catch {
            return error
        }
    }

    /// A scene of one output holding these toplevels, as JSON text without newlines.
    func scene(toplevels: [String]) -> String {
        "{\"outputs\": [{\"name\": \"O\", \"width\": 1920, \"height\": 1080, \"toplevels\": [" + toplevels.joined(separator: ", ") + "]}]}"
    }

    func surface(_ name: String, _ extra: String = "") -> String {
        "{\"name\": \"\(name)\", \"width\": 10, \"height\": 10\(extra)}"
    }

    /// A chain of `count` surfaces, each the only `key` ("subsurfaces" or "popups") of the one before.
    func chain(_ count: Int, key: String) -> String {
        var text = surface("s\(count)")
        for i in stride(from: count - 1, through: 1, by: -1) {
            text = "{\"name\": \"s\(i)\", \"width\": 10, \"height\": 10, \"\(key)\": [\(text)]}"
        }
        return text
    }

    // MARK: Times

    @Test("a script time past the limit is an error, not a trap in RouterTime.milliseconds")
    func hugeScriptTime() throws {
        for text in ["1e20 touch frame\n", "9223372036855 touch frame\n", "+1e300 touch frame\n"] {
            let failure = try #require(scriptError(text))
            #expect(failure.location.description == "t.script:1:1")
            #expect(failure.message.contains("past the limit of 1000000000000 ms"), "\(failure)")
        }
        let atLimit = try Script.parse("1e12 touch frame\n", file: "t.script")
        #expect(atLimit.lines[0].time.nanoseconds == 1_000_000_000_000_000_000)
    }

    @Test("relative times cannot add up past the limit (or past Int64)")
    func accumulatedRelativeTimes() throws {
        let text = String(repeating: "+1e12 touch frame\n", count: 20)
        let failure = try #require(scriptError(text))
        #expect(failure.location.description == "t.script:2:1")
        #expect(failure.message.contains("goes past the limit"), "\(failure)")
    }

    @Test("RouterTime.milliseconds never traps: it saturates, and NaN is zero")
    func millisecondsSaturate() {
        #expect(RouterTime.milliseconds(1e20).nanoseconds == .max)
        #expect(RouterTime.milliseconds(-1e20).nanoseconds == .min)
        #expect(RouterTime.milliseconds(.infinity).nanoseconds == .max)
        #expect(RouterTime.milliseconds(.nan) == .zero)
        #expect(RouterTime.milliseconds(16.5).nanoseconds == 16_500_000)
    }

    @Test("an event's numbers are bounded, so sums of them stay finite")
    func eventNumbers() throws {
        let failure = try #require(scriptError("0 touch down 0 1e300 5\n"))
        #expect(failure.location.description == "t.script:1:16")
        #expect(failure.message.contains("InputLimits.eventNumber"), "\(failure)")
        #expect(scriptError("0 pointer relative -1e9 1e9\n") == nil)
    }

    // MARK: JSON nesting

    @Test("JSON nested 100,000 deep is an error at the first level past the limit, not a stack overflow")
    func deepJSON() throws {
        for text in [String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000),
                     String(repeating: "{\"a\": ", count: 100_000) + "1" + String(repeating: "}", count: 100_000)] {
            let failure = try #require(sceneError(text))
            #expect(failure.message.contains("nested more than 128 deep"), "\(failure)")
            #expect(failure.location.line == 1)
        }
        #expect(sceneError(String(repeating: "[", count: 100_000))?.location.description == "s.json:1:129")
        // Exactly at the limit the JSON is read, and the scene reader objects to what it holds.
        let atLimit = String(repeating: "[", count: InputLimits.jsonDepth) + String(repeating: "]", count: InputLimits.jsonDepth)
        #expect(sceneError(atLimit)?.message == "scene: expected an object, found an array")
    }

    @Test("the flattened JSON reader keeps the old errors for unclosed arrays and objects")
    func unclosed() throws {
        #expect(sceneError("{\"outputs\": [1, 2")?.description == "s.json:1:13: error: this array is not closed")
        #expect(sceneError("{\"outputs\": {\"a\": 1")?.description == "s.json:1:13: error: this object is not closed")
        #expect(sceneError("{\"a\": 1, \"a\": 2}")?.description == "s.json:1:10: error: the key \"a\" appears twice in this object")
        #expect(sceneError("[1,]")?.message == "expected a JSON value, found \"]\"")
    }

    @Test("an object with 100,000 keys is read in one pass (the duplicate-key check is a set)")
    func manyKeys() throws {
        let keys = (0..<100_000).map { "\"k\($0)\": \($0)" }.joined(separator: ", ")
        let prefix = "{\"outputs\": [{\"name\": \"O\", \"width\": 1, \"height\": 1}], "
        let failure = try #require(sceneError(prefix + keys + "}"))
        #expect(failure.message.contains("unknown key \"k0\""), "\(failure)")
        #expect(failure.location.description == "s.json:1:\(prefix.count + 1)")
        let twice = try #require(sceneError(prefix + keys + ", \"k99999\": 0}"))
        #expect(twice.message.contains("the key \"k99999\" appears twice"), "\(twice)")
    }

    @Test("\\u escapes: a surrogate pair is one scalar; half of one is an error")
    func surrogates() throws {
        let loaded = try Scene.parse(scene(toplevels: [surface("\\uD83D\\uDE00")]), file: "s.json").load()
        #expect(loaded.names.surfaces["😀"] != nil)
        let failure = try #require(sceneError(scene(toplevels: [surface("\\uD83D")])))
        #expect(failure.message.contains("surrogate"), "\(failure)")
    }

    // MARK: Outputs

    @Test("outputs are bounded in size, number and area, since the index keeps a grid of cells over each")
    func outputs() throws {
        func output(_ i: Int, _ width: Int, _ height: Int) -> String { "{\"name\": \"O\(i)\", \"width\": \(width), \"height\": \(height)}" }
        func outputs(_ list: [String]) -> String { "{\"outputs\": [" + list.joined(separator: ", ") + "]}" }
        let wide = try #require(sceneError(outputs([output(0, 2_147_483_647, 1)])))
        #expect(wide.message.contains("outputs[0].width: expected a whole number from 1 to 16384"), "\(wide)")
        #expect(wide.location.description == "s.json:1:38")
        #expect(sceneError(outputs([output(0, 16_384, 16_384)])) == nil)
        let area = try #require(sceneError(outputs([output(0, 16_384, 16_384), output(1, 1, 1)])))
        #expect(area.message.contains("outputs[1]: the outputs together cover more than 268435456 pixels"), "\(area)")
        #expect(sceneError(outputs((0..<16).map { output($0, 1920, 1080) })) == nil)
        let many = try #require(sceneError(outputs((0..<17).map { output($0, 1920, 1080) })))
        #expect(many.message.contains("outputs[16]: a scene may have at most 16 outputs"), "\(many)")
    }

    // MARK: Surfaces

    @Test("surfaces nested past SurfaceTree.maximumDepth are refused where they are read; a 10,000 chain finishes")
    func surfaceChains() throws {
        for key in ["subsurfaces", "popups"] {
            let deepest = try Scene.parse(scene(toplevels: [chain(InputLimits.surfaceDepth + 1, key: key)]), file: "s.json").load()
            #expect(deepest.names.surfaces.count == InputLimits.surfaceDepth + 1)
            let failure = try #require(sceneError(scene(toplevels: [chain(InputLimits.surfaceDepth + 2, key: key)])))
            #expect(failure.message.contains("nested more than 32 deep below their toplevel"), "\(failure)")
            #expect(failure.message.contains("\(key)[0]"))
            let long = try #require(sceneError(scene(toplevels: [chain(10_000, key: key)])))
            #expect(long.location.line == 1)
        }
    }

    @Test("a toplevel may hold at most InputLimits.surfacesPerToplevel subsurfaces and popups")
    func surfacesPerToplevel() throws {
        func toplevel(_ count: Int) -> String {
            let children = (0..<count).map { surface("c\($0)") }
            let half = count / 2
            return "{\"name\": \"t\", \"width\": 100, \"height\": 100, \"subsurfaces\": [\(children[..<half].joined(separator: ", "))], \"popups\": [\(children[half...].joined(separator: ", "))]}"
        }
        let full = try Scene.parse(scene(toplevels: [toplevel(InputLimits.surfacesPerToplevel)]), file: "s.json").load()
        #expect(full.names.surfaces.count == InputLimits.surfacesPerToplevel + 1)
        let failure = try #require(sceneError(scene(toplevels: [toplevel(InputLimits.surfacesPerToplevel + 1)])))
        #expect(failure.message.contains("more than 4096 subsurfaces and popups"), "\(failure)")
        #expect(failure.message.contains("outputs[0].toplevels[0].popups[2048]"), "\(failure)")
    }

    @Test("a scene may hold at most InputLimits.surfaces surfaces")
    func surfaceCount() throws {
        let toplevels = (0...InputLimits.surfaces).map { "{\"name\": \"t\($0)\", \"width\": 1, \"height\": 1}" }
        let failure = try #require(sceneError(scene(toplevels: toplevels)))
        #expect(failure.message.contains("outputs[0].toplevels[100000]: this scene has more than 100000 surfaces"), "\(failure)")
    }

    @Test("4,000 toplevels on one 264 KB line load, and columns stay right at its end")
    func longLine() throws {
        let toplevels = (0..<4_000).map { "{\"name\": \"t\($0)\", \"x\": \($0 % 1900), \"y\": \($0 % 1000), \"width\": 20, \"height\": 20}" }
        let text = scene(toplevels: toplevels)
        #expect(!text.contains("\n"))
        let loaded = try Scene.parse(text, file: "s.json").load()
        #expect(loaded.names.surfaces.count == 4_000)
        #expect(loaded.tree.hitTest(Point(205, 1005))?.surface == loaded.names.surfaces["t3999"])
        // An error after 40,000 values on one line (2.6 MB) names its column.
        let many = scene(toplevels: (0..<40_000).map { "{\"name\": \"t\($0)\", \"width\": 1, \"height\": 1}" })
        let broken = String(many.dropLast()) + ", \"bad\": 1}"
        let failure = try #require(sceneError(broken))
        #expect(failure.location.description == "s.json:1:\(broken.count - 8)", "\(failure)")
        #expect(failure.message.contains("unknown key \"bad\""))
    }

    @Test("columns count characters, not bytes")
    func unicodeColumns() throws {
        let failure = try #require(sceneError("{\"outputs\": [{\"name\": \"Ökrán\", \"width\": \"x\", \"height\": 1}]}"))
        #expect(failure.location.description == "s.json:1:41")
        let scriptFailure = try #require(scriptError("0 scene remove Ökrán extra\n"))
        #expect(scriptFailure.location.description == "t.script:1:22")
    }

    @Test("an input region may list at most InputLimits.regionRectangles rectangles, in a scene and in a script")
    func regionRectangles() throws {
        func region(_ count: Int) -> String {
            ", \"inputRegion\": {\"add\": [" + Array(repeating: "[0, 0, 1, 1]", count: count - 1).joined(separator: ", ") + "], \"subtract\": [[0, 0, 1, 1]]}"
        }
        #expect(sceneError(scene(toplevels: [surface("t", region(InputLimits.regionRectangles))])) == nil)
        let failure = try #require(sceneError(scene(toplevels: [surface("t", region(InputLimits.regionRectangles + 1))])))
        #expect(failure.message.contains("inputRegion.subtract: an input region may list at most 256 rectangles"), "\(failure)")
        let line = "0 scene region t" + String(repeating: " 0 0 1 1", count: InputLimits.regionRectangles + 1) + "\n"
        let scriptFailure = try #require(scriptError(line))
        #expect(scriptFailure.message.contains("at most 256 rectangles"), "\(scriptFailure)")
        #expect(scriptError("0 scene region t" + String(repeating: " 0 0 1 1", count: InputLimits.regionRectangles) + "\n") == nil)
    }

    // MARK: Touches

    @Test("a script may hold at most InputLimits.liveTouches touches down at once; 40,000 in turn replay")
    func liveTouches() throws {
        let downs = (0...InputLimits.liveTouches).map { "+0 touch down \($0) 1 1\n" }.joined()
        let failure = try #require(scriptError(downs))
        #expect(failure.location.description == "t.script:257:15")
        #expect(failure.message.contains("past the limit of 256"), "\(failure)")
        // A second down for a live id is no new touch, an up or cancel ends one, removing device 0 ends all.
        #expect(scriptError(downs.replacingOccurrences(of: "down 256 ", with: "down 0 ")) == nil)
        #expect(scriptError(downs.replacingOccurrences(of: "+0 touch down 256 1 1\n", with: "+0 touch cancel 3\n+0 touch down 256 1 1\n")) == nil)
        #expect(scriptError(downs.replacingOccurrences(of: "+0 touch down 256 1 1\n", with: "+0 device remove 0\n+0 touch down 256 1 1\n")) == nil)

        // 40,000 touches, 200 down at a time, through the router.
        var text = ""
        for round in 0..<200 {
            for i in 0..<200 { text += "+1 touch down \(round * 200 + i) \(i * 9) \(round * 5)\n" }
            text += "+0 touch frame\n"
            for i in 0..<200 { text += "+1 touch up \(round * 200 + i)\n" }
        }
        let script = try Script.parse(text, file: "t.script")
        let loaded = try Scene.parse("""
            {"outputs": [{"name": "O", "width": 1920, "height": 1080, "toplevels": [{"name": "app", "client": "c", "width": 1920, "height": 1080}]}],
             "clients": [{"name": "c", "capabilities": ["touch"]}]}
            """, file: "s.json").load()
        let replay = Replay(scene: loaded)
        replay.run(script, trace: nil)
        #expect(replay.router.activeTouches.isEmpty)
        let delivered = replay.delivery.received.filter { if case .touchDown = $0 { true } else { false } }
        #expect(delivered.count == 40_000)
    }

    // MARK: Bytes

    @Test("bytes that are not UTF-8 are named by line and column, in scenes and scripts")
    func notUTF8() throws {
        let cases: [([UInt8], String)] = [
            (Array("{\n  \"a\": \"x".utf8) + [0xFF] + Array("\"}".utf8), "f:2:10"),
            (Array("{\"é\": ".utf8) + [0xC3], "f:1:7"),                  // cut short at the end
            (Array("ab\n\n  ".utf8) + [0xED, 0xA0, 0x80], "f:3:3"),       // an encoded surrogate
            (Array("x".utf8) + [0xC0, 0xAF], "f:1:2"),                   // overlong
            (Array("€€".utf8) + [0xE2, 0x82, 0x41], "f:1:3"),
        ]
        for (bytes, location) in cases {
            do {
                _ = try Scene.parse(bytes: bytes, file: "f")
                Issue.record("no error for \(bytes)")
            } catch {
                #expect(error.location.description == location, "\(error)")
                #expect(error.message.contains("the scene file is not UTF-8"), "\(error)")
            }
            do {
                _ = try Script.parse(bytes: bytes, file: "f")
                Issue.record("no error for \(bytes)")
            } catch {
                #expect(error.location.description == location, "\(error)")
                #expect(error.message.contains("the script file is not UTF-8"), "\(error)")
            }
        }
        let valid = Array("0 touch down 0 1 2 # ünïcødé 😀\n".utf8)
        #expect(try Script.parse(bytes: valid, file: "f").lines.count == 1)
    }

    @Test("a file past InputLimits.fileBytes is refused, naming the limit")
    func fileSize() throws {
        let bytes = [UInt8](repeating: UInt8(ascii: " "), count: InputLimits.fileBytes + 1)
        do {
            _ = try Script.parse(bytes: bytes, file: "f")
            Issue.record("no error")
        } catch {
            #expect(error.message.contains("more than the limit of 16777216 bytes"), "\(error)")
            #expect(error.location.description == "f:1:16777217")
        }
    }

    @Test("script lines may end in CRLF")
    func crlf() throws {
        let script = try Script.parse("0 touch down 0 1 2\r\n+1 touch frame\r\n", file: "t.script")
        #expect(script.lines.count == 2)
        #expect(script.lines.map(\.location.line) == [1, 2])
    }
}
