// The C side of TouchRouter's Wayland layer: libwayland-server and xkbcommon headers,
// the server headers of every protocol in protocols/ (CWaylandProtocols'), and named
// functions for what Swift cannot call or must not take the address of itself (variadic
// functions, interface globals, container_of).
#ifndef TOUCH_ROUTER_CWAYLAND_SHIM_H
#define TOUCH_ROUTER_CWAYLAND_SHIM_H

// Keeps wl_resource and friends opaque, as libwayland intends (and Swift sees them as OpaquePointer).
#define WL_HIDE_DEPRECATED 1
#include <stddef.h>
#include <stdint.h>
#include <wayland-server-core.h>
#include <wayland-server-protocol.h>
#include <xkbcommon/xkbcommon.h>
#include "xdg-shell-server-protocol.h"
#include "touch-router-input-v1-server-protocol.h"
#include "input-timestamps-unstable-v1-server-protocol.h"
#include "wlr-virtual-pointer-unstable-v1-server-protocol.h"
#include "virtual-keyboard-unstable-v1-server-protocol.h"
#include "xdg-output-unstable-v1-server-protocol.h"
#include "wlr-layer-shell-unstable-v1-server-protocol.h"
#include "xdg-shell-unstable-v6-server-protocol.h"
#include "relative-pointer-unstable-v1-server-protocol.h"
#include "pointer-constraints-unstable-v1-server-protocol.h"
#include "primary-selection-unstable-v1-server-protocol.h"
#include "gtk-primary-selection-server-protocol.h"
#include "text-input-unstable-v3-server-protocol.h"
#include "input-method-unstable-v2-server-protocol.h"
#include "wlr-foreign-toplevel-management-unstable-v1-server-protocol.h"
#include "xdg-decoration-unstable-v1-server-protocol.h"
#include "server-decoration-server-protocol.h"
#include "viewporter-server-protocol.h"
#include "presentation-time-server-protocol.h"
#include "fractional-scale-v1-server-protocol.h"
#include "xdg-activation-v1-server-protocol.h"
#include "single-pixel-buffer-v1-server-protocol.h"
#include "idle-inhibit-unstable-v1-server-protocol.h"
#include "idle-server-protocol.h"
#include "ext-idle-notify-v1-server-protocol.h"
#include "ext-session-lock-v1-server-protocol.h"
#include "wlr-screencopy-unstable-v1-server-protocol.h"
#include "wlr-output-power-management-unstable-v1-server-protocol.h"

// Interface descriptions, by address: a Swift pointer to a C global can be a copy.
const struct wl_interface *tr_wl_compositor_interface(void);
const struct wl_interface *tr_wl_surface_interface(void);
const struct wl_interface *tr_wl_region_interface(void);
const struct wl_interface *tr_wl_callback_interface(void);
const struct wl_interface *tr_wl_subcompositor_interface(void);
const struct wl_interface *tr_wl_subsurface_interface(void);
const struct wl_interface *tr_wl_output_interface(void);
const struct wl_interface *tr_wl_shm_interface(void);
const struct wl_interface *tr_wl_shm_pool_interface(void);
const struct wl_interface *tr_wl_buffer_interface(void);
const struct wl_interface *tr_wl_seat_interface(void);
const struct wl_interface *tr_wl_touch_interface(void);
const struct wl_interface *tr_wl_pointer_interface(void);
const struct wl_interface *tr_wl_keyboard_interface(void);
const struct wl_interface *tr_wl_data_device_manager_interface(void);
const struct wl_interface *tr_wl_data_device_interface(void);
const struct wl_interface *tr_wl_data_source_interface(void);
const struct wl_interface *tr_xdg_wm_base_interface(void);
const struct wl_interface *tr_xdg_surface_interface(void);
const struct wl_interface *tr_xdg_toplevel_interface(void);
const struct wl_interface *tr_xdg_popup_interface(void);
const struct wl_interface *tr_xdg_positioner_interface(void);
const struct wl_interface *tr_touch_router_input_manager_v1_interface(void);
const struct wl_interface *tr_touch_router_surface_input_v1_interface(void);
const struct wl_interface *tr_zwp_input_timestamps_manager_v1_interface(void);
const struct wl_interface *tr_zwp_input_timestamps_v1_interface(void);
const struct wl_interface *tr_zwlr_virtual_pointer_manager_v1_interface(void);
const struct wl_interface *tr_zwlr_virtual_pointer_v1_interface(void);
const struct wl_interface *tr_zxdg_output_manager_v1_interface(void);
const struct wl_interface *tr_zxdg_output_v1_interface(void);
const struct wl_interface *tr_zwp_virtual_keyboard_manager_v1_interface(void);
const struct wl_interface *tr_zwp_virtual_keyboard_v1_interface(void);
const struct wl_interface *tr_zwlr_layer_shell_v1_interface(void);
const struct wl_interface *tr_zwlr_layer_surface_v1_interface(void);
const struct wl_interface *tr_wl_data_offer_interface(void);
const struct wl_interface *tr_wl_shell_interface(void);
const struct wl_interface *tr_wl_shell_surface_interface(void);
const struct wl_interface *tr_zxdg_shell_v6_interface(void);
const struct wl_interface *tr_zxdg_positioner_v6_interface(void);
const struct wl_interface *tr_zxdg_surface_v6_interface(void);
const struct wl_interface *tr_zxdg_toplevel_v6_interface(void);
const struct wl_interface *tr_zxdg_popup_v6_interface(void);
const struct wl_interface *tr_zwp_relative_pointer_manager_v1_interface(void);
const struct wl_interface *tr_zwp_relative_pointer_v1_interface(void);
const struct wl_interface *tr_zwp_pointer_constraints_v1_interface(void);
const struct wl_interface *tr_zwp_locked_pointer_v1_interface(void);
const struct wl_interface *tr_zwp_confined_pointer_v1_interface(void);
const struct wl_interface *tr_zwp_primary_selection_device_manager_v1_interface(void);
const struct wl_interface *tr_zwp_primary_selection_device_v1_interface(void);
const struct wl_interface *tr_zwp_primary_selection_offer_v1_interface(void);
const struct wl_interface *tr_zwp_primary_selection_source_v1_interface(void);
const struct wl_interface *tr_gtk_primary_selection_device_manager_interface(void);
const struct wl_interface *tr_gtk_primary_selection_device_interface(void);
const struct wl_interface *tr_gtk_primary_selection_offer_interface(void);
const struct wl_interface *tr_gtk_primary_selection_source_interface(void);
const struct wl_interface *tr_zwp_text_input_v3_interface(void);
const struct wl_interface *tr_zwp_text_input_manager_v3_interface(void);
const struct wl_interface *tr_zwp_input_method_v2_interface(void);
const struct wl_interface *tr_zwp_input_popup_surface_v2_interface(void);
const struct wl_interface *tr_zwp_input_method_keyboard_grab_v2_interface(void);
const struct wl_interface *tr_zwp_input_method_manager_v2_interface(void);
const struct wl_interface *tr_zwlr_foreign_toplevel_manager_v1_interface(void);
const struct wl_interface *tr_zwlr_foreign_toplevel_handle_v1_interface(void);
const struct wl_interface *tr_zxdg_decoration_manager_v1_interface(void);
const struct wl_interface *tr_zxdg_toplevel_decoration_v1_interface(void);
const struct wl_interface *tr_org_kde_kwin_server_decoration_manager_interface(void);
const struct wl_interface *tr_org_kde_kwin_server_decoration_interface(void);
const struct wl_interface *tr_wp_viewporter_interface(void);
const struct wl_interface *tr_wp_viewport_interface(void);
const struct wl_interface *tr_wp_presentation_interface(void);
const struct wl_interface *tr_wp_presentation_feedback_interface(void);
const struct wl_interface *tr_wp_fractional_scale_manager_v1_interface(void);
const struct wl_interface *tr_wp_fractional_scale_v1_interface(void);
const struct wl_interface *tr_xdg_activation_v1_interface(void);
const struct wl_interface *tr_xdg_activation_token_v1_interface(void);
const struct wl_interface *tr_wp_single_pixel_buffer_manager_v1_interface(void);
const struct wl_interface *tr_zwp_idle_inhibit_manager_v1_interface(void);
const struct wl_interface *tr_zwp_idle_inhibitor_v1_interface(void);
const struct wl_interface *tr_org_kde_kwin_idle_interface(void);
const struct wl_interface *tr_org_kde_kwin_idle_timeout_interface(void);
const struct wl_interface *tr_ext_idle_notifier_v1_interface(void);
const struct wl_interface *tr_ext_idle_notification_v1_interface(void);
const struct wl_interface *tr_ext_session_lock_manager_v1_interface(void);
const struct wl_interface *tr_ext_session_lock_v1_interface(void);
const struct wl_interface *tr_ext_session_lock_surface_v1_interface(void);
const struct wl_interface *tr_zwlr_screencopy_manager_v1_interface(void);
const struct wl_interface *tr_zwlr_screencopy_frame_v1_interface(void);
const struct wl_interface *tr_zwlr_output_power_manager_v1_interface(void);
const struct wl_interface *tr_zwlr_output_power_v1_interface(void);

// wl_resource_post_error is variadic.
void tr_resource_post_error(struct wl_resource *resource, uint32_t code, const char *message);
// wl_client_post_implementation_error is variadic: ends the client with wl_display's
// implementation error, for a limit the protocol itself has no error for.
void tr_client_post_implementation_error(struct wl_client *client, const char *message);

// A listener with a pointer back to its owner, since wl_container_of is a macro.
struct tr_listener {
    struct wl_listener listener;
    void *owner;
};
void *tr_listener_owner(struct wl_listener *listener);

// A client's shared-memory file mapped read-only and shared; NULL with errno on failure
// (mmap's MAP_FAILED is a macro).
void *tr_map_client_memory(int fd, size_t size, int *writable);
// The mapping grown to `new_size`, perhaps moved; NULL with errno (mremap is variadic).
void *tr_remap_client_memory(void *address, size_t old_size, size_t new_size);
// Copies `rows` rows of `row_length` bytes from a client's shared memory, which the client
// may have truncated under us: a SIGBUS during the copy is caught and gives -1, else 0.
int tr_guarded_copy_rows(uint8_t *destination, size_t destination_stride, const uint8_t *source,
                         size_t source_stride, size_t row_length, size_t rows);

// A read-only, sealed memfd holding `size` bytes of `data` (the keymap a client maps);
// -1 with errno set on failure.
int tr_sealed_memfd(const char *name, const void *data, size_t size);

// accept4 and SO_PEERCRED need _GNU_SOURCE, which Swift's Glibc module does not set.
// A non-blocking, close-on-exec connection from a listening socket; -1 with errno.
int tr_accept_nonblocking(int fd);
// The uid of a Unix socket's peer; -1 with errno on failure.
int tr_peer_uid(int fd, unsigned int *uid);
// Bytes written to a Unix socket that its peer has not read yet (SIOCOUTQ, through the
// variadic ioctl); -1 with errno on failure.
int tr_socket_unread_bytes(int fd);
// 1 when a socket cannot take another byte now (poll without waiting finds no POLLOUT),
// 0 when it can, -1 with errno on failure.
int tr_socket_is_full(int fd);

#endif
