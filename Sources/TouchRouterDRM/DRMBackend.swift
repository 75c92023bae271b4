import CDRM
import CDRMShim
import TouchRouterCore
import TouchRouterWayland

/// `--output` on the drm backend: `[NAME:]WxH[@Hz][,transform=T]`. With a name it is for that
/// connector; without, the Nth such option is for the Nth connected screen.
public struct DRMOutputRequest: Equatable {
    public var connector: String?
    public var mode: OutputMode

    public static func parse(option text: String) throws(OutputOptionError) -> DRMOutputRequest {
        let head = text.split(separator: ",", maxSplits: 1).first.map(String.init) ?? text
        guard let colon = head.firstIndex(of: ":") else { return DRMOutputRequest(connector: nil, mode: try OutputMode.parse(option: text)) }
        let name = String(head[..<colon])
        guard !name.isEmpty, name.count <= 32 else { throw OutputOptionError("--output \(text.prefix(80)): expected a connector name before ':', such as HDMI-A-1") }
        return DRMOutputRequest(connector: name, mode: try OutputMode.parse(option: String(text[text.index(after: colon)...])))
    }
}

/// The drm backend: every connected screen of one card an output, in the mode it prefers or
/// the one `--output` asks for, composed by the session and flipped at vblank. The modes
/// are set when it is made, before the session exists, so that the session's outputs are
/// what the screens really show.
public final class DRMBackend {
    public let device: DRMDevice
    /// The outputs for the session's options, in connector order.
    public let outputs: [(identity: OutputIdentity, mode: OutputMode)]
    private var scanouts: [DRMScanout] = []
    private weak var server: WaylandServer?
    private let requests: [DRMOutputRequest]
    private var monitor: ConnectorMonitor?

    /// Finds the card's screens and sets their modes; `warn` hears what was not as asked.
    public init(device: DRMDevice, requests: [DRMOutputRequest], warn: (String) -> Void) throws(DRMError) {
        self.device = device
        self.requests = requests
        let (connectors, crtcs) = try device.connectedConnectors()
        guard !connectors.isEmpty else { throw DRMError("no screen is connected to \(device.path)") }
        for request in requests {
            if let name = request.connector, !connectors.contains(where: { $0.name == name }) {
                throw DRMError("--output \(name): no such connected screen on \(device.path): the screens are \(connectors.map(\.name).joined(separator: ", "))")
            }
        }
        let unnamed = requests.filter { $0.connector == nil }
        for (index, connector) in connectors.enumerated() {
            let request = requests.first { $0.connector == connector.name } ?? (index < unnamed.count ? unnamed[index] : nil)
            guard let scanout = try Self.drive(connector, wanted: request?.mode, device: device, crtcs: crtcs, busy: Set(scanouts.map(\.crtc)), warn: warn) else { continue }
            scanouts.append(scanout)
        }
        let outputs = scanouts.map { ($0.identity, $0.outputMode) }
        guard !outputs.isEmpty else { throw DRMError("no screen of \(device.path) can be driven: no free CRTC") }
        self.outputs = outputs
    }

    /// Drives `connector` in the mode closest to `wanted`, from a CRTC its encoders reach that
    /// none of `busy` is; a mode the kernel refuses falls back to the preferred one, with a
    /// warning. nil, warned, when no CRTC is free.
    static func drive(_ connector: DRMConnector, wanted: OutputMode?, device: DRMDevice, crtcs: [UInt32], busy: Set<UInt32>,
                      warn: (String) -> Void) throws(DRMError) -> DRMScanout? {
        guard let crtcIndex = crtcs.indices.first(where: { connector.possibleCRTCs & (1 << UInt32($0)) != 0 && !busy.contains(crtcs[$0]) }) else {
            warn("\(connector.name): no free CRTC to drive it; it stays dark")
            return nil
        }
        let transform = wanted?.transform ?? .normal
        let mode = Self.mode(for: wanted, on: connector, warn: warn)
        do {
            return try DRMScanout(device: device, connector: connector, mode: mode, crtc: crtcs[crtcIndex], transform: transform,
                                  background: SoftwareComposer.background)
        } catch {
            guard let preferred = connector.preferredMode, !preferred.info.sameTiming(as: mode.info) else { throw error }
            warn("\(error); falling back to \(connector.name)'s preferred mode \(preferred.width)x\(preferred.height)")
            return try DRMScanout(device: device, connector: connector, mode: preferred, crtc: crtcs[crtcIndex], transform: transform,
                                  background: SoftwareComposer.background)
        }
    }

    /// The connector's mode closest to what was asked (the same size, the nearest refresh),
    /// else its preferred one, with a warning naming both.
    static func mode(for wanted: OutputMode?, on connector: DRMConnector, warn: (String) -> Void) -> DRMMode {
        let preferred = connector.preferredMode!
        guard let wanted else { return preferred }
        guard let best = connector.mode(nearest: wanted) else {
            warn("\(connector.name) has no mode \(wanted.width)x\(wanted.height); using its preferred \(preferred.width)x\(preferred.height)")
            return preferred
        }
        return best
    }

    /// Shows each output through its scanout from the next frame on, and reads the card's
    /// page-flip events in the session's loop.
    public func attach(to server: WaylandServer) throws(WaylandError) {
        self.server = server
        for (scanout, output) in zip(scanouts, outputs) {
            scanout.reportFailure = { [unowned(unsafe) server] in server.report($0) }
            try server.setPresenter(scanout, forOutput: output.identity.name)
        }
        server.outputModeSetter = self
        try server.watchDisplayDevice(fd: device.fd) { [unowned self] in
            self.device.handleEvents(DRMScanout.flipHandler)
        }
        do {
            let monitor = try ConnectorMonitor(card: device.path)
            self.monitor = monitor
            try server.watchDisplayDevice(fd: monitor.fd) { [unowned self] in
                if monitor.connectorsChanged() { self.rescan() }
            }
        } catch {
            server.report("\(error): screens plugged in or out later are not seen")
        }
    }

    /// The card's connectors changed: a screen that went takes its output with it (its
    /// windows move to one that stays; the last stays in the session, dark); a screen that
    /// came is driven in its preferred mode, or the one `--output` asked for it, as a new output.
    func rescan() {
        guard let server else { return }
        let connectors: [DRMConnector], crtcs: [UInt32]
        do { (connectors, crtcs) = try device.connectedConnectors() } catch {
            server.report("\(error)")
            return
        }
        let present = Set(connectors.map(\.id))
        for scanout in scanouts where !present.contains(scanout.connector.id) {
            let name = scanout.connector.name
            try? server.setPresenter(nil, forOutput: name)
            do { try server.removeOutput(named: name) } catch { server.report("\(name) is disconnected and stays dark: \(error)") }
            scanouts.removeAll { $0 === scanout }
        }
        for connector in connectors where !scanouts.contains(where: { $0.connector.id == connector.id }) {
            // A screen coming back to the output it left (kept, dark, as the last one) keeps its size.
            let kept = server.outputModes[connector.name]
            let wanted = kept ?? requests.first { $0.connector == connector.name }?.mode
            do {
                guard let scanout = try Self.drive(connector, wanted: wanted, device: device, crtcs: crtcs, busy: Set(scanouts.map(\.crtc)),
                                                   warn: { server.report($0) }) else { continue }
                // Listed before the output is added: its `[[output]]` table sets its mode then.
                scanouts.append(scanout)
                do {
                    if kept == nil { try server.addOutput(scanout.identity, mode: scanout.outputMode) }
                } catch {
                    scanouts.removeAll { $0 === scanout }
                    throw error
                }
                scanout.reportFailure = { [unowned(unsafe) server] in server.report($0) }
                try server.setPresenter(scanout, forOutput: connector.name)
            } catch {
                server.report("\(connector.name): \(error)")
            }
        }
    }

    /// The seat went away (a VT switch): nothing is drawn until `resume`.
    public func pause() {
        for scanout in scanouts { scanout.active = false }
        server?.report("the seat went away (a VT switch): \(device.path) is not drawn until it comes back")
    }

    /// The seat is back: each CRTC is set again and the next frame draws everything.
    public func resume() {
        for scanout in scanouts {
            scanout.active = true
            // A screen the idle timer turned off stays off until input wakes it.
            do { try scanout.powered ? scanout.setCRTC() : scanout.turnOff() } catch { server?.report("\(error)") }
        }
        server?.redrawPresentedOutputs()
        server?.report("the seat is back: \(device.path) drawn again")
    }
}

/// `msg output set` and `[[output]]` on a screen: the mode is one of the connector's (the
/// same size, the refresh nearest the one asked), else refused with the sizes it has.
extension DRMBackend: OutputModeSetter {
    public func setMode(_ wanted: OutputMode, onOutput name: String) throws -> OutputMode {
        guard let scanout = scanouts.first(where: { $0.connector.name == name }) else {
            throw DRMError("\(name) is not a screen of \(device.path)")
        }
        guard let mode = scanout.connector.mode(nearest: wanted) else {
            var sizes: [String] = []
            for mode in scanout.connector.modes where !sizes.contains("\(mode.width)x\(mode.height)") { sizes.append("\(mode.width)x\(mode.height)") }
            // The session names the output before this.
            throw DRMError("no mode \(wanted.width)x\(wanted.height): its modes are \(sizes.prefix(24).joined(separator: ", "))")
        }
        try scanout.reconfigure(mode: mode, transform: wanted.transform, background: SoftwareComposer.background)
        // The scale is the layout's, not the screen's: the panel shows the same pixels.
        var set = scanout.outputMode
        set.scale = wanted.scale
        return set
    }
}

extension DRMConnector {
    /// Its mode of `wanted`'s size with the refresh nearest `wanted`'s; nil when it has none of that size.
    func mode(nearest wanted: OutputMode) -> DRMMode? {
        modes.filter { $0.width == wanted.width && $0.height == wanted.height }
            .min { abs($0.refreshMilliHertz - wanted.refreshMilliHertz) < abs($1.refreshMilliHertz - wanted.refreshMilliHertz) }
    }
}

extension drmModeModeInfo {
    /// The same size, pixel clock, refresh and flags: the same mode for the kernel.
    func sameTiming(as other: drmModeModeInfo) -> Bool {
        hdisplay == other.hdisplay && vdisplay == other.vdisplay && clock == other.clock && vrefresh == other.vrefresh && flags == other.flags
    }
}
