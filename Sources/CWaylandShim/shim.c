#define _GNU_SOURCE
#include "CWaylandShim.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <linux/sockios.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
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
const struct wl_interface *tr_wl_shm_interface(void) { return &wl_shm_interface; }
const struct wl_interface *tr_wl_shm_pool_interface(void) { return &wl_shm_pool_interface; }
const struct wl_interface *tr_wl_buffer_interface(void) { return &wl_buffer_interface; }
const struct wl_interface *tr_wl_seat_interface(void) { return &wl_seat_interface; }
const struct wl_interface *tr_wl_touch_interface(void) { return &wl_touch_interface; }
const struct wl_interface *tr_wl_pointer_interface(void) { return &wl_pointer_interface; }
const struct wl_interface *tr_wl_keyboard_interface(void) { return &wl_keyboard_interface; }
const struct wl_interface *tr_wl_data_device_manager_interface(void) { return &wl_data_device_manager_interface; }
const struct wl_interface *tr_wl_data_device_interface(void) { return &wl_data_device_interface; }
const struct wl_interface *tr_wl_data_source_interface(void) { return &wl_data_source_interface; }
const struct wl_interface *tr_wl_data_offer_interface(void) { return &wl_data_offer_interface; }
const struct wl_interface *tr_wl_shell_interface(void) { return &wl_shell_interface; }
const struct wl_interface *tr_wl_shell_surface_interface(void) { return &wl_shell_surface_interface; }

void tr_resource_post_error(struct wl_resource *resource, uint32_t code, const char *message) {
    wl_resource_post_error(resource, code, "%s", message);
}

int tr_socket_unread_bytes(int fd) {
    int bytes = 0;
    if (ioctl(fd, SIOCOUTQ, &bytes) < 0) return -1;
    return bytes;
}

int tr_socket_is_full(int fd) {
    struct pollfd watched = { .fd = fd, .events = POLLOUT };
    int ready = poll(&watched, 1, 0);
    if (ready < 0) return -1;
    return (watched.revents & POLLOUT) ? 0 : 1;
}

void tr_client_post_implementation_error(struct wl_client *client, const char *message) {
    wl_client_post_implementation_error(client, "%s", message);
}

void *tr_listener_owner(struct wl_listener *listener) {
    struct tr_listener *outer = wl_container_of(listener, outer, listener);
    return outer->owner;
}

void *tr_map_client_memory(int fd, size_t size, int *writable) {
    // Writable where the file allows it, as libwayland maps pools: screen capture writes into
    // a client's buffer. A file opened read-only is mapped read-only.
    void *data = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    *writable = data != MAP_FAILED;
    if (data == MAP_FAILED) data = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
    return data == MAP_FAILED ? NULL : data;
}

void *tr_remap_client_memory(void *address, size_t old_size, size_t new_size) {
    void *data = mremap(address, old_size, new_size, MREMAP_MAYMOVE);
    return data == MAP_FAILED ? NULL : data;
}

// The copy in progress on this thread, if any: where a SIGBUS jumps back to. Volatile,
// because only the signal handler reads it: an optimizer that knows what memcpy touches
// would otherwise drop the store before the copy as dead.
static __thread sigjmp_buf *volatile guarded_copy;
static struct sigaction previous_bus_action;
static pthread_once_t bus_handler_installed = PTHREAD_ONCE_INIT;

static void on_bus_error(int signal, siginfo_t *info, void *context) {
    (void)info;
    (void)context;
    if (guarded_copy) siglongjmp(*guarded_copy, 1);
    // Not a copy of ours: the fault belongs to whoever had SIGBUS before (by default, death).
    sigaction(SIGBUS, &previous_bus_action, NULL);
    raise(signal);
}

static void install_bus_handler(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_bus_error;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    sigaction(SIGBUS, &action, &previous_bus_action);
}

int tr_guarded_copy_rows(uint8_t *destination, size_t destination_stride, const uint8_t *source,
                         size_t source_stride, size_t row_length, size_t rows) {
    pthread_once(&bus_handler_installed, install_bus_handler);
    sigjmp_buf jump;
    if (sigsetjmp(jump, 1)) {
        guarded_copy = NULL;
        return -1;
    }
    guarded_copy = &jump;
    for (size_t row = 0; row < rows; row++) {
        memcpy(destination + row * destination_stride, source + row * source_stride, row_length);
    }
    guarded_copy = NULL;
    return 0;
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

int tr_epoll_create(void) {
    return epoll_create1(EPOLL_CLOEXEC);
}

int tr_epoll_add(int set, int fd) {
    struct epoll_event event = { .events = EPOLLIN, .data.fd = fd };
    return epoll_ctl(set, EPOLL_CTL_ADD, fd, &event);
}

int tr_epoll_remove(int set, int fd) {
    return epoll_ctl(set, EPOLL_CTL_DEL, fd, NULL);
}

int tr_epoll_wait(int set, int *ready, int capacity, int timeout) {
    struct epoll_event events[16];
    if (capacity > 16) capacity = 16;
    int count = epoll_wait(set, events, capacity, timeout);
    for (int i = 0; i < count; i++) ready[i] = events[i].data.fd;
    return count;
}
