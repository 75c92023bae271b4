import Foundation
import Testing

@Suite("Outputs that come and go while the session runs (msg output create|remove)", .serialized)
struct OutputLifecycleTests {
    func outputs(_ session: RunningSession) throws -> [[String: Any]] {
        try session.msg("tree").json["outputs"] as? [[String: Any]] ?? []
    }

    @Test("A created output is right of the first and clients see it; when the first goes, foot moves to the new one, is told it left and entered, and the pointer reaches it there; the last output cannot go, nor a 17th come")
    func windowsMoveToTheOutputThatStays() throws {
        let session = try RunningSession()
        defer { _ = session.terminate() }
        let footLog = session.file("foot.log")
        _ = try session.client(["foot", "sh", "-c", "sleep 60"], output: footLog, environment: ["WAYLAND_DEBUG": "1"])
        try session.wait(for: "foot to map") { try session.toplevels().first?["mapped"] as? Bool == true }

        let created = try session.msg("output", "create", "800x600")
        #expect(created.status == 0 && created.json["output"] as? String == "HEADLESS-2", "\(created.json)")
        let names = try outputs(session).map { "\($0["name"] ?? "")@\($0["rect"] ?? "")" }
        #expect(names == ["HEADLESS-1@[0, 0, 1920, 1080]", "HEADLESS-2@[1920, 0, 800, 600]"], "\(names)")
        let listed = session.file("info-two.log")
        let first = try session.client(["wayland-info", "-i", "wl_output"], output: listed)
        first.waitUntilExit()
        #expect(RunningSession.text(of: listed).contains("HEADLESS-2"), "wayland-info lists the new output")

        let removed = try session.msg("output", "remove", "HEADLESS-1")
        #expect(removed.status == 0, "\(removed.json)")
        let after = try outputs(session)
        #expect(after.count == 1 && after.first?["name"] as? String == "HEADLESS-2")
        let moved = (after.first?["toplevels"] as? [[String: Any]]) ?? []
        #expect(moved.count == 1 && moved.first?["mapped"] as? Bool == true, "foot is on HEADLESS-2: \(after)")
        // foot's surface left wl_output for HEADLESS-1 and entered the one for HEADLESS-2.
        try session.wait(for: "foot to be told") {
            let lines = RunningSession.text(of: footLog).split(separator: "\n")
            // One enter when it mapped, one more now.
            return lines.contains { $0.contains(".leave(wl_output@") } && lines.filter { $0.contains(".enter(wl_output@") }.count >= 2
        }
        let listedAfter = session.file("info-one.log")
        let second = try session.client(["wayland-info", "-i", "wl_output"], output: listedAfter)
        second.waitUntilExit()
        #expect(!RunningSession.text(of: listedAfter).contains("HEADLESS-1"), "the removed output's global is gone")

        // The pointer inside foot's new place reaches it (Debian 12's foot takes no touch).
        let position = moved.first?["position"] as? [Int] ?? [0, 0]
        let size = moved.first?["size"] as? [Int] ?? [0, 0]
        #expect(position[0] >= 0 && position[1] >= 0 && position[0] + min(size[0], 800) <= 800, "kept inside the output: \(position) \(size)")
        let (x, y) = (1920 + position[0] + 40, position[1] + 60)
        let picked = try session.msg("pick", String(x), String(y)).json["surface"] as? [String: Any]
        #expect(picked?["id"] as? Int == moved.first?["id"] as? Int, "\(String(describing: picked))")
        let entered = { RunningSession.text(of: footLog).split(separator: "\n").filter { $0.contains("wl_pointer@") && $0.contains(".enter(") }.count }
        let before = entered()
        try session.inject(["pointer motion \(x) \(y)"])
        try session.wait(for: "foot to get the pointer") { entered() > before }

        let last = try session.msg("output", "remove", "HEADLESS-2")
        #expect(last.status != 0 && "\(last.json["error"] ?? "")".contains("only output"), "\(last.json)")
        let unknown = try session.msg("output", "remove", "HDMI-A-9")
        #expect(unknown.status != 0 && "\(unknown.json["error"] ?? "")".contains("the outputs are HEADLESS-2"), "\(unknown.json)")
        // HEADLESS-2 and fifteen more, the first of them taking the free name HEADLESS-1.
        for number in [1] + Array(3...16) {
            #expect(try session.msg("output", "create", "64x64").json["output"] as? String == "HEADLESS-\(number)")
        }
        let seventeenth = try session.msg("output", "create", "64x64")
        #expect(seventeenth.status != 0 && "\(seventeenth.json["error"] ?? "")".contains("the session has 16 outputs, the most it holds"), "\(seventeenth.json)")
        let bad = try session.msg("output", "create", "0x600")
        #expect(bad.status != 0 && "\(bad.json["error"] ?? "")".contains("expected WxH"), "\(bad.json)")
    }
}
