import Testing
import TouchRouterCore
import TouchRouterReplay

@Suite("Scene files")
struct SceneFileTests {
    func error(_ text: String) -> InputFileError? {
        do {
            _ = try Scene.parse(text, file: "s.json").load()
            return nil
        } catch {
            return error
        }
    }

    @Test("a valid scene builds its tree, names, clients and focus")
    func valid() throws {
        let text = """
            {"outputs": [{"name": "A", "width": 800, "height": 600, "toplevels": [
              {"name": "app", "client": "c", "x": 10, "y": 20, "width": 300, "height": 200,
               "inputRegion": {"add": [[0, 0, 300, 200]], "subtract": [[0, 0, 300, 20]]},
               "subsurfaces": [{"name": "under", "width": 10, "height": 10, "placement": "below"},
                               {"name": "over", "x": 5, "y": 5, "width": 10, "height": 10, "exclusiveTouch": true}],
               "popups": [{"name": "menu", "x": 250, "y": 150, "width": 100, "height": 100}]}]}],
             "clients": [{"name": "c", "capabilities": ["touch", "keyboard"]}],
             "keyboardFocus": "app", "focusPolicy": "on-press"}
            """
        let scene = try Scene.parse(text, file: "s.json").load()
        let names = scene.names
        let app = try #require(names.surfaces["app"])
        #expect(scene.tree.subsurfaces(of: app).below == [names.surfaces["under"]!])
        #expect(scene.tree.subsurfaces(of: app).above == [names.surfaces["over"]!])
        #expect(scene.tree.properties(of: names.surfaces["over"]!)?.exclusiveTouch == true)
        #expect(scene.tree.hitTest(Point(200, 25))?.surface == nil, "the subtracted strip")
        #expect(scene.tree.hitTest(Point(20, 25))?.surface == names.surfaces["over"], "a subsurface above the strip")
        #expect(scene.tree.hitTest(Point(200, 100))?.surface == app)
        #expect(scene.tree.hitTest(Point(300, 200))?.surface == names.surfaces["menu"])
        #expect(scene.capabilities[names.clients["c"]!] == [.touch, .keyboard])
        #expect(scene.keyboardFocus == app)
        #expect(scene.focusPolicy == .onPress)
    }

    @Test("malformed files name the file, line and column and what was expected", arguments: [
        ("{\"outputs\": [\n  {\"name\": \"A\", \"width\": 10,\n   \"height\": }]}", "s.json:3:14", "expected a JSON value"),
        ("{\"outputs\": [{\"name\": \"A\", \"width\": 10, \"height\": 10,\n  \"toplevels\": [{\"name\": \"x\", \"widht\": 5, \"width\": 5, \"height\": 5}]}]}", "s.json:2:31", "unknown key \"widht\""),
        ("{\"outputs\": [{\"name\": \"A\", \"width\": \"wide\", \"height\": 10}]}", "s.json:1:37", "outputs[0].width: expected a whole number of 1 or more, found the string \"wide\""),
        ("{\"outputs\": [{\"name\": \"A\", \"height\": 10}]}", "s.json:1:14", "outputs[0]: expected the key \"width\""),
        ("{\"outputs\": [{\"name\": \"A\", \"width\": 10, \"height\": 10, \"toplevels\": [\n{\"name\": \"x\", \"width\": 1, \"height\": 1},\n{\"name\": \"x\", \"width\": 1, \"height\": 1}]}]}", "s.json:3:1", "the surface name \"x\" is used twice"),
        ("{\"outputs\": [{\"name\": \"A\", \"width\": 10, \"height\": 10, \"toplevels\": [{\"name\": \"x\", \"width\": 1, \"height\": 1, \"opacity\": 2}]}]}", "s.json:1:119", "opacity: expected a number from 0 to 1"),
        ("{\"outputs\": [{\"name\": \"A\", \"width\": 10, \"height\": 10, \"toplevels\": [{\"name\": \"x\", \"width\": 1, \"height\": 1, \"inputRegion\": [[0, 0, -1, 5]]}]}]}", "s.json:1:124", "inputRegion[0]: expected [x, y, width, height]"),
        ("{\"outputs\": [{\"name\": \"A\", \"width\": 10, \"height\": 10}], \"keyboardFocus\": \"ghost\"}", "s.json:1:14", "keyboardFocus names \"ghost\""),
        ("{\"outputs\": []}", "s.json:1:1", "expected at least one output"),
        ("[1, 2]", "s.json:1:1", "scene: expected an object, found an array"),
        ("{\"outputs\": [{\"name\": \"A\", \"width\": 10, \"height\": 10}]} trailing", "s.json:1:57", "expected the end of the file"),
        ("{\"outputs\": [{\"name\": \"unterminated, \"width\": 10}]}", "s.json:1:39", "expected \",\" or \"}\" in the object, found \"width\""),
    ])
    func malformed(_ text: String, _ location: String, _ message: String) throws {
        let failure = try #require(error(text))
        #expect(failure.location.description == location)
        #expect(failure.message.contains(message), "\(failure)")
        #expect(failure.description.hasPrefix("\(location): error: "))
    }
}
