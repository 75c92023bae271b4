#define _GNU_SOURCE
#include "CWaylandClientShim.h"
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

const struct wl_interface *trc_wl_compositor_interface(void) { return &wl_compositor_interface; }
const struct wl_interface *trc_wl_shm_interface(void) { return &wl_shm_interface; }
const struct wl_interface *trc_wl_seat_interface(void) { return &wl_seat_interface; }
const struct wl_interface *trc_xdg_wm_base_interface(void) { return &xdg_wm_base_interface; }

int trc_shm_file(size_t size) {
    int fd = memfd_create("touch-router-nested", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) return -1;
    int result;
    do {
        result = ftruncate(fd, (off_t)size);
    } while (result < 0 && errno == EINTR);
    if (result < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    // The host may map it; it must never shrink under it.
    (void)fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL);
    return fd;
}

void *trc_map_shared(int fd, size_t size) {
    void *address = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    return address == MAP_FAILED ? NULL : address;
}

void trc_unmap(void *address, size_t size) { munmap(address, size); }
