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
#include <sys/timerfd.h>
#include <wayland-server-core.h>
#include <wayland-server-protocol.h>
#include <xkbcommon/xkbcommon.h>
// Every protocol's server header, and tr_NAME_interface() for each of their interfaces,
// generated with them (meson-helpers/generate-protocols.sh).
#include "touch-router-protocols.h"
#include "touch-router-interfaces.h"

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
const struct wl_interface *tr_wl_data_offer_interface(void);
const struct wl_interface *tr_wl_shell_interface(void);
const struct wl_interface *tr_wl_shell_surface_interface(void);

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

// epoll, which Swift's Glibc module does not include; its event struct is packed on x86-64,
// so only descriptors cross. -1 with errno on failure.
// A close-on-exec epoll set.
int tr_epoll_create(void);
// Watches `fd` in `set` for reading.
int tr_epoll_add(int set, int fd);
int tr_epoll_remove(int set, int fd);
// Waits up to `timeout` ms (-1: no limit); fills `ready` with up to `capacity` (at most 16)
// readable descriptors and gives their count, 0 when the time ran out.
int tr_epoll_wait(int set, int *ready, int capacity, int timeout);

#endif
