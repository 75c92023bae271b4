import TouchRouterCore

/// The seat's clipboard and primary selection with the devices that hear them (Clipboard.swift),
/// and its drag and drop while one lasts (DragAndDrop.swift).
final class SelectionState {
    let selections = SeatSelections()
    /// From start_drag until its pointer button or finger is up.
    var dragAndDrop: DragAndDrop?
}
