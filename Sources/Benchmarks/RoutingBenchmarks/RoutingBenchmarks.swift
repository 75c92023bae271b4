import Benchmark
let benchmarks: @Sendable () -> Void = {
    Benchmark("noop", configuration: .init(metrics: [.mallocCountTotal])) { benchmark in
        blackHole(1)
    }
}
