#include "drm_shim.h"

#include <errno.h>
#include <string.h>

int tr_drm_create_dumb(int fd, uint32_t width, uint32_t height, uint32_t *handle, uint32_t *pitch, uint64_t *size) {
    struct drm_mode_create_dumb request;
    memset(&request, 0, sizeof request);
    request.width = width;
    request.height = height;
    request.bpp = 32;
    if (drmIoctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &request) != 0) return -1;
    *handle = request.handle;
    *pitch = request.pitch;
    *size = request.size;
    return 0;
}

int tr_drm_map_dumb(int fd, uint32_t handle, uint64_t *offset) {
    struct drm_mode_map_dumb request;
    memset(&request, 0, sizeof request);
    request.handle = handle;
    if (drmIoctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &request) != 0) return -1;
    *offset = request.offset;
    return 0;
}

int tr_drm_destroy_dumb(int fd, uint32_t handle) {
    struct drm_mode_destroy_dumb request;
    memset(&request, 0, sizeof request);
    request.handle = handle;
    return drmIoctl(fd, DRM_IOCTL_MODE_DESTROY_DUMB, &request);
}

// The handler for the call in progress: drmHandleEvent runs on the caller's thread, and the
// session has one.
static tr_drm_flip_handler current_handler;

static void page_flipped(int fd, unsigned int sequence, unsigned int sec, unsigned int usec, unsigned int crtc, void *data) {
    (void)fd;
    (void)sequence;
    if (current_handler) current_handler(data, sec, usec, crtc);
}

int tr_drm_handle_events(int fd, tr_drm_flip_handler flipped) {
    drmEventContext context;
    memset(&context, 0, sizeof context);
    // Version 3's handler names the CRTC; libdrm calls it when it is set.
    context.version = 3;
    context.page_flip_handler2 = page_flipped;
    current_handler = flipped;
    int result = drmHandleEvent(fd, &context);
    current_handler = 0;
    return result;
}

uint32_t tr_drm_page_flip_event(void) { return DRM_MODE_PAGE_FLIP_EVENT; }
int tr_drm_connected(void) { return DRM_MODE_CONNECTED; }
uint32_t tr_drm_mode_type_preferred(void) { return DRM_MODE_TYPE_PREFERRED; }
