import TouchRouterCore

/// The seat's clipboard and primary selection with the devices that hear them (Clipboard.swift),
/// and its drag and drop while one lasts (DragAndDrop.swift).

/// What data devices, sources and offers may ask of the server: the seat's selections and
/// drag and drop are the server's (Clipboard.swift's and DragAndDrop.swift's server side).
package protocol SelectionHandler: AnyObject {
    var selectionState: SelectionState { get }
    /// A new device: it hears the selection at once if its client has the keyboard focus.
    func selectionDeviceCreated(_ device: SelectionDevice)
    /// The client is still connected (its record not yet let go).
    func clientIsLive(_ client: OpaquePointer) -> Bool
    func setSelection(_ source: SelectionSource?, kind: SelectionKind, serial: UInt32)
    func selectionSourceDestroyed(_ source: SelectionSource)
    func startDrag(_ device: SelectionDevice, source: SelectionSource?, origin: SurfaceObject, icon: SurfaceObject?, serial: UInt32)
    func dragOfferAccept(_ offer: SelectionOffer, _ mimeType: UnsafePointer<CChar>?)
    func dragOfferSetActions(_ offer: SelectionOffer, actions: UInt32, preferred: UInt32)
    func dragOfferFinish(_ offer: SelectionOffer)
    func dragOfferDestroyed(_ offer: SelectionOffer)
}

package final class SelectionState {
    package init() {}
    package let selections = SeatSelections()
    /// From start_drag until its pointer button or finger is up.
    package var dragAndDrop: DragAndDrop?
}
