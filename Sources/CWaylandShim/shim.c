#define _GNU_SOURCE
#include "CWaylandShim.h"
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

const struct wl_interface *tr_wl_compositor_interface(void) { return &wl_compositor_interface; }
const struct wl_interface *tr_wl_surface_interface(void) { return &wl_surface_interface; }
const struct wl_interface *tr_wl_region_interface(void) { return &wl_region_interface; }
const struct wl_interface *tr_wl_callback_interface(void) { return &wl_callback_interface; }
const struct wl_interface *tr_wl_subcompositor_interface(void) { return &wl_subcompositor_interface; }
const struct wl_interface *tr_wl_subsurface_interface(void) { return &wl_subsurface_interface; }
const struct wl_interface *tr_wl_output_interface(void) { return &wl_output_interface; }
const struct wl_interface *tr_wl_seat_interface(void) { return &wl_seat_interface; }
const struct wl_interface *tr_wl_touch_interface(void) { return &wl_touch_interface; }
const struct wl_interface *tr_wl_pointer_interface(void) { return &wl_pointer_interface; }
const struct wl_interface *tr_wl_keyboard_interface(void) { return &wl_keyboard_interface; }
const struct wl_interface *tr_wl_data_device_manager_interface(void) { return &wl_data_device_manager_interface; }
const struct wl_interface *tr_wl_data_device_interface(void) { return &wl_data_device_interface; }
const struct wl_interface *tr_wl_data_source_interface(void) { return &wl_data_source_interface; }
const struct wl_interface *tr_xdg_wm_base_interface(void) { return &xdg_wm_base_interface; }
const struct wl_interface *tr_xdg_surface_interface(void) { return &xdg_surface_interface; }
const struct wl_interface *tr_xdg_toplevel_interface(void) { return &xdg_toplevel_interface; }
const struct wl_interface *tr_xdg_popup_interface(void) { return &xdg_popup_interface; }
const struct wl_interface *tr_xdg_positioner_interface(void) { return &xdg_positioner_interface; }

void tr_resource_post_error(struct wl_resource *resource, uint32_t code, const char *message) {
    wl_resource_post_error(resource, code, "%s", message);
}

void *tr_listener_owner(struct wl_listener *listener) {
    struct tr_listener *outer = wl_container_of(listener, outer, listener);
    return outer->owner;
}

int tr_shm_buffer_size(struct wl_resource *buffer, int32_t *width, int32_t *height) {
    struct wl_shm_buffer *shm = wl_shm_buffer_get(buffer);
    if (!shm) return 0;
    *width = wl_shm_buffer_get_width(shm);
    *height = wl_shm_buffer_get_height(shm);
    return 1;
}

int tr_shm_buffer_copy(struct wl_resource *buffer, int32_t x, int32_t y, int32_t width, int32_t height, uint32_t *destination) {
    struct wl_shm_buffer *shm = wl_shm_buffer_get(buffer);
    if (!shm) return 0;
    uint32_t format = wl_shm_buffer_get_format(shm);
    if (format != WL_SHM_FORMAT_ARGB8888 && format != WL_SHM_FORMAT_XRGB8888) return 0;
    int32_t buffer_width = wl_shm_buffer_get_width(shm);
    int32_t stride = wl_shm_buffer_get_stride(shm);
    wl_shm_buffer_begin_access(shm);
    const uint8_t *data = wl_shm_buffer_get_data(shm);
    for (int32_t row = y; row < y + height; row++) {
        memcpy(destination + (size_t)row * (size_t)buffer_width + (size_t)x,
               data + (size_t)row * (size_t)stride + (size_t)x * 4, (size_t)width * 4);
    }
    wl_shm_buffer_end_access(shm);
    return 1;
}

int tr_sealed_memfd(const char *name, const void *data, size_t size) {
    int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) return -1;
    const char *bytes = data;
    size_t written = 0;
    while (written < size) {
        ssize_t n = write(fd, bytes + written, size - written);
        if (n < 0) {
            if (errno == EINTR) continue;
            int saved = errno;
            close(fd);
            errno = saved;
            return -1;
        }
        written += (size_t)n;
    }
    if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int tr_accept_nonblocking(int fd) {
    return accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
}

int tr_peer_uid(int fd, unsigned int *uid) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) < 0) return -1;
    *uid = credentials.uid;
    return 0;
}
