import CWaylandShim
import TouchRouterCore

/// A virtual output: its place in the layout, its mode, and its wl_output global.
public struct OutputMode: Sendable, Equatable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public var refreshMilliHertz: Int
    /// How the output is turned: the mode stays the panel's, the layout sees it turned.
    public var transform: OutputTransform = .normal
    /// Panel pixels for each layout pixel, each way (wl_output.scale): clients draw at it,
    /// and the layout sees the output that many times smaller. 1 to `maximumScale`.
    public var scale = 1
    public static let maximumScale = 4

    public init(width: Int, height: Int, refreshMilliHertz: Int = 60_000) {
        self.width = width
        self.height = height
        self.refreshMilliHertz = refreshMilliHertz
    }

    /// The output's size in the layout: width and height swapped for 90 and 270, divided by
    /// the scale (a panel pixel left over at a scaled edge shows the background).
    public var layoutSize: Size {
        let turned = pixelSize
        return Size(width: max(turned.width / max(scale, 1), 1), height: max(turned.height / max(scale, 1), 1))
    }

    /// The output's picture in panel pixels, turned as the layout sees it: its framebuffer.
    public var pixelSize: Size { transform.layoutSize(of: Size(width: width, height: height)) }

    /// `WxH` or `WxH@Hz`, as `touch-router run --output` takes it.
    public init?(parsing text: String) {
        guard let mode = ModeText(text) else { return nil }
        self.init(width: mode.width, height: mode.height, refreshMilliHertz: mode.refreshMilliHertz ?? 60_000)
    }

    public var description: String { "\(width)x\(height)@\(Double(refreshMilliHertz) / 1000)" }
}

/// An output's name and what it is, as wl_output tells clients.
public struct OutputIdentity: Sendable, Equatable {
    /// The connector's name (eDP-1, HDMI-A-1, Virtual-1), a host window's (WL-1), or HEADLESS-N.
    public var name: String
    public var make: String
    public var model: String
    /// The panel's size in millimetres, 0 when unknown.
    public var physicalWidth: Int
    public var physicalHeight: Int

    public init(name: String, make: String, model: String, physicalWidth: Int = 0, physicalHeight: Int = 0) {
        self.name = name
        self.make = make
        self.model = model
        self.physicalWidth = physicalWidth
        self.physicalHeight = physicalHeight
    }

    package init(headless number: Int) { self.init(name: "HEADLESS-\(number)", make: "TouchRouter", model: "virtual") }
}

package final class VirtualOutput {
    package let id: OutputID
    package let identity: OutputIdentity
    package var name: String { identity.name }
    package var rect: Rect<GlobalSpace>
    package var mode: OutputMode
    /// The mode its backend chose (the screen's preferred, or `--output`'s): what it goes
    /// back to when no `[[output]]` table names it.
    package let baseMode: OutputMode
    package var global: OpaquePointer?
    /// Removed from the session: its global is withdrawn, and destroyed after `retiredAt`.
    package var retired = false
    package var retiredAt = RouterTime.zero
    /// Every client's binding of this output, so that surfaces can say they entered it.
    /// Each client's bindings, so that one client's come and go without a search through all.
    package var bindings: [OpaquePointer: [OutputBinding]] = [:]
    /// Set while the output's global exists, which the session withdraws before it ends;
    /// not weak, so that the session has no side table (see `SeatTracker.session`).
    package unowned(unsafe) var server: (any ClientAccounting)?

    package init(id: OutputID, identity: OutputIdentity, rect: Rect<GlobalSpace>, mode: OutputMode) {
        self.id = id
        self.identity = identity
        self.rect = rect
        self.mode = mode
        baseMode = mode
    }

    /// Everything a client learns when it binds wl_output, then done.
    package func sendState(to resource: OpaquePointer) {
        let version = wl_resource_get_version(resource)
        sendGeometryAndMode(to: resource)
        if version >= 2 { wl_output_send_scale(resource, Int32(mode.scale)) }
        if version >= 4 {
            wl_output_send_name(resource, name)
            wl_output_send_description(resource, description)
        }
        if version >= 2 { wl_output_send_done(resource) }
    }

    /// Where it lies and how it is turned, and its mode: preferred when it is the backend's own.
    package func sendGeometryAndMode(to resource: OpaquePointer) {
        wl_output_send_geometry(resource, Int32(clamping: rect.x), Int32(clamping: rect.y), Int32(clamping: identity.physicalWidth), Int32(clamping: identity.physicalHeight),
                                Int32(WL_OUTPUT_SUBPIXEL_UNKNOWN.rawValue), identity.make, identity.model, mode.transform.rawValue)
        let preferred = mode.width == baseMode.width && mode.height == baseMode.height && mode.refreshMilliHertz == baseMode.refreshMilliHertz
        wl_output_send_mode(resource, WL_OUTPUT_MODE_CURRENT.rawValue | (preferred ? WL_OUTPUT_MODE_PREFERRED.rawValue : 0),
                            Int32(mode.width), Int32(mode.height), Int32(mode.refreshMilliHertz))
    }

    /// The client's bindings of this output, for wl_surface.enter.
    package func bindings(of client: OpaquePointer) -> [OpaquePointer] {
        bindings[client]?.map(\.resource) ?? []
    }

    package nonisolated(unsafe) static let table = implementation(wl_output_interface(release: destroyRequest))
}

/// One client's wl_output resource; it leaves its output's list when the client lets it go.
package final class OutputBinding: WaylandObject {
    package weak var output: VirtualOutput?
    /// Its xdg_outputs, told of changes with it.
    package var xdgOutputs: [XdgOutputObject] = []

    package override func resourceDestroyed() {
        for xdgOutput in xdgOutputs { xdgOutput.binding = nil }
        xdgOutputs.removeAll()
        output?.bindings[client]?.removeAll { $0 === self }
        if output?.bindings[client]?.isEmpty == true { output?.bindings[client] = nil }
    }
}
