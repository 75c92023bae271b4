import Foundation

/// `bench e2e --peer sway` (README, "bench e2e").
struct PeerBench {
    let tools: EndToEndTools
    let work: URL
    let clients: Int
    let rate: Int
    let seconds: Double
    let size: String
    let progress: Bool

    func run() throws -> (json: String, table: String) {
        throw Failure(description: "touch-router bench e2e: --peer sway is not done yet")
    }
}
