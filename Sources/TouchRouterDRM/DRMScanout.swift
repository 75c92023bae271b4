import CDRM
#if canImport(Glibc)
import Glibc
#endif
import CDRMShim
import TouchRouterCore
import TouchRouterWayland

/// One screen: a connector driven by a CRTC in a mode, showing one of two dumb buffers while
/// the next frame is drawn into the other. A frame is flipped at vblank; until the kernel says
/// the flip is done the scanout takes no new frame, so frames are paced by the screen. Its
/// buffers go with it; the CRTC is left as it is, to whoever takes the card next.
final class DRMScanout: OutputPresenter {
    let connector: DRMConnector
    private(set) var mode: DRMMode
    let crtc: UInt32
    private(set) var transform: OutputTransform
    private let device: DRMDevice
    private var buffers: [DumbBuffer]
    /// The buffer the screen shows, or will once the pending flip completes.
    private var front = 0
    private var flipPending = false
    /// What the last frame changed, drawn into the other buffer then: the buffer drawn next
    /// is two frames old and needs it too. nil for everything.
    private var previousDamage: [PixelRect]? = nil
    /// False while the seat is away (another VT): nothing is drawn or flipped.
    var active = true
    /// Where a refused page flip is told: once when flips start failing, again once they
    /// work and fail anew, so that a screen that stopped changing says why.
    var reportFailure: ((String) -> Void)?
    private var flipFailing = false

    init(device: DRMDevice, connector: DRMConnector, mode: DRMMode, crtc: UInt32, transform: OutputTransform, background: UInt32) throws(DRMError) {
        self.device = device
        self.connector = connector
        self.mode = mode
        self.crtc = crtc
        self.transform = transform
        buffers = [try DumbBuffer(fd: device.fd, width: mode.width, height: mode.height),
                   try DumbBuffer(fd: device.fd, width: mode.width, height: mode.height)]
        for buffer in buffers { buffer.fill(background) }
        try setCRTC()
    }

    /// Points the CRTC at the front buffer in the mode (the modeset); again after a VT switch.
    func setCRTC() throws(DRMError) {
        var connectorID = connector.id
        var info = mode.info
        guard drmModeSetCrtc(device.fd, crtc, buffers[front].framebufferID, 0, 0, &connectorID, 1, &info) == 0 else {
            throw DRMError.errno("cannot set \(mode.width)x\(mode.height) on \(connector.name)")
        }
    }

    /// A new mode or transform while it runs. A new mode is a modeset onto two new buffers:
    /// refused, the screen keeps its mode and buffers, and the error says why. A transform
    /// alone draws the next frame whole, turned. Away or off, it is set when the screen is
    /// back on. A flip still on its way to an old buffer completes as usual.
    func reconfigure(mode newMode: DRMMode, transform newTransform: OutputTransform, background: UInt32) throws(DRMError) {
        defer { previousDamage = nil }
        guard !newMode.info.sameTiming(as: mode.info) else {
            transform = newTransform
            return
        }
        let fresh = [try DumbBuffer(fd: device.fd, width: newMode.width, height: newMode.height),
                     try DumbBuffer(fd: device.fd, width: newMode.width, height: newMode.height)]
        for buffer in fresh { buffer.fill(background) }
        if active && powered {
            var connectorID = connector.id
            var info = newMode.info
            guard drmModeSetCrtc(device.fd, crtc, fresh[0].framebufferID, 0, 0, &connectorID, 1, &info) == 0 else {
                throw DRMError.errno("the kernel refused \(newMode.width)x\(newMode.height)@\(Double(newMode.refreshMilliHertz) / 1000)")
            }
        }
        mode = newMode
        transform = newTransform
        buffers = fresh
        front = 0
    }

    var readyForFrame: Bool { active && powered && !flipPending }
    var frameInFlight: Bool { flipPending }

    /// False while the idle timer has the screen off: the CRTC is off and nothing flips.
    private(set) var powered = true

    /// Off, the CRTC is disabled (legacy DPMS off: no framebuffer, no connector, so the
    /// panel gets no signal); on, the mode is set again and the next frame is drawn whole.
    func setPowered(_ powered: Bool) throws {
        guard powered != self.powered else { return }
        // Away on another VT the CRTC is not ours: what is wanted is set when the seat is back.
        guard active else {
            self.powered = powered
            return
        }
        if powered {
            try setCRTC()
            flipPending = false
            previousDamage = nil
        } else {
            try turnOff()
        }
        self.powered = powered
    }

    /// Disables the CRTC (legacy DPMS off).
    func turnOff() throws(DRMError) {
        guard drmModeSetCrtc(device.fd, crtc, 0, 0, 0, nil, 0, nil) == 0 else {
            throw DRMError.errno("cannot turn off \(connector.name)'s CRTC")
        }
    }

    /// The output the session shows here: the mode as the layout sees it, turned.
    var outputMode: OutputMode {
        var outputMode = OutputMode(width: mode.width, height: mode.height, refreshMilliHertz: mode.refreshMilliHertz)
        outputMode.transform = transform
        return outputMode
    }

    var identity: OutputIdentity {
        OutputIdentity(name: connector.name, make: "DRM", model: connector.name,
                       physicalWidth: connector.physicalWidth, physicalHeight: connector.physicalHeight)
    }

    func present(_ framebuffer: Framebuffer, damage: [PixelRect]?) -> Bool {
        let back = 1 - front
        let buffer = buffers[back]
        let area: [PixelRect]? = if let damage, let previousDamage { damage + previousDamage } else { nil }
        framebuffer.copy(into: buffer.pixels, width: buffer.width, height: buffer.height, stride: buffer.stride, transform: transform, damage: area)
        previousDamage = damage
        let data = Unmanaged.passUnretained(self).toOpaque()
        guard drmModePageFlip(device.fd, crtc, buffer.framebufferID, tr_drm_page_flip_event(), data) == 0 else {
            if !flipFailing { reportFailure?("\(connector.name): the page flip was refused: \(String(cString: strerror(errno))); the screen keeps its last frame") }
            flipFailing = true
            // The next frame draws everything again, into whichever buffer.
            previousDamage = nil
            return false
        }
        flipFailing = false
        front = back
        flipPending = true
        return true
    }

    /// When the last flip completed: the kernel's vblank time, on CLOCK_MONOTONIC.
    private(set) var lastShown: RouterTime?

    var onShown: ((RouterTime?) -> Void)?

    /// The kernel never reported the flip: the next frame is drawn whole into either buffer.
    func abandonFlip() {
        flipPending = false
        previousDamage = nil
    }

    func flipCompleted(at time: RouterTime) {
        flipPending = false
        lastShown = time
        onShown?(time)
    }

    /// Called by libdrm (through the shim) for each completed page flip, with its time.
    static let flipHandler: tr_drm_flip_handler = { data, seconds, microseconds, _ in
        guard let data else { return }
        let time = RouterTime(nanoseconds: Int64(seconds) * 1_000_000_000 + Int64(microseconds) * 1000)
        Unmanaged<DRMScanout>.fromOpaque(data).takeUnretainedValue().flipCompleted(at: time)
    }
}
