import TouchRouterCore

/// What screen capture may ask of the server (TouchRouterProtocols/Screencopy/).
extension WaylandServer: ScreencopyHandler {
    package var screencopyState: ScreencopyState { protocols.screencopy }

    package func captureSize(of output: OutputID) -> (pixels: Size, scale: Int)? {
        outputs.first { $0.id == output && !$0.retired }.map { ($0.mode.pixelSize, $0.mode.scale) }
    }

    package func composeForCapture(_ output: OutputID) -> Framebuffer? {
        guard let name = outputs.first(where: { $0.id == output && !$0.retired })?.name else { return nil }
        do {
            return try compose(output: name).framebuffer
        } catch {
            report("output \(name): cannot compose it for screen capture: \(error)")
            return nil
        }
    }
}
