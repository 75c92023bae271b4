import CWaylandShim
import TouchRouterProtocols

extension WaylandServer: FractionalScaleHandler {
    package var fractionalScaleState: FractionalScaleState { protocols.fractionalScale }
}
