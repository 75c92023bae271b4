import TouchRouterCore

/// What a surface's touch-router-input object may ask of the server (TouchRouterProtocols/TouchRouterInput/).
extension WaylandServer: TouchInputHandler {
    package func inputReceived(by client: ClientID, eventTime: Int64, receipt: Int64) {
        guard let onReceipt = hooks.onReceipt else {
            stats.received(client: client, eventTime: eventTime, receipt: receipt)
            return
        }
        var sequences: [UInt64] = []
        stats.received(client: client, eventTime: eventTime, receipt: receipt) { sequences.append($0.sequence) }
        onReceipt(client, eventTime, receipt, sequences)
    }

    package var liveTouchIDs: Set<Int32> { Set(router.activeTouches.map(\.id.raw)) }

    package func rejectTouch(_ touch: TouchID, on surface: SurfaceID, by client: OpaquePointer) -> Bool {
        guard let record = existingRecord(for: client),
              router.activeTouches.contains(where: { $0.id == touch && $0.surface == surface && !$0.emulatingPointer }) else { return false }
        router.rejectTouch(touch, by: record.id)
        router.dispatchAll()
        return true
    }
}
