import TouchRouterConfig
import TouchRouterCore
import TouchRouterReplay

/// What `msg subscribe` can ask for; each JSON line's `type` is one of these.
public enum ShellTopic: String, CaseIterable, Sendable {
    /// A recognizer's state change: name, state, values.
    case gesture
    /// A bound action that ran, and what set it off.
    case action
    /// An `emit` action's event.
    case emit
    /// The keyboard focus moved.
    case focus
    /// A client connected or disconnected.
    case client
    /// An event that every link of the fallback chain passed on.
    case unhandled
    /// A reload, and whether it worked.
    case reload
    /// The seat's idle phase changed (active, dimmed, blanked), or an inhibitor began or
    /// ended holding it: the same object `msg idle` answers.
    case idle
    /// The session locked or unlocked (ext-session-lock).
    case lock
    /// The supervised app (`run --supervise`) exited, was restarted, failed too often and
    /// the fallback ran; or a client was found hung (an unanswered ping) or answering again.
    case app

    public static let names = allCases.map(\.rawValue).joined(separator: ", ")
}

/// Where the shell's events go: the control server's subscribers.
package protocol ShellEventSink: AnyObject {
    func wants(_ topic: ShellTopic) -> Bool
    func publish(_ topic: ShellTopic, _ json: String)
}

package func gestureJSON(_ event: GestureEvent) -> String {
    let v = event.values
    var values = "\"x\":\(jsonNumber(v.location.x)),\"y\":\(jsonNumber(v.location.y)),\"translation\":[\(jsonNumber(v.translationX)),\(jsonNumber(v.translationY))],"
        + "\"velocity\":[\(jsonNumber(v.velocityX)),\(jsonNumber(v.velocityY))],\"scale\":\(jsonNumber(v.scale)),\"rotation\":\(jsonNumber(v.rotation)),"
        + "\"touches\":\(v.touches),\"tap_count\":\(v.tapCount)"
    if let edge = v.edge { values += ",\"edge\":\(jsonString(edge.rawValue))" }
    if let direction = v.direction { values += ",\"direction\":\(jsonString(direction.rawValue))" }
    return "{\"type\":\"gesture\",\"name\":\(jsonString(event.name)),\"state\":\(jsonString(event.state.rawValue)),\"time_ms\":\(jsonNumber(Double(event.time.nanoseconds) / 1_000_000)),\"values\":{\(values)}}"
}

/// The shell link (UIKit's application): takes the switches the configuration binds.
/// Touchpad gestures and keys that reach it pass on to the delegate.
package final class ShellResponder: CompositorResponder {
    package unowned let shell: ServerShell
    package init(shell: ServerShell) { self.shell = shell }

    package func respond(to event: InputEvent, at link: Responder) -> ResponderAnswer {
        if case .switchToggle(_, _, let kind, let state) = event, shell.switchToggled(kind, state) { return .handled }
        return .notHandled
    }
}

/// An output's link: a touch down or button press that no client took lands on the
/// output's background; when a `background` binding names the output, it runs, and the
/// touch's sequence stays with this responder.
package final class BackgroundResponder: CompositorResponder {
    package unowned let shell: ServerShell
    package let output: String
    package init(shell: ServerShell, output: String) {
        self.shell = shell
        self.output = output
    }

    package func respond(to event: InputEvent, at link: Responder) -> ResponderAnswer {
        switch event {
        case .touchDown, .pointerButton(_, _, _, .pressed):
            guard let binding = shell.backgroundBindings[output], shell.mayRun(binding) else { return .notHandled }
            shell.run(binding)
            return .handled
        case .touchMotion, .touchUp, .touchCancel:
            // The rest of a sequence whose down it took.
            return .handled
        default:
            return .notHandled
        }
    }
}

/// The shell delegate, the chain's last link: it tells subscribers of each event that
/// nothing took (the start of a sequence or a press; not every motion), and declines it,
/// so the router still discards it and traces it so.
package final class DelegateResponder: CompositorResponder {
    package unowned let shell: ServerShell
    package init(shell: ServerShell) { self.shell = shell }

    package func respond(to event: InputEvent, at link: Responder) -> ResponderAnswer {
        switch event {
        case .touchDown, .key(_, _, _, .pressed), .pointerButton(_, _, _, .pressed), .switchToggle,
             .swipe(_, _, .begin, _, _, _, _), .pinch(_, _, .begin, _, _, _, _, _, _), .hold(_, _, .begin, _, _):
            shell.publish(.unhandled) { "{\"type\":\"unhandled\",\"event\":\(jsonString(EventSyntax.format(event)))}" }
        default:
            break
        }
        return .notHandled
    }
}
