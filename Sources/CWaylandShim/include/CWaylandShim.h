// The C side of TouchRouter's Wayland layer: libwayland-server, xdg-shell and
// xkbcommon headers, and named functions for what Swift cannot call or must not
// take the address of itself (variadic functions, interface globals, container_of).
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

// Interface descriptions, by address: a Swift pointer to a C global can be a copy.
const struct wl_interface *tr_wl_compositor_interface(void);
const struct wl_interface *tr_wl_surface_interface(void);
const struct wl_interface *tr_wl_region_interface(void);
const struct wl_interface *tr_wl_callback_interface(void);
const struct wl_interface *tr_wl_subcompositor_interface(void);
const struct wl_interface *tr_wl_subsurface_interface(void);
const struct wl_interface *tr_wl_output_interface(void);
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

// wl_resource_post_error is variadic.
void tr_resource_post_error(struct wl_resource *resource, uint32_t code, const char *message);

// A listener with a pointer back to its owner, since wl_container_of is a macro.
struct tr_listener {
    struct wl_listener listener;
    void *owner;
};
void *tr_listener_owner(struct wl_listener *listener);

// The size of a wl_shm buffer; 0 when the resource is not one.
int tr_shm_buffer_size(struct wl_resource *buffer, int32_t *width, int32_t *height);

// Copies the rectangle (x, y, width, height), already clipped to the buffer, of a wl_shm
// buffer with 4-byte pixels into `destination`, a buffer-sized array of rows of uint32.
// libwayland guards the read: a client whose pool file is shorter than it claimed gets
// WL_SHM_ERROR_INVALID_FD when the access ends. 0 when the buffer is not such a buffer.
int tr_shm_buffer_copy(struct wl_resource *buffer, int32_t x, int32_t y, int32_t width, int32_t height, uint32_t *destination);

// A read-only, sealed memfd holding `size` bytes of `data` (the keymap a client maps);
// -1 with errno set on failure.
int tr_sealed_memfd(const char *name, const void *data, size_t size);

// accept4 and SO_PEERCRED need _GNU_SOURCE, which Swift's Glibc module does not set.
// A non-blocking, close-on-exec connection from a listening socket; -1 with errno.
int tr_accept_nonblocking(int fd);
// The uid of a Unix socket's peer; -1 with errno on failure.
int tr_peer_uid(int fd, unsigned int *uid);

#endif
