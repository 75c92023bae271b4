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

    @Test("frame-margin takes milliseconds or measured, alone or beside the mode")
    func frameMargin() throws {
        guard case .setOutput(_, let fixed) = try ControlRequest.parse("output set A frame-margin 2.5"),
              case .setOutput(_, let measured) = try ControlRequest.parse("output set A scale 2 frame-margin measured") else {
            Issue.record("not an output set")
            return
        }
        #expect(fixed == OutputChange(frameMargin: .fixed(nanoseconds: 2_500_000)))
        #expect(!fixed.changesMode)
        #expect(measured == OutputChange(scale: 2, frameMargin: .measured))
        #expect(measured.changesMode)
    }

    @Test("what is wrong is named", arguments: [
        ("output set", "output: expected 'create WxH[@Hz][,transform=T]', 'remove NAME' or 'set NAME [mode WxH[@Hz]] [transform"),
        ("output set A", "output set: nothing to set: expected set NAME"),
        ("output set A mode", "output set: 'mode' has no value"),
        ("output set A mode 800x", "output set: mode '800x': expected WxH or WxH@Hz"),
        ("output set A transform 45", "output set: transform '45': expected one of normal, 90"),
        ("output set A rotate 2", "output set: unknown setting 'rotate': expected mode, transform, scale or frame-margin"),
        ("output set A frame-margin 0", "output set: frame-margin '0': expected milliseconds from 0.1 to 1000, or measured"),
        ("output set A frame-margin nan", "output set: frame-margin 'nan': expected milliseconds from 0.1 to 1000, or measured"),
        ("output set A frame-margin 1001", "output set: frame-margin '1001': expected milliseconds from 0.1 to 1000, or measured"),
        ("output set A frame-margin 2 frame-margin 3", "output set: frame-margin is given twice"),
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
