import Testing
import TouchRouterCore

@Suite("Cursor visibility: shown by the pointer, hidden by touch and by idleness")
struct CursorVisibilityTests {
    static func ms(_ value: Double) -> RouterTime { .milliseconds(value) }
    static let device = DeviceID(7)

    @Test("Hidden until the pointer moves; a touch hides it; idleness hides it at the deadline, not before")
    func lifecycle() {
        var cursor = CursorVisibility(hideAfter: 1_000_000_000)
        #expect(!cursor.visible)
        cursor.observe(.key(device: Self.device, time: Self.ms(0), key: 30, state: .pressed), at: Self.ms(0))
        #expect(!cursor.visible, "a key press shows no cursor")
        cursor.observe(.pointerMotion(device: Self.device, time: Self.ms(10), dx: 1, dy: 0), at: Self.ms(10))
        #expect(cursor.visible)
        #expect(cursor.deadline == Self.ms(1010))
        cursor.advanceTime(to: Self.ms(1009))
        #expect(cursor.visible)
        cursor.observe(.pointerButton(device: Self.device, time: Self.ms(500), button: 272, state: .pressed), at: Self.ms(500))
        cursor.advanceTime(to: Self.ms(1010))
        #expect(cursor.visible, "a click counts as activity and moves the deadline")
        cursor.advanceTime(to: Self.ms(1500))
        #expect(!cursor.visible)
        #expect(cursor.deadline == nil)
        cursor.observe(.pointerMotionAbsolute(device: Self.device, time: Self.ms(2000), position: Point(5, 5)), at: Self.ms(2000))
        #expect(cursor.visible)
        cursor.observe(.touchDown(device: Self.device, time: Self.ms(2001), id: TouchID(0), position: Point(5, 5)), at: Self.ms(2001))
        #expect(!cursor.visible, "a touch hides it at once")
    }

    @Test("Never hides by idleness without a limit; a limit near Int64's end does not trap")
    func limits() {
        var never = CursorVisibility(hideAfter: nil)
        never.observe(.pointerMotion(device: Self.device, time: .zero, dx: 1, dy: 1), at: .zero)
        never.advanceTime(to: RouterTime(nanoseconds: .max))
        #expect(never.visible)
        var huge = CursorVisibility(hideAfter: .max)
        huge.observe(.pointerMotion(device: Self.device, time: Self.ms(5), dx: 1, dy: 1), at: Self.ms(5))
        #expect(huge.deadline == RouterTime(nanoseconds: .max))
    }
}
