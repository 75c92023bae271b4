import Foundation
import Testing
import TouchRouterConfig
import TouchRouterCore

/// The kiosk configuration docs/configuration.md shows, word for word.
let kioskConfiguration = """
    # A kiosk: one app, an admin panel behind an edge swipe, a secret way out.

    [gestures]
    finger-limit = 5          # sequences of 5 or more fingers never reach the app
    deferral-cap = 200        # px of an edge a client may keep from edge gestures

    [hold]
    limit-ms = 300            # a held touch goes to the app if nothing began by then

    [[hold.zone]]             # touches in this band wait until the edge swipe fails
    edges = ["left"]
    width = 32

    [[recognizer]]
    name = "admin-swipe"
    kind = "screen-edge-pan"
    edges = ["left"]
    zone-width = 32

    [[recognizer]]
    name = "five-finger-tap"
    kind = "tap"
    touches = 5
    cancels-touches = true
    simultaneous-with = ["admin-swipe"]

    [[bind]]
    gesture = "admin-swipe"   # when the swipe ends
    action = "exec"
    command = "foot -e /usr/local/bin/admin-panel"

    [[bind]]
    gesture = "five-finger-tap"
    action = "emit"
    event = "secret-tap"

    [[bind]]
    keys = "Ctrl+Alt+BackSpace"
    action = "quit"

    [[bind]]
    switch = "lid"
    state = "on"
    action = "exec"
    command = ["systemctl", "suspend"]

    [app."org.example.Keyboard"]   # the on-screen keyboard
    keyboard-focus = false

    [app."org.example.Kiosk"]
    exclusive-touch = true

    [keyboard]
    layout = "us"
    """

@Suite("The configuration file: TOML read into the session's configuration, every error with its file, line and column")
struct ConfigurationTests {
    func parse(_ text: String) throws -> ServerConfiguration {
        try ServerConfiguration.parse(text, file: "kiosk.toml")
    }

    /// The error `text` gives, as printed.
    func error(_ text: String) -> String { configurationError(text, file: "bad.toml") }

    @Test("the kiosk file parses to the expected values")
    func kiosk() throws {
        let configuration = try parse(kioskConfiguration)
        var expected = GestureConfiguration()
        expected.fingerLimit = 5
        expected.maximumDeferralLength = 200
        expected.holdLimit = 300_000_000
        expected.holdZones = [HoldZone(area: .edges([.left], width: 32))]
        var edge = ScreenEdgePanParameters()
        edge.edges = [.left]
        edge.zoneWidth = 32
        var tap = TapParameters()
        tap.touchesRequired = 5
        var tapSpec = GestureSpec(name: "five-finger-tap", kind: .tap(tap), attachment: .shell)
        tapSpec.simultaneousWith = ["admin-swipe"]
        expected.recognizers = [GestureSpec(name: "admin-swipe", kind: .screenEdgePan(edge), attachment: .shell), tapSpec]
        #expect(configuration.gestures == expected)

        #expect(configuration.bindings.map(\.trigger) == [
            .gesture("admin-swipe", states: [.ended, .recognized]),
            .gesture("five-finger-tap", states: [.ended, .recognized]),
            .keys(try KeyChord.parse("Ctrl+Alt+BackSpace")),
            .switchToggle(.lid, .on),
        ])
        #expect(configuration.bindings.map(\.action) == [
            .exec(["/bin/sh", "-c", "foot -e /usr/local/bin/admin-panel"]),
            .emit("secret-tap"),
            .quit,
            .exec(["systemctl", "suspend"]),
        ])
        #expect(configuration.bindings.map(\.position.line) == [27, 32, 37, 41], "each binding remembers its [[bind]] header")
        var keyboard = ApplicationPolicy()
        keyboard.keyboardFocus = false
        var kiosk = ApplicationPolicy()
        kiosk.exclusiveTouch = true
        #expect(configuration.applications == ["org.example.Keyboard": keyboard, "org.example.Kiosk": kiosk])
        #expect(configuration.keyboard == KeyboardSettings(layout: "us"))
        #expect(configuration.source.recognizers == ["admin-swipe": SourcePosition(line: 14, column: 1), "five-finger-tap": SourcePosition(line: 20, column: 1)])
    }

    @Test("README's kiosk configuration is this one, word for word")
    func readmeKiosk() throws {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/configuration.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        let start = try #require(text.range(of: "### A complete kiosk configuration\n\n```toml\n"))
        let end = try #require(text.range(of: "\n```", range: start.upperBound..<text.endIndex))
        #expect(String(text[start.upperBound..<end.lowerBound]) == kioskConfiguration)
    }

    @Test("an empty file is the default configuration")
    func empty() throws {
        let configuration = try parse("# nothing\n")
        #expect(configuration == ServerConfiguration())
        #expect(configuration.gestures == GestureConfiguration())
    }

    @Test("every kind of recognizer reads its parameters, and its attachment")
    func kinds() throws {
        let configuration = try parse("""
            [[recognizer]]
            name = "t"
            kind = "tap"
            taps = 2
            maximum-tap-interval-ms = 250.5
            app = "org.example.App"
            [[recognizer]]
            name = "l"
            kind = "long-press"
            minimum-duration-ms = 800
            output = "HEADLESS-1"
            [[recognizer]]
            name = "p"
            kind = "pan"
            minimum-touches = 2
            maximum-touches = 3
            role = "popup"
            cancels-touches = false
            requires-failure-of = ["l", "s"]
            [[recognizer]]
            name = "s"
            kind = "swipe"
            directions = ["up", "down"]
            minimum-velocity = 300
            [[recognizer]]
            name = "pi"
            kind = "pinch"
            slop = 20
            [[recognizer]]
            name = "r"
            kind = "rotation"
            minimum-degrees = 90
            """)
        let specs = configuration.gestures.recognizers
        #expect(specs.map(\.attachment) == [.appID("org.example.App"), .output("HEADLESS-1"), .role(.popup), .shell, .shell, .shell])
        guard specs.count == 6 else { return }
        if case .tap(let p) = specs[0].kind { #expect(p.tapsRequired == 2 && p.maximumTapInterval == 250_500_000) } else { Issue.record("\(specs[0].kind)") }
        if case .longPress(let p) = specs[1].kind { #expect(p.minimumDuration == 800_000_000) } else { Issue.record("\(specs[1].kind)") }
        if case .pan(let p) = specs[2].kind { #expect(p.minimumTouches == 2 && p.maximumTouches == 3) } else { Issue.record("\(specs[2].kind)") }
        #expect(!specs[2].cancelsTouchesInView && specs[2].requiresFailureOf == ["l", "s"])
        if case .swipe(let p) = specs[3].kind { #expect(p.directions == [.up, .down] && p.minimumVelocity == 300) } else { Issue.record("\(specs[3].kind)") }
        if case .pinch(let p) = specs[4].kind { #expect(p.slop == 20) } else { Issue.record("\(specs[4].kind)") }
        if case .rotation(let p) = specs[5].kind { #expect(abs(p.minimumAngle - .pi / 2) < 1e-12) } else { Issue.record("\(specs[5].kind)") }
    }

    @Test("hold zones: edges, a rectangle, a whole output")
    func zones() throws {
        let configuration = try parse("""
            [[hold.zone]]
            rect = [0, 0, 100, 50]
            [[hold.zone]]
            output = "HEADLESS-2"
            whole-output = true
            """)
        #expect(configuration.gestures.holdZones == [HoldZone(area: .rect(Rect(x: 0, y: 0, width: 100, height: 50))), HoldZone(output: "HEADLESS-2", area: .wholeOutput)])
    }

    @Test("key chords: modifiers in any spelling and order, keysyms by xkbcommon's names, letters matched lower-case")
    func chords() throws {
        let chord = try KeyChord.parse("alt + control+BackSpace")
        #expect(chord.modifiers == [.control, .alt])
        #expect(chord.keysym == 0xff08, "XKB_KEY_BackSpace")
        #expect(chord.text == "Ctrl+Alt+BackSpace")
        #expect(try KeyChord.parse("Super+Shift+Q").keysym == 0x71, "XKB_KEY_q")
        #expect(try KeyChord.parse("escape").keysym == 0xff1b, "a name in another case is found too")
        #expect(throws: KeyChord.ParseError.unknownKey("Nope")) { try KeyChord.parse("Ctrl+Nope") }
        #expect(throws: KeyChord.ParseError.unknownModifier("Hyperish")) { try KeyChord.parse("Hyperish+a") }
        #expect(throws: KeyChord.ParseError.noKey) { try KeyChord.parse("Ctrl+Alt") }
        #expect(throws: KeyChord.ParseError.noKey) { try KeyChord.parse("Ctrl+") }
    }

    @Test("syntax errors carry their line and column, from the syntax check or from TOMLKit", arguments: [
        ("[hold]\nlimit-ms = = 3\n", "bad.toml:2:12: error: "),
        ("a = \"unterminated\n", "bad.toml:1:"),
        ("[hold]\n[hold]\n", "bad.toml:2:"),
    ])
    func syntax(text: String, prefix: String) {
        let message = error(text)
        #expect(message.hasPrefix(prefix), "\(message)")
        #expect(message.contains("expected"), "\(message)")
    }

    @Test("semantic errors point at the key or value, and say what was expected", arguments: [
        // An unknown key, at the top, in a table, in an inline table.
        ("[hold]\nlimit-ms = 3\n\nzonez = 1\n", "bad.toml:4:1: error: unknown key 'zonez' in [hold]: expected limit-ms or [[hold.zone]]"),
        ("colour = 1\n", "bad.toml:1:1: error: unknown key 'colour': expected [[recognizer]], [[bind]], [app], [keyboard], [hold], [gestures], [[touchscreen]], [[output]], [[input]], [cursor], [idle], [stats], [privileges], [environment], [supervise] or [xwayland]"),
        ("[[recognizer]]\nname = \"a\"\nkind = \"tap\"\n  tapz = 2\n", "bad.toml:4:3: error: unknown key 'tapz' in [[recognizer]] recognizer[0]: expected name, kind, output, app, role, cancels-touches, deferrable, simultaneous-with, requires-failure-of, taps, touches, allowable-movement, maximum-press-ms, maximum-tap-interval-ms or maximum-tap-distance"),
        ("app.\"org.x\" = { touch = false, colour = 2 }\n", "bad.toml:1:32: error: unknown key 'colour' in [app.\"org.x\"]: expected touch, keyboard-focus, exclusive-touch, multiple-touch, interaction or kiosk-window"),
        // A parameter of another kind.
        ("[[recognizer]]\nname = \"a\"\nkind = \"tap\"\nedges = [\"left\"]\n", "bad.toml:4:1: error: 'edges' is not a parameter of a tap recognizer: expected taps, touches, allowable-movement, maximum-press-ms, maximum-tap-interval-ms or maximum-tap-distance"),
        // Wrong types.
        ("[app.\"org.x\"]\ntouch = \"no\"\n", "bad.toml:2:9: error: app.\"org.x\".touch: expected true or false, found a string"),
        ("[hold]\nlimit-ms = \"300\"\n", "bad.toml:2:12: error: hold.limit-ms: expected a number from 0 to 10000 ms, found a string"),
        ("[[recognizer]]\nname = \"a\"\nkind = \"swipe\"\ndirections = [\"up\", 3]\n", "bad.toml:4:21: error: recognizer[0].directions[1]: expected a string, found an integer"),
        ("recognizer = 5\n", "bad.toml:1:14: error: recognizer: expected an array of tables, [[recognizer]], found an integer"),
        // Out of range, including numbers that would trap if converted as they are.
        ("[gestures]\nfinger-limit = 11\n", "bad.toml:2:16: error: gestures.finger-limit: expected a whole number from 2 to 10, found 11"),
        ("[hold]\nlimit-ms = 9223372036854775807\n", "bad.toml:2:12: error: hold.limit-ms: expected a number from 0 to 10000 ms, found 9223372036854775807"),
        ("[[recognizer]]\nname = \"a\"\nkind = \"long-press\"\nminimum-duration-ms = 1e300\n", "bad.toml:4:23: error: recognizer[0].minimum-duration-ms: expected a number from 0 to 60000 ms, found 1e+300"),
        ("[[recognizer]]\nname = \"a\"\nkind = \"pan\"\nslop = nan\n", "bad.toml:4:8: error: recognizer[0].slop: expected a number from 0 to 100000, found nan"),
        ("[[recognizer]]\nname = \"a\"\nkind = \"tap\"\ntouches = -1\n", "bad.toml:4:11: error: recognizer[0].touches: expected a whole number from 1 to 10, found -1"),
        ("[[hold.zone]]\nrect = [0, 0, 0, 10]\n", "bad.toml:2:15: error: hold.zone[0].rect[2]: expected [x, y, width, height], whole numbers, x and y within ±1000000, width and height from 1 to 1000000"),
        // Choices.
        ("[[recognizer]]\nname = \"a\"\nkind = \"wave\"\n", "bad.toml:3:8: error: recognizer[0].kind: expected tap, long-press, pan, swipe, pinch, rotation or screen-edge-pan, found \"wave\""),
        ("[[recognizer]]\nname = \"a\"\nkind = \"screen-edge-pan\"\nedges = [\"left\", \"middle\"]\n", "bad.toml:4:18: error: recognizer[0].edges[1]: expected top, bottom, left or right, found \"middle\""),
        // Missing keys point at their table's header.
        ("\n[[recognizer]]\nkind = \"tap\"\n", "bad.toml:2:1: error: [[recognizer]] recognizer[0]: missing key 'name': expected a name that bindings and other recognizers use"),
        ("[[bind]]\nkeys = \"Ctrl+q\"\n", "bad.toml:1:1: error: [[bind]] bind[0]: missing key 'action': expected exec, close, focus-next, toggle-ignore-interaction, quit or emit"),
        ("[[bind]]\nkeys = \"Ctrl+q\"\naction = \"exec\"\n", "bad.toml:1:1: error: [[bind]] bind[0]: missing key 'command': expected a string for /bin/sh -c, or an array of the program and its arguments"),
        // Bindings.
        ("[[bind]]\nkeys = \"Ctrl+Alt+Bakspace\"\naction = \"quit\"\n", "bad.toml:2:8: error: bind[0].keys: 'Bakspace' is not an XKB keysym name: expected one such as BackSpace, Escape, F1 or a"),
        ("[[bind]]\nkeys = \"Hyper+x\"\naction = \"quit\"\n", "bad.toml:2:8: error: bind[0].keys: 'Hyper' is not a modifier: expected Ctrl, Alt, Shift or Super before the key"),
        ("[[bind]]\ngesture = \"nope\"\naction = \"quit\"\n", "bad.toml:2:11: error: bind[0].gesture: \"nope\" is not a recognizer: expected a recognizer's name (none is declared)"),
        ("[[bind]]\nkeys = \"Ctrl+q\"\nswitch = \"lid\"\naction = \"quit\"\n", "bad.toml:3:1: error: [[bind]] bind[0]: 'keys' and 'switch' cannot both be given: expected one of gesture, keys, switch or background"),
        ("[[bind]]\nkeys = \"Ctrl+q\"\naction = \"quit\"\nevent = \"x\"\n", "bad.toml:4:1: error: [[bind]] bind[0]: 'event' is only for action = \"emit\", not \"quit\""),
        ("[[bind]]\nkeys = \"Ctrl+q\"\naction = \"quit\"\n[[bind]]\nkeys = \"control+Q\"\naction = \"close\"\n", "bad.toml:4:1: error: bind[1]: keys Ctrl+Q is bound already at line 1: expected each trigger once"),
        ("[[bind]]\nswitch = \"lid\"\nstate = \"shut\"\naction = \"quit\"\n", "bad.toml:3:9: error: bind[0].state: expected on or off, found \"shut\""),
        // The keyboard.
        ("\n[keyboard]\nlayout = \"no-such-layout-xyz\"\n", "bad.toml:2:1: error: [keyboard]: xkbcommon cannot compile a keymap from layout \"no-such-layout-xyz\": expected names from xkb-data (localectl list-x11-keymap-layouts lists the layouts)"),
    ])
    func semantic(text: String, expected: String) {
        #expect(error(text) == expected)
    }

    @Test("recognizers: duplicate names, unknown names, and cycles of failure requirements named in order", arguments: [
        ("[[recognizer]]\nname = \"a\"\nkind = \"tap\"\n[[recognizer]]\nname = \"a\"\nkind = \"pan\"\n", "bad.toml:5:8: error: recognizer[1].name: \"a\" is the name of an earlier recognizer (line 1): expected a name of its own"),
        ("[[recognizer]]\nname = \"a\"\nkind = \"tap\"\nsimultaneous-with = [\"b\"]\n", "bad.toml:4:22: error: recognizer[0].simultaneous-with[0]: \"b\" is not a recognizer: expected \"a\""),
        ("[[recognizer]]\nname = \"a\"\nkind = \"tap\"\nsimultaneous-with = [\"a\"]\n", "bad.toml:4:22: error: recognizer[0].simultaneous-with[0]: a recognizer is always simultaneous with itself: expected the name of another recognizer"),
        ("[[recognizer]]\nname = \"a\"\nkind = \"tap\"\nrequires-failure-of = [\"a\"]\n", "bad.toml:4:24: error: recognizers require each other to fail in a cycle, \"a\" → \"a\": expected no cycle of requires-failure-of"),
        ("""
        [[recognizer]]
        name = "a"
        kind = "tap"
        requires-failure-of = ["b"]
        [[recognizer]]
        name = "b"
        kind = "pan"
        requires-failure-of = ["x", "c"]
        [[recognizer]]
        name = "x"
        kind = "pinch"
        [[recognizer]]
        name = "c"
        kind = "swipe"
        requires-failure-of = ["a"]
        """, "bad.toml:15:24: error: recognizers require each other to fail in a cycle, \"a\" → \"b\" → \"c\" → \"a\": expected no cycle of requires-failure-of"),
    ])
    func recognizerSet(text: String, expected: String) {
        #expect(error(text) == expected)
    }

    @Test("more recognizers than the core takes is an error at the first one too many")
    func tooMany() {
        let text = (0...GestureConfiguration.maximumRecognizers).map { "[[recognizer]]\nname = \"r\($0)\"\nkind = \"tap\"\n" }.joined()
        #expect(error(text) == "bad.toml:\(3 * GestureConfiguration.maximumRecognizers + 1):1: error: more than 64 recognizers: expected at most 64")
    }

    @Test("bytes: a NUL (which TOMLKit's C string would end the text at) and bad UTF-8 are placed exactly; a missing file is named")
    func bytes() {
        func message(_ bytes: [UInt8]) -> String {
            do { _ = try ServerConfiguration.parse(bytes: bytes, file: "b.toml"); return "no error" } catch { return error.description }
        }
        #expect(message(Array("[hold]\nlimit-ms = 3\0\n".utf8)) == "b.toml:2:13: error: a NUL character: expected TOML text")
        #expect(message(Array("# é\n[hold]\n".utf8) + [0xff]) == "b.toml:3:1: error: bytes that are not UTF-8: expected TOML text in UTF-8")
        do {
            _ = try ServerConfiguration.load(path: "/nonexistent/touch-router.toml")
            Issue.record("no error")
        } catch {
            #expect(error.description == "/nonexistent/touch-router.toml:1:1: error: cannot read the configuration file: No such file or directory")
        }
    }

    @Test("a hostile file is refused before TOMLKit reads it: a FIFO (which would block), a sparse file past the size limit (checked before reading), a directory")
    func hostileFiles() throws {
        let directory = NSTemporaryDirectory() + "touch-router-hostile-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func message(_ path: String) -> String {
            do { _ = try ServerConfiguration.load(path: path); return "no error" } catch { return error.description }
        }
        let fifo = directory + "/fifo.toml"
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(message(fifo) == "\(fifo):1:1: error: not a regular file: expected a TOML file")
        let sparse = directory + "/sparse.toml"
        #expect(FileManager.default.createFile(atPath: sparse, contents: nil))
        #expect(truncate(sparse, 3 << 30) == 0)
        #expect(message(sparse) == "\(sparse):1:1: error: the file holds \(3 << 30) bytes: expected at most \(ServerConfiguration.maximumFileBytes)")
        #expect(message(directory) == "\(directory):1:1: error: not a regular file: expected a TOML file")
    }

    @Test("a dotted key or table name more than 64 parts deep is refused at its place, before toml++ recurses through it; floats, dates and dots in strings and comments are no keys")
    func deepDottedKeys() {
        let deep = (0..<65).map { _ in "a" }.joined(separator: ".")
        #expect(error("[hold]\nlimit-ms = 3\n\(deep) = 1\n") == "bad.toml:3:1: error: a dotted key or table name of more than 64 parts: expected at most 64")
        #expect(error("x = { \(deep) = 1 }\n") == "bad.toml:1:7: error: a dotted key or table name of more than 64 parts: expected at most 64")
        #expect(error("[\(deep)]\n") == "bad.toml:1:2: error: a dotted key or table name of more than 64 parts: expected at most 64")
        // A million parts: refused at once, where toml++ overflowed the stack.
        let huge = (0..<524_283).map { _ in "a" }.joined(separator: ".") + " = 1\n"
        #expect(error(huge) == "bad.toml:1:1: error: a dotted key or table name of more than 64 parts: expected at most 64")
        let fine = "[app.\"org.x.y.z\"]\n# a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.a.b.c.d.e.f.g.h.i.j.k.l.m.n\ntouch = false\n"
            + "[[touchscreen]]\nmatch = \"a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.a.b.c.d.e.f.g.h.i.j.k.l.m.n\"\n"
            + "calibration = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0]\n"
        #expect(error(fine) == "no error")
    }

    @Test("the syntax check lets every form of TOML 1.0 through to TOMLKit (each file then fails only on its unknown key), and stops malformed ones at their place, before toml++ asserts (libFuzzer found 'a = [ }')")
    func syntaxCheck() {
        let valid = [
            #"x = "tab\t quote\" \u00e9 \U0001F600""#,
            #"x = 'C:\path'"#,
            "x = \"\"\"\none \"two\" \"\"three\"\"\n  \\\n  joined\"\"\"\"\"",
            "x = '''\nraw ''quoted'' text''''' ",
            "x = [1_000, 0xDEAD_beef, 0o755, 0b1101, +17, -0, 3.14, -1e-3, 6.02E+23, inf, -nan, true, false]",
            "x = [1979-05-27T07:32:00Z, 1979-05-27 00:32:00.999999-07:00, 1979-05-27T07:32:00, 1979-05-27, 07:32:00.5]",
            "x = [ # comment\n  1,\n  [2, [3]], # another\n  {a = 1, \"b c\".d = 'e'},\n]",
            "x = {}",
            "\"quoted key\" = 1",
            "a . b . c = 1",
            "[ a . \"b\" ]\nk = 1",
            "[[ a.b ]]\nk = 1",
            "x = 1 # trailing comment\r\n",
        ]
        for text in valid {
            #expect(error(text + "\n").contains("unknown key"), "\(text): \(error(text + "\n"))")
        }
        let invalid: [(String, String)] = [
            ("a = [ }\n", "bad.toml:1:7: error: expected a value, saw '}'"),
            ("a = { b = 1, }\n", "bad.toml:1:14: error: expected a key, saw '}'"),
            ("a = { b = 1\n}\n", "bad.toml:1:12: error: expected ',' or '}' in the inline table (on one line), saw the end of the line"),
            ("a = 1_\n", "bad.toml:1:5: error: '1_' is not a TOML value"),
            ("a = 01\n", "bad.toml:1:5: error: '01' is not a TOML value"),
            (#"a = "\x""# + "\n", #"bad.toml:1:7: error: an escape \x that TOML does not have"#),
            (#"a = "\uD800""# + "\n", #"bad.toml:1:12: error: \u names no Unicode scalar value"#),
            ("a = 1 b = 2\n", "bad.toml:1:7: error: expected the end of the line, saw 'b'"),
            ("a = 1\rb = 2\n", "bad.toml:1:6: error: a carriage return not followed by a line feed"),
            ("\"\"\"k\"\"\" = 1\n", "bad.toml:1:1: error: a multi-line string as a key"),
            ("a = '''x''''''\n", "bad.toml:1:9: error: 6 quotes in a row in a multi-line string"),
            ("a = " + String(repeating: "[", count: 65) + String(repeating: "]", count: 65) + "\n", "bad.toml:1:69: error: arrays and inline tables nested more than 64 deep"),
        ]
        for (text, message) in invalid {
            #expect(error(text).hasPrefix(message), "\(text): \(error(text))")
        }
    }

    @Test("a table header whose name does not start with a key is refused at its place: toml++ asserts that it does, and aborted the session (libFuzzer found [[.0, 0.0]])")
    func headerWithoutKey() {
        for header in ["[[.0, 0.0]]", "[.a]", "[\n", "[", "  [[ {x}]]"] {
            let column = header.hasPrefix("  ") ? 3 : 1
            #expect(error("a = 1\n\(header)\n") == "bad.toml:2:\(column): error: a table header without a name: expected [name] or [[name]], the name a bare or quoted key", "\(header)")
        }
        // Arrays open across lines start lines with `[` too: they are values, not headers.
        #expect(error("x = [\n[.5, {a = 1}],\n  [ +1 ],\n]\n").contains("table header without a name") == false)
        #expect(error("[hold]\nlimit-ms = 3\n[[hold.zone]]\nrect = [\n  0, 0, 10, 10]\n") == "no error")
    }

    @Test("positions: keys after multi-line strings and arrays, dotted and quoted keys, and comments holding syntax are found where they are")
    func positions() {
        let text = """
            [[bind]]
            keys = "Ctrl+q" # = [x]
            action = "exec"
            command = \"\"\"
            echo "[not a header]"
            key = 1
            \"\"\"
            [[bind]]
            switch = "lid"
            action = "quit"
            "colour" = [
              1, # ]
              2,
            ]
            """
        #expect(error(text) == "bad.toml:11:1: error: unknown key 'colour' in [[bind]] bind[1]: expected gesture, state, keys, switch, background, action, command, event or while-locked")
        #expect(error("app.\"org.x\".touch = false\napp.\"org.x\".typo = 1\n") == "bad.toml:2:13: error: unknown key 'typo' in [app.\"org.x\"]: expected touch, keyboard-focus, exclusive-touch, multiple-touch, interaction or kiosk-window")
    }
}
