/// Keys and switches: non-positional events, which start at the first responder.
extension Router {
    // MARK: Keyboard

    func keyEvent(_ event: InputEvent, time: RouterTime, key: UInt32, state: KeyState) -> RouteOutcome {
        switch state {
        case .pressed:
            if !self.state.pointee.keyboard.heldAtUnlock.isEmpty { self.state.pointee.keyboard.heldAtUnlock.remove(key) }
            if !pressedKeys.contains(key) { pressedKeys.append(key) }
        case .released:
            if !self.state.pointee.keyboard.heldAtUnlock.isEmpty, self.state.pointee.keyboard.heldAtUnlock.remove(key) != nil {
                markDecided()
                return .dropped(.pressedUnderLock)
            }
            pressedKeys.removeAll { $0 == key }
        }
        let modifiersChanged = updateModifiers(key: key, state: state)
        return nonPositional(event) { surface in
            guard let client = tree.client(of: surface), capabilities(of: client).contains(.keyboard) else { return false }
            markDecided()
            delivery.key(surface: surface, client: client, time: time, key: key, state: state)
            record(.key, surface, client, nil, surface == keyboardFocus ? .keyboardFocus : .fallback)
            if modifiersChanged {
                delivery.modifiers(surface: surface, client: client, modifiers: modifiers)
                record(.modifiers, surface, client, nil, .keyboardFocus)
            }
            return true
        }
    }

    func updateModifiers(key: UInt32, state: KeyState) -> Bool {
        let before = modifiers
        var depressed: UInt32 = 0
        for pressed in pressedKeys {
            switch pressed {
            case EvdevCode.keyLeftShift, EvdevCode.keyRightShift: depressed |= KeyboardModifiers.shift
            case EvdevCode.keyLeftCtrl, EvdevCode.keyRightCtrl: depressed |= KeyboardModifiers.control
            case EvdevCode.keyLeftAlt, EvdevCode.keyRightAlt: depressed |= KeyboardModifiers.alt
            case EvdevCode.keyLeftMeta, EvdevCode.keyRightMeta: depressed |= KeyboardModifiers.logo
            default: break
            }
        }
        modifiers.depressed = depressed
        if state == .pressed, key == EvdevCode.keyCapsLock { modifiers.locked ^= KeyboardModifiers.capsLock }
        if state == .pressed, key == EvdevCode.keyNumLock { modifiers.locked ^= KeyboardModifiers.numLock }
        return modifiers != before
    }

    /// Starts at the first responder; `clientTakes` tries to deliver to a surface's client.
    func nonPositional(_ event: InputEvent, clientTakes: (SurfaceID) -> Bool) -> RouteOutcome {
        var declined = 0
        var current = keyboardFocus
        while let surface = current {
            if clientTakes(surface) { return .delivered(surface == keyboardFocus ? .keyboardFocus : .fallback) }
            if askResponders(event, at: .surface(surface)) != nil { return .handled(by: .surface(surface), declined: declined) }
            declined += 1
            if let role = tree.role(of: surface), role != .subsurface {
                if askResponders(event, at: .role(surface, role)) != nil { return .handled(by: .role(surface, role), declined: declined) }
                declined += 1
            }
            current = tree.parent(of: surface)
        }
        return compositorChain(event, from: nil, output: keyboardFocus.flatMap { tree.outputOf($0) }, declinedSoFar: declined).0
    }
}
