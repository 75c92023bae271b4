import CDRM
import CDRMShim
#if canImport(Glibc)
import Glibc
#endif

public struct DRMError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }

    static func errno(_ what: String) -> DRMError { DRMError("\(what): \(String(cString: strerror(Glibc.errno)))") }
}

/// A mode a connector offers, as the kernel describes it (the session needs only these
/// numbers; the kernel's record is kept to set it).
public struct DRMMode {
    public var width: Int
    public var height: Int
    public var refreshMilliHertz: Int
    public var preferred: Bool
    let info: drmModeModeInfo
}

/// A connector with a screen on it: its name (Virtual-1, eDP-1, HDMI-A-1), its modes, and
/// the CRTCs its encoders can drive.
public struct DRMConnector {
    public var id: UInt32
    public var name: String
    public var modes: [DRMMode]
    public var physicalWidth: Int
    public var physicalHeight: Int
    /// A bit for each CRTC index of the card's resources.
    var possibleCRTCs: UInt32

    /// The mode the screen asks for, else its first.
    public var preferredMode: DRMMode? { modes.first(where: \.preferred) ?? modes.first }

    /// An eDP or DSI connector: a panel built into the machine.
    public var isBuiltIn: Bool { name.hasPrefix("eDP") || name.hasPrefix("DSI") || name.hasPrefix("LVDS") }
}

/// An open DRM card (/dev/dri/cardN) and the thin wrappers around libdrm that turn its
/// errors into throws. The descriptor comes from the caller (a seat manager opens it), who
/// also closes it.
public final class DRMDevice {
    public let fd: Int32
    public let path: String

    public init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    /// The cards in /dev/dri, in name order.
    public static func cards() -> [String] {
        guard let directory = opendir("/dev/dri") else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            if name.hasPrefix("card") { names.append("/dev/dri/" + name) }
        }
        return names.sorted()
    }

    /// The connected connectors, with their modes; CRTC ids in resource order.
    public func connectedConnectors() throws(DRMError) -> (connectors: [DRMConnector], crtcs: [UInt32]) {
        guard let resources = drmModeGetResources(fd) else {
            throw DRMError.errno("\(path) is not a KMS device (drmModeGetResources)")
        }
        defer { drmModeFreeResources(resources) }
        let crtcs = (0..<Int(resources.pointee.count_crtcs)).map { resources.pointee.crtcs[$0] }
        var connectors: [DRMConnector] = []
        for index in 0..<Int(resources.pointee.count_connectors) {
            guard let connector = drmModeGetConnector(fd, resources.pointee.connectors[index]) else { continue }
            defer { drmModeFreeConnector(connector) }
            let record = connector.pointee
            guard record.connection.rawValue == UInt32(tr_drm_connected()), record.count_modes > 0 else { continue }
            var possible: UInt32 = 0
            for e in 0..<Int(record.count_encoders) {
                guard let encoder = drmModeGetEncoder(fd, record.encoders[e]) else { continue }
                possible |= encoder.pointee.possible_crtcs
                drmModeFreeEncoder(encoder)
            }
            let typeName = drmModeGetConnectorTypeName(record.connector_type).map { String(cString: $0) } ?? "Unknown"
            let modes = (0..<Int(record.count_modes)).map { i -> DRMMode in
                let info = record.modes[i]
                return DRMMode(width: Int(info.hdisplay), height: Int(info.vdisplay), refreshMilliHertz: Self.refreshMilliHertz(info),
                               preferred: info.type & tr_drm_mode_type_preferred() != 0, info: info)
            }
            connectors.append(DRMConnector(id: record.connector_id, name: "\(typeName)-\(record.connector_type_id)", modes: modes,
                                           physicalWidth: Int(record.mmWidth), physicalHeight: Int(record.mmHeight), possibleCRTCs: possible))
        }
        return (connectors, crtcs)
    }

    /// The refresh rate in mHz from the mode's timings: pixel clock (kHz) over the pixels
    /// of a whole frame, rounded.
    static func refreshMilliHertz(_ info: drmModeModeInfo) -> Int {
        let (htotal, vtotal) = (Int(info.htotal), Int(info.vtotal))
        guard htotal > 0, vtotal > 0 else { return Int(info.vrefresh) * 1000 }
        return (Int(info.clock) * 1_000_000 / htotal + vtotal / 2) / vtotal
    }

    /// Reads the device's events, calling `flipped` with each completed flip's user data.
    func handleEvents(_ flipped: tr_drm_flip_handler) {
        _ = tr_drm_handle_events(fd, flipped)
    }
}

/// A CPU-writable buffer the CRTC can scan out: a dumb buffer, mapped, with its framebuffer id.
final class DumbBuffer {
    let width: Int
    let height: Int
    let stride: Int
    let framebufferID: UInt32
    let pixels: UnsafeMutableRawPointer
    private let handle: UInt32
    private let size: Int
    private let fd: Int32

    init(fd: Int32, width: Int, height: Int) throws(DRMError) {
        var handle: UInt32 = 0, pitch: UInt32 = 0, size: UInt64 = 0
        guard tr_drm_create_dumb(fd, UInt32(width), UInt32(height), &handle, &pitch, &size) == 0 else {
            throw DRMError.errno("cannot create a \(width)x\(height) dumb buffer")
        }
        var offset: UInt64 = 0
        guard tr_drm_map_dumb(fd, handle, &offset) == 0 else {
            let error = DRMError.errno("cannot map a dumb buffer")
            _ = tr_drm_destroy_dumb(fd, handle)
            throw error
        }
        let mapped = mmap(nil, Int(size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(offset))
        guard let mapped, mapped != MAP_FAILED else {
            let error = DRMError.errno("cannot mmap a dumb buffer")
            _ = tr_drm_destroy_dumb(fd, handle)
            throw error
        }
        var framebufferID: UInt32 = 0
        guard drmModeAddFB(fd, UInt32(width), UInt32(height), 24, 32, pitch, handle, &framebufferID) == 0 else {
            let error = DRMError.errno("cannot add a \(width)x\(height) framebuffer")
            munmap(mapped, Int(size))
            _ = tr_drm_destroy_dumb(fd, handle)
            throw error
        }
        self.fd = fd
        self.width = width
        self.height = height
        self.stride = Int(pitch)
        self.handle = handle
        self.size = Int(size)
        self.pixels = mapped
        self.framebufferID = framebufferID
    }

    deinit {
        drmModeRmFB(fd, framebufferID)
        munmap(pixels, size)
        _ = tr_drm_destroy_dumb(fd, handle)
    }

    /// Fills the buffer with one XRGB colour.
    func fill(_ color: UInt32) {
        for row in 0..<height {
            let line = (pixels + row * stride).assumingMemoryBound(to: UInt32.self)
            line.update(repeating: color, count: width)
        }
    }
}
