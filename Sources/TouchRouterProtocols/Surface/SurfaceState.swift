import CWaylandShim
import TouchRouterCore

/// Buffer pixels: what wl_surface.damage_buffer and the shm contents are measured in.
package enum BufferSpace: CoordinateSpace {}

/// What a surface shows: a copy of its buffer's pixels, taken at commit where damaged, as
/// a renderer uploads them, so that the buffer can be released at once. ARGB, rows top first.
package struct SurfaceContents {
    package var width: Int
    package var height: Int
    package var pixels: [UInt32]
    /// The buffer was XRGB: its top bytes mean nothing, and it hides what is below it.
    package var opaque = false

    package var byteCount: Int { width * height * 4 }

    /// The pixel at a point of the buffer, nil outside it.
    package func pixel(atBuffer x: Int, _ y: Int) -> UInt32? {
        guard x >= 0, y >= 0, x < width, y < height else { return nil }
        return pixels[y * width + x]
    }
}

/// The double-buffered part of a wl_surface.
package struct SurfaceState {
    package var bufferAttached = false
    /// The attached buffer's size in buffer pixels; nil for a null attach.
    package var bufferSize: Size? = nil
    package var buffer: BufferReference? = nil
    package var inputRegionSet = false
    /// nil: the whole surface.
    package var inputRegion: Region<SurfaceSpace>? = nil
    package var scale: Int32 = 1
    package var transform: Int32 = 0
    package var offset = Offset.zero
    package var damage = Damage<SurfaceSpace>()
    package var bufferDamage = Damage<BufferSpace>()
    package var frameCallbacks: [FrameCallback] = []
    /// The last position each subsurface asked for, once each.
    package var subsurfacePositions: [(SubsurfaceObject, Offset)] = []
    /// touch-router-input-v1's policies (TouchInputExtension.swift).
    package var inputPolicy = InputPolicyChange()
    /// viewporter's source and destination (TouchRouterProtocols/Viewporter/).
    package var viewport = ViewportState()
    /// presentation-time's feedbacks for this commit (TouchRouterProtocols/Presentation/).
    package var presentationFeedbacks: [PresentationFeedbackObject] = []
    /// The device times of the input events this commit answers (touch_router_surface_input_v1.answer).
    package var answers: [Int64] = []

    /// The most answers one commit carries; past it the oldest go, so a client answering
    /// without committing holds a bounded list.
    package static let mostAnswers = 16

    package mutating func addAnswer(_ eventTime: Int64) {
        if answers.count >= Self.mostAnswers { answers.removeFirst(answers.count - Self.mostAnswers + 1) }
        answers.append(eventTime)
    }

    package mutating func setPosition(_ position: Offset, of subsurface: SubsurfaceObject) {
        if let i = subsurfacePositions.firstIndex(where: { $0.0 === subsurface }) {
            subsurfacePositions[i].1 = position
        } else {
            subsurfacePositions.append((subsurface, position))
        }
    }

    /// Folds a later commit's state over this one, as a synchronized subsurface caches it.
    package mutating func merge(_ later: SurfaceState) {
        if later.bufferAttached {
            bufferAttached = true
            bufferSize = later.bufferSize
            buffer = later.buffer
        }
        if later.inputRegionSet {
            inputRegionSet = true
            inputRegion = later.inputRegion
        }
        scale = later.scale
        transform = later.transform
        offset = offset.adding(later.offset)
        damage.add(later.damage)
        bufferDamage.add(later.bufferDamage)
        frameCallbacks += later.frameCallbacks
        for (subsurface, position) in later.subsurfacePositions { setPosition(position, of: subsurface) }
        inputPolicy.merge(later.inputPolicy)
        viewport.merge(later.viewport)
        presentationFeedbacks += later.presentationFeedbacks
        for answer in later.answers { addAnswer(answer) }
    }
}

/// Damaged rectangles, up to a few; past that their bounding box, as renderers do, so
/// that a client sending damage without end costs a bounded amount of memory and work.
package struct Damage<Space: CoordinateSpace> {
    package static var mostRectangles: Int { 32 }
    package private(set) var rects: [Rect<Space>] = []

    package mutating func add(_ rect: Rect<Space>) {
        guard rects.count >= Self.mostRectangles else {
            rects.append(rect)
            return
        }
        var box = rect
        for other in rects {
            let x0 = min(box.minX, other.minX), y0 = min(box.minY, other.minY)
            box = Rect(x: x0, y: y0, width: max(box.maxX, other.maxX) - x0, height: max(box.maxY, other.maxY) - y0)
        }
        rects = [box]
    }

    package mutating func add(_ other: Damage) {
        for rect in other.rects { add(rect) }
    }
}

extension Offset {
    /// The sum kept within int32, where the protocol's positions live: a client adding
    /// offsets without end moves its surface to the edge, not past what Int holds.
    package func adding(_ dx: Int32, _ dy: Int32) -> Offset { adding(Offset(dx: Int(dx), dy: Int(dy))) }

    package func adding(_ other: Offset) -> Offset {
        let range = Int(Int32.min)...Int(Int32.max)
        return Offset(dx: (dx + other.dx).clamped(to: range), dy: (dy + other.dy).clamped(to: range))
    }
}

extension Int {
    package func clamped(to range: ClosedRange<Int>) -> Int { Swift.min(Swift.max(self, range.lowerBound), range.upperBound) }
}

/// A wl_buffer the surface holds until it is done with it; forgets it if the client destroys it first.
package final class BufferReference {
    package private(set) var resource: OpaquePointer?
    private var listener: Listener?

    package init(_ resource: OpaquePointer) {
        self.resource = resource
        let listener = Listener { [weak self] _ in
            self?.resource = nil
            self?.listener?.remove()
        }
        wl_resource_add_destroy_listener(resource, listener.wlListener)
        listener.didLink()
        self.listener = listener
    }

    /// Sends wl_buffer.release: the pixels were copied at commit, so it is done with it.
    package func release() {
        if let resource { wl_buffer_send_release(resource) }
        listener?.remove()
        resource = nil
    }

    deinit { listener?.remove() }
}

package enum SurfaceRoleKind: String {
    case none, toplevel, popup, subsurface, layer = "layer surface", shellSurface = "wl_shell_surface", dndIcon = "dnd_icon"
    case lockSurface = "ext_session_lock_surface_v1"
    case x11 = "xwayland"
}
