import TouchRouterCore

/// Plays a script through a router over a scene, on a manual clock set to each line's
/// time, so the same files always give the same trace.
public final class Replay {
    public let scene: LoadedScene
    public let router: Router
    public let clock: ManualClock
    public let delivery: RecordingDelivery
    public private(set) var refusedActions = 0
    /// Runs after each line, as the session flushes clients after each round of its loop
    /// (a test stamps the timelines' `flushed` stage here).
    public var afterLine: (() -> Void)?

    public init(scene: LoadedScene) {
        self.scene = scene
        clock = ManualClock()
        delivery = RecordingDelivery()
        router = scene.makeRouter(delivery: delivery, clock: clock)
    }

    /// Applies each line in order; events are routed before the next line is read.
    public func run(_ script: Script, trace: TraceWriter?) {
        router.traceSink = trace
        for line in script.lines {
            clock.advance(to: line.time)
            // Deadlines that passed before this line act first, as the session's timer would.
            router.advanceTime(to: line.time)
            switch line.action {
            case .wait:
                trace?.action(line)
            case .event(let event):
                router.enqueue(event)
                router.dispatchAll()
            case .focus, .ignoreInteraction, .scene:
                trace?.action(line)
                if let refusal = apply(line.action) {
                    refusedActions += 1
                    trace?.refused(line, reason: refusal)
                }
                // As the session does once a batch of changes is applied.
                router.refreshPointerFocus()
            }
            afterLine?()
        }
        router.traceSink = nil
    }

    /// Performs a compositor action; returns why it was refused, if it was.
    private func apply(_ action: Script.Action) -> String? {
        let tree = scene.tree
        func id(_ name: String) throws(ActionError) -> SurfaceID {
            guard let id = scene.names.surfaces[name] else { throw ActionError("no surface is named \"\(name)\"") }
            return id
        }
        do {
            switch action {
            case .event, .wait:
                return nil
            case .focus(let name):
                let target = try name.map { (n: String) throws(ActionError) in try id(n) }
                if !router.setKeyboardFocus(target) { return "\"\(name ?? "")\" cannot take keyboard focus now" }
            case .ignoreInteraction(let begin):
                if begin { router.beginIgnoringInteraction() } else if !router.endIgnoringInteraction() { return "interaction is not being ignored" }
            case .scene(let edit):
                switch edit {
                case .remove(let name): try tree.remove(try id(name))
                case .move(let name, let to): try tree.move(try id(name), to: to)
                case .resize(let name, let size): try tree.resize(try id(name), to: size)
                case .raise(let name): try tree.raise(try id(name))
                case .lower(let name): try tree.lower(try id(name))
                case .place(let name, let above, let sibling):
                    if above { try tree.place(try id(name), above: try id(sibling)) } else { try tree.place(try id(name), below: try id(sibling)) }
                case .region(let name, let region): try tree.setInputRegion(try id(name), region)
                case .set(let name, let flag, let value):
                    try tree.updateProperties(try id(name)) { properties in
                        switch flag {
                        case .hidden: properties.hidden = value != 0
                        case .mapped: properties.mapped = value != 0
                        case .interaction: properties.interactionEnabled = value != 0
                        case .opacity: properties.opacity = value
                        case .acceptsFocus: properties.acceptsKeyboardFocus = value != 0
                        case .exclusiveTouch: properties.exclusiveTouch = value != 0
                        case .multipleTouch: properties.multipleTouch = value != 0
                        }
                    }
                }
            }
        } catch let error as ActionError {
            return error.message
        } catch {
            return "\(error)"
        }
        return nil
    }
}

private struct ActionError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
