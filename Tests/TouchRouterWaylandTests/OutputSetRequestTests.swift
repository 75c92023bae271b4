import Testing
import TouchRouterCore
import TouchRouterWayland

@Suite("output set requests, read by ControlRequest.parse")
struct OutputSetRequestTests {
    @Test("a name, then mode and transform in any order")
    func reads() throws {
        guard case .setOutput(let name, let change) = try ControlRequest.parse("output set Virtual-1 transform 90 mode 1024x768@75") else {
            Issue.record("not an output set")
            return
        }
        #expect(name == "Virtual-1")
        guard case .setOutput(_, let scaled) = try ControlRequest.parse("output set A scale 2") else {
            Issue.record("not an output set")
            return
        }
        #expect(scaled == OutputChange(scale: 2))
        #expect(change == OutputChange(mode: ModeText("1024x768@75"), transform: .rotated90))
        #expect(change.applied(to: OutputMode(width: 800, height: 600)) == {
            var mode = OutputMode(width: 1024, height: 768, refreshMilliHertz: 75_000)
            mode.transform = .rotated90
            return mode
        }())
        let keepsRefresh = OutputChange(mode: ModeText("800x600")).applied(to: OutputMode(width: 800, height: 600, refreshMilliHertz: 75_000))
        #expect(keepsRefresh.refreshMilliHertz == 75_000, "the same size without a refresh keeps the refresh")
    }

    @Test("what is wrong is named", arguments: [
        ("output set", "output: expected 'create WxH[@Hz][,transform=T]', 'remove NAME' or 'set NAME [mode WxH[@Hz]] [transform"),
        ("output set A", "output set: nothing to set: expected set NAME"),
        ("output set A mode", "output set: 'mode' has no value"),
        ("output set A mode 800x", "output set: mode '800x': expected WxH or WxH@Hz"),
        ("output set A transform 45", "output set: transform '45': expected one of normal, 90"),
        ("output set A rotate 2", "output set: unknown setting 'rotate': expected mode, transform or scale"),
        ("output set A scale 5", "output set: scale '5': expected a whole number from 1 to 4"),
        ("output set A scale 1.5", "output set: scale '1.5': expected a whole number from 1 to 4"),
        ("output set A transform 90 transform 180", "output set: transform is given twice"),
    ])
    func errors(line: String, expected: String) {
        do {
            _ = try ControlRequest.parse(line)
            Issue.record("\(line) was read")
        } catch {
            #expect(error.description.hasPrefix(expected), "\(error)")
        }
    }
}
