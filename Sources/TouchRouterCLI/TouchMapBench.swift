import ArgumentParser
import TouchRouterCore

struct TouchMapBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "touch-map",
        abstract: "Times mapping one touch point from a touchscreen onto the layout.",
        discussion: """
            Each normalized device position goes through a calibration matrix (a small tilt and \
            offset), the output's transform (90°) and onto its rectangle, as every touch down and \
            motion from libinput does. Prints nanoseconds per point, median and fastest of the runs.
            """)

    @Option(help: "Points mapped in each timed run.")
    var points: Int = 1_000_000

    @Option(help: "Timed runs.")
    var runs: Int = 15

    func run() throws {
        guard points >= 1, points <= 100_000_000, runs >= 1, runs <= 1000 else { throw ValidationError("--points takes 1 to 100000000 and --runs 1 to 1000") }
        let mapping = TouchMapping(area: Rect(x: 1920, y: 0, width: 1080, height: 1920), transform: .rotated90,
                                   calibration: CalibrationMatrix(1.02, 0.01, -0.01, -0.01, 0.98, 0.02))
        // Positions from a small LCG, made before timing; the sum keeps the work from being optimized away.
        var state: UInt64 = 1
        let positions = (0..<4096).map { _ -> (Double, Double) in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return (Double(state >> 40) / Double(1 << 24), Double((state >> 16) & 0xff_ffff) / Double(1 << 24))
        }
        var sink = 0.0
        var times: [Double] = []
        for _ in 0..<runs {
            let start = ContinuousClock.now
            for i in 0..<points {
                let (u, v) = positions[i & 4095]
                let point = mapping.map(u, v)
                sink += point.x + point.y
            }
            let elapsed = ContinuousClock.now - start
            times.append((Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9) / Double(points))
        }
        times.sort()
        print("touch mapping (calibration, 90° transform, output rectangle): median \(String(format: "%.2f", times[times.count / 2])) ns per point, fastest \(String(format: "%.2f", times[0])) ns  (checksum \(Int(sink) % 1000))")
    }
}
