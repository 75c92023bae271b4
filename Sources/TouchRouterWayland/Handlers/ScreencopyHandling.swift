import TouchRouterCore

/// What screen capture may ask of the server (Protocols/Screencopy/).
extension WaylandServer: ScreencopyHandler {
    func captureSize(of output: OutputID) -> Size? {
        outputs.first { $0.id == output && !$0.retired }.map { Size(width: $0.rect.width, height: $0.rect.height) }
    }

    func composeForCapture(_ output: OutputID) -> Framebuffer? {
        guard let name = outputs.first(where: { $0.id == output && !$0.retired })?.name else { return nil }
        do {
            return try compose(output: name).framebuffer
        } catch {
            report("output \(name): cannot compose it for screen capture: \(error)")
            return nil
        }
    }
}
