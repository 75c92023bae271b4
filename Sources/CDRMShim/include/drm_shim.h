// What Swift cannot reach in libdrm directly: the dumb-buffer ioctls (their request numbers
// are function-like macros) and drmHandleEvent's table of C callbacks.
#ifndef TOUCH_ROUTER_DRM_SHIM_H
#define TOUCH_ROUTER_DRM_SHIM_H
#include <stdint.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

// Each returns 0, or -1 with errno set.
int tr_drm_create_dumb(int fd, uint32_t width, uint32_t height, uint32_t *handle, uint32_t *pitch, uint64_t *size);
int tr_drm_map_dumb(int fd, uint32_t handle, uint64_t *offset);
int tr_drm_destroy_dumb(int fd, uint32_t handle);

// Reads the device's events and calls `flipped(data, crtc)` for each completed page flip,
// `data` being what drmModePageFlip was given.
typedef void (*tr_drm_flip_handler)(void *data, unsigned int sec, unsigned int usec, unsigned int crtc);
int tr_drm_handle_events(int fd, tr_drm_flip_handler flipped);

// DRM_MODE_PAGE_FLIP_EVENT, DRM_MODE_CONNECTED and DRM_MODE_TYPE_PREFERRED, as named values.
uint32_t tr_drm_page_flip_event(void);
int tr_drm_connected(void);
uint32_t tr_drm_mode_type_preferred(void);
#endif
