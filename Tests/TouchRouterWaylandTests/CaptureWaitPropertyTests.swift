import Foundation
import Testing
import TouchRouterCore
import TouchRouterProtocols
import TouchRouterWayland

/// A screencopy frame that waits for damage is looked at only when the picture may have
/// changed, and otherwise four times a second (SessionTick.swift): whatever changes the
/// picture must arm the session's tick for the next frame. Random request sequences, with a
/// capturer always holding a copy_with_damage frame (as wayvnc does between changes), check
/// after every step that a picture that differs from the last copy has the tick armed for
/// the next frame, or the frame copied already. Every third step is followed by dimming, the
/// lock or a drag with an icon (`ScreenEvents`), checked after each of its parts.
@Suite("Random protocol sequences under screen capture: a change to the picture always reaches a copy_with_damage frame at the next frame")
struct CaptureWaitPropertyTests {
    static let steps = 150

    @Test("after each step of a seeded random sequence and each part of a screen event, a picture that is not the last copy's has the session's tick armed for the next frame; each copy found between steps is the picture composed afresh",
          arguments: [21, 22, 23] as [UInt64])
    func changeReachesWaitingCapture(seed: UInt64) throws {
        let run = try RandomRun(seed: seed, grants: [.screenCapture, .sessionLock])
        defer { run.fixture.end() }
        let fixture = run.fixture, server = fixture.server
        let tick = try #require(server.sessionTick)
        let capturer = try fixture.connect("capturer")
        let events = try ScreenEvents(run, output: try #require(server.outputs.first), screen: nil, kinds: [.dim, .lock, .drag], seed: seed)
        var copies = 0, looksAwaited = 0

        /// The output's picture composed afresh.
        func picture() throws -> [UInt32] { try server.screenshotJob().compose().pixels }
        /// The pixels in which two pictures differ, the pad byte left out.
        func differing(_ a: [UInt32], _ b: [UInt32]) -> Int {
            guard a.count == b.count else { return max(a.count, b.count) }
            return a.withUnsafeBufferPointer { a in
                b.withUnsafeBufferPointer { b in
                    var count = 0
                    for i in 0..<a.count where (a[i] ^ b[i]) & 0xFF_FFFF != 0 { count += 1 }
                    return count
                }
            }
        }
        func ended(_ frame: Proxy) -> String? {
            capturer.events(of: frame).last { $0.name == "ready" || $0.name == "failed" }?.name
        }
        /// The next frame, as wayvnc asks it once the last is copied.
        func askAgain() throws -> (frame: Proxy, pixels: UnsafeMutablePointer<UInt32>, width: Int, height: Int) {
            try ScreencopyProtocolTests.capture(capturer, withDamage: true, overlayCursor: true, fixture)
        }

        // The first copy_with_damage of a capturer has everything to copy.
        var waiting = try askAgain()
        ScreencopyProtocolTests.serveUntilEnded(fixture, capturer, waiting.frame)
        /// What the capturer read from the frame that ended.
        func copy() -> [UInt32] { Array(UnsafeBufferPointer(start: waiting.pixels, count: waiting.width * waiting.height)) }
        var copied: [UInt32] = []
        for step in 0...Self.steps {
            if let end = ended(waiting.frame) {
                guard end == "ready" else {
                    Issue.record("seed \(seed), step \(step): the capture failed\nlast steps: \(run.log.suffix(8).joined(separator: " | "))")
                    return
                }
                copies += 1
                copied = copy()
                // The copy is made at a tick and this follows its round: nothing changed between.
                let pixels = differing(copied, try picture())
                if pixels > 0 {
                    Issue.record("seed \(seed), step \(step): the copy differs from the picture in \(pixels) pixels\nlast steps: \(run.log.suffix(8).joined(separator: " | "))")
                    return
                }
                waiting = try askAgain()
            }
            guard step < Self.steps else { break }
            /// A picture that is not the last copy's has the tick armed, or the frame copied.
            func armed(_ done: String) throws -> Bool {
                guard ended(waiting.frame) == nil, differing(try picture(), copied) > 0 else { return true }
                looksAwaited += 1
                guard tick.arming == .frame else {
                    Issue.record("seed \(seed), step \(step) (\(done)): the picture changed since the last copy, and the tick is \(tick.arming), not armed for the next frame\nlast steps: \(run.log.suffix(8).joined(separator: " | "))")
                    return false
                }
                return true
            }
            guard try armed(try run.step()) else { return }
            if step % 3 == 1 {
                let wentOn = try events.next { part in
                    run.log.append(part)
                    guard try armed(part) else { return false }
                    // A copy made within the part (the lock is served until it is locked) is
                    // taken as it is, since later rounds of the part may have changed the
                    // picture, and asked again; the new frame arms the tick by itself, so the
                    // check after the next part means something only once that tick has run.
                    for _ in 0..<5 where ended(waiting.frame) == "ready" {
                        copied = copy()
                        waiting = try askAgain()
                        SessionTickTests.serve(fixture, for: 2) { ended(waiting.frame) != nil || tick.arming != .frame }
                        guard ended(waiting.frame) != nil || tick.arming != .frame else {
                            Issue.record("seed \(seed), step \(step) (\(part)): in 2 s the tick a new capture frame armed did not run")
                            return false
                        }
                    }
                    return true
                }
                guard wentOn else { return }
            }
            // Two frames: a copy not made by then is still waiting at the next step's check.
            SessionTickTests.serve(fixture, for: 0.035) { ended(waiting.frame) != nil }
        }
        #expect(copies > 20, "the steps changed the picture: \(copies) copies")
        #expect(looksAwaited > 20, "changes found the capture waiting: \(looksAwaited)")
        #expect(Set(events.done) == [.dim, .lock, .drag], "every kind of screen event did what it is for at least once: \(events.done)")
    }
}
