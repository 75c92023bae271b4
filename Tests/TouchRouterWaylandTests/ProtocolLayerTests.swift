import Foundation
import Testing

/// The protocol layer (Sources/TouchRouterProtocols) depends on the core's identifiers and
/// geometry, never on the router, the tree or the server: its module cannot import the
/// server, and this checks that its sources do not reach the router or the tree, which
/// live in the core it does import.
@Suite("The protocol layer: no router, no tree, no server")
struct ProtocolLayerTests {
    static let sources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/TouchRouterProtocols")

    /// What the protocol layer must not name, outside comments. The tree's constants (its
    /// depth limit, which ClientLimits repeats) are allowed; reaching a tree is not.
    static let forbidden = ["WaylandServer", "Router", "HitTestIndex", ".router", ".tree"]

    @Test("no source file of TouchRouterProtocols names the router, the tree or the server")
    func noServerReach() throws {
        let files = try #require(FileManager.default.enumerator(atPath: Self.sources.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        #expect(files.count > 40, "the protocol layer's sources were not found at \(Self.sources.path)")
        var found: [String] = []
        for file in files {
            let text = try String(contentsOf: Self.sources.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                for word in Self.forbidden where Self.mentions(code, word) {
                    found.append("\(file):\(number + 1): \(word)")
                }
            }
        }
        #expect(found.isEmpty, "the protocol layer reaches past its handlers: \(found.joined(separator: "; "))")
    }

    /// `word` as a whole identifier (a name such as `TouchRouterCore` does not count as `Router`).
    static func mentions(_ code: Substring, _ word: String) -> Bool {
        var rest = code[...]
        while let range = rest.range(of: word) {
            let before = range.lowerBound == code.startIndex ? nil : code[code.index(before: range.lowerBound)]
            let after = range.upperBound == code.endIndex ? nil : code[range.upperBound]
            let joinsBefore = word.first!.isLetter && (before.map { $0.isLetter || $0.isNumber || $0 == "_" } ?? false)
            let joinsAfter = after.map { $0.isLetter || $0.isNumber || $0 == "_" } ?? false
            if !joinsBefore && !joinsAfter { return true }
            rest = code[range.upperBound...]
        }
        return false
    }

    @Test("the check finds what it looks for")
    func checkFinds() {
        #expect(Self.mentions("let s: WaylandServer", "WaylandServer"))
        #expect(Self.mentions("handler.router.dispatchAll()", ".router"))
        #expect(!Self.mentions("import TouchRouterCore", "Router"))
        #expect(!Self.mentions("let routerTime = 0", ".router"))
    }
}
