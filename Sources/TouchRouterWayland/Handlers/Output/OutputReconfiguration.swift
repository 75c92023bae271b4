import CWaylandShim
import TouchRouterConfig
import TouchRouterCore

// Outputs reconfigured while the session runs: `msg output set`, and `[[output]]` tables,
// applied once the display backend is attached, to each output that appears, and again on
// every reload. A new mode or transform is set on the screen first (on drm a modeset, the
// mode checked against the connector's list; a refusal keeps the old one and says why); then
// the layout follows: the output's rectangle, the outputs right of it, the hit test, the
// touchscreen mappings, fingers down on it (cancelled), its clients (wl_output and xdg_output
// events, windows filling it configured again, layer surfaces arranged again, lock surfaces
// configured again). Windows that do not fill it keep their place, pulled back inside it.

/// What `msg output set` or an `[[output]]` table changes of an output: nil keeps it.
public struct OutputChange: Sendable, Equatable {
    public var mode: ModeText?
    public var transform: OutputTransform?
    public var scale: Int?
    /// How long before each vblank the output composes, as sway's `max_render_time`.
    public var frameMargin: FrameMarginSetting?

    public init(mode: ModeText? = nil, transform: OutputTransform? = nil, scale: Int? = nil, frameMargin: FrameMarginSetting? = nil) {
        self.mode = mode
        self.transform = transform
        self.scale = scale
        self.frameMargin = frameMargin
    }

    /// Whether it changes the mode, the transform or the scale, not only the frame margin.
    public var changesMode: Bool { mode != nil || transform != nil || scale != nil }

    public init(rule: OutputRule) {
        if let width = rule.width, let height = rule.height {
            mode = ModeText("\(width)x\(height)")
            mode?.refreshMilliHertz = rule.refreshMilliHertz
        }
        transform = rule.transform
        scale = rule.scale
    }

    public static let syntax = "set NAME [mode WxH[@Hz]] [transform \(OutputTransform.names.joined(separator: "|"))] [scale 1-\(OutputMode.maximumScale)] [frame-margin MS|measured]"

    /// `mode WxH[@Hz]`, `transform T`, `scale N` and `frame-margin MS|measured`, in any order,
    /// each at most once, at least one.
    public static func parse(_ words: [Substring]) throws(OutputOptionError) -> OutputChange {
        var change = OutputChange()
        var seen: Set<Substring> = []
        var rest = words[...]
        guard !rest.isEmpty else { throw OutputOptionError("nothing to set: expected \(syntax)") }
        while let key = rest.popFirst() {
            guard let value = rest.popFirst() else { throw OutputOptionError("'\(key.prefix(32))' has no value: expected \(syntax)") }
            guard seen.insert(key).inserted else { throw OutputOptionError("\(key.prefix(32)) is given twice: expected it once") }
            switch key {
            case "mode":
                guard let mode = ModeText(String(value)) else { throw OutputOptionError("mode '\(value.prefix(64))': expected \(ModeText.expected)") }
                change.mode = mode
            case "transform":
                guard let transform = OutputTransform(name: String(value)) else {
                    throw OutputOptionError("transform '\(value.prefix(64))': expected one of \(OutputTransform.names.joined(separator: ", "))")
                }
                change.transform = transform
            case "scale":
                guard let scale = Int(value), (1...OutputMode.maximumScale).contains(scale) else {
                    throw OutputOptionError("scale '\(value.prefix(64))': expected a whole number from 1 to \(OutputMode.maximumScale)")
                }
                change.scale = scale
            case "frame-margin":
                if value == "measured" {
                    change.frameMargin = .measured
                } else if let ms = Double(value), OutputRule.frameMarginMilliseconds.contains(ms) {
                    change.frameMargin = .fixed(nanoseconds: Int64((ms * 1_000_000).rounded()))
                } else {
                    throw OutputOptionError("frame-margin '\(value.prefix(64))': expected milliseconds from 0.1 to 1000, or measured")
                }
            default:
                throw OutputOptionError("unknown setting '\(key.prefix(32))': expected mode, transform, scale or frame-margin")
            }
        }
        return change
    }

    /// The frame margin `msg output set` fixes, or gives back to measuring.
    public enum FrameMarginSetting: Sendable, Equatable {
        case fixed(nanoseconds: Int64)
        case measured

        var configuredMargin: Int64? {
            if case .fixed(let nanoseconds) = self { nanoseconds } else { nil }
        }
    }

    /// `base` changed: a mode with no refresh keeps the base's for the base's size, else 60 Hz.
    public func applied(to base: OutputMode) -> OutputMode {
        var result = base
        if let mode {
            let sameSize = mode.width == base.width && mode.height == base.height
            result.width = mode.width
            result.height = mode.height
            result.refreshMilliHertz = mode.refreshMilliHertz ?? (sameSize ? base.refreshMilliHertz : 60_000)
        }
        if let transform { result.transform = transform }
        if let scale { result.scale = scale }
        return result
    }
}

/// The backend that shows an output sets its modes: the drm backend by a modeset, the
/// wayland backend not at all (its outputs are the host's windows). Without one (headless)
/// any mode is taken as asked.
public protocol OutputModeSetter: AnyObject {
    /// Sets `mode` (its size, refresh and transform) on the screen showing the output named
    /// `name`, checked first; returns the mode set (the refresh the screen has nearest the one
    /// asked). Throws, the screen left as it was, saying why.
    func setMode(_ mode: OutputMode, onOutput name: String) throws -> OutputMode
}

extension WaylandServer {
    public var outputModeSetter: (any OutputModeSetter)? {
        get { protocols.output.modeSetter }
        set { protocols.output.modeSetter = newValue }
    }

    /// `msg output set`: changes the output's mode, transform, scale or frame margin; returns
    /// what it is now. The frame margin holds until the next reload, as the mode does.
    @discardableResult
    public func setOutput(named name: String, _ change: OutputChange) throws(WaylandError) -> OutputMode {
        guard let output = outputs.first(where: { $0.name == name && !$0.retired }) else {
            throw WaylandError("no output '\(name.prefix(64))': the outputs are \(outputs.map(\.name).joined(separator: ", "))")
        }
        let mode = change.changesMode ? try setMode(change.applied(to: output.mode), of: output) : output.mode
        if let margin = change.frameMargin { protocols.output.frameClocks[output.id]?.schedule.configuredMargin = margin.configuredMargin }
        return mode
    }

    /// How long before its vblanks `name` composes now, nanoseconds.
    public func frameMargin(ofOutput name: String) -> Int64? {
        outputs.first { $0.name == name && !$0.retired }.flatMap { protocols.output.frameClocks[$0.id]?.schedule.margin }
    }

    /// From now on `[[output]]` tables apply (the display backend is attached, so that a
    /// mode is set on the screen, not only in the layout); they apply now, each problem reported.
    public func startApplyingOutputRules() {
        protocols.output.rulesApply = true
        for problem in applyOutputRules(shell.configuration.outputs) { report(problem) }
    }

    /// Makes each output what its table says over its backend's choice, or the backend's
    /// choice where no table names it; returns what could not be set, each saying why.
    package func applyOutputRules(_ rules: [OutputRule]) -> [String] {
        guard protocols.output.rulesApply else { return [] }
        var problems: [String] = []
        for output in outputs where !output.retired {
            let rule = rules.first { $0.name == output.name }
            protocols.output.frameClocks[output.id]?.schedule.configuredMargin = rule?.frameMargin
            let wanted = rule.map { OutputChange(rule: $0).applied(to: output.baseMode) } ?? output.baseMode
            do { try setMode(wanted, of: output) } catch {
                problems.append(rule.map { "[[output]] \"\($0.name)\" at line \($0.position.line): \(error)" } ?? "\(error)")
            }
        }
        return problems
    }

    /// A new output's table, if it has one, applies as it appears.
    package func applyOutputRule(to output: VirtualOutput) {
        guard protocols.output.rulesApply, let rule = shell?.configuration.outputs.first(where: { $0.name == output.name }) else { return }
        protocols.output.frameClocks[output.id]?.schedule.configuredMargin = rule.frameMargin
        do { try setMode(OutputChange(rule: rule).applied(to: output.baseMode), of: output) } catch {
            report("[[output]] \"\(rule.name)\" at line \(rule.position.line): \(error)")
        }
    }

    @discardableResult
    package func setMode(_ wanted: OutputMode, of output: VirtualOutput) throws(WaylandError) -> OutputMode {
        guard wanted != output.mode else { return output.mode }
        var mode = wanted
        if let setter = protocols.output.modeSetter {
            do { mode = try setter.setMode(wanted, onOutput: output.name) } catch {
                throw WaylandError("\(output.name): \(error); it keeps \(output.mode), transform \(output.mode.transform), scale \(output.mode.scale)")
            }
        }
        let (old, oldMode) = (output.rect, output.mode)
        // The screen's nearest refresh may be the one it has: nothing changes, no finger is cancelled.
        guard mode != oldMode else { return mode }
        output.mode = mode
        output.rect = Rect(origin: old.origin, size: mode.layoutSize)
        // Outputs right of it move with its right edge, keeping any gap between them.
        var changed = [output]
        let shift = output.rect.width - old.width
        if shift != 0 {
            for other in outputs where other !== output && !other.retired && other.rect.x >= old.x + old.width {
                other.rect = Rect(x: other.rect.x + shift, y: other.rect.y, width: other.rect.width, height: other.rect.height)
                changed.append(other)
            }
        }
        for moved in changed {
            do { try tree.setOutputRect(moved.id, moved.rect) } catch { report("output \(moved.name): \(error)") }
            router.outputReconfigured(moved.id)
            moved.sendChangedState()
        }
        if mode.scale != oldMode.scale {
            protocols.fractionalScale.outputScalesChanged { [unowned self] surface in
                self.tree.outputOf(surface.id) == output.id ? mode.scale : nil
            }
        }
        protocols.output.composers[output.id] = nil
        if protocols.output.unpresented[output.id] != nil { protocols.output.unpresented[output.id] = UnpresentedDamage() }
        pictureMayHaveChanged()
        protocols.layerShell.needsArranging(output.id)
        arrangeWaitingLayers()
        refitWindows(on: output)
        protocols.sessionLock.outputChanged(output.id, handler: self)
        report("output \(output.name) set: \(mode), transform \(mode.transform), scale \(mode.scale), at \(output.rect.x),\(output.rect.y), \(output.rect.width)x\(output.rect.height) in the layout")
        hooks.onTouchscreenLayoutChanged?()
        router.dispatchAll()
        display.settleAndFlush()
        return mode
    }

    /// The scale a surface draws at: its output's, else the first output's.
    package func outputScale(of surface: SurfaceObject) -> Int {
        let output = surface.inTree ? tree.outputOf(surface.id) : nil
        return (outputs.first { $0.id == output } ?? outputs.first)?.mode.scale ?? 1
    }

    /// Windows that fill the output (kiosk, maximized, fullscreen) are configured to its new
    /// size; the others keep their place, pulled back inside it as far as they fit.
    private func refitWindows(on output: VirtualOutput) {
        for toplevel in tree.output(output.id)?.toplevels ?? [] {
            guard let object = protocols.surface.surfaces[toplevel], object.role != .layer, object.role != .lockSurface,
                  let surface = tree.surface(toplevel) else { continue }
            if let xdgToplevel = object.xdgSurface?.toplevel, options.kiosk || xdgToplevel.fills {
                object.xdgSurface?.sendConfigure()
                continue
            }
            let position = position(of: surface, keptInside: output)
            if position != surface.position { try? tree.move(toplevel, to: position) }
        }
    }
}

extension VirtualOutput {
    /// A changed place, mode or transform, to every binding: wl_output's geometry, mode and
    /// description, each xdg_output's logical place and size, then done.
    package func sendChangedState() {
        for binding in bindings.values.joined() {
            let resource = binding.resource
            let version = wl_resource_get_version(resource)
            sendGeometryAndMode(to: resource)
            if version >= 2 { wl_output_send_scale(resource, Int32(mode.scale)) }
            if version >= 4 { wl_output_send_description(resource, description) }
            for xdgOutput in binding.xdgOutputs {
                sendLogicalPlace(to: xdgOutput.resource)
                // Before version 3 an xdg_output's batch ends with its own done.
                if wl_resource_get_version(xdgOutput.resource) < 3 { zxdg_output_v1_send_done(xdgOutput.resource) }
            }
            if version >= 2 { wl_output_send_done(resource) }
        }
    }
}
