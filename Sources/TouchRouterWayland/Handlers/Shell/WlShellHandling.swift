import CWaylandShim
import TouchRouterCore
import TouchRouterProtocols

extension WaylandServer {
    package func outputForShellSurface(_ shellSurface: WlShellSurfaceObject) -> VirtualOutput? {
        if let surface = shellSurface.surface, surface.inTree, let id = tree.outputOf(surface.id),
           let output = outputs.first(where: { $0.id == id }) { return output }
        return outputs.first
    }

    package func shellSurfaceLabelChanged(_ shellSurface: WlShellSurfaceObject) {
        guard let surface = shellSurface.surface, surface.inTree, tree.role(of: surface.id) == .toplevel else { return }
        try? tree.setLabel(surface.id, shellSurface.label)
        protocols.foreignToplevel.windowChanged(surface)
    }

    /// On a commit with a buffer of a shell surface out of the tree: maps it as its kind.
    package func mapShellSurface(_ surface: SurfaceObject, _ shellSurface: WlShellSurfaceObject) {
        switch shellSurface.kind {
        case .unset:
            return
        case .toplevel, .fullscreen, .maximized:
            mapToplevel(surface, label: shellSurface.label)
        case .transient:
            // At (x, y) in its parent's surface, on the parent's output; where the parent is
            // not on one, as a toplevel of its own.
            guard let parent = shellSurface.parent, parent.inTree, let origin = tree.surface(parent.id)?.originInOutput,
                  let outputID = tree.outputOf(parent.id), let output = outputs.first(where: { $0.id == outputID }) else {
                mapToplevel(surface, label: shellSurface.label, focus: !shellSurface.inactive)
                return
            }
            let offset = shellSurface.offset
            mapToplevel(surface, label: shellSurface.label, output: output,
                        position: Offset(dx: origin.dx + offset.dx, dy: origin.dy + offset.dy), focus: !shellSurface.inactive)
        case .popup:
            guard let parent = shellSurface.parent, parent.inTree else { return }
            let entered = enterTree(surface, as: "popup") { client, properties throws(SurfaceTreeError) in
                try tree.addPopup(surface.id, client: client, parent: parent.id, position: shellSurface.offset,
                                  size: surface.size, properties: properties, label: "popup")
            }
            guard entered else { return }
            // A wl_shell popup always grabs: a press outside the client's surfaces ends it.
            shellSurface.grabbing = true
            router.beginClientGrab(record(for: surface.client).id) { [weak shellSurface] in
                guard let shellSurface, shellSurface.grabbing else { return }
                shellSurface.grabbing = false
                wl_shell_surface_send_popup_done(shellSurface.resource)
            }
            router.setKeyboardFocus(surface.id)
            router.dispatchAll()
        }
    }

    /// On each commit of a shell surface in the tree: a fullscreen or maximized one goes
    /// to its output's corner (the usable area's when maximized), and back once no longer.
    package func placeShellSurface(_ surface: SurfaceObject, _ shellSurface: WlShellSurfaceObject) throws(SurfaceTreeError) {
        guard tree.role(of: surface.id) == .toplevel, let position = tree.surface(surface.id)?.position else { return }
        if shellSurface.fills {
            let usable = shellSurface.kind == .fullscreen ? nil : outputForShellSurface(shellSurface).map { usableArea(of: $0) }
            let corner = Offset(dx: usable?.x ?? 0, dy: usable?.y ?? 0)
            if !shellSurface.filling {
                shellSurface.filling = true
                shellSurface.restorePosition = position
            }
            if position != corner { try tree.move(surface.id, to: corner) }
        } else if shellSurface.filling {
            shellSurface.filling = false
            if let restore = shellSurface.restorePosition, !options.kiosk, restore != position { try tree.move(surface.id, to: restore) }
            shellSurface.restorePosition = nil
        }
    }

    /// wl_shell_surface.resize, as xdg_toplevel.resize (`beginResize`): each motion sends
    /// configure with the edges and the surface grown or shrunk by the pointer's travel.
    package func beginShellResize(_ shellSurface: WlShellSurfaceObject, serial: UInt32, edges: UInt32) {
        guard !options.kiosk, let surface = shellSurface.surface, surface.inTree,
              let record = existingRecord(for: surface.client), record.buttonPressSerial == serial,
              let focus = router.pointerFocus, tree.toplevel(of: focus) == surface.id,
              let position = tree.surface(surface.id)?.position else { return }
        let size = surface.size
        let start = router.pointerPosition
        let (top, bottom, left, right) = (edges & 1 != 0, edges & 2 != 0, edges & 4 != 0, edges & 8 != 0)
        router.takePointer(from: record.id, onMotion: { [unowned self, weak shellSurface] point in
            guard let shellSurface, let surface = shellSurface.surface, surface.inTree,
                  point.x.isFinite, point.y.isFinite, abs(point.x - start.x) < 1e9, abs(point.y - start.y) < 1e9 else { return }
            let dx = Int((point.x - start.x).rounded()), dy = Int((point.y - start.y).rounded())
            let width = max(1, size.width + (right ? dx : left ? -dx : 0))
            let height = max(1, size.height + (bottom ? dy : top ? -dy : 0))
            wl_shell_surface_send_configure(shellSurface.resource, edges, Int32(clamping: width), Int32(clamping: height))
            let target = Offset(dx: left ? position.dx + size.width - width : position.dx,
                                dy: top ? position.dy + size.height - height : position.dy)
            if self.tree.surface(surface.id)?.position != target {
                do { try self.tree.move(surface.id, to: target) } catch { self.report("resizing \(surface.id): \(error)") }
            }
        }, ended: {})
    }
}
