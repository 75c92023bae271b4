import Testing
import TouchRouterCore
import TouchRouterReplay

@Suite("Input scripts and the event syntax")
struct ScriptTests {
    @Test("times are absolute or relative milliseconds; comments and blank lines are skipped")
    func times() throws {
        let script = try Script.parse("# start\n0 touch down 0 1 2\n\n+16 touch frame # frame\n40ms touch up 0\n", file: "t.script")
        #expect(script.lines.map(\.time) == [.zero, .milliseconds(16), .milliseconds(40)])
        #expect(script.lines.map(\.location.line) == [2, 4, 5])
    }

    @Test("every event reads back as it prints", arguments: [
        "touch down 3 100.5 200", "touch motion 3 -4 7.25", "touch up 3", "touch cancel 3", "touch frame",
        "key press KEY_A", "key release KEY_LEFTSHIFT", "key press 767",
        "pointer motion 300 40", "pointer relative -3 4", "pointer button press BTN_LEFT", "pointer button release BTN_RIGHT",
        "pointer axis vertical 15 discrete 1 source wheel", "pointer axis horizontal -2.5 source finger",
        "swipe begin 3", "swipe update 4 -2", "swipe end cancelled", "pinch begin 2", "pinch update 1 1 1.5 10", "pinch end",
        "hold begin 3", "hold end", "switch tablet-mode on", "switch lid off",
        "device add 4 pointer,touch", "device add 5 none", "device remove 4",
    ])
    func roundTrip(_ text: String) throws {
        let event = try EventSyntax.parse(text.split(separator: " "), time: .zero)
        #expect(EventSyntax.format(event) == text)
    }

    @Test("mistakes name the file, line, column and what was expected", arguments: [
        ("0 touch down 0 100\n", "t.script:1:19", "expected y after"),
        ("0 touch down zero 1 2\n", "t.script:1:14", "expected a whole number from 0"),
        ("0 touch dwn 0 1 2\n", "t.script:1:9", "expected down, motion, up, cancel or frame, found \"dwn\""),
        ("0 key press KEY_NOPE\n", "t.script:1:13", "expected an evdev name such as KEY_A"),
        ("0 tuch down 0 1 2\n", "t.script:1:3", "expected touch, key, pointer"),
        ("soon touch frame\n", "t.script:1:1", "expected a time in milliseconds"),
        ("10 touch frame\n5 touch frame\n", "t.script:2:1", "goes back before the previous line"),
        ("0 touch up 0 extra\n", "t.script:1:14", "expected the end of the event"),
        ("0 scene set app opacity 3\n", "t.script:1:25", "expected an opacity from 0 to 1"),
        ("0 scene region app 1 2 3\n", "t.script:1:25", "expected none or groups of four numbers"),
        ("0\n", "t.script:1:2", "expected an event or an action"),
        // Found by the libFuzzer target FuzzControlRequest: it read as no capabilities and printed as nothing.
        ("0 device add 6 ,\n", "t.script:1:16", "expected keyboard, pointer, touch, gesture or switch, separated by commas, or none"),
        ("0 device add 6 touch,,pointer\n", "t.script:1:16", "separated by commas, or none"),
    ])
    func mistakes(_ text: String, _ location: String, _ message: String) {
        do {
            _ = try Script.parse(text, file: "t.script")
            Issue.record("no error for \(text)")
        } catch {
            #expect(error.location.description == location)
            #expect(error.message.contains(message), "\(error)")
        }
    }
}
