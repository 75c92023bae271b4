/// A group of privileged globals, by the name `[privileges]` gives its key: what the
/// configuration allows a program by its executable, and what a grant socket
/// (`msg grant-socket`, `touch-router run --grant`) hands to every client that connects to it.
/// A new privileged protocol adds its case here and names it in its globals' table
/// (`ProtocolGlobal.privilege`); the configuration's key, the grant lists and the option that
/// grants it to every client follow from this list.
public enum Privilege: String, CaseIterable, Sendable, Hashable {
    /// zwlr_virtual_pointer_manager_v1 and zwp_virtual_keyboard_manager_v1.
    case virtualInput = "virtual-input"
    /// zwp_input_method_manager_v2.
    case inputMethod = "input-method"
    /// zwlr_layer_shell_v1.
    case layerShell = "layer-shell"
    /// zwlr_foreign_toplevel_manager_v1.
    case foreignToplevel = "foreign-toplevel"
    /// ext_session_lock_manager_v1: a lock screen, which takes every screen and all input.
    case sessionLock = "session-lock"
    /// zwlr_screencopy_manager_v1: the screens' pictures (remote support with wayvnc).
    case screenCapture = "screen-capture"
    /// zwlr_output_power_manager_v1: turning screens off and on.
    case outputPower = "output-power"

    /// Every name, in the order replies list them.
    public static let names = allCases.map(\.rawValue).joined(separator: ", ")

    /// A comma-separated list of names, `virtual-input,layer-shell`: one or more, each known,
    /// no spaces (a control request's words are split at them). A name given twice counts once.
    public static func parseList(_ text: some StringProtocol) throws(PrivilegeListError) -> Set<Privilege> {
        guard !text.isEmpty else { throw PrivilegeListError("no privilege named: expected one or more of \(names), separated by commas") }
        var privileges: Set<Privilege> = []
        for name in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard !name.isEmpty else { throw PrivilegeListError("'\(text.prefix(256))' has an empty name between commas: expected one or more of \(names)") }
            guard let privilege = Privilege(rawValue: String(name)) else {
                throw PrivilegeListError("'\(name.prefix(64))' is not a privilege: expected one or more of \(names), separated by commas")
            }
            privileges.insert(privilege)
        }
        return privileges
    }

    /// The names of `privileges`, in `allCases` order.
    public static func sortedNames(_ privileges: Set<Privilege>) -> [String] {
        allCases.filter(privileges.contains).map(\.rawValue)
    }
}

public struct PrivilegeListError: Error, CustomStringConvertible, Equatable, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension PrivilegeSettings {
    /// The programs `[privileges]` allows `privilege`.
    public func programs(for privilege: Privilege) -> [String] { programs[privilege] ?? [] }
}
