import Testing
import TouchRouterConfig
import TouchRouterCore

@Suite("[[touchscreen]]: which output or region each touchscreen maps to, and its calibration")
struct TouchMappingConfigurationTests {
    static let file = "touch.toml"

    func error(_ text: String) -> String { configurationError(text, file: Self.file) }

    @Test("tables are read in order: a name or vendor:product, an output or a region, a calibration")
    func reads() throws {
        let configuration = try ServerConfiguration.parse("""
            [[touchscreen]]
            match = "ELAN Touchscreen"
            output = "HEADLESS-2"
            calibration = [0, -1, 1, 1, 0, 0]

            [[touchscreen]]
            match = "04f3:2A1b"
            region = [0, 0, 800, 600]
            """, file: Self.file)
        #expect(configuration.touchscreens == [
            TouchscreenRule(match: .name("ELAN Touchscreen"), target: .output("HEADLESS-2"), calibration: CalibrationMatrix(0, -1, 1, 1, 0, 0), position: SourcePosition(line: 1, column: 1)),
            TouchscreenRule(match: .vendorProduct(vendor: 0x04f3, product: 0x2a1b), target: .region(Rect(x: 0, y: 0, width: 800, height: 600)), position: SourcePosition(line: 6, column: 1)),
        ])
        #expect(TouchscreenMatch(parsing: "04f3:2a1b").description == "04f3:2a1b")
        #expect(TouchscreenMatch(parsing: "Goodix: capacitive") == .name("Goodix: capacitive"))
    }

    @Test("errors name file:line:column and what was expected", arguments: [
        ("[[touchscreen]]\nmatch = \"a\"\nrotate = 90\n", "touch.toml:3:1: error: unknown key 'rotate' in [[touchscreen]] touchscreen[0]: expected match, output, region or calibration"),
        ("[[touchscreen]]\noutput = \"HEADLESS-1\"\n", "touch.toml:1:1: error: [[touchscreen]] touchscreen[0]: missing key 'match'"),
        ("[[touchscreen]]\nmatch = \"a\"\noutput = \"HEADLESS-1\"\nregion = [0, 0, 10, 10]\n", "touch.toml:4:1: error: [[touchscreen]] touchscreen[0]: 'output' and 'region' cannot both be given"),
        ("[[touchscreen]]\nmatch = \"a\"\nregion = [0, 0, 10]\n", "touch.toml:3:10: error: touchscreen[0].region: expected [x, y, width, height]"),
        ("[[touchscreen]]\nmatch = \"a\"\nregion = [0, 0, 0, 10]\n", "touch.toml:3:17: error: touchscreen[0].region[2]: expected [x, y, width, height]"),
        ("[[touchscreen]]\nmatch = \"a\"\ncalibration = [1, 0, 0, 0, \"1\", 0]\n", "touch.toml:3:28: error: touchscreen[0].calibration[4]: expected six numbers"),
        ("[[touchscreen]]\nmatch = \"a\"\ncalibration = [1, 0, 0]\n", "touch.toml:3:15: error: touchscreen[0].calibration: expected six numbers [a, b, c, d, e, f] as libinput's calibration matrix takes them, each from -1000 to 1000, found an array of 3"),
        ("[[touchscreen]]\nmatch = \"a\"\ncalibration = [1, 1, 0, 1, 1, 0]\n", "touch.toml:3:15: error: touchscreen[0].calibration: the matrix is singular"),
        ("[[touchscreen]]\nmatch = \"a\"\ncalibration = [1, 0, 0, 0, 1, 1e9]\n", "touch.toml:3:31: error: touchscreen[0].calibration[5]: expected six numbers"),
        ("[[touchscreen]]\nmatch = \"a\"\n[[touchscreen]]\nmatch = \"a\"\n", "touch.toml:4:9: error: touchscreen[1].match: \"a\" is matched already at line 1"),
        ("[[touchscreen]]\nmatch = 5\n", "touch.toml:2:9: error: touchscreen[0].match: expected a string, found an integer"),
        ("[touchscreen]\nmatch = \"a\"\n", "touch.toml:1:1: error: touchscreen: expected an array of tables, [[touchscreen]], found a table"),
    ])
    func errors(text: String, expected: String) {
        let message = error(text)
        #expect(message.hasPrefix(expected), "\(message)")
    }

    static let outputs: [(name: String, rect: Rect<GlobalSpace>, transform: OutputTransform)] = [
        ("HEADLESS-1", Rect(x: 0, y: 0, width: 1280, height: 800), .normal),
        ("HEADLESS-2", Rect(x: 1280, y: 0, width: 600, height: 800), .rotated90),
    ]

    @Test("the first matching table chooses; without one, the first output; the table's calibration replaces the device's")
    func assignment() {
        let rules = [
            TouchscreenRule(match: .name("panel"), target: .output("HEADLESS-2"), position: SourcePosition(line: 3, column: 1)),
            TouchscreenRule(match: .vendorProduct(vendor: 1, product: 2), target: .region(Rect(x: 10, y: 20, width: 30, height: 40)), calibration: CalibrationMatrix(0.5, 0, 0, 0, 0.5, 0), position: SourcePosition(line: 7, column: 1)),
            TouchscreenRule(match: .name("gone"), target: .output("HDMI-A-1"), position: SourcePosition(line: 11, column: 1)),
        ]
        let own = CalibrationMatrix(1, 0, 0.1, 0, 1, 0)
        let panel = TouchscreenAssignment(device: "panel", vendor: 9, product: 9, calibration: own, rules: rules, outputs: Self.outputs)
        #expect(panel.mapping == TouchMapping(area: Self.outputs[1].rect, transform: .rotated90, calibration: own))
        #expect(panel.output == "HEADLESS-2" && panel.reason == "configuration, line 3" && panel.calibrationSource == "device")

        let byIDs = TouchscreenAssignment(device: "other", vendor: 1, product: 2, calibration: own, rules: rules, outputs: Self.outputs)
        #expect(byIDs.mapping == TouchMapping(area: Rect(x: 10, y: 20, width: 30, height: 40), calibration: CalibrationMatrix(0.5, 0, 0, 0, 0.5, 0)))
        #expect(byIDs.output == nil && byIDs.calibrationSource == "configuration")

        let unmatched = TouchscreenAssignment(device: "stranger", vendor: 0, product: 0, calibration: .identity, rules: rules, outputs: Self.outputs)
        #expect(unmatched.mapping == TouchMapping(area: Self.outputs[0].rect))
        #expect(unmatched.reason == "default: the first output" && unmatched.calibrationSource == "identity")

        let missing = TouchscreenAssignment(device: "gone", vendor: 0, product: 0, calibration: .identity, rules: rules, outputs: Self.outputs)
        #expect(missing.output == "HEADLESS-1")
        #expect(missing.reason.contains("HDMI-A-1 (line 11) does not exist"))
    }
}
