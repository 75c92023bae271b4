import ArgumentParser
import Foundation
import TouchRouterCore
import TouchRouterWayland

struct ComposeBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compose",
        abstract: "Times the software composition of one output (pixman), as `msg screenshot` composes it.",
        discussion: """
            A WxH output (1920×1080 by default) with N windows of 640×480 ARGB (opaque pixels, \
            blended as ARGB is) at seeded random positions, partly off the output. Each run repaints \
            the whole framebuffer (the background, then every window bottom first), then only a \
            rectangle of 1% of it in its middle, as a damage-tracked composition does for a small \
            change. Prints the median and the fastest run in milliseconds.
            """)

    @Option(help: "Window counts, comma-separated.")
    var surfaces: String = "1,10,100"

    @Option(help: "The output's size.")
    var output: String = "1920x1080"

    @Option(help: "Timed runs for each count.")
    var runs: Int = 30

    @Option(help: "Seed of the windows' positions.")
    var seed: UInt64 = 1

    func run() throws {
        guard let mode = OutputMode(parsing: output) else { throw ValidationError("--output takes WxH, each 1 to 16384") }
        let counts = surfaces.split(separator: ",").compactMap { Int($0) }
        guard !counts.isEmpty, counts.allSatisfy({ $0 >= 0 && $0 <= 10_000 }) else { throw ValidationError("--surfaces takes counts of 0 to 10000, comma-separated") }
        guard runs >= 1 else { throw ValidationError("--runs takes 1 or more") }
        let framebuffer = Framebuffer(width: mode.width, height: mode.height)
        print("output \(framebuffer.width)x\(framebuffer.height), windows of 640x480, \(runs) runs")
        for count in counts {
            let layers = Self.windows(count, on: mode, seed: seed)
            // One untimed run: the first touches every page of the framebuffer.
            try SoftwareComposer.compose(layers, into: framebuffer)
            // 1% of the output's pixels, a tenth of each side, in its middle.
            let damage = PixelRect(x: framebuffer.width * 9 / 20, y: framebuffer.height * 9 / 20, width: framebuffer.width / 10, height: framebuffer.height / 10)
            for (name, area) in [("full repaint", nil), ("1% damage   ", [damage])] as [(String, [PixelRect]?)] {
                var times: [Double] = []
                for _ in 0..<runs {
                    let start = ContinuousClock.now
                    try SoftwareComposer.compose(layers, into: framebuffer, only: area)
                    let elapsed = ContinuousClock.now - start
                    times.append(Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15)
                }
                times.sort()
                let median = times[times.count / 2]
                print("  \(String(count).padding(toLength: 4, withPad: " ", startingAt: 0)) windows  \(name)  median \(String(format: "%.3f", median)) ms   fastest \(String(format: "%.3f", times[0])) ms")
            }
        }
        try scanoutCopies(framebuffer)
    }

    /// What the drm backend adds to each frame: the composed frame copied into the screen's
    /// buffer, straight or turned 90°, whole and for 1% of damage.
    func scanoutCopies(_ framebuffer: Framebuffer) throws {
        print("scanout copy of the \(framebuffer.width)x\(framebuffer.height) frame into a screen's buffer (the drm backend)")
        let damage = PixelRect(x: framebuffer.width * 9 / 20, y: framebuffer.height * 9 / 20, width: framebuffer.width / 10, height: framebuffer.height / 10)
        for transform in [OutputTransform.normal, .rotated90] {
            let panel = transform.layoutSize(of: Size(width: framebuffer.width, height: framebuffer.height))
            let stride = panel.width * 4
            let target = UnsafeMutableRawPointer.allocate(byteCount: stride * panel.height, alignment: 64)
            defer { target.deallocate() }
            framebuffer.copy(into: target, width: panel.width, height: panel.height, stride: stride, transform: transform, damage: nil)
            for (name, area) in [("whole", nil), ("1% damage", [damage])] as [(String, [PixelRect]?)] {
                let times = (0..<runs).map { _ in
                    measure { framebuffer.copy(into: target, width: panel.width, height: panel.height, stride: stride, transform: transform, damage: area) }
                }.sorted()
                print("  transform \(transform.name.padding(toLength: 6, withPad: " ", startingAt: 0)) \(name.padding(toLength: 9, withPad: " ", startingAt: 0))  median \(String(format: "%.3f", times[times.count / 2])) ms   fastest \(String(format: "%.3f", times[0])) ms")
            }
        }
    }

    func measure(_ body: () -> Void) -> Double {
        let start = ContinuousClock.now
        body()
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15
    }

    /// `count` windows, each its own colour, at positions from a small LCG.
    static func windows(_ count: Int, on mode: OutputMode, seed: UInt64) -> [CompositionLayer] {
        var state = seed &* 6364136223846793005 &+ 1442695040888963407
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(max(bound, 1)))
        }
        let (width, height) = (640, 480)
        return (0..<count).map { i in
            let colour = 0xff00_0000 | UInt32(truncatingIfNeeded: (i &* 0x3f_5a_91) & 0xff_ff_ff)
            return CompositionLayer(pixels: Array(repeating: colour, count: width * height), width: width, height: height,
                                    origin: Offset(dx: next(mode.width + width / 2) - width / 4, dy: next(mode.height + height / 2) - height / 4))
        }
    }
}
