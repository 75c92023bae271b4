/// What every kind of recognizer keeps: its state, the values it last reported (settled
/// when read: motions leave their report due, see `TouchTracker`) and the touches it
/// follows. Kept behind one `UncheckedState`, as `Router` keeps its own, so that a motion
/// pays no exclusivity check; a kind keeps its own fields the same way.
public class TrackingRecognizer: GestureRecognizer {
    struct Common {
        var state = GestureState.possible
        var values = GestureValues()
        var tracker = TouchTracker()
    }

    private let common = UncheckedState(Common())

    deinit {
        common.pointee.tracker.release()
        common.release()
    }

    override public internal(set) final var state: GestureState {
        get { common.pointee.state }
        set { common.pointee.state = newValue }
    }

    override public final var values: GestureValues {
        common.pointee.tracker.settle(&common.pointee.values)
        return common.pointee.values
    }

    /// The values as last reported, without settling a report that is due.
    final var storedValues: GestureValues {
        _read { yield common.pointee.values }
        _modify { yield &common.pointee.values }
    }

    final var tracker: TouchTracker {
        _read { yield common.pointee.tracker }
        _modify { yield &common.pointee.tracker }
    }
}
