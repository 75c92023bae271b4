// The C side of the wayland backend (a window on a host compositor): libwayland-client,
// CWaylandProtocols' xdg-shell client header, and named functions for what Swift cannot
// call or must not take the address of itself. Nothing here includes a libwayland-server
// header; xdg-shell's interface data is CWaylandProtocols' (xdg-shell-protocol.c), linked once.
#ifndef TOUCH_ROUTER_CWAYLAND_CLIENT_SHIM_H
#define TOUCH_ROUTER_CWAYLAND_CLIENT_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <wayland-client.h>
#include "xdg-shell-client-protocol.h"

// Interface descriptions, by address, for wl_registry_bind: a Swift pointer to a C global
// can be a copy.
const struct wl_interface *trc_wl_compositor_interface(void);
const struct wl_interface *trc_wl_shm_interface(void);
const struct wl_interface *trc_wl_seat_interface(void);
const struct wl_interface *trc_xdg_wm_base_interface(void);

// A fresh, anonymous, close-on-exec shared-memory file of `size` bytes (memfd, sealable),
// for wl_shm pools; -1 with errno set on failure.
int trc_shm_file(size_t size);
// The file mapped read-write and shared; NULL with errno on failure (MAP_FAILED is a macro).
void *trc_map_shared(int fd, size_t size);
// Undoes trc_map_shared.
void trc_unmap(void *address, size_t size);

#endif
