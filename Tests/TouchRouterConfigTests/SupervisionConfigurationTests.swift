import TouchRouterConfig
import TouchRouterCore
import Testing

@Suite("[supervise]: the supervised app, its restarts and fallback, and hang detection")
struct SupervisionConfigurationTests {
    @Test("every key is read, seconds into nanoseconds; a string command runs through /bin/sh -c")
    func keys() throws {
        let configuration = try ServerConfiguration.parse("""
            [supervise]
            command = ["chromium", "--kiosk", "http://localhost"]
            restart = "on-failure"
            backoff-initial = 0.5
            backoff-max = 20
            reset-after = 30
            max-failures = 4
            window = 120
            fallback = "zenity --error --text 'Out of order'"
            hang-after = 8
            ping-every = 1.5
            on-hang = "kill"
            """, file: "kiosk.toml")
        let settings = try #require(configuration.supervise)
        #expect(settings.command == ["chromium", "--kiosk", "http://localhost"])
        #expect(settings.restart == .onFailure)
        #expect(settings.backoffInitial == 500_000_000 && settings.backoffMax == 20_000_000_000)
        #expect(settings.resetAfter == 30_000_000_000 && settings.window == 120_000_000_000 && settings.maxFailures == 4)
        #expect(settings.fallback == ["/bin/sh", "-c", "zenity --error --text 'Out of order'"])
        #expect(settings.hangAfter == 8_000_000_000 && settings.pingEvery == 1_500_000_000 && settings.onHang == .kill)
        #expect(try ServerConfiguration.parse("", file: "a.toml").supervise == nil)
        #expect(try ServerConfiguration.parse("[supervise]\nhang-after = 0\n", file: "a.toml").supervise?.hangAfter == nil, "0 turns pings off")
    }

    @Test("bad values name file:line:column and say what was expected", arguments: [
        ("[supervise]\nrestart = \"sometimes\"\n", "bad.toml:2:11: error: supervise.restart: expected always, on-failure or never, found \"sometimes\""),
        ("[supervise]\non-hang = \"panic\"\n", "bad.toml:2:11: error: supervise.on-hang: expected restart, kill or report, found \"panic\""),
        ("[supervise]\nbackoff-initial = -1\n", "bad.toml:2:19: error: supervise.backoff-initial: expected a number from 0 to 86400 s, found -1"),
        ("[supervise]\nmax-failures = 0\n", "bad.toml:2:16: error: supervise.max-failures: expected a whole number from 1 to 1000, found 0"),
        ("[supervise]\nbackoff-initial = 10\nbackoff-max = 5\n", "bad.toml:3:15: error: supervise.backoff-max: expected at least backoff-initial (10 s), found 5"),
        ("[supervise]\ncommand = []\n", "bad.toml:2:11: error: supervise.command: expected at least one string"),
        ("[supervise]\nrestarts = \"always\"\n", "bad.toml:2:1: error: unknown key 'restarts' in [supervise]: expected command, restart, backoff-initial, backoff-max, reset-after, max-failures, window, fallback, hang-after, ping-every or on-hang"),
    ])
    func errors(text: String, expected: String) {
        #expect(configurationError(text, file: "bad.toml") == expected)
    }
}
