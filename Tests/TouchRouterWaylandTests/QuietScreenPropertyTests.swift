import Foundation
import Testing
import TouchRouterConfig
import TouchRouterCore
import TouchRouterProtocols
import TouchRouterWayland

/// A quiet screen looks only four times a second (OutputFrames.swift): whatever may change its
/// picture must wake it. Random request sequences, on an output with a screen that goes quiet
/// after one deadline with nothing new, check after every step that a quiet screen shows
/// what composing now gives. The cursor hides 150 ms after the pointer's last motion, so that
/// the session's tick changes the picture too. Between steps come what no client request
/// does (`ScreenEvents`): dimming, the screen off and on, a mode change, a VT switch, the
/// lock, a drag with an icon, the pointer moving over a quiet screen with the cursor shown.
@Suite("Random protocol sequences on a screen: a quiet screen always shows what composing the output now would")
struct QuietScreenPropertyTests {
    /// A screen that keeps what it was shown, as one scanout buffer would: a frame's damage is
    /// copied onto the picture it had, the rest stays, so a frame whose damage leaves out a
    /// change shows stale pixels. Off, or away on another VT, it takes no frame and shows
    /// something else. Simpler than the drm backend's: one buffer, and each frame shown as it
    /// is given, with no flip on its way.
    final class KeepingScreen: OutputPresenter {
        private(set) var shown: [UInt32]?
        private(set) var width = 0
        private(set) var height = 0
        var frames = 0
        /// Frames given partial damage where the screen had no picture of their size to keep,
        /// or damage wholly outside them.
        private(set) var problems: [String] = []
        private var powered = true
        /// On another VT (the seat gone): the session's picture is not what it shows.
        var away = false {
            didSet { if away { shown = shown.map { Array(repeating: 0xFF80_0080, count: $0.count) } } }
        }
        var readyForFrame: Bool { powered && !away }

        func present(_ framebuffer: Framebuffer, damage: [PixelRect]?) -> Bool {
            frames += 1
            if let damage, var kept = shown, width == framebuffer.width, height == framebuffer.height {
                for rect in damage {
                    let (left, right) = (max(rect.x, 0), min(rect.x + rect.width, width))
                    let (top, bottom) = (max(rect.y, 0), min(rect.y + rect.height, height))
                    guard left < right, top < bottom else {
                        if rect.width > 0, rect.height > 0 { problems.append("frame \(frames) of \(width)x\(height) came with damage \(rect) outside it") }
                        continue
                    }
                    for y in top..<bottom {
                        kept.replaceSubrange(y * width + left..<y * width + right, with: framebuffer.pixels[y * width + left..<y * width + right])
                    }
                }
                shown = kept
            } else {
                if damage != nil { problems.append("frame \(frames) of \(framebuffer.width)x\(framebuffer.height) came with partial damage onto a picture of \(width)x\(height)") }
                shown = framebuffer.pixels
            }
            (width, height) = (framebuffer.width, framebuffer.height)
            onShown?(nil)
            return true
        }

        func setPowered(_ powered: Bool) throws {
            self.powered = powered
            if !powered { shown = shown.map { Array(repeating: 0, count: $0.count) } }
        }
        var onShown: ((RouterTime?) -> Void)?
    }

    static let steps = 150

    @Test("after each step of a seeded random sequence and each screen event, and again once the screen has gone quiet, a quiet screen shows what composing the output now gives",
          arguments: [11, 12, 13] as [UInt64])
    func quietScreenIsCurrent(seed: UInt64) throws {
        let run = try RandomRun(seed: seed, grants: [.sessionLock])
        defer { run.fixture.end() }
        let server = run.fixture.server
        let output = try #require(server.outputs.first)
        let screen = KeepingScreen()
        try server.setPresenter(screen, forOutput: output.name)
        let clock = try #require(server.protocols.output.frameClocks[output.id])
        clock.quietAfter = 1
        try server.shell.apply(try ServerConfiguration.parse("[cursor]\nhide-after-ms = 150\n", file: "cursor.toml"))
        let events = try ScreenEvents(run, output: output, screen: screen, seed: seed)
        var checked = 0

        /// What a quiet screen shows that composing now would not: the pixels that differ.
        func stale() throws -> String? {
            if let problem = screen.problems.first { return problem }
            guard clock.quiet, server.protocols.output.power[output.id] != .off, !screen.away, let shown = screen.shown else { return nil }
            checked += 1
            let job = try server.screenshotJob(output: output.name)
            let now = try job.compose().pixels
            guard now != shown else { return nil }
            guard now.count == shown.count else { return "the quiet screen shows \(screen.width)x\(screen.height), the output is \(job.width)x\(job.height)" }
            let differing = zip(now, shown).enumerated().filter { $0.element.0 != $0.element.1 }
            let first = differing.first.map { "(\($0.offset % job.width), \($0.offset / job.width)): shown \(String($0.element.1, radix: 16)), now \(String($0.element.0, radix: 16))" } ?? "sizes differ"
            return "the quiet screen shows \(differing.count) pixels that are not the picture now, first at \(first)"
        }
        /// Checks right after what was done, and again once the screen is quiet with the
        /// cursor hidden (150 ms after a motion), so that its hiding is checked too.
        func check(_ step: Int, _ done: String) throws -> Bool {
            if let problem = try stale() {
                Issue.record("seed \(seed), step \(step) (\(done)), right after it: \(problem)\nlast steps: \(run.log.suffix(8).joined(separator: " | "))")
                return false
            }
            SessionTickTests.serve(run.fixture, for: 2) { (clock.quiet || screen.away) && !server.cursor.visible }
            guard (clock.quiet || screen.away) && !server.cursor.visible else {
                Issue.record("seed \(seed), step \(step) (\(done)): in 2 s the screen did not go quiet with the cursor hidden (quiet \(clock.quiet), cursor shown \(server.cursor.visible))")
                return false
            }
            if let problem = try stale() {
                Issue.record("seed \(seed), step \(step) (\(done)), once quiet again: \(problem)\nlast steps: \(run.log.suffix(8).joined(separator: " | "))")
                return false
            }
            return true
        }

        for step in 0..<Self.steps {
            guard try check(step, try run.step()) else { return }
            guard step % 3 == 1 else { continue }
            let wentOn = try events.next { part in
                run.log.append(part)
                return try check(step, part)
            }
            guard wentOn else { return }
        }
        #expect(screen.frames > 10, "the steps changed the picture: \(screen.frames) frames shown")
        #expect(checked >= Self.steps, "the screen was quiet at \(checked) checks in \(Self.steps) steps")
        #expect(Set(events.done).count == ScreenEvents.Kind.allCases.count, "every kind of screen event did what it is for at least once: \(events.done)")
    }
}
