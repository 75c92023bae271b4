import CWaylandShim
import TouchRouterCore

/// What one client may hold. A client past a limit is ended: with the protocol's own error
/// where the protocol has one, else with wl_display's implementation error, and either
/// way the message names the request and the limit. Each is far above what a toolkit
/// uses (GTK, Qt, foot and Firefox keep tens of surfaces and a few small regions), and
/// low enough that no client can make the session's one thread or its memory suffer.
public enum ClientLimits {
    /// Protocol objects of the session's own interfaces alive at once (libwayland's
    /// wl_registry and wl_callback of wl_display.sync aside).
    public static let objects = 65536
    /// Globals bound through wl_registry, over the client's life (toolkits bind each once).
    public static let globalBindings = 1024
    /// wl_pointer, wl_keyboard and wl_touch objects alive at once.
    public static let seatDevices = 256
    /// wl_surfaces alive at once.
    public static let surfaces = 4096
    /// Subsurfaces and popups stacked on one another below a toplevel: the tree is
    /// walked on every commit, and deeper trees are no use on a screen.
    public static let nestingDepth = SurfaceTree.maximumDepth
    /// Rectangles in one wl_region, after the region's own splitting: a region
    /// operation costs up to this many rectangle comparisons.
    public static let regionRectangles = 4096
    /// Rectangles in all of one client's wl_regions and in the input regions its surfaces
    /// hold (each a copy of a region).
    public static let regionRectanglesInAll = 16384
    /// wl_surface.frame callbacks waiting for the next frame.
    public static let pendingFrameCallbacks = 4096
    /// A wl_shm buffer's width and height, in pixels (the largest texture GPUs take).
    public static let bufferDimension = 16384
    /// Bytes of the client's wl_shm pools mapped into the session at once.
    public static let mappedBytes = 1 << 30
    /// Seconds a client's socket may stay full, the client reading none of its events,
    /// before it is disconnected. libwayland stops sending to a client once its socket
    /// and 4 KiB of its own are full, but keeps the client until it writes again: its
    /// windows would go on taking touches that it never hears of.
    public static let unreadSeconds = 5
    /// Bytes the session keeps of what the client's surfaces show (4 a pixel): two
    /// 3840x2160 surfaces take 64 MiB.
    public static let contentBytes = 256 << 20
    /// Rectangles in one surface's gesture deferral (touch-router-input-v1), past which the
    /// protocol's too_many_rectangles error ends the client: edge gestures test them on
    /// every touch down in an edge band, and a few rectangles describe any layout.
    public static let gestureDeferralRectangles = 32
    /// zwp_input_timestamps_v1 objects for one wl_pointer, wl_keyboard or wl_touch: each is
    /// sent an event before every event of its device, so many would multiply every motion.
    public static let timestampsPerDevice = 16
    /// zwp_relative_pointer_v1 objects one client may have: each hears every relative motion.
    public static let relativePointers = 64
    /// zwp_text_input_v3 objects one client may have: each hears every keyboard focus change.
    public static let textInputs = 64
    /// Virtual pointers and keyboards alive at once: each is a device of the router.
    public static let virtualDevices = 64
    /// Requests a virtual pointer gathers before its frame (consecutive relative motions
    /// count once): everything gathered is routed at the frame.
    public static let virtualPointerFrameRequests = 256
    /// Bytes of a virtual keyboard's keymap: xkeyboard-config's keymaps take about 60 KiB.
    public static let keymapBytes = 1 << 20
    /// MIME types one data or primary selection source may offer: each goes to every client
    /// that gets the keyboard focus while the source holds the selection.
    public static let selectionMimeTypes = 256
}

/// What a client holds, counted against `ClientLimits`.
package struct ClientUsage {
    /// For how many checks in a row its socket has been full.
    package var checksNotReading = 0

    package var objects = 0
    package var globalBindings = 0
    package var regionRectangles = 0
    package var surfaces = 0
    package var pendingFrameCallbacks = 0
    package var mappedBytes = 0
    package var contentBytes = 0
    package var virtualDevices = 0
}

extension WaylandObject {
    /// Ends this object's client for going past one of `ClientLimits`; `request` names
    /// what it asked for ("wl_compositor@3.create_surface"). libwayland cuts an error's
    /// text at 128 bytes, so the message says the limit first, and briefly; the session's
    /// log has it too, with the client's pid.
    package func endClient(_ request: String, pastLimit message: String) {
        endOwnClient("\(request): \(message)")
    }

    /// The protocol's name for this object, "interface@id", for error messages.
    package var name: String { "\(String(cString: wl_resource_get_class(resource)))@\(wl_resource_get_id(resource))" }
}
