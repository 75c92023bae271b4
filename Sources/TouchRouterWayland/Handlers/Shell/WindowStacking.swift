import TouchRouterCore

// xdg_toplevel.set_parent (or an X11 window's WM_TRANSIENT_FOR): a child window (a dialog)
// stays above its parent. Raising a window raises the windows whose parent chain leads to it
// after it, in the order they were stacked, and a window given a parent it lies below is
// raised over it.

extension WaylandServer {
    /// Raises a toplevel on its output, then its descendants over it.
    package func raiseWindow(_ id: SurfaceID) {
        try? tree.raise(id)
        raiseDescendants(of: id)
    }

    /// A toplevel just given `parent`: raised with its own descendants if it lies below it.
    package func keepAboveParent(_ child: XdgToplevelObject) {
        guard let childID = child.xdgSurface?.surface?.id, let parentID = child.parent?.xdgSurface?.surface?.id,
              let output = tree.outputOf(childID), tree.outputOf(parentID) == output,
              let stack = tree.output(output)?.toplevels,
              let childPlace = stack.firstIndex(of: childID), let parentPlace = stack.firstIndex(of: parentID),
              childPlace < parentPlace else { return }
        raiseWindow(childID)
    }

    private func raiseDescendants(of id: SurfaceID) {
        guard let surface = protocols.surface.surfaces[id], let output = tree.outputOf(id),
              let stack = tree.output(output)?.toplevels else { return }
        if let ancestor = surface.xdgSurface?.toplevel {
            for other in stack where other != id && Self.descends(protocols.surface.surfaces[other]?.xdgSurface?.toplevel, from: ancestor) {
                try? tree.raise(other)
            }
        } else if let ancestor = surface.x11 {
            // An X11 dialog (WM_TRANSIENT_FOR) stays above the window it belongs to.
            for other in stack where other != id && Self.descends(protocols.surface.surfaces[other]?.x11, from: ancestor) {
                try? tree.raise(other)
            }
        }
    }

    /// WM_TRANSIENT_FOR is an X11 client's to set, cycles included: the walk stops after 32 steps.
    private static func descends(_ window: X11Surface?, from ancestor: X11Surface) -> Bool {
        var next = window?.transientFor
        for _ in 0..<32 {
            guard let parent = next else { return false }
            if parent === ancestor { return true }
            next = parent.transientFor
        }
        return false
    }

    /// Parent chains are acyclic (`setParent` refuses a cycle), so the walk ends.
    private static func descends(_ toplevel: XdgToplevelObject?, from ancestor: XdgToplevelObject) -> Bool {
        var next = toplevel?.parent
        while let parent = next {
            if parent === ancestor { return true }
            next = parent.parent
        }
        return false
    }
}
