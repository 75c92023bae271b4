import Testing
import TouchRouterConfig
import TouchRouterCore

@Suite("[[input]] settings, and the touchscreen mapping chain past the configuration")
struct InputConfigurationTests {
    static let file = "input.toml"

    func error(_ text: String) -> String { configurationError(text, file: Self.file) }

    @Test("tables are read in order, with every kind of match and every setting")
    func reads() throws {
        let configuration = try ServerConfiguration.parse("""
            [[input]]
            match = "*"
            accel-profile = "flat"

            [[input]]
            match = "type:touchpad"
            tap = true
            natural-scroll = true
            accel-speed = -0.5

            [[input]]
            match = "046d:c52B"
            left-handed = true
            accel-speed = 1

            [[input]]
            match = "Logitech USB Receiver"
            accel-profile = "adaptive"
            """, file: Self.file)
        #expect(configuration.inputs == [
            InputRule(match: .all, settings: InputSettings(accelerationProfile: .flat), position: SourcePosition(line: 1, column: 1)),
            InputRule(match: .type(.touchpad), settings: InputSettings(tap: true, naturalScroll: true, accelerationSpeed: -0.5), position: SourcePosition(line: 5, column: 1)),
            InputRule(match: .vendorProduct(vendor: 0x046d, product: 0xc52b), settings: InputSettings(accelerationSpeed: 1, leftHanded: true), position: SourcePosition(line: 11, column: 1)),
            InputRule(match: .name("Logitech USB Receiver"), settings: InputSettings(accelerationProfile: .adaptive), position: SourcePosition(line: 16, column: 1)),
        ])
    }

    @Test("every matching table applies in order, a later one replacing what an earlier one set")
    func merging() throws {
        let rules = try ServerConfiguration.parse("""
            [[input]]
            match = "*"
            accel-profile = "flat"
            tap = false
            [[input]]
            match = "type:touchpad"
            tap = true
            [[input]]
            match = "type:pointer"
            accel-speed = 0.25
            [[input]]
            match = "SynPS/2 Synaptics TouchPad"
            accel-profile = "adaptive"
            """, file: Self.file).inputs
        let touchpad = InputRule.Device(name: "SynPS/2 Synaptics TouchPad", vendor: 2, product: 7, types: ["pointer", "gesture"], touchpad: true)
        #expect(InputRule.settings(for: touchpad, rules: rules) == InputSettings(tap: true, accelerationProfile: .adaptive))
        let mouse = InputRule.Device(name: "mouse", vendor: 1, product: 1, types: ["pointer"], touchpad: false)
        #expect(InputRule.settings(for: mouse, rules: rules) == InputSettings(tap: false, accelerationProfile: .flat, accelerationSpeed: 0.25))
        let keyboard = InputRule.Device(name: "kbd", vendor: 1, product: 2, types: ["keyboard"], touchpad: false)
        #expect(InputRule.settings(for: keyboard, rules: rules) == InputSettings(tap: false, accelerationProfile: .flat))
        #expect(InputRule.settings(for: keyboard, rules: []) == InputSettings())
    }

    @Test("errors name file:line:column and what was expected", arguments: [
        ("[[input]]\ntap = true\n", "input.toml:1:1: error: [[input]] input[0]: missing key 'match'"),
        ("[[input]]\nmatch = \"type:trackball\"\n", "input.toml:2:9: error: input[0].match: expected \"*\", a device name"),
        ("[[input]]\nmatch = \"*\"\naccel-speed = 1.5\n", "input.toml:3:15: error: input[0].accel-speed: expected a number from -1 to 1, found 1.5"),
        ("[[input]]\nmatch = \"*\"\naccel-profile = \"linear\"\n", "input.toml:3:17: error: input[0].accel-profile: expected flat or adaptive, found \"linear\""),
        ("[[input]]\nmatch = \"*\"\ntap = \"yes\"\n", "input.toml:3:7: error: input[0].tap: expected true or false, found a string"),
        ("[[input]]\nmatch = \"*\"\nscroll-factor = 2\n", "input.toml:3:1: error: unknown key 'scroll-factor' in [[input]] input[0]: expected match, tap, natural-scroll, accel-profile, accel-speed or left-handed"),
        ("[input]\nmatch = \"*\"\n", "input.toml:1:1: error: input: expected an array of tables, [[input]], found a table"),
    ])
    func errors(text: String, expected: String) {
        let message = error(text)
        #expect(message.hasPrefix(expected), "\(message)")
    }

    @Test("[keyboard] repeat-rate and repeat-delay: sway's 25/s and 600 ms unless given, within bounds")
    func keyRepeat() throws {
        #expect(try ServerConfiguration.parse("[keyboard]\nlayout = \"us\"\n", file: Self.file).keyboard == KeyboardSettings(layout: "us", repeatRate: 25, repeatDelay: 600))
        #expect(try ServerConfiguration.parse("[keyboard]\nrepeat-rate = 0\nrepeat-delay = 200\n", file: Self.file).keyboard == KeyboardSettings(repeatRate: 0, repeatDelay: 200))
        #expect(error("[keyboard]\nrepeat-rate = 2000\n").hasPrefix("input.toml:2:15: error: keyboard.repeat-rate: expected a whole number from 0 to 1000, found 2000"), "\(error("[keyboard]\nrepeat-rate = 2000\n"))")
        #expect(error("[keyboard]\nrepeat-delay = 1.5\n").hasPrefix("input.toml:2:16: error: keyboard.repeat-delay: expected a whole number from 0 to 10000"), "\(error("[keyboard]\nrepeat-delay = 1.5\n"))")
    }

    @Test("[keyboard] osk-namespace: the on-screen keyboard's layer-shell namespace, none unless given; a string that is not empty")
    func oskNamespace() throws {
        #expect(try ServerConfiguration.parse("", file: Self.file).oskNamespace == nil)
        let configuration = try ServerConfiguration.parse("[keyboard]\nlayout = \"us\"\nosk-namespace = \"wvkbd\"\n", file: Self.file)
        #expect(configuration.oskNamespace == "wvkbd")
        #expect(configuration.keyboard == KeyboardSettings(layout: "us"), "the namespace is not part of the keymap's settings")
        let number = error("[keyboard]\nosk-namespace = 3\n")
        #expect(number.hasPrefix("input.toml:2:17: error: keyboard.osk-namespace: expected a string, found"), "\(number)")
        let empty = error("\n[keyboard]\nosk-namespace = \"\"\n")
        #expect(empty.hasPrefix("input.toml:3:17: error: keyboard.osk-namespace: expected a string that is not empty"), "\(empty)")
    }

    @Test("[cursor] hide-after-ms: 5 s unless given, 0 for never, within bounds; no other key")
    func cursorHiding() throws {
        #expect(try ServerConfiguration.parse("", file: Self.file).cursor.hideAfter == 5_000_000_000)
        #expect(try ServerConfiguration.parse("[cursor]\nhide-after-ms = 300\n", file: Self.file).cursor.hideAfter == 300_000_000)
        #expect(try ServerConfiguration.parse("[cursor]\nhide-after-ms = 0\n", file: Self.file).cursor.hideAfter == nil)
        let tooLong = error("[cursor]\nhide-after-ms = 4000000\n")
        #expect(tooLong.hasPrefix("input.toml:2:17: error: cursor.hide-after-ms: expected a number from 0 to 3600000"), "\(tooLong)")
        let unknown = error("[cursor]\ntheme = \"Adwaita\"\n")
        #expect(unknown.hasPrefix("input.toml:2:1: error: unknown key 'theme' in [cursor]"), "\(unknown)")
    }

    @Test("[stats] slow-ms: 200 ms unless given, 0 keeps everything, within bounds; no other key")
    func statsSlowThreshold() throws {
        #expect(try ServerConfiguration.parse("", file: Self.file).stats.slowThreshold == 200_000_000)
        #expect(try ServerConfiguration.parse("[stats]\nslow-ms = 16.5\n", file: Self.file).stats.slowThreshold == 16_500_000)
        #expect(try ServerConfiguration.parse("[stats]\nslow-ms = 0\n", file: Self.file).stats.slowThreshold == 0)
        let negative = error("[stats]\nslow-ms = -1\n")
        #expect(negative.hasPrefix("input.toml:2:11: error: stats.slow-ms: expected a number from 0 to 3600000"), "\(negative)")
        let unknown = error("[stats]\nslow = 3\n")
        #expect(unknown.hasPrefix("input.toml:2:1: error: unknown key 'slow' in [stats]"), "\(unknown)")
    }

    @Test("[environment]: variables for the programs the session starts; a bad name, the session's own sockets, and a non-string refused at their place; an escaped NUL ends the value")
    func environment() throws {
        #expect(try ServerConfiguration.parse("", file: Self.file).environment.isEmpty)
        let read = try ServerConfiguration.parse("[environment]\nXDG_CURRENT_DESKTOP = \"kiosk\"\nGDK_BACKEND = \"\"\n", file: Self.file)
        #expect(read.environment == ["XDG_CURRENT_DESKTOP": "kiosk", "GDK_BACKEND": ""])
        let badName = error("[environment]\n\"1X\" = \"a\"\n")
        #expect(badName.hasPrefix("input.toml:2:1: error: environment.1X: expected a variable name of letters, digits and underscores"), "\(badName)")
        let owned = error("[environment]\nWAYLAND_DISPLAY = \"wayland-9\"\n")
        #expect(owned.hasPrefix("input.toml:2:1: error: environment.WAYLAND_DISPLAY: the session sets this one itself"), "\(owned)")
        let number = error("[environment]\nA = 1\n")
        #expect(number.hasPrefix("input.toml:2:5: error: environment.A: expected a string, found an integer"), "\(number)")
        let nul = try ServerConfiguration.parse("[environment]\nA = \"x\\u0000y\"\n", file: Self.file)
        #expect(nul.environment == ["A": "x"], "TOMLKit hands strings over as C strings, which end at an escaped NUL")
    }

    @Test("[privileges] virtual-input: nobody unless named; bare names and absolute paths, a relative path or an empty name refused at its value")
    func privilegesVirtualInput() throws {
        #expect(try ServerConfiguration.parse("", file: Self.file).privileges.programs(for: .virtualInput).isEmpty)
        let read = try ServerConfiguration.parse("[privileges]\nvirtual-input = [\"wvkbd-mobintl\", \"/usr/bin/squeekboard\"]\n", file: Self.file)
        #expect(read.privileges.programs(for: .virtualInput) == ["wvkbd-mobintl", "/usr/bin/squeekboard"])
        let relative = error("[privileges]\nvirtual-input = [\"wvkbd\", \"bin/wvkbd\"]\n")
        #expect(relative.hasPrefix("input.toml:2:27: error: privileges.virtual-input[1]: expected an absolute path or a bare executable name"), "\(relative)")
        let empty = error("[privileges]\nvirtual-input = [\"\"]\n")
        #expect(empty.hasPrefix("input.toml:2:18: error: privileges.virtual-input[0]: expected an executable's name or absolute path"), "\(empty)")
        let unknown = error("[privileges]\nscreencopy = []\n")
        #expect(unknown.hasPrefix("input.toml:2:1: error: unknown key 'screencopy' in [privileges]"), "\(unknown)")
    }

    @Test("[privileges] layer-shell: nobody unless named, read apart from virtual-input, a relative path refused at its value")
    func privilegesLayerShell() throws {
        #expect(try ServerConfiguration.parse("", file: Self.file).privileges.programs(for: .layerShell).isEmpty)
        let read = try ServerConfiguration.parse("[privileges]\nlayer-shell = [\"waybar\", \"/usr/bin/wvkbd-mobintl\"]\nvirtual-input = [\"wvkbd-mobintl\"]\n", file: Self.file)
        #expect(read.privileges.programs(for: .layerShell) == ["waybar", "/usr/bin/wvkbd-mobintl"])
        #expect(read.privileges.programs(for: .virtualInput) == ["wvkbd-mobintl"])
        let relative = error("[privileges]\nlayer-shell = [\"bin/waybar\"]\n")
        #expect(relative.hasPrefix("input.toml:2:16: error: privileges.layer-shell[0]: expected an absolute path or a bare executable name"), "\(relative)")
    }

    @Test("[privileges] foreign-toplevel: nobody unless named, read apart from the others, a relative path refused at its value")
    func privilegesForeignToplevel() throws {
        #expect(try ServerConfiguration.parse("", file: Self.file).privileges.programs(for: .foreignToplevel).isEmpty)
        let read = try ServerConfiguration.parse("[privileges]\nforeign-toplevel = [\"waybar\"]\nlayer-shell = [\"swaybg\"]\n", file: Self.file)
        #expect(read.privileges.programs(for: .foreignToplevel) == ["waybar"])
        #expect(read.privileges.programs(for: .layerShell) == ["swaybg"])
        let relative = error("[privileges]\nforeign-toplevel = [\"bin/waybar\"]\n")
        #expect(relative.hasPrefix("input.toml:2:21: error: privileges.foreign-toplevel[0]: expected an absolute path or a bare executable name"), "\(relative)")
    }

    @Test("[privileges] input-method: nobody unless named, read apart from the others, a relative path refused at its value")
    func privilegesInputMethod() throws {
        #expect(try ServerConfiguration.parse("", file: Self.file).privileges.programs(for: .inputMethod).isEmpty)
        let read = try ServerConfiguration.parse("[privileges]\ninput-method = [\"wvkbd-mobintl\"]\nvirtual-input = [\"wvkbd-mobintl\"]\n", file: Self.file)
        #expect(read.privileges.programs(for: .inputMethod) == ["wvkbd-mobintl"])
        #expect(read.privileges.programs(for: .virtualInput) == ["wvkbd-mobintl"])
        #expect(read.privileges.programs(for: .layerShell).isEmpty)
        let relative = error("[privileges]\ninput-method = [\"bin/osk\"]\n")
        #expect(relative.hasPrefix("input.toml:2:17: error: privileges.input-method[0]: expected an absolute path or a bare executable name"), "\(relative)")
    }

    @Test("[privileges] matching: a bare name is the executable's file name, a path the resolved whole path")
    func privilegeMatching() {
        let resolve: (String) -> String? = { $0 == "/usr/bin/osk" ? "/usr/lib/osk/osk-real" : nil }
        #expect(PrivilegeSettings.allows(["wvkbd-mobintl"], executable: "/usr/bin/wvkbd-mobintl", resolve: resolve))
        #expect(!PrivilegeSettings.allows(["wvkbd"], executable: "/usr/bin/wvkbd-mobintl", resolve: resolve))
        #expect(!PrivilegeSettings.allows(["/usr/bin/wvkbd-mobintl"], executable: "/tmp/wvkbd-mobintl", resolve: resolve))
        #expect(PrivilegeSettings.allows(["/usr/bin/osk"], executable: "/usr/lib/osk/osk-real", resolve: resolve))
        #expect(!PrivilegeSettings.allows([], executable: "/usr/bin/wvkbd-mobintl", resolve: resolve))
    }

    static let panelAndMonitor: [(name: String, rect: Rect<GlobalSpace>, transform: OutputTransform)] = [
        ("HDMI-A-1", Rect(x: 0, y: 0, width: 1920, height: 1080), .normal),
        ("eDP-1", Rect(x: 1920, y: 0, width: 1080, height: 1920), .rotated90),
        ("DP-2", Rect(x: 3000, y: 0, width: 800, height: 600), .normal),
    ]

    @Test("past the configuration: udev's WL_OUTPUT, else the built-in panel, else the only output, else the first")
    func chain() {
        let outputs = Self.panelAndMonitor
        let own = CalibrationMatrix(1, 0, 0.1, 0, 1, 0)
        let rule = TouchscreenRule(match: .name("configured"), target: .output("DP-2"), position: SourcePosition(line: 4, column: 1))

        let configured = TouchscreenAssignment(device: "configured", vendor: 0, product: 0, calibration: own, udevOutput: "HDMI-A-1", rules: [rule], outputs: outputs)
        #expect(configured.output == "DP-2" && configured.reason == "configuration, line 4", "the configuration comes before udev")

        let tagged = TouchscreenAssignment(device: "t", vendor: 0, product: 0, calibration: own, udevOutput: "HDMI-A-1", rules: [rule], outputs: outputs)
        #expect(tagged.output == "HDMI-A-1" && tagged.reason == "udev WL_OUTPUT")
        #expect(tagged.mapping == TouchMapping(area: outputs[0].rect, calibration: own) && tagged.calibrationSource == "device")

        let panel = TouchscreenAssignment(device: "t", vendor: 0, product: 0, calibration: .identity, rules: [], outputs: outputs)
        #expect(panel.output == "eDP-1" && panel.reason == "the built-in panel")
        #expect(panel.mapping == TouchMapping(area: outputs[1].rect, transform: .rotated90))

        let staleTag = TouchscreenAssignment(device: "t", vendor: 0, product: 0, calibration: .identity, udevOutput: "VGA-9", rules: [], outputs: outputs)
        #expect(staleTag.output == "eDP-1" && staleTag.reason == "the built-in panel (udev's WL_OUTPUT VGA-9 does not exist)")

        let dsi = TouchscreenAssignment(device: "t", vendor: 0, product: 0, calibration: .identity, rules: [], outputs: [outputs[0], ("DSI-1", Rect(x: 1920, y: 0, width: 720, height: 1280), .normal)])
        #expect(dsi.output == "DSI-1" && dsi.reason == "the built-in panel")

        let only = TouchscreenAssignment(device: "t", vendor: 0, product: 0, calibration: .identity, rules: [], outputs: [outputs[2]])
        #expect(only.output == "DP-2" && only.reason == "the only output")

        let first = TouchscreenAssignment(device: "t", vendor: 0, product: 0, calibration: .identity, rules: [], outputs: [outputs[2], outputs[0]])
        #expect(first.output == "DP-2" && first.reason == "default: the first output")

        let missing = TouchscreenAssignment(device: "configured", vendor: 0, product: 0, calibration: .identity, rules: [rule], outputs: [outputs[0], outputs[1]])
        #expect(missing.output == "eDP-1" && missing.reason == "the built-in panel; the configured output DP-2 (line 4) does not exist")
    }
}
