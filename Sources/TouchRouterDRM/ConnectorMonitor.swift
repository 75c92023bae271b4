import CUdev
#if canImport(Glibc)
import Glibc
#endif

/// Hears the kernel say a card's connectors changed (a screen plugged in or out, or forced
/// through /sys/class/drm/cardN-NAME/status). Through udevd when it runs, as wlroots does;
/// straight from the kernel's netlink messages on a system without udevd (a minimal kiosk
/// image, the VM test), where udevd's would never come.
final class ConnectorMonitor {
    private let udev: OpaquePointer
    private let monitor: OpaquePointer
    /// The card's device number: events of other cards are not ours.
    private let card: dev_t

    init(card path: String) throws(DRMError) {
        var status = stat()
        guard stat(path, &status) == 0 else { throw DRMError.errno("cannot stat \(path)") }
        guard let udev = udev_new() else { throw DRMError("udev_new failed: is /sys mounted?") }
        let source = access("/run/udev/control", F_OK) == 0 ? "udev" : "kernel"
        guard let monitor = udev_monitor_new_from_netlink(udev, source) else {
            udev_unref(udev)
            throw DRMError("cannot listen for \(source) events of \(path)")
        }
        udev_monitor_filter_add_match_subsystem_devtype(monitor, "drm", nil)
        guard udev_monitor_enable_receiving(monitor) == 0 else {
            udev_monitor_unref(monitor)
            udev_unref(udev)
            throw DRMError("cannot receive \(source) events of \(path)")
        }
        self.udev = udev
        self.monitor = monitor
        card = status.st_rdev
    }

    deinit {
        udev_monitor_unref(monitor)
        udev_unref(udev)
    }

    var fd: Int32 { udev_monitor_get_fd(monitor) }

    /// Reads what arrived; true when the card's connectors changed.
    func connectorsChanged() -> Bool {
        var changed = false
        while let device = udev_monitor_receive_device(monitor) {
            defer { udev_device_unref(device) }
            // The kernel's hotplug events say HOTPLUG=1; any other change of the card (a
            // synthetic one, a lease) costs one rescan, which finds nothing new.
            let action = udev_device_get_action(device).map { String(cString: $0) }
            if udev_device_get_devnum(device) == card, action == "change" { changed = true }
        }
        return changed
    }
}
