import CWaylandShim
import TouchRouterCore
import TouchRouterReplay
import TouchRouterConfig
#if canImport(Glibc)
import Glibc
#endif

/// What `msg play` plays (docs/benchmarks.md, "End to end").
public enum Workload: Sendable, Equatable {
    /// `fingers` fingers on each mapped toplevel (all of them, bottom first), down together,
    /// then moving together `rate` times a second for `seconds`, then up.
    case touch(fingers: Int, rate: Int, seconds: Double)
    /// The touch frames of a `libinput record` file (an absolute path), at their own pace from now.
    case recording(path: String)

    public static let fingerRange = 1...10
    public static let rateRange = 1...1000
    public static let secondsRange = 0.01...600.0
    /// Touch events in one playing, at most: what the played log holds.
    public static let maximumEvents = 1 << 23
}

/// Plays a workload into a running session as a touchscreen would: a timerfd in the
/// session's loop fires at each frame's time; each event then gets the session's
/// CLOCK_MONOTONIC as its device time at the moment it is made, is queued in the router,
/// dispatched, and flushed to the clients at once, as `addInputSource`'s events are.
/// `msg stats` and `msg trace` see these events as any device's.
///
/// When it ends it writes, if asked, the played log: what went out, for the raw libwayland
/// floor and for matching receipts to device times (docs/benchmarks.md, "End to end"):
///
///     # touch-router play 1 frames=F events=E
///     F OFFSET_NS DEVICE_NS                 a frame: its planned offset, its touch frame's device time
///     D TARGET ID X Y DEVICE_NS             touch down on toplevel TARGET (0-based, bottom first; -1: none), surface-local
///     M TARGET ID X Y DEVICE_NS             touch motion
///     U TARGET ID DEVICE_NS                 touch up
// sys/timerfd.h is not in Glibc's module map; both are plain C functions of glibc.
@_silgen_name("timerfd_create") private func tr_timerfd_create(_ clock: Int32, _ flags: Int32) -> Int32
@_silgen_name("timerfd_settime") private func tr_timerfd_settime(_ fd: Int32, _ flags: Int32, _ new: UnsafePointer<itimerspec>, _ old: UnsafeMutablePointer<itimerspec>?) -> Int32

package final class WorkloadPlayer {
    private struct Touch {
        package enum Kind: UInt8 { case down, motion, up }
        package var kind: Kind
        package var id: TouchID
        package var position: Point<GlobalSpace>
    }
    private struct Frame {
        package var offset: Int64
        package var touches: Range<Int>
    }

    private unowned let server: WaylandServer
    private let device: DeviceID
    private var touches: [Touch] = []
    private var frames: [Frame] = []
    /// Per touch event and per frame, its device time, for the log; behind one pointer
    /// (`UncheckedState`), since a class's arrays pay an exclusivity check on every access,
    /// and these are written between a touch's device time and its delivery.
    private struct Times {
        package var device: [Int64] = []
        package var frame: [Int64] = []
    }
    private let times = UncheckedState(Times())
    /// Per touch down (by its index in `touches`): the toplevel it hit and that toplevel's
    /// origin in the layout; a touch's later events are the log's to match to it.
    private var downs: [Int: Binding] = [:]
    private struct Binding {
        package var target: Int32
        package var origin: (x: Double, y: Double)
    }
    private var toplevelIndex: [SurfaceID: Int32] = [:]
    private let logPath: String?
    private let completion: (Result<[JSONValue.Member], WaylandError>) -> Void
    private var timerFD: Int32 = -1
    private var watching = false
    private var origin: Int64 = 0
    private var next = 0
    private var late = 0
    /// Set once the last frame is made: the next expiry of the timer finishes.
    private var lastFrameMade = false
    /// How long after its last frame the player waits before it writes its log and replies.
    /// Writing the log takes the session's CPU for milliseconds, and a client woken for the
    /// last frames may wait on that CPU behind it: in `bench e2e` the last two frames of each
    /// round were most of the session's slowest 0.1% of events.
    package static let settleNanoseconds: Int64 = 20_000_000

    /// Reads the workload into frames now, so that what is wrong with it is said before anything plays.
    package init(server: WaylandServer, workload: Workload, log: String?, completion: @escaping (Result<[JSONValue.Member], WaylandError>) -> Void) throws(WaylandError) {
        self.server = server
        logPath = log
        self.completion = completion
        device = DeviceID(server.protocols.virtualInput.nextHostDevice)
        server.protocols.virtualInput.nextHostDevice += 1
        let toplevels = server.tree.outputs.flatMap(\.toplevels).filter { server.tree.surface($0)?.properties.mapped == true }
        for (i, id) in toplevels.enumerated() { toplevelIndex[id] = Int32(i) }
        switch workload {
        case .touch(let fingers, let rate, let seconds):
            try generate(toplevels: toplevels, fingers: fingers, rate: rate, seconds: seconds)
        case .recording(let path):
            try load(path)
        }
        times.pointee.device = Array(repeating: 0, count: touches.count)
        times.pointee.frame = Array(repeating: 0, count: frames.count)
    }

    deinit {
        times.release()
    }

    /// Each toplevel's fingers go down together on a point of it no other toplevel covers,
    /// then circle around it, 24 px across, each finger a step behind the one before.
    private func generate(toplevels: [SurfaceID], fingers: Int, rate: Int, seconds: Double) throws(WaylandError) {
        guard Workload.fingerRange.contains(fingers) else { throw WaylandError("play touch: fingers must be 1 to 10, not \(fingers)") }
        guard Workload.rateRange.contains(rate) else { throw WaylandError("play touch: the rate must be 1 to 1000 a second, not \(rate)") }
        guard seconds.isFinite, Workload.secondsRange.contains(seconds) else { throw WaylandError("play touch: seconds must be 0.01 to 600") }
        guard !toplevels.isEmpty else { throw WaylandError("play touch: no toplevel is mapped") }
        guard toplevels.count * fingers <= InputLimits.liveTouches else {
            throw WaylandError("play touch: \(toplevels.count) toplevels × \(fingers) fingers is more than the \(InputLimits.liveTouches) touches the router keeps (InputLimits.liveTouches)")
        }
        let reports = Int((seconds * Double(rate)).rounded())
        guard (reports + 2) * toplevels.count * fingers <= Workload.maximumEvents else {
            throw WaylandError("play touch: more than \(Workload.maximumEvents) touch events; play fewer seconds, fingers or toplevels")
        }
        var downs: [Point<GlobalSpace>] = []
        for id in toplevels {
            guard let point = visiblePoint(of: id) else { throw WaylandError("play touch: toplevel \(id.raw) is covered everywhere by others") }
            downs.append(point)
        }
        let period = 1_000_000_000 / Int64(rate)
        func offset(_ finger: Int, _ report: Int) -> (Double, Double) {
            let angle = 2 * Double.pi * (Double(report) / 50 + Double(finger) / Double(fingers))
            let start = 2 * Double.pi * Double(finger) / Double(fingers)
            return (12 * (cos(angle) - cos(start)), 12 * (sin(angle) - sin(start)))
        }
        touches.reserveCapacity((reports + 2) * toplevels.count * fingers)
        frames.reserveCapacity(reports + 2)
        for report in 0...(reports + 1) {
            let first = touches.count
            // Top first. The frame's downs are all hit-tested against the stack their points were
            // chosen on (a press's raise waits for the frame's end), so any order lands the same.
            for (t, down) in downs.enumerated().reversed() {
                for finger in 0..<fingers {
                    let id = TouchID(Int32(t * fingers + finger))
                    let (dx, dy) = offset(finger, report)
                    let kind: Touch.Kind = report == 0 ? .down : report == reports + 1 ? .up : .motion
                    touches.append(Touch(kind: kind, id: id, position: Point(down.x + dx, down.y + dy)))
                }
            }
            frames.append(Frame(offset: Int64(report) * period, touches: first..<touches.count))
        }
    }

    /// A point of the toplevel (or its subsurfaces) that a touch reaches: the middle if it
    /// can, else the first of a 8-px grid over it.
    private func visiblePoint(of id: SurfaceID) -> Point<GlobalSpace>? {
        guard let surface = server.tree.surface(id), let output = surface.output.flatMap({ server.tree.output($0) }) else { return nil }
        let x0 = Double(output.rect.x + surface.originInOutput.dx), y0 = Double(output.rect.y + surface.originInOutput.dy)
        func reaches(_ p: Point<GlobalSpace>) -> Bool { server.tree.hitTest(p).map { server.tree.toplevel(of: $0.surface) == id } ?? false }
        let middle = Point<GlobalSpace>(x0 + Double(surface.size.width) / 2, y0 + Double(surface.size.height) / 2)
        if reaches(middle) { return middle }
        for y in stride(from: 4, to: surface.size.height, by: 8) {
            for x in stride(from: 4, to: surface.size.width, by: 8) {
                let p = Point<GlobalSpace>(x0 + Double(x), y0 + Double(y))
                if reaches(p) { return p }
            }
        }
        return nil
    }

    /// A recording's touch frames (its keys and pointer are left out), its first frame at offset 0.
    private func load(_ path: String) throws(WaylandError) {
        guard path.hasPrefix("/") else { throw WaylandError("play recording: '\(path.prefix(256))' is not an absolute path") }
        let bytes = try Self.readFile(path)
        let recording: LibinputRecording
        do {
            recording = try LibinputRecording.parse(bytes: bytes, file: path, area: server.firstOutputArea ?? Rect(x: 0, y: 0, width: 1920, height: 1080))
        } catch {
            throw WaylandError("play recording: \(error)")
        }
        var first: Int64?
        var start = 0
        for event in recording.events {
            switch event {
            case .touchDown(_, _, let id, let p): touches.append(Touch(kind: .down, id: id, position: p))
            case .touchMotion(_, _, let id, let p): touches.append(Touch(kind: .motion, id: id, position: p))
            case .touchUp(_, _, let id), .touchCancel(_, _, let id): touches.append(Touch(kind: .up, id: id, position: Point(0, 0)))
            case .touchFrame(_, let time):
                let base = first ?? time.nanoseconds
                first = base
                frames.append(Frame(offset: max(0, time.nanoseconds - base), touches: start..<touches.count))
                start = touches.count
            default: continue
            }
            guard touches.count <= Workload.maximumEvents else { throw WaylandError("play recording: \(path): more than \(Workload.maximumEvents) touch events") }
        }
        guard !frames.isEmpty else { throw WaylandError("play recording: \(path) has no touch frames") }
    }

    package static func readFile(_ path: String) throws(WaylandError) -> [UInt8] {
        do {
            return try RegularFile.read(path: path, limit: InputLimits.fileBytes)
        } catch {
            throw WaylandError("play recording: \(path): \(error.description)")
        }
    }

    package func start() throws(WaylandError) {
        timerFD = tr_timerfd_create(CLOCK_MONOTONIC, O_CLOEXEC | O_NONBLOCK)
        guard timerFD >= 0 else { throw WaylandError.errno("play: timerfd_create") }
        do throws(WaylandError) {
            try server.watchInput(fd: timerFD) { [unowned self] in self.fire() }
        } catch {
            close(timerFD)
            throw error
        }
        watching = true
        server.router.enqueue(.deviceAdded(device: device, time: server.clock.now(), capabilities: [.touch]))
        server.router.nameDevice(device, "touch-router play")
        server.router.dispatchAll()
        origin = server.clock.now().nanoseconds + 5_000_000
        arm()
    }

    private func arm() { arm(at: origin + frames[next].offset) }

    private func arm(at: Int64) {
        var spec = itimerspec()
        spec.it_value.tv_sec = Int(at / 1_000_000_000)
        spec.it_value.tv_nsec = Int(at % 1_000_000_000)
        _ = tr_timerfd_settime(timerFD, 1 /* TFD_TIMER_ABSTIME */, &spec, nil)
    }

    /// Makes every frame that is due, each event stamped as it is made, and routes them.
    private func fire() {
        var expirations: UInt64 = 0
        _ = read(timerFD, &expirations, 8)
        // Strong for the loop: each use of the unowned property took and dropped a reference.
        let server: WaylandServer = self.server
        let router = server.router!
        let clock = server.clock
        var now = clock.now().nanoseconds
        var made = 0
        while next < frames.count, origin + frames[next].offset <= now {
            let frame = frames[next]
            // The log's record of what each down hits is the player's work, not the session's:
            // it is done before the frame's first device time is taken.
            for i in frame.touches where touches[i].kind == .down {
                let position = touches[i].position
                let hit = server.tree.hitTest(position)
                let target = hit.flatMap { server.tree.toplevel(of: $0.surface) }.flatMap { toplevelIndex[$0] } ?? -1
                let origin = hit.map { (position.x - $0.local.x, position.y - $0.local.y) } ?? (0, 0)
                downs[i] = Binding(target: target, origin: origin)
            }
            for i in frame.touches {
                let touch = touches[i]
                let time = clock.now()
                let event: InputEvent
                switch touch.kind {
                case .down: event = .touchDown(device: device, time: time, id: touch.id, position: touch.position)
                case .motion: event = .touchMotion(device: device, time: time, id: touch.id, position: touch.position)
                case .up: event = .touchUp(device: device, time: time, id: touch.id)
                }
                times.pointee.device[i] = time.nanoseconds
                router.enqueue(event)
            }
            let time = clock.now()
            router.enqueue(.touchFrame(device: device, time: time))
            times.pointee.frame[next] = time.nanoseconds
            router.dispatchAll()
            server.writeToClients()
            next += 1
            made += 1
            now = clock.now().nanoseconds
        }
        if made > 1 { late += made - 1 }
        if next < frames.count {
            arm()
        } else if !lastFrameMade {
            lastFrameMade = true
            arm(at: clock.now().nanoseconds + Self.settleNanoseconds)
        } else {
            finish()
        }
    }

    private func finish() {
        if watching { server.unwatchInput(fd: timerFD) }
        watching = false
        close(timerFD)
        server.router.enqueue(.deviceRemoved(device: device, time: server.clock.now()))
        server.router.dispatchAll()
        var reply: [JSONValue.Member] = [
            .init(key: "frames", value: .number(frames.count)), .init(key: "events", value: .number(touches.count)),
            .init(key: "late_frames", value: .number(late)), .init(key: "device", value: .number(device.raw)),
        ]
        if let logPath {
            do { try writeLog(logPath) } catch {
                completion(.failure(error))
                return
            }
            reply.append(.init(key: "log", value: .string(logPath)))
        }
        completion(.success(reply))
    }

    private func writeLog(_ path: String) throws(WaylandError) {
        let file: UnsafeMutablePointer<FILE>
        do { file = try RegularFile.create(path: path) } catch { throw WaylandError("play: \(path): \(error.description)") }
        var ok = fputs("# touch-router play 1 frames=\(frames.count) events=\(touches.count)\n", file) >= 0
        func fixed(_ value: Double) -> String {
            let hundredths = (value * 100).rounded()
            let magnitude = Int64(min(abs(hundredths), 1e15))
            return (hundredths < 0 ? "-" : "") + "\(magnitude / 100).\(magnitude % 100 < 10 ? "0" : "")\(magnitude % 100)"
        }
        // Each touch's toplevel and origin, from its down, for its later events.
        var bound: [TouchID: Binding] = [:]
        for (f, frame) in frames.enumerated() {
            var text = "F \(frame.offset) \(times.pointee.frame[f])\n"
            for i in frame.touches {
                let touch = touches[i]
                if touch.kind == .down { bound[touch.id] = downs[i] }
                let binding = bound[touch.id] ?? Binding(target: -1, origin: (0, 0))
                switch touch.kind {
                case .down, .motion:
                    let local = (x: touch.position.x - binding.origin.x, y: touch.position.y - binding.origin.y)
                    text += "\(touch.kind == .down ? "D" : "M") \(binding.target) \(touch.id.raw) \(fixed(local.x)) \(fixed(local.y)) \(times.pointee.device[i])\n"
                case .up:
                    text += "U \(binding.target) \(touch.id.raw) \(times.pointee.device[i])\n"
                    bound[touch.id] = nil
                }
            }
            ok = ok && fputs(text, file) >= 0
        }
        ok = fclose(file) == 0 && ok
        guard ok else { throw WaylandError.errno("play: writing \(path)") }
    }
}
