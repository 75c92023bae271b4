// The arena's public face on the router. (Being filled in: issue 11.)
extension Router {
    /// Replaces the recognizers, zones and rules. A configuration that fails validation
    /// leaves the old one in place. Touches already down keep their arena.
    public func configureGestures(_ configuration: GestureConfiguration) throws(GestureConfigurationError) {
    }

    /// The app id of a toplevel (xdg_toplevel.set_app_id), which `GestureAttachment.appID` matches.
    public func setAppID(_ appID: String?, for toplevel: SurfaceID) {
    }

    /// A client's regions of `surface` where edge gestures yield to it (Android's
    /// setSystemGestureExclusionRects); capped per edge by the configuration.
    public func setGestureDeferral(_ rects: [Rect<SurfaceSpace>], on surface: SurfaceID) {
    }

    /// XInput 2.2's touch reject: `client` gives up touch `id`. It gets wl_touch.cancel for
    /// it, and the sequence goes on down the chain. False when the client does not have it.
    @discardableResult
    public func rejectTouch(_ id: TouchID, by client: ClientID) -> Bool {
        false
    }

    /// Time passed without events: recognizers' deadlines and held touches' limit run out.
    public func advanceTime(to time: RouterTime) {
    }

    /// When `advanceTime(to:)` next has something to do.
    public var nextGestureDeadline: RouterTime? { nil }
}
