import Foundation
import Testing
import TouchRouterConfig
import TouchRouterCore
import TouchRouterProtocols
import TouchRouterWayland

/// A quiet screen looks only four times a second (OutputFrames.swift): whatever may change its
/// picture must wake it. Random request sequences, on an output with a screen that goes quiet
/// after one deadline with nothing new, check after every step that a quiet screen shows
/// what composing now gives. The cursor hides 60 ms after the pointer's last motion, so that
/// the session's tick changes the picture too, and every tenth step the idle timer's dimming
/// comes or goes.
@Suite("Random protocol sequences on a screen: a quiet screen always shows what composing the output now would")
struct QuietScreenPropertyTests {
    /// A screen that shows every frame at once and keeps a copy of the last.
    final class KeepingScreen: OutputPresenter {
        var shown: [UInt32]?
        var frames = 0
        var readyForFrame: Bool { true }
        func present(_ framebuffer: Framebuffer, damage: [PixelRect]?) -> Bool {
            shown = framebuffer.pixels
            frames += 1
            onShown?(nil)
            return true
        }
        var onShown: ((RouterTime?) -> Void)?
    }

    static let steps = 150

    @Test("after each step of a seeded random sequence, and again once the screen has gone quiet, a quiet screen shows what composing the output now gives",
          arguments: [11, 12, 13] as [UInt64])
    func quietScreenIsCurrent(seed: UInt64) throws {
        let run = try RandomRun(seed: seed)
        defer { run.fixture.end() }
        let server = run.fixture.server
        let output = try #require(server.outputs.first)
        let screen = KeepingScreen()
        try server.setPresenter(screen, forOutput: output.name)
        let clock = try #require(server.protocols.output.frameClocks[output.id])
        clock.quietAfter = 1
        try server.shell.apply(try ServerConfiguration.parse("[cursor]\nhide-after-ms = 60\n", file: "cursor.toml"))
        var checked = 0

        /// What a quiet screen shows that composing now would not: the pixels that differ.
        func stale() throws -> String? {
            guard clock.quiet, server.protocols.output.power[output.id] != .off, let shown = screen.shown else { return nil }
            checked += 1
            let job = try server.screenshotJob(output: output.name)
            let now = try job.compose().pixels
            guard now != shown else { return nil }
            let differing = zip(now, shown).enumerated().filter { $0.element.0 != $0.element.1 }
            let first = differing.first.map { "(\($0.offset % job.width), \($0.offset / job.width)): shown \(String($0.element.1, radix: 16)), now \(String($0.element.0, radix: 16))" } ?? "sizes differ"
            return "the quiet screen shows \(differing.count) pixels that are not the picture now, first at \(first)"
        }

        for step in 0..<Self.steps {
            var done = try run.step()
            if step % 10 == 5 {
                let dim = server.protocols.output.power[output.id] != .dimmed
                server.powerOutputs([output.id], to: dim ? .dimmed : .on, blanking: .black)
                done += dim ? ", dimmed" : ", lit"
            }
            if let problem = try stale() {
                Issue.record("seed \(seed), step \(step) (\(done)), right after it: \(problem)\nlast steps: \(run.log.suffix(8).joined(separator: " | "))")
                return
            }
            // Until the cursor has hidden too (60 ms after a motion), so that its hiding is checked.
            SessionTickTests.serve(run.fixture, for: 0.3) { clock.quiet && !server.cursor.visible }
            if let problem = try stale() {
                Issue.record("seed \(seed), step \(step) (\(done)), once quiet again: \(problem)\nlast steps: \(run.log.suffix(8).joined(separator: " | "))")
                return
            }
        }
        #expect(screen.frames > 10, "the steps changed the picture: \(screen.frames) frames shown")
        #expect(checked >= Self.steps, "the screen was quiet at \(checked) checks in \(Self.steps) steps")
    }
}
