import Testing
import TouchRouterConfig
import TouchRouterCore

@Suite("[[output]]: each output's mode and transform, by name")
struct OutputConfigurationTests {
    static let file = "outputs.toml"

    @Test("tables are read in order: a name, a mode with or without a refresh, a transform as a name or an angle")
    func reads() throws {
        let configuration = try ServerConfiguration.parse("""
            [[output]]
            name = "Virtual-1"
            mode = "1024x768@59.94"
            transform = "flipped-90"

            [[output]]
            name = "HDMI-A-1"
            transform = 270

            [[output]]
            name = "HEADLESS-2"
            mode = "800x600"
            transform = 0
            scale = 2
            frame-margin-ms = 2.5
            """, file: Self.file)
        #expect(configuration.outputs == [
            OutputRule(name: "Virtual-1", width: 1024, height: 768, refreshMilliHertz: 59_940, transform: .flipped90, position: SourcePosition(line: 1, column: 1)),
            OutputRule(name: "HDMI-A-1", transform: .rotated270, position: SourcePosition(line: 6, column: 1)),
            OutputRule(name: "HEADLESS-2", width: 800, height: 600, transform: .normal, scale: 2, frameMargin: 2_500_000, position: SourcePosition(line: 10, column: 1)),
        ])
        #expect(try ServerConfiguration.parse("", file: Self.file).outputs.isEmpty)
    }

    @Test("errors name file:line:column and what was expected", arguments: [
        ("[[output]]\nmode = \"800x600\"\n", "outputs.toml:1:1: error: [[output]] output[0]: missing key 'name'"),
        ("[[output]]\nname = \"A\"\nposition = [0, 0]\n", "outputs.toml:3:1: error: unknown key 'position' in [[output]] output[0]: expected name, mode, transform, scale or frame-margin-ms"),
        ("[[output]]\nname = \"A\"\nscale = 1.5\n", "outputs.toml:3:9: error: output[0].scale: expected a whole number from 1 to 4, found a float"),
        ("[[output]]\nname = \"A\"\nscale = 8\n", "outputs.toml:3:9: error: output[0].scale: expected a whole number from 1 to 4, found 8"),
        ("[[output]]\nname = \"A\"\nframe-margin-ms = 0\n", "outputs.toml:3:19: error: output[0].frame-margin-ms: expected a number from 0.1 to 1000 ms, found 0"),
        ("[[output]]\nname = \"A\"\nframe-margin-ms = \"auto\"\n", "outputs.toml:3:19: error: output[0].frame-margin-ms: expected a number from 0.1 to 1000 ms, found a string"),
        ("[[output]]\nname = \"A\"\nmode = \"800 by 600\"\n", "outputs.toml:3:8: error: output[0].mode: '800 by 600': expected WxH or WxH@Hz (1 to 16384 pixels, 1 to 1000 Hz)"),
        ("[[output]]\nname = \"A\"\nmode = \"0x600\"\n", "outputs.toml:3:8: error: output[0].mode: '0x600': expected WxH"),
        ("[[output]]\nname = \"A\"\nmode = \"800x600@0\"\n", "outputs.toml:3:8: error: output[0].mode: '800x600@0': expected WxH"),
        ("[[output]]\nname = \"A\"\ntransform = \"sideways\"\n", "outputs.toml:3:13: error: output[0].transform: 'sideways': expected one of normal, 90, 180, 270, flipped, flipped-90, flipped-180, flipped-270"),
        ("[[output]]\nname = \"A\"\ntransform = 45\n", "outputs.toml:3:13: error: output[0].transform: '45': expected one of normal"),
        ("[[output]]\nname = \"A\"\ntransform = true\n", "outputs.toml:3:13: error: output[0].transform: expected a string, found a boolean"),
        ("[[output]]\nname = \"A\"\n[[output]]\nname = \"A\"\n", "outputs.toml:4:8: error: output[1].name: \"A\" has a table already at line 1"),
        ("[output]\nname = \"A\"\n", "outputs.toml:1:1: error: output: expected an array of tables, [[output]], found a table"),
    ])
    func errors(text: String, expected: String) {
        let message = configurationError(text, file: Self.file)
        #expect(message.hasPrefix(expected), "\(message)")
    }
}
