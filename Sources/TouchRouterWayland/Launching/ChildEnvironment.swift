#if canImport(Glibc)
import Glibc
#endif

/// The environment the session gives the programs it starts (its command and `exec`
/// actions), as a desktop session sets it for its children: without it Chromium and Qt
/// pick X11 and die where there is no X server. Each default is set only where the
/// session's own environment leaves it unset; `[environment]` adds to them and overrides
/// them, and a reload that drops one of its variables puts back what was there before.
package final class ChildEnvironment {
    package static let defaults: [(name: String, value: String)] = [
        ("XDG_SESSION_TYPE", "wayland"),
        ("XDG_CURRENT_DESKTOP", "TouchRouter"),
        // Qt falls back to X11 where there is one (Xwayland), as sway's and GNOME's sessions set it.
        ("QT_QPA_PLATFORM", "wayland;xcb"),
        ("MOZ_ENABLE_WAYLAND", "1"),
        ("ELECTRON_OZONE_PLATFORM_HINT", "auto"),
        ("SDL_VIDEODRIVER", "wayland"),
    ]

    /// What each variable the configuration set was before it (nil: unset), to restore.
    private var before: [String: String?] = [:]

    package init() {
        for (name, value) in Self.defaults where getenv(name) == nil { setenv(name, value, 1) }
    }

    /// The configuration's variables over the defaults; ones it no longer sets go back.
    package func apply(_ variables: [String: String]) {
        for (name, old) in before where variables[name] == nil {
            if let old { setenv(name, old, 1) } else { unsetenv(name) }
            before[name] = nil
        }
        for (name, value) in variables.sorted(by: { $0.key < $1.key }) {
            if before[name] == nil { before[name] = .some(getenv(name).map { String(cString: $0) }) }
            setenv(name, value, 1)
        }
    }
}
