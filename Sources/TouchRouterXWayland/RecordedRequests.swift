/// `X11Requests` without an X server: each request recorded, properties answered from a
/// table the caller fills. What the in-process tests and the fuzzer run the window manager on.
package final class RecordedRequests: X11Requests {
    package enum Request: Equatable {
        case configure(X11Window, x: Int, y: Int, width: Int, height: Int)
        case configureNotify(X11Window)
        case raise(X11Window)
        case map(X11Window)
        case focus(X11Window?)
        case clientMessage(X11Window, type: X11Atom, data: [UInt32])
        case kill(X11Window)
        case setProperty(X11Window, X11Atom, words: [UInt32]?, bytes: [UInt8]?)
        case watch(X11Window)
        case selectionOwner(X11Atom, X11Window)
        case convert(X11Atom, target: X11Atom, property: X11Atom)
        case selectionNotify(requestor: X11Window, selection: X11Atom, target: X11Atom, property: X11Atom)
    }

    package let root: X11Window = 0x100
    package let atoms: X11Atoms
    package private(set) var requests: [Request] = []
    /// What GetProperty answers, by window and property.
    package var properties: [X11Window: [X11Atom: X11PropertyValue]] = [:]

    /// Atoms numbered from 1,000 in `AtomName`'s order, past X11's predefined ones.
    package init() {
        atoms = X11Atoms(Dictionary(uniqueKeysWithValues: AtomName.allCases.enumerated().map { ($0.element, X11Atom(1000 + $0.offset)) }))
    }

    package func clear() { requests.removeAll() }

    package func configure(_ window: X11Window, _ rect: (x: Int, y: Int, width: Int, height: Int)) {
        requests.append(.configure(window, x: rect.x, y: rect.y, width: rect.width, height: rect.height))
    }
    package func sendConfigureNotify(_ window: X11Window, _ rect: (x: Int, y: Int, width: Int, height: Int)) { requests.append(.configureNotify(window)) }
    package func raise(_ window: X11Window) { requests.append(.raise(window)) }
    package func map(_ window: X11Window) { requests.append(.map(window)) }
    package func setInputFocus(_ window: X11Window?) { requests.append(.focus(window)) }
    package func sendClientMessage(_ window: X11Window, type: X11Atom, data: [UInt32]) { requests.append(.clientMessage(window, type: type, data: data)) }
    package func killClient(_ window: X11Window) { requests.append(.kill(window)) }
    package func setProperty(_ window: X11Window, _ property: X11Atom, type: X11Atom, words: [UInt32]) {
        requests.append(.setProperty(window, property, words: words, bytes: nil))
    }
    package func setProperty(_ window: X11Window, _ property: X11Atom, type: X11Atom, bytes: [UInt8]) {
        requests.append(.setProperty(window, property, words: nil, bytes: bytes))
    }
    package func property(_ window: X11Window, _ property: X11Atom) -> X11PropertyValue? { properties[window]?[property] }
    package func watchWindow(_ window: X11Window) { requests.append(.watch(window)) }
    package func flush() {}
    package func setSelectionOwner(_ selection: X11Atom, owner: X11Window) { requests.append(.selectionOwner(selection, owner)) }
    /// What GetSelectionOwner answers, by selection (none when absent).
    package var selectionOwners: [X11Atom: X11Window] = [:]
    package func selectionOwner(_ selection: X11Atom) -> X11Window { selectionOwners[selection] ?? 0 }
    package func convertSelection(_ selection: X11Atom, target: X11Atom, property: X11Atom, requestor: X11Window) {
        requests.append(.convert(selection, target: target, property: property))
    }
    package func sendSelectionNotify(requestor: X11Window, selection: X11Atom, target: X11Atom, property: X11Atom, time: UInt32) {
        requests.append(.selectionNotify(requestor: requestor, selection: selection, target: target, property: property))
    }
    /// Interned atoms past the table's, by name.
    package private(set) var extraAtoms: [String] = []
    package func atomName(_ atom: X11Atom) -> String? {
        if let name = atoms.name(of: atom) { return name.rawValue }
        let index = Int(atom) - 2000
        return extraAtoms.indices.contains(index) ? extraAtoms[index] : nil
    }
    package func intern(_ name: String) -> X11Atom? {
        if let known = AtomName(rawValue: name) { return atoms[known] }
        if let index = extraAtoms.firstIndex(of: name) { return X11Atom(2000 + index) }
        extraAtoms.append(name)
        return X11Atom(2000 + extraAtoms.count - 1)
    }
    /// What the next `takeSelectionData` returns, as the owner would have put it.
    package var selectionData: X11PropertyValue?
    package func takeSelectionData(_ property: X11Atom) -> X11PropertyValue? {
        defer { selectionData = nil }
        return selectionData
    }
    package func watchSelections() {}

    /// Sets a property as a client would, in the wire's little-endian form.
    package func set(_ window: X11Window, _ name: AtomName, type: AtomName = .STRING, text: String) {
        properties[window, default: [:]][atoms[name]] = X11PropertyValue(type: atoms[type], format: 8, bytes: Array(text.utf8))
    }

    package func set(_ window: X11Window, _ name: AtomName, type: AtomName = .ATOM, words: [UInt32]) {
        let bytes = words.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) } }
        properties[window, default: [:]][atoms[name]] = X11PropertyValue(type: atoms[type], format: 32, bytes: bytes)
    }
}
