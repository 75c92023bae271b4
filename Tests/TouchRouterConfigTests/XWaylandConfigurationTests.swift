import Testing
import TouchRouterConfig

@Suite("[xwayland]: enable = true, false or \"lazy\"")
struct XWaylandConfigurationTests {
    @Test("each value, and the default without the table or the key")
    func values() throws {
        #expect(try ServerConfiguration.parse("", file: "a.toml").xwayland == .off)
        #expect(try ServerConfiguration.parse("[xwayland]\n", file: "a.toml").xwayland == .off)
        #expect(try ServerConfiguration.parse("[xwayland]\nenable = true\n", file: "a.toml").xwayland == .on)
        #expect(try ServerConfiguration.parse("[xwayland]\nenable = false\n", file: "a.toml").xwayland == .off)
        #expect(try ServerConfiguration.parse("[xwayland]\nenable = \"lazy\"\n", file: "a.toml").xwayland == .lazy)
    }

    @Test("bad values name file:line:column and say what was expected", arguments: [
        ("[xwayland]\nenable = \"sometimes\"\n", "bad.toml:2:10: error: xwayland.enable: expected true, false or \"lazy\", found \"sometimes\""),
        ("[xwayland]\nenable = 1\n", "bad.toml:2:10: error: xwayland.enable: expected true, false or \"lazy\", found an integer"),
        ("[xwayland]\nenabled = true\n", "bad.toml:2:1: error: unknown key 'enabled' in [xwayland]: expected enable"),
    ])
    func errors(text: String, expected: String) {
        #expect(configurationError(text, file: "bad.toml") == expected)
    }
}
