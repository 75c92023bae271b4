import Testing
import TouchRouterCore
import TouchRouterDRM
import TouchRouterWayland

@Suite("--output on the drm backend: [NAME:]WxH[@Hz][,transform=T]")
struct DRMOutputRequestTests {
    @Test("A connector's name, or none for the Nth screen; the mode and transform as for headless")
    func parses() throws {
        let named = try DRMOutputRequest.parse(option: "HDMI-A-1:1280x800@75,transform=90")
        #expect(named.connector == "HDMI-A-1")
        #expect(named.mode.width == 1280 && named.mode.height == 800 && named.mode.refreshMilliHertz == 75_000 && named.mode.transform == .rotated90)
        let unnamed = try DRMOutputRequest.parse(option: "800x600")
        #expect(unnamed.connector == nil && unnamed.mode == OutputMode(width: 800, height: 600))
    }

    @Test("What is not a request is refused, naming what was expected", arguments: [
        (":800x600", "expected a connector name before ':'"),
        ("Virtual-1:800x", "expected WxH or WxH@Hz"),
        ("Virtual-1:800x600,rotate=90", "unknown setting 'rotate=90'"),
        ("\(String(repeating: "A", count: 40)):800x600", "expected a connector name before ':'"),
    ])
    func refuses(text: String, expected: String) {
        do {
            _ = try DRMOutputRequest.parse(option: text)
            Issue.record("\(text) was taken")
        } catch {
            #expect(error.description.contains(expected), "\(error)")
        }
    }
}
