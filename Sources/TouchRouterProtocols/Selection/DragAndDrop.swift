import CWaylandShim
import TouchRouterCore

// wl_data_device.start_drag, as wlroots' and Weston's data devices do it. The serial must be
// that of a button press still held, or of a touch down still down, on the origin's window;
// anything else cancels the source at once, as wlroots does. The input is then taken the way
// an interactive move takes it (InteractiveMove.swift): a pointer's drag with
// `Router.takePointer` (the client gets wl_pointer.leave and nothing until the last button
// is up), a touch's with the core's touch rejection (the client gets wl_touch.cancel, and
// the finger goes to its output's `DragResponder`). The surface under the pointer or finger
// hears enter, motion and leave on its client's data devices, with an offer of the source;
// the source hears what the target accepts and the action negotiated. With the button or
// finger up, a target that accepted a type with an action chosen gets drop, the source
// dnd_drop_performed, and later dnd_finished when the target finishes; otherwise the source
// is cancelled. Objects refer to each other weakly, and a client that is gone is told
// nothing, so the order in which libwayland destroys a dying client's resources does not
// matter.

/// A source's part in a drag.
package struct SourceDragState {
    /// wl_data_source.set_actions' actions; set once, before start_drag.
    package var actions: UInt32 = 0
    /// start_drag took the source: it cannot be used again, nor have its actions changed.
    package var used = false
    /// The current target accepted a MIME type it offers.
    package var accepted = false
    /// The action negotiated with the current target (wl_data_device_manager.dnd_action).
    package var action: UInt32 = 0
    /// The source heard dnd_finished or cancelled: nothing more is said to it.
    package var settled = false
}

/// A drag's offer: what its target said of it.
package struct OfferDragState {
    package init() {}
    package var actions: UInt32 = 0
    package var preferred: UInt32 = 0
    package var dropped = false
    package var finished = false
}

/// The seat's drag and drop in progress. It lives until its button or finger is up, even
/// when it ended earlier (its source went), so that the input stays taken until then.
package final class DragAndDrop {
    package enum Input: Equatable { case pointer, touch(TouchID) }
    package let input: Input
    /// nil once gone; `hasSource` false: a drag within the origin client, whose own
    /// surfaces only hear it (and hear no drop, as in wlroots and Weston).
    package weak var source: SelectionSource?
    package let hasSource: Bool
    package let origin: ClientID
    package weak var icon: SurfaceObject?
    /// The sum of the offsets the icon committed since the drag began, as wlroots keeps its
    /// icon's: where its top left is from the pointer or finger.
    package var iconOffset = Offset.zero
    /// Where the pointer or finger is, for the icon.
    package var position: Point<GlobalSpace>?
    /// Still offering: false once dropped, cancelled or ended by its source going.
    package var active = true
    /// A touch drag's finger reached the responder of this output.
    package var began = false
    package var responderOutput: String?
    /// The surface that heard enter, and its client.
    package var focus: SurfaceID?
    package var focusClient: OpaquePointer?
    /// The offers made at enter, one per data device of the focused client.
    package var offers: [WeakOffer] = []

    package init(input: Input, source: SelectionSource?, origin: ClientID, icon: SurfaceObject?) {
        self.input = input
        self.source = source
        hasSource = source != nil
        self.origin = origin
        self.icon = icon
    }
}

package struct WeakOffer {
    package weak var offer: SelectionOffer?
    package init(offer: SelectionOffer?) { self.offer = offer }
}

/// The action chosen from the source's and the target's, as Weston chooses it (no
/// compositor-chosen action): the target's preferred one if both allow it, else the lowest
/// bit both allow, else none.
package func chooseDragAction(source: UInt32, target: UInt32, preferred: UInt32) -> UInt32 {
    let available = source & target & 7
    guard available != 0 else { return 0 }
    if preferred & available != 0 { return preferred }
    return available & (~available &+ 1)
}

