import CWaylandShim
import TouchRouterConfig
#if canImport(Glibc)
import Glibc
#endif

// Privileged globals: a client that may inject input can type into every other client, so
// the virtual pointer and keyboard managers are shown only to the programs the
// configuration's `[privileges] virtual-input` names (docs/protocols.md, "Privileged globals"), or to
// the clients of a grant socket that grants them (PrivilegedSockets.swift). A
// client not allowed never sees them in wl_registry, and libwayland refuses its bind of
// them as of an unknown global, as sway's security context hides its globals; nothing is
// logged, since a program that merely lists globals is not misbehaving.

extension WaylandServer {
    package func installGlobalFilter() {
        wl_display_set_global_filter(display.display, { client, global, data in
            guard let client, let global, let data else { return true }
            let server = Unmanaged<WaylandServer>.fromOpaque(data).takeUnretainedValue()
            return server.shows(global, to: client)
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    private func shows(_ global: OpaquePointer, to client: OpaquePointer) -> Bool {
        if protocols.kioskOnlyGlobals.contains(global) { return options.kiosk }
        guard let privilege = protocols.privilegedGlobals[global] else { return true }
        // A client that came through a grant socket sees exactly what the socket grants
        // (PrivilegedSockets.swift); its executable is not asked.
        if let grants = privilegedSockets?.grants(of: client) { return grants.contains(privilege) }
        return mayUse(privilege, client)
    }

    /// Whether the configuration's `[privileges]` allows `client`'s executable `privilege`
    /// (or the options give it to every client). Asked at each announcement and bind, so
    /// that a reloaded `[privileges]` holds for every bind after it.
    package func mayUse(_ privilege: Privilege, _ client: OpaquePointer) -> Bool {
        if options.grantsEveryClient(privilege) { return true }
        return allowed(client, shell?.configuration.privileges.programs(for: privilege) ?? [])
    }

    private func allowed(_ client: OpaquePointer, _ allowed: [String]) -> Bool {
        guard !allowed.isEmpty else { return false }
        var pid: pid_t = 0
        wl_client_get_credentials(client, &pid, nil, nil)
        guard pid > 0, let executable = Self.executable(of: pid) else { return false }
        return PrivilegeSettings.allows(allowed, executable: executable, resolve: Self.resolvedPath)
    }

    /// /proc/PID/exe: the executable, its links resolved, as the kernel keeps it (the path it
    /// had at exec; a file deleted since has " (deleted)" after it and matches nothing).
    package static func executable(of pid: pid_t) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/\(pid)/exe", &buffer, buffer.count - 1)
        guard length > 0, length < buffer.count - 1 else { return nil }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    package static func resolvedPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
