import Foundation
import Testing
import TouchRouterCore
import TouchRouterWayland

/// SplitMix64: a small generator whose sequence depends on its seed alone.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// What a random client holds, as it sent it: each wl_surface and the role objects on it.
/// Every request the property test sends is valid for this state, so a protocol error is a
/// finding, not noise.
final class ModelSurface {
    enum Role {
        case none
        case toplevel(xdgSurface: Proxy, toplevel: Proxy)
        case popup(xdgSurface: Proxy, popup: Proxy, parent: ModelSurface)
        case layer(Proxy)
        case subsurface(Proxy, parent: ModelSurface?)
    }

    let surface: Proxy
    var role = Role.none
    /// A buffer was ever attached: it can no longer take an xdg or layer role.
    var everAttached = false
    /// The latest commit left a buffer on it.
    var showsBuffer = false
    /// An xdg toplevel that was mapped (it stays in the core's tree, unmapped or not, until
    /// it goes), or a layer surface mapped now.
    var inTree = false
    /// A layer surface committed since it was made or unmapped: a configure is on its way.
    var committedOnce = false
    var ackedSerial: UInt32 = 0
    /// Popups and subsurfaces on it.
    var children: [ModelSurface] = []
    weak var parent: ModelSurface?

    init(_ surface: Proxy) { self.surface = surface }

    var xdgSurface: Proxy? {
        switch role {
        case .toplevel(let xdg, _), .popup(let xdg, _, _): xdg
        default: nil
        }
    }

    var isToplevel: Bool { if case .toplevel = role { true } else { false } }
    var isPopup: Bool { if case .popup = role { true } else { false } }
    var isLayer: Bool { if case .layer = role { true } else { false } }
    var hasRole: Bool { if case .none = role { false } else { true } }

    /// How deep it sits under its root, through subsurface and popup parents.
    var depth: Int { parent.map { $0.depth + 1 } ?? 0 }
}

/// One connected random client and its objects.
final class ModelClient {
    let client: WireClient
    let keyboard: Proxy
    let dataDevice: Proxy
    var surfaces: [ModelSurface] = []
    var sources: [Proxy] = []

    init(_ fixture: ProtocolFixture, name: String) throws {
        client = try fixture.connect(name)
        let seat = try client.seat
        keyboard = try #require(client.request(seat, "get_keyboard"))
        client.request(seat, "get_pointer")
        client.request(seat, "get_touch")
        dataDevice = try #require(client.request(try client.global("wl_data_device_manager", version: 3), "get_data_device", seat))
        try fixture.roundtrip(client)
    }

    var xdgToplevelsInTree: Int { surfaces.filter { $0.isToplevel && $0.inTree }.count }
    var xdgToplevelsShown: Int { surfaces.filter { $0.isToplevel && $0.inTree && $0.showsBuffer }.count }
    var layersInTree: Int { surfaces.filter { $0.isLayer && $0.inTree }.count }

    /// Destroys a surface as a client must: its popups first, topmost first, then its role
    /// objects, then the wl_surface. Its subsurfaces stay, orphaned.
    func destroy(_ model: ModelSurface) {
        for child in model.children.reversed() {
            if child.isPopup { destroy(child) } else { child.parent = nil }
        }
        model.children.removeAll()
        switch model.role {
        case .toplevel(let xdg, let toplevel):
            client.request(toplevel, "destroy")
            client.request(xdg, "destroy")
        case .popup(let xdg, let popup, _):
            client.request(popup, "destroy")
            client.request(xdg, "destroy")
        case .layer(let layer):
            client.request(layer, "destroy")
        case .subsurface(let subsurface, _):
            client.request(subsurface, "destroy")
        case .none:
            break
        }
        client.request(model.surface, "destroy")
        model.parent?.children.removeAll { $0 === model }
        surfaces.removeAll { $0 === model }
    }

    /// The latest configure serial of an xdg surface or layer surface not yet acked, if one came.
    func unackedSerial(_ model: ModelSurface) -> UInt32? {
        let serial: UInt32?
        switch model.role {
        case .toplevel(let xdg, _), .popup(let xdg, _, _): serial = client.events(of: xdg, named: "configure").last?.uint(0)
        case .layer(let layer): serial = client.events(of: layer, named: "configure").last?.uint(0)
        default: serial = nil
        }
        guard let serial, serial != model.ackedSerial else { return nil }
        return serial
    }

    /// The latest keyboard serial it was sent (enter or leave), for set_selection.
    var latestKeyboardSerial: UInt32 {
        client.events(of: keyboard).last { $0.name == "enter" || $0.name == "leave" }?.uint(0) ?? 0
    }
}
