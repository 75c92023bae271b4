import CPixman
import TouchRouterCore

// Outputs that a backend shows (a CRTC on the drm backend, a host window on the wayland
// backend) are composed at the session's frame clock, and each new frame is handed to the
// backend with what changed since the previous one. Outputs without a presenter stay lazy:
// composed only when something asks for their pixels.

/// Where an output's frames are shown.
public protocol OutputPresenter: AnyObject {
    /// False while the previous frame is still on its way (a page flip not yet completed):
    /// the session offers the next frame at a tick after it.
    var readyForFrame: Bool { get }
    /// Shows `framebuffer`, the output in layout orientation; `damage` is what changed since
    /// the previous present, in the framebuffer's pixels, nil for all of it. False when the
    /// screen refused it (the kernel refused the page flip, the host window could not take
    /// it): it is not shown, and the next frame is handed over whole.
    @discardableResult
    func present(_ framebuffer: Framebuffer, damage: [PixelRect]?) -> Bool
    /// When the last frame it took reached the screen (CLOCK_MONOTONIC); nil where it cannot
    /// tell, and presentation feedback then takes the frame tick's time.
    var lastShown: RouterTime? { get }
    /// Turns the screen off (DPMS: the CRTC off, its page flips stopped) or on again. Off,
    /// it is not ready for frames; on, it takes a whole frame next.
    func setPowered(_ powered: Bool) throws
    /// A frame given to the screen has not reached it yet (a page flip on its way); false for
    /// a screen off or away, which shows nothing of the session.
    var frameInFlight: Bool { get }
    /// Set by the session: called when a frame it took reached the screen, with the
    /// display's time of it (the page flip's), or nil where it cannot tell (then: now).
    var onShown: ((RouterTime?) -> Void)? { get set }
    /// The frame on its way was not reported in time: stop waiting for it, and draw the
    /// next one whole.
    func abandonFlip()
}

extension OutputPresenter {
    public var lastShown: RouterTime? { nil }
    public func setPowered(_ powered: Bool) throws {}
    public var frameInFlight: Bool { false }
    public func abandonFlip() {}
}

extension WaylandServer {
    /// Shows the output named `name` through `presenter` from the next frame on, or stops
    /// showing it (nil). An error lists the outputs when there is none such.
    public func setPresenter(_ presenter: OutputPresenter?, forOutput name: String) throws(WaylandError) {
        guard let output = outputs.first(where: { $0.name == name }) else {
            throw WaylandError("no output '\(name.prefix(64))': the outputs are \(outputs.map(\.name).joined(separator: ", "))")
        }
        let id = output.id
        // A late flip of the old presenter is not the new one's.
        protocols.output.presenters[id]?.onShown = nil
        protocols.output.presenters[id] = presenter
        protocols.output.unpresented[id] = presenter == nil ? nil : UnpresentedDamage()
        presenter?.onShown = { [unowned self] time in self.outputShown(id, at: time) }
        // A frame the old presenter had on its way will not be reported: the next deadline is armed now.
        if let frameClock = protocols.output.frameClocks[id] {
            frameClock.awaitingFlip = false
            armNextDeadline(frameClock)
        }
    }

    /// The next frame of every presented output is drawn whole (after a VT switch, when what
    /// the screens showed is unknown).
    public func redrawPresentedOutputs() {
        for id in protocols.output.presenters.keys { protocols.output.unpresented[id] = UnpresentedDamage() }
        pictureMayHaveChanged()
    }

    /// Watches a display device's descriptor (a DRM card's page-flip events, a host
    /// compositor's connection) in the session's loop.
    public func watchDisplayDevice(fd: Int32, _ readable: @escaping () -> Void) throws(WaylandError) {
        _ = try display.watch(fd: fd) { _ in readable() }
    }

    /// What became of a frame offered to a presenter.
    package enum FrameHandOver {
        /// Nothing changed since the last frame (or it could not be composed).
        case nothingNew
        case taken
        /// The screen refused it: the output is marked to be drawn whole next time.
        case refused
    }

    /// Composes `output` and hands the frame to `presenter` if anything changed since its
    /// last one.
    package func presentFrame(of output: VirtualOutput, to presenter: OutputPresenter) -> FrameHandOver {
        if protocols.output.power[output.id] == .off {
            // Blanked to black (a screen left powered): one black frame, then nothing.
            guard protocols.output.unpresented[output.id]?.isEmpty == false else { return .nothingNew }
            protocols.output.unpresented[output.id] = UnpresentedDamage(all: false)
            return handOver(presenter.present(Framebuffer(width: output.mode.pixelSize.width, height: output.mode.pixelSize.height), damage: nil), output.id)
        }
        do {
            let (_, framebuffer) = try compose(output: output.name)
            guard let damage = protocols.output.unpresented[output.id], !damage.isEmpty else { return .nothingNew }
            protocols.output.unpresented[output.id] = UnpresentedDamage(all: false)
            return handOver(presenter.present(framebuffer, damage: damage.all ? nil : damage.rects), output.id)
        } catch {
            report("output \(output.name): cannot compose a frame: \(error)")
            return .nothingNew
        }
    }

    private func handOver(_ taken: Bool, _ id: OutputID) -> FrameHandOver {
        guard !taken else { return .taken }
        protocols.output.unpresented[id] = UnpresentedDamage()
        return .refused
    }
}

extension Framebuffer {
    /// Copies the framebuffer (layout orientation) into a panel's pixels, turned as the
    /// output's transform says, the same way a touch on that panel is turned into the layout
    /// (`OutputTransform.apply`). `damage` limits it to what changed, in layout pixels.
    /// `target` holds `height` rows of `stride` bytes of XRGB8888, `width` pixels each.
    public func copy(into target: UnsafeMutableRawPointer, width panelWidth: Int, height panelHeight: Int, stride: Int,
                     transform: OutputTransform, damage: [PixelRect]?) {
        let layout = transform.layoutSize(of: Size(width: panelWidth, height: panelHeight))
        guard layout.width == width, layout.height == height, stride >= panelWidth * 4 else { return }
        let panelRects = damage.map { rects in rects.map { panelRect(of: $0, transform: transform, panelWidth: panelWidth, panelHeight: panelHeight) } }
            ?? [PixelRect(x: 0, y: 0, width: panelWidth, height: panelHeight)]
        pixels.withUnsafeMutableBufferPointer { source in
            guard let sourceImage = pixman_image_create_bits_no_clear(PIXMAN_x8r8g8b8, Int32(width), Int32(height), source.baseAddress, Int32(width * 4)),
                  let targetImage = pixman_image_create_bits_no_clear(PIXMAN_x8r8g8b8, Int32(panelWidth), Int32(panelHeight),
                                                                      target.assumingMemoryBound(to: UInt32.self), Int32(stride)) else { return }
            defer {
                pixman_image_unref(sourceImage)
                pixman_image_unref(targetImage)
            }
            if transform != .normal {
                // A panel pixel's centre maps to the centre of the layout pixel it shows.
                var pixmanTransform = SoftwareComposer.pixmanTransform(from: (Double(panelWidth), Double(panelHeight)), to: (Double(width), Double(height))) { transform.apply($0, $1) }
                pixman_image_set_transform(sourceImage, &pixmanTransform)
            }
            for rect in panelRects where !rect.isEmpty {
                pixman_image_composite32(PIXMAN_OP_SRC, sourceImage, nil, targetImage, Int32(rect.x), Int32(rect.y), 0, 0,
                                         Int32(rect.x), Int32(rect.y), Int32(rect.width), Int32(rect.height))
            }
        }
    }

    /// The panel pixels that show a rectangle of layout pixels.
    private func panelRect(of rect: PixelRect, transform: OutputTransform, panelWidth: Int, panelHeight: Int) -> PixelRect {
        let corners = [(rect.x, rect.y), (rect.x + rect.width, rect.y + rect.height)].map { corner in
            transform.unapply(Double(corner.0) / Double(width), Double(corner.1) / Double(height))
        }
        let xs = corners.map { ($0.u * Double(panelWidth)).rounded() }, ys = corners.map { ($0.v * Double(panelHeight)).rounded() }
        let left = Int(max(xs.min()!, 0)), top = Int(max(ys.min()!, 0))
        let right = Int(min(xs.max()!, Double(panelWidth))), bottom = Int(min(ys.max()!, Double(panelHeight)))
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }
}
