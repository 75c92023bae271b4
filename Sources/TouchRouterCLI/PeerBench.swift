import Foundation
import TouchRouterReplay

/// `bench e2e --peer sway` (docs/benchmarks.md, "Beside sway"): one benchmark client, the full size of a
/// 1920×1080 output, driven by touch-router-bench-injector's pointer motion and keys
/// (zwlr_virtual_pointer_v1, zwp_virtual_keyboard_v1) through Debian's sway 1.7, headless,
/// and through TouchRouter, one after the other. sway gives no input timestamps, so each
/// received event is matched by order to the injector's send time; latency is
/// injector send → client receipt for both.
struct PeerBench {
    let tools: EndToEndTools
    let work: URL
    let clients: Int
    let rate: Int
    let seconds: Double
    let size: String
    let rounds: Int
    /// The clients answer each pointer frame with a dot and presentation feedback (--present).
    let present: Bool
    /// TouchRouter's output refresh (Hz); nil for 60.
    let refresh: Double?
    let progress: Bool

    static let output = (width: 1920, height: 1080)
    /// Where the injector's 64-px square of pointer positions starts.
    static let at = (x: 100, y: 100)

    /// What one compositor gave: per kind, sent, received, and latencies.
    struct Side {
        var pointer: (sent: Int, received: Int, misplaced: Int, latency: EndToEndAnalysis.Summary)
        var keys: (sent: Int, received: Int, latency: EndToEndAnalysis.Summary)
        /// --present: the injector's send of each motion to the presentation of its answer.
        var present: PresentAnalysis.Summary?

        var json: String {
            "{" + (present.map { "\"pointer_to_present\":\($0.json)," } ?? "") + "\"pointer_motion\":{\"sent\":\(pointer.sent),\"received\":\(pointer.received),\"counts_match\":\(pointer.sent == pointer.received),"
                + "\"misplaced\":\(pointer.misplaced),\"latency_ns\":\(pointer.latency.json)},"
                + "\"key\":{\"sent\":\(keys.sent),\"received\":\(keys.received),\"counts_match\":\(keys.sent == keys.received),\"latency_ns\":\(keys.latency.json)}}"
        }
    }

    /// sway refuses root: as root, sway, the client and the injector run as this user
    /// (TOUCH_ROUTER_BENCH_USER, default nobody), each with setpriv; else as oneself.
    static func user() throws -> BenchUser? {
        guard getuid() == 0 else { return nil }
        let name = ProcessInfo.processInfo.environment["TOUCH_ROUTER_BENCH_USER"] ?? "nobody"
        guard let entry = getpwnam(name) else {
            throw Failure(description: "touch-router bench e2e --peer sway: no user '\(name)' to run sway as (sway refuses root); set TOUCH_ROUTER_BENCH_USER to an unprivileged user")
        }
        guard entry.pointee.pw_uid != 0 else { throw Failure(description: "touch-router bench e2e --peer sway: TOUCH_ROUTER_BENCH_USER names root, which sway refuses") }
        return BenchUser(name: name, uid: entry.pointee.pw_uid, gid: entry.pointee.pw_gid)
    }

    func run() throws -> (json: String, table: String, present: [(name: String, summary: PresentAnalysis.Summary)]) {
        guard FileManager.default.isExecutableFile(atPath: tools.injector) else {
            throw Failure(description: "touch-router bench e2e: \(tools.injector) is missing: build the package (swift build)")
        }
        guard let sway = ["/usr/bin/sway", "/usr/local/bin/sway"].first(where: FileManager.default.isExecutableFile) else {
            throw Failure(description: "touch-router bench e2e --peer sway: sway is not installed (Debian: apt-get install sway; .ci/setup installs it)")
        }
        let user = try Self.user()
        let (swaySide, touchRouterSide) = try interleaved(sway, user: user)
        func ratio(_ a: UInt64, _ b: UInt64) -> Double? { b == 0 ? nil : Double(a) / Double(b) }
        func ratios(_ a: EndToEndAnalysis.Summary, _ b: EndToEndAnalysis.Summary) -> String {
            let values = [ratio(a.p50, b.p50), ratio(a.p99, b.p99), ratio(a.p999, b.p999)].map { $0.map { String(format: $0, digits: 3) } ?? "null" }
            return "{\"p50\":\(values[0]),\"p99\":\(values[1]),\"p99_9\":\(values[2])}"
        }
        let json = "{\"name\":\"sway\",\"version\":\(jsonString(Self.swayVersion(sway))),\"workload\":{\"clients\":1,\"rate\":\(rate),\"seconds\":\(seconds),\"rounds\":\(roundCount),"
            + "\"output\":[\(Self.output.width),\(Self.output.height)],\"touchrouter_refresh_hz\":\(refresh.map { String($0) } ?? "60"),\"user\":\(user.map { jsonString($0.name) } ?? "null")},"
            + "\"sway\":\(swaySide.json),\"touchrouter\":\(touchRouterSide.json),"
            + "\"ratios_touchrouter_to_sway\":{\"pointer_motion\":\(ratios(touchRouterSide.pointer.latency, swaySide.pointer.latency)),\"key\":\(ratios(touchRouterSide.keys.latency, swaySide.keys.latency))"
            + (present ? ",\"pointer_to_present\":\(ratios(touchRouterSide.present?.latency ?? .init([]), swaySide.present?.latency ?? .init([])))" : "") + "}}"
        var rows: [[String]] = [["", "sent", "received", "kind", "p50 µs", "p99 µs", "p99.9 µs", "max µs"]]
        for (name, side) in [("sway \(Self.swayVersion(sway))", swaySide), ("TouchRouter", touchRouterSide)] {
            let p = side.pointer.latency, k = side.keys.latency
            rows.append([name, "\(side.pointer.sent)", "\(side.pointer.received)", "pointer motion", EndToEndReport.micro(p.p50), EndToEndReport.micro(p.p99), EndToEndReport.micro(p.p999), EndToEndReport.micro(p.max)])
            rows.append([name, "\(side.keys.sent)", "\(side.keys.received)", "key", EndToEndReport.micro(k.p50), EndToEndReport.micro(k.p99), EndToEndReport.micro(k.p999), EndToEndReport.micro(k.max)])
        }
        func r(_ a: UInt64, _ b: UInt64) -> String { ratio(a, b).map { String(format: $0, digits: 2) + "×" } ?? "-" }
        for (kind, a, b) in [("pointer motion", touchRouterSide.pointer.latency, swaySide.pointer.latency), ("key", touchRouterSide.keys.latency, swaySide.keys.latency)] {
            rows.append(["TouchRouter / sway", "", "", kind, r(a.p50, b.p50), r(a.p99, b.p99), r(a.p999, b.p999), r(a.max, b.max)])
        }
        var lines = ["--peer sway: 1 client, pointer motion and a key through virtual pointer and keyboard at \(rate) Hz for \(seconds) s in \(roundCount) interleaved round\(roundCount == 1 ? "" : "s") a side; injector send → client receipt:"]
        lines += alignedRows(rows)
        for (name, side) in [("sway", swaySide), ("TouchRouter", touchRouterSide)] {
            if side.pointer.sent != side.pointer.received || side.keys.sent != side.keys.received || side.pointer.misplaced > 0 {
                lines.append("WARNING: \(name): pointer \(side.pointer.sent) sent, \(side.pointer.received) received (\(side.pointer.misplaced) not where sent); keys \(side.keys.sent) sent, \(side.keys.received) received")
            }
        }
        var shown: [(name: String, summary: PresentAnalysis.Summary)] = []
        if present, let swayPresent = swaySide.present, let touchRouterPresent = touchRouterSide.present {
            shown = [("sway \(Self.swayVersion(sway)), pointer", swayPresent), ("TouchRouter, pointer", touchRouterPresent)]
            lines.append("pointer to present (injector send → the answer's presentation, 1920×1080 client, 16×16 dot):")
            var presentRows: [[String]] = [["", "answered", "commits", "superseded", "missed", "p50 µs", "p99 µs", "p99.9 µs", "max µs"]]
            for (name, side) in shown {
                let l = side.latency
                presentRows.append([name, "\(side.answered)", "\(side.commits)", "\(side.discarded)", "\(side.missed)",
                                    EndToEndReport.micro(l.p50), EndToEndReport.micro(l.p99), EndToEndReport.micro(l.p999), EndToEndReport.micro(l.max)])
            }
            let a = touchRouterPresent.latency, b = swayPresent.latency
            presentRows.append(["TouchRouter / sway", "", "", "", "", r(a.p50, b.p50), r(a.p99, b.p99), r(a.p999, b.p999), r(a.max, b.max)])
            lines += alignedRows(presentRows)
            for (name, side) in shown { lines.append("\(name): \(side.drawingLine)") }
        }
        return (json, lines.joined(separator: "\n"), shown)
    }

    static func swayVersion(_ sway: String) -> String {
        let process = Process()
        let pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: sway)
        process.arguments = ["--version"]
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return "unknown" }
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? "unknown"
    }

    /// Rounds of `seconds`/rounds each, at least 0.1 s.
    var roundCount: Int { max(1, min(rounds, Int(seconds * 10))) }

    /// A compositor that is up, with its one client mapped.
    private struct Target {
        let label: String
        let compositor: BenchChild
        let client: BenchChild
        let runtime: URL
        let injector: BenchChild
        /// Where the injector writes its sends when its commands end.
        let sent: URL

        func stop() {
            injector.endCommands()
            if injector.process.isRunning { injector.waitForExit(within: 10) }
            if client.process.isRunning { client.terminate() }
            compositor.terminate()
            compositor.waitForExit(within: 10)
        }
    }

    /// sway and TouchRouter up together, each with its client and its injector; a round is
    /// played on one, then on the other, the order swapping every round, so that both meet the
    /// same load (played one after the other, sway's p50 moved by a third between runs of the
    /// same binaries). One injector each for the whole run: sway stops delivering to a client
    /// whose virtual devices were replaced.
    private func interleaved(_ sway: String, user: BenchUser?) throws -> (sway: Side, touchRouter: Side) {
        let swayTarget = try startSway(sway, user: user)
        defer { swayTarget.stop() }
        let touchRouterTarget = try startTouchRouter()
        defer { touchRouterTarget.stop() }
        let rounds = roundCount
        let bar = TimedProgressBar()
        if progress { bar.start("sway and TouchRouter (virtual pointer and keyboard), \(rounds) round\(rounds == 1 ? "" : "s") each", seconds: 2 * (seconds + 0.3 * Double(rounds))) }
        for round in 0..<rounds {
            let order = round.isMultiple(of: 2) ? [swayTarget, touchRouterTarget] : [touchRouterTarget, swayTarget]
            for target in order {
                try target.injector.send("play")
                _ = try target.injector.value(after: "done", within: seconds + 60, what: "the injector on \(target.label) to play a round")
            }
        }
        bar.stop()
        usleep(200_000)
        return (try measure(swayTarget), try measure(touchRouterTarget))
    }

    private func startSway(_ sway: String, user: BenchUser?) throws -> Target {
        let runtime = try EndToEndRun.directory(work.appendingPathComponent("sway"), owner: user)
        let config = runtime.appendingPathComponent("sway.conf")
        let ready = runtime.appendingPathComponent("ready")
        // No bar, no background, no borders: the client's surface starts at the output's corner.
        try """
            output HEADLESS-1 mode \(Self.output.width)x\(Self.output.height) position 0 0
            default_border none
            default_floating_border none
            focus_follows_mouse no
            exec sh -c 'echo "$WAYLAND_DISPLAY" > "$XDG_RUNTIME_DIR/ready"'

            """.write(to: config, atomically: true, encoding: .utf8)
        if let user { chown(config.path, user.uid, user.gid) }
        var environment: [String: String] = ["PATH": "/usr/bin:/bin", "HOME": runtime.path, "XDG_RUNTIME_DIR": runtime.path,
                                             "WLR_BACKENDS": "headless", "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman"]
        if let lang = ProcessInfo.processInfo.environment["LANG"] { environment["LANG"] = lang }
        if present {
            // wlroots 0.15's headless backend sends its present event before the commit event a
            // feedback waits for, so sway never answers one; the library sends it after the
            // commit, as wlroots 0.17 does (Sources/Benchmarks/sway-present-fix).
            guard FileManager.default.isReadableFile(atPath: tools.swayPresentFix) else {
                throw Failure(description: "touch-router bench e2e --present: \(tools.swayPresentFix) is missing: build the package (swift build)")
            }
            environment["LD_PRELOAD"] = tools.swayPresentFix
        }
        let compositor = try BenchChild("sway", executable: sway, arguments: ["-c", config.path], environment: environment,
                                        errorLog: runtime.appendingPathComponent("sway.err"), user: user)
        do {
            let deadline = Date().addingTimeInterval(30)
            var display = ""
            while display.isEmpty {
                display = ((try? String(contentsOf: ready, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
                guard compositor.process.isRunning else { throw Failure(description: "touch-router bench e2e --peer sway: sway ended at start: \(compositor.errors)") }
                guard Date() < deadline else { throw Failure(description: "touch-router bench e2e --peer sway: sway never ran its exec line: \(compositor.errors)") }
                usleep(20_000)
            }
            let env = environment.merging(["WAYLAND_DISPLAY": display]) { $1 }
            return try target("sway", compositor: compositor, display: display, runtime: runtime, user: user, environment: env, rounds: roundCount)
        } catch {
            compositor.terminate()
            compositor.waitForExit(within: 10)
            throw error
        }
    }

    private func startTouchRouter() throws -> Target {
        let runtime = try EndToEndRun.directory(work.appendingPathComponent("touchrouter-peer"))
        let config = runtime.appendingPathComponent("config.toml")
        try "[privileges]\nvirtual-input = [\(jsonString(tools.injector))]\n".write(to: config, atomically: true, encoding: .utf8)
        let environment = EndToEndRun.environment(runtime: runtime)
        let server = try BenchChild("touch-router run", executable: tools.launcher,
                                     arguments: ["run", "--backend", "headless", "--config", config.path, "--output", "\(Self.output.width)x\(Self.output.height)" + (refresh.map { "@\($0)" } ?? "")],
                                     environment: environment, errorLog: runtime.appendingPathComponent("session.err"))
        do {
            let display = try server.value(after: "WAYLAND_DISPLAY=", within: 30, what: "touch-router run to listen")
            let env = environment.merging(["WAYLAND_DISPLAY": display]) { $1 }
            return try target("TouchRouter", compositor: server, display: display, runtime: runtime, user: nil, environment: env, rounds: roundCount)
        } catch {
            server.terminate()
            server.waitForExit(within: 10)
            throw error
        }
    }

    /// One client the size of the output, then the injector, ready once it has warmed up.
    private func target(_ label: String, compositor: BenchChild, display: String, runtime: URL, user: BenchUser?,
                        environment: [String: String], rounds: Int) throws -> Target {
        let client = try EndToEndRun.startClients(1, tools: tools, display: display, runtime: runtime, size: "\(Self.output.width)x\(Self.output.height)",
                                                  user: user, environment: environment, extraArguments: present ? ["--present"] : [])[0]
        do {
            let sent = runtime.appendingPathComponent("injector.txt")
            let injector = try BenchChild("injector", executable: tools.injector,
                                          arguments: ["--out", sent.path, "--extent", "\(Self.output.width)x\(Self.output.height)", "--at", "\(Self.at.x),\(Self.at.y)",
                                                      "--rate", "\(rate)", "--seconds", "\(seconds / Double(rounds))"],
                                          environment: environment, errorLog: runtime.appendingPathComponent("injector.err"), user: user, takesCommands: true)
            do {
                _ = try injector.value(after: "ready", within: 30, what: "the injector on \(label) to warm up")
            } catch {
                injector.endCommands()
                injector.waitForExit(within: 10)
                throw error
            }
            return Target(label: label, compositor: compositor, client: client, runtime: runtime, injector: injector, sent: sent)
        } catch {
            client.terminate()
            client.waitForExit(within: 10)
            throw error
        }
    }

    /// The client's receipts matched by order to the injector's sends, from the first round's
    /// start (the warm-up before it is not measured).
    private func measure(_ target: Target) throws -> Side {
        target.injector.endCommands()
        guard target.injector.waitForExit(within: 30) == 0 else { throw Failure(description: "touch-router bench e2e --peer sway: the injector failed on \(target.label): \(target.injector.errors)") }
        target.client.terminate()
        guard target.client.waitForExit(within: 10) == 0 else { throw Failure(description: "touch-router bench e2e: the client on \(target.label) did not exit cleanly: \(target.client.errors)") }
        let received = try EndToEndAnalysis.records(target.runtime.appendingPathComponent("client-0.txt")).events
        guard let text = try? String(contentsOf: target.sent, encoding: .utf8) else { throw Failure(description: "\(target.sent.path): error: the injector wrote nothing") }
        var start: Int64 = 0
        var pointerSent: [(at: Int64, x: Double, y: Double)] = []
        var keySent: [Int64] = []
        for (number, line) in text.split(separator: "\n").enumerated() {
            let f = line.split(separator: " ")
            if f.first == "#" {
                for word in f where word.hasPrefix("start=") { start = Int64(word.dropFirst(6)) ?? 0 }
                continue
            }
            guard f.count == 4, let at = Int64(f[1]), let a = Double(f[2]), let b = Double(f[3]) else {
                throw Failure(description: "\(target.sent.path):\(number + 1): error: expected 'pointer|key SEND_NS A B'")
            }
            if f[0] == "pointer" { pointerSent.append((at, a, b)) } else { keySent.append(at) }
        }
        let motions = received.filter { $0.kind == "pointer-motion" && $0.receipt >= start }
        var keys = received.filter { $0.kind == "key" && $0.receipt >= start }
        // An odd count of reports leaves the key pressed, and the injector releases it unmeasured.
        if !keySent.count.isMultiple(of: 2), keys.count == keySent.count + 1 { keys.removeLast() }
        var pointerLatencies: [Int64] = [], keyLatencies: [Int64] = []
        var misplaced = 0
        for (event, send) in zip(motions, pointerSent) {
            pointerLatencies.append(event.receipt - send.at)
            if event.x != send.x { misplaced += 1 }
        }
        for (event, send) in zip(keys, keySent) { keyLatencies.append(event.receipt - send) }
        var side = Side(pointer: (pointerSent.count, motions.count, misplaced, EndToEndAnalysis.Summary(pointerLatencies)),
                        keys: (keySent.count, keys.count, EndToEndAnalysis.Summary(keyLatencies)))
        if present {
            // Each measured motion, by its place among the client's records, to its send time.
            var sendOf: [Int: Int64] = [:]
            var next = 0
            for (index, event) in received.enumerated() where event.kind == "pointer-motion" && event.receipt >= start {
                guard next < pointerSent.count else { break }
                sendOf[index] = pointerSent[next].at
                next += 1
            }
            var shown = PresentAnalysis.Summary()
            let commits = try PresentAnalysis.commits(target.runtime.appendingPathComponent("client-0.txt"))
            shown.add(events: received, commits: commits) { index, _ in sendOf[index] }
            side.present = shown
        }
        return side
    }
}
