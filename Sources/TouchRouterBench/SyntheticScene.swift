import TouchRouterCore

/// SplitMix64: small, fast and the same on every machine, so a seed names one scene.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The benchmark's synthetic desktop: 400×300 windows at uniformly random positions on
/// one 3840×2160 output, each carrying three subsurfaces at window-relative
/// (0,0) 400×32, (40,60) 240×180 and (260,200) 160×120. The subsurfaces are the leaves,
/// so N leaves means ⌈N/3⌉ windows.
public enum SyntheticScene {
    public static let outputSize = Size(width: 3840, height: 2160)
    public static let windowSize = Size(width: 400, height: 300)
    public static let subsurfaces: [Rect<SurfaceSpace>] = [
        Rect(x: 0, y: 0, width: 400, height: 32),
        Rect(x: 40, y: 60, width: 240, height: 180),
        Rect(x: 260, y: 200, width: 160, height: 120),
    ]

    public static func windowCount(leaves: Int) -> Int { (leaves + subsurfaces.count - 1) / subsurfaces.count }

    /// A random window position that keeps the window on the output.
    public static func randomPosition(using generator: inout SeededGenerator) -> Offset {
        Offset(dx: Int.random(in: 0...(outputSize.width - windowSize.width), using: &generator),
               dy: Int.random(in: 0...(outputSize.height - windowSize.height), using: &generator))
    }

    /// Builds the scene; toplevel ids are 1, 5, 9, … with their subsurfaces following.
    public static func build(leaves: Int, seed: UInt64, cellShift: Int = HitTestIndex.defaultCellShift) -> (tree: SurfaceTree, toplevels: [SurfaceID]) {
        var generator = SeededGenerator(seed: seed)
        let tree = SurfaceTree(cellShift: cellShift)
        let output = OutputID(1)
        try! tree.addOutput(output, name: "BENCH-1", rect: Rect(x: 0, y: 0, width: outputSize.width, height: outputSize.height))
        var toplevels: [SurfaceID] = []
        var next: UInt32 = 1
        for window in 0..<windowCount(leaves: leaves) {
            let top = SurfaceID(next)
            next += 1
            let client = ClientID(UInt32(window + 1))
            try! tree.addToplevel(top, client: client, output: output, position: randomPosition(using: &generator), size: windowSize)
            for rect in subsurfaces {
                try! tree.addSubsurface(SurfaceID(next), client: client, parent: top, position: rect.origin, size: Size(width: rect.width, height: rect.height))
                next += 1
            }
            toplevels.append(top)
        }
        // Flattened now, so that the build's time holds it and no measured query pays for it.
        tree.settleIndex()
        return (tree, toplevels)
    }
}
