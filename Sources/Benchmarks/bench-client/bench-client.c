/*
 * touch-router-bench-client: the benchmark client of `touch-router bench e2e`
 * (docs/benchmarks.md). It maps one xdg toplevel with a wl_shm buffer, takes wl_seat's touch,
 * pointer and keyboard, binds zwp_input_timestamps_manager_v1 when the compositor offers
 * it, and records every wl_touch / wl_pointer / wl_keyboard event it receives: the
 * CLOCK_MONOTONIC time its handler ran, its kind, id, coordinates and, when the
 * compositor sent one, the event's input timestamp in ns. The records go into a buffer
 * allocated at start, so receiving costs no allocation.
 *
 *   touch-router-bench-client --out FILE [--size WxH] [--capacity N] [--title T] [--report-receipts] [--present]
 *
 * With --report-receipts, and a compositor offering touch_router_input_manager_v1 version 2
 * with input timestamps, it also tells the compositor when it read each frame's events
 * (`received` with the frame's last input timestamp, once a wl_touch or wl_pointer frame
 * and once a key), so that the session's
 * own statistics gain the received stage. Off by default: the report is traffic a client
 * without it does not make, and `bench e2e` compares with a floor that gets none.
 *
 * With --present (`bench e2e --present`, answers.c), it answers input as a drawing app does: at each
 * wl_touch.frame or wl_pointer.frame that moved something, it draws a 16×16 dot at the
 * latest point into a free buffer of its size, damages only the old and the new dot, asks
 * wp_presentation for feedback, tells a compositor offering touch_router_input_manager_v1
 * version 3 which event it answers (touch_router_surface_input_v1.answer, by the frame's
 * last input timestamp), and commits. Each commit is recorded with the feedback's outcome.
 * A compositor without wp_presentation (cage 0.1.4) gets a wl_surface.frame request with each
 * commit instead, and the commit's time is when the client read the callback's done: when
 * the compositor composed a frame with it, a lower bound of its presentation (the header
 * says presented-by=frame-callback).
 *
 * Once its toplevel is mapped (its first buffer committed after the first configure and
 * a roundtrip) it prints "mapped WxH" on standard output. When the connection ends (the
 * compositor went) or on SIGTERM or SIGINT it writes the records to FILE and exits 0.
 *
 * FILE is text: a first line "# touch-router-bench-client 1 events=N dropped=D timestamps=0|1",
 * then one line per event:
 *   KIND RECEIPT_NS TIMESTAMP_NS TIME_MS ID X Y VALUE
 * KIND is touch-down, touch-motion, touch-up, touch-frame, touch-cancel, pointer-enter,
 * pointer-leave, pointer-motion, pointer-button, pointer-axis, pointer-frame, key;
 * TIMESTAMP_NS is -1 without an input timestamp; ID is the touch id (or -1); X and Y are
 * surface-local; VALUE is the key or button code, the axis value, or 0. Events beyond
 * the capacity are counted in `dropped`, not kept. With --present, one line per commit
 * follows the events:
 *   commit INDEX COMMIT_NS PRESENTED_NS REFRESH_NS FLAGS FIRST LAST
 * PRESENTED_NS is the feedback's time on CLOCK_MONOTONIC (or the frame callback's done, read),
 * -1 if discarded, -2 if never told;
 * FIRST and LAST are the indices (from 0, among the event lines) of the events the commit
 * answers; REFRESH_NS and FLAGS are the feedback's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>
#include "xdg-shell-client-protocol.h"
#include "input-timestamps-unstable-v1-client-protocol.h"
#include "touch-router-input-v1-client-protocol.h"
#include "presentation-time-client-protocol.h"
#include "answers.h"

enum kind {
    K_TOUCH_DOWN, K_TOUCH_MOTION, K_TOUCH_UP, K_TOUCH_FRAME, K_TOUCH_CANCEL,
    K_POINTER_ENTER, K_POINTER_LEAVE, K_POINTER_MOTION, K_POINTER_BUTTON, K_POINTER_AXIS, K_POINTER_FRAME,
    K_KEY, K_COUNT
};
static const char *kind_names[K_COUNT] = {
    "touch-down", "touch-motion", "touch-up", "touch-frame", "touch-cancel",
    "pointer-enter", "pointer-leave", "pointer-motion", "pointer-button", "pointer-axis", "pointer-frame",
    "key",
};

struct record {
    uint64_t receipt_ns;
    int64_t timestamp_ns;
    uint32_t time_ms;
    int32_t id;
    double x, y, value;
    uint8_t kind;
};

static struct record *records;
static size_t capacity = 1u << 21, count, dropped;
static const char *out_path;
static int width = 256, height = 256;
static const char *title = "touch-router-bench-client";

static struct wl_compositor *compositor;
static struct wl_shm *shm;
static struct xdg_wm_base *wm_base;
static struct wl_seat *seat;
static struct zwp_input_timestamps_manager_v1 *timestamps_manager;
static struct touch_router_input_manager_v1 *receipt_manager;
static int report_receipts;
static struct wl_touch *touch;
static struct wl_pointer *pointer;
static struct wl_keyboard *keyboard;
static struct wl_surface *surface;
static struct xdg_surface *xdg_surface;
static struct xdg_toplevel *toplevel;
static int configured;
static int present_mode;
static struct wp_presentation *presentation;
static uint32_t compositor_version;
static struct touch_router_surface_input_v1 *answer_input;
static struct touch_router_input_manager_v1 *answer_manager;
/* The input timestamp announced for the next event of each device, or -1. */
static int64_t pending_touch = -1, pending_pointer = -1, pending_keyboard = -1;

uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The last input timestamp of the frame being read on each device, and when it was read. */
struct unreported { int64_t stamp; uint64_t receipt; };
static struct unreported touch_frame_stamp = { -1, 0 }, pointer_frame_stamp = { -1, 0 };

static void report(struct unreported *frame) {
    if (!receipt_manager || frame->stamp < 0) return;
    uint64_t event_sec = (uint64_t)frame->stamp / 1000000000u, receipt_sec = frame->receipt / 1000000000u;
    touch_router_input_manager_v1_received(receipt_manager, (uint32_t)(event_sec >> 32), (uint32_t)event_sec, (uint32_t)((uint64_t)frame->stamp % 1000000000u),
                                           (uint32_t)(receipt_sec >> 32), (uint32_t)receipt_sec, (uint32_t)(frame->receipt % 1000000000u));
    frame->stamp = -1;
}

static void add(enum kind kind, uint64_t receipt, int64_t *pending, uint32_t time_ms, int32_t id, double x, double y, double value) {
    int64_t stamp = -1;
    if (pending) {
        stamp = *pending;
        *pending = -1;
    }
    if (present_mode && (kind == K_TOUCH_DOWN || kind == K_TOUCH_MOTION || kind == K_TOUCH_UP || kind == K_POINTER_MOTION))
        answers_note(kind != K_TOUCH_UP, x, y, stamp);
    if (stamp >= 0) {
        struct unreported *frame = pending == &pending_touch ? &touch_frame_stamp : pending == &pending_pointer ? &pointer_frame_stamp : NULL;
        if (frame) *frame = (struct unreported){ stamp, receipt };
        if (pending == &pending_keyboard) {
            struct unreported key = { stamp, receipt };
            report(&key);
        }
    }
    if (count >= capacity) {
        dropped++;
        return;
    }
    records[count++] = (struct record){ receipt, stamp, time_ms, id, x, y, value, (uint8_t)kind };
}

static void write_records(void) {
    FILE *file = fopen(out_path, "w");
    if (!file) {
        fprintf(stderr, "touch-router-bench-client: cannot write %s: %s\n", out_path, strerror(errno));
        exit(1);
    }
    fprintf(file, "# touch-router-bench-client 1 events=%zu dropped=%zu timestamps=%d", count, dropped, timestamps_manager != NULL);
    if (present_mode) answers_write_header(file);
    fprintf(file, "\n");
    for (size_t i = 0; i < count; i++) {
        const struct record *r = &records[i];
        fprintf(file, "%s %llu %lld %u %d %.3f %.3f %.6g\n", kind_names[r->kind], (unsigned long long)r->receipt_ns,
                (long long)r->timestamp_ns, r->time_ms, r->id, r->x, r->y, r->value);
    }
    if (present_mode) answers_write(file);
    if (fclose(file) != 0) {
        fprintf(stderr, "touch-router-bench-client: cannot write %s: %s\n", out_path, strerror(errno));
        exit(1);
    }
}

/* Input timestamps: the next event of the device carries this time. */
static void on_timestamp(void *data, struct zwp_input_timestamps_v1 *object, uint32_t sec_hi, uint32_t sec_lo, uint32_t nsec) {
    (void)object;
    int64_t *pending = data;
    *pending = (int64_t)((((uint64_t)sec_hi << 32) | sec_lo) * 1000000000u + nsec);
}
static const struct zwp_input_timestamps_v1_listener timestamps_listener = { on_timestamp };

/* cage 0.1.4 sends no wl_touch.frame: until one comes, each touch event is answered alone. */
static int touch_frames_seen;
static void touch_down(void *d, struct wl_touch *t, uint32_t serial, uint32_t time, struct wl_surface *s, int32_t id, wl_fixed_t x, wl_fixed_t y) {
    (void)d; (void)t; (void)serial; (void)s;
    add(K_TOUCH_DOWN, now_ns(), &pending_touch, time, id, wl_fixed_to_double(x), wl_fixed_to_double(y), 0);
    if (present_mode && !touch_frames_seen) answers_draw(count);
}
static void touch_up(void *d, struct wl_touch *t, uint32_t serial, uint32_t time, int32_t id) {
    (void)d; (void)t; (void)serial;
    add(K_TOUCH_UP, now_ns(), &pending_touch, time, id, 0, 0, 0);
    if (present_mode && !touch_frames_seen) answers_draw(count);
}
static void touch_motion(void *d, struct wl_touch *t, uint32_t time, int32_t id, wl_fixed_t x, wl_fixed_t y) {
    (void)d; (void)t;
    add(K_TOUCH_MOTION, now_ns(), &pending_touch, time, id, wl_fixed_to_double(x), wl_fixed_to_double(y), 0);
    if (present_mode && !touch_frames_seen) answers_draw(count);
}
static void touch_frame(void *d, struct wl_touch *t) {
    (void)d; (void)t;
    touch_frames_seen = 1;
    add(K_TOUCH_FRAME, now_ns(), NULL, 0, -1, 0, 0, 0);
    report(&touch_frame_stamp);
    if (present_mode) answers_draw(count);
}
static void touch_cancel(void *d, struct wl_touch *t) { (void)d; (void)t; add(K_TOUCH_CANCEL, now_ns(), NULL, 0, -1, 0, 0, 0); }
static void touch_shape(void *d, struct wl_touch *t, int32_t id, wl_fixed_t major, wl_fixed_t minor) { (void)d; (void)t; (void)id; (void)major; (void)minor; }
static void touch_orientation(void *d, struct wl_touch *t, int32_t id, wl_fixed_t o) { (void)d; (void)t; (void)id; (void)o; }
static const struct wl_touch_listener touch_listener = { touch_down, touch_up, touch_motion, touch_frame, touch_cancel, touch_shape, touch_orientation };

static void pointer_enter(void *d, struct wl_pointer *p, uint32_t serial, struct wl_surface *s, wl_fixed_t x, wl_fixed_t y) {
    (void)d; (void)p; (void)serial; (void)s;
    add(K_POINTER_ENTER, now_ns(), NULL, 0, -1, wl_fixed_to_double(x), wl_fixed_to_double(y), 0);
}
static void pointer_leave(void *d, struct wl_pointer *p, uint32_t serial, struct wl_surface *s) {
    (void)d; (void)p; (void)serial; (void)s;
    add(K_POINTER_LEAVE, now_ns(), NULL, 0, -1, 0, 0, 0);
}
static void pointer_motion(void *d, struct wl_pointer *p, uint32_t time, wl_fixed_t x, wl_fixed_t y) {
    (void)d; (void)p;
    add(K_POINTER_MOTION, now_ns(), &pending_pointer, time, -1, wl_fixed_to_double(x), wl_fixed_to_double(y), 0);
}
static void pointer_button(void *d, struct wl_pointer *p, uint32_t serial, uint32_t time, uint32_t button, uint32_t state) {
    (void)d; (void)p; (void)serial;
    add(K_POINTER_BUTTON, now_ns(), &pending_pointer, time, (int32_t)state, 0, 0, button);
}
static void pointer_axis(void *d, struct wl_pointer *p, uint32_t time, uint32_t axis, wl_fixed_t value) {
    (void)d; (void)p;
    add(K_POINTER_AXIS, now_ns(), &pending_pointer, time, (int32_t)axis, 0, 0, wl_fixed_to_double(value));
}
static void pointer_frame(void *d, struct wl_pointer *p) {
    (void)d; (void)p;
    add(K_POINTER_FRAME, now_ns(), NULL, 0, -1, 0, 0, 0);
    report(&pointer_frame_stamp);
    if (present_mode) answers_draw(count);
}
static void pointer_axis_source(void *d, struct wl_pointer *p, uint32_t s) { (void)d; (void)p; (void)s; }
static void pointer_axis_stop(void *d, struct wl_pointer *p, uint32_t t, uint32_t a) { (void)d; (void)p; (void)t; (void)a; }
static void pointer_axis_discrete(void *d, struct wl_pointer *p, uint32_t a, int32_t v) { (void)d; (void)p; (void)a; (void)v; }
static const struct wl_pointer_listener pointer_listener = {
    pointer_enter, pointer_leave, pointer_motion, pointer_button, pointer_axis, pointer_frame,
    pointer_axis_source, pointer_axis_stop, pointer_axis_discrete,
    NULL, /* axis_value120: wl_seat is bound at version 5, before it */
};

static void keyboard_keymap(void *d, struct wl_keyboard *k, uint32_t format, int32_t fd, uint32_t size) { (void)d; (void)k; (void)format; (void)size; close(fd); }
static void keyboard_enter(void *d, struct wl_keyboard *k, uint32_t serial, struct wl_surface *s, struct wl_array *keys) { (void)d; (void)k; (void)serial; (void)s; (void)keys; }
static void keyboard_leave(void *d, struct wl_keyboard *k, uint32_t serial, struct wl_surface *s) { (void)d; (void)k; (void)serial; (void)s; }
static void keyboard_key(void *d, struct wl_keyboard *k, uint32_t serial, uint32_t time, uint32_t key, uint32_t state) {
    (void)d; (void)k; (void)serial;
    add(K_KEY, now_ns(), &pending_keyboard, time, (int32_t)state, 0, 0, key);
}
static void keyboard_modifiers(void *d, struct wl_keyboard *k, uint32_t serial, uint32_t a, uint32_t b, uint32_t c, uint32_t g) { (void)d; (void)k; (void)serial; (void)a; (void)b; (void)c; (void)g; }
static void keyboard_repeat(void *d, struct wl_keyboard *k, int32_t rate, int32_t delay) { (void)d; (void)k; (void)rate; (void)delay; }
static const struct wl_keyboard_listener keyboard_listener = { keyboard_keymap, keyboard_enter, keyboard_leave, keyboard_key, keyboard_modifiers, keyboard_repeat };

static void seat_capabilities(void *data, struct wl_seat *s, uint32_t caps) {
    (void)data;
    if ((caps & WL_SEAT_CAPABILITY_TOUCH) && !touch) {
        touch = wl_seat_get_touch(s);
        wl_touch_add_listener(touch, &touch_listener, NULL);
        if (timestamps_manager) {
            struct zwp_input_timestamps_v1 *t = zwp_input_timestamps_manager_v1_get_touch_timestamps(timestamps_manager, touch);
            zwp_input_timestamps_v1_add_listener(t, &timestamps_listener, &pending_touch);
        }
    }
    if ((caps & WL_SEAT_CAPABILITY_POINTER) && !pointer) {
        pointer = wl_seat_get_pointer(s);
        wl_pointer_add_listener(pointer, &pointer_listener, NULL);
        if (timestamps_manager) {
            struct zwp_input_timestamps_v1 *t = zwp_input_timestamps_manager_v1_get_pointer_timestamps(timestamps_manager, pointer);
            zwp_input_timestamps_v1_add_listener(t, &timestamps_listener, &pending_pointer);
        }
    }
    if ((caps & WL_SEAT_CAPABILITY_KEYBOARD) && !keyboard) {
        keyboard = wl_seat_get_keyboard(s);
        wl_keyboard_add_listener(keyboard, &keyboard_listener, NULL);
        if (timestamps_manager) {
            struct zwp_input_timestamps_v1 *t = zwp_input_timestamps_manager_v1_get_keyboard_timestamps(timestamps_manager, keyboard);
            zwp_input_timestamps_v1_add_listener(t, &timestamps_listener, &pending_keyboard);
        }
    }
}
static void seat_name(void *d, struct wl_seat *s, const char *name) { (void)d; (void)s; (void)name; }
static const struct wl_seat_listener seat_listener = { seat_capabilities, seat_name };

static void wm_ping(void *d, struct xdg_wm_base *b, uint32_t serial) { (void)d; xdg_wm_base_pong(b, serial); }
static const struct xdg_wm_base_listener wm_listener = { wm_ping };

static void xdg_surface_configure(void *d, struct xdg_surface *s, uint32_t serial) {
    (void)d;
    xdg_surface_ack_configure(s, serial);
    configured = 1;
}
static const struct xdg_surface_listener xdg_surface_listener = { xdg_surface_configure };
static void toplevel_configure(void *d, struct xdg_toplevel *t, int32_t w, int32_t h, struct wl_array *states) { (void)d; (void)t; (void)w; (void)h; (void)states; }
static void toplevel_close(void *d, struct xdg_toplevel *t) { (void)d; (void)t; }
static const struct xdg_toplevel_listener toplevel_listener = {
    toplevel_configure, toplevel_close, NULL, NULL, /* configure_bounds, wm_capabilities: xdg_wm_base is bound at version 1 */
};

static void global(void *data, struct wl_registry *registry, uint32_t name, const char *interface, uint32_t version) {
    (void)data;
#define MIN(a, b) ((a) < (b) ? (a) : (b))
    if (strcmp(interface, wl_compositor_interface.name) == 0) {
        compositor_version = MIN(version, 4);
        compositor = wl_registry_bind(registry, name, &wl_compositor_interface, compositor_version);
    }
    else if (strcmp(interface, wl_shm_interface.name) == 0) shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
    else if (strcmp(interface, xdg_wm_base_interface.name) == 0) {
        wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
        xdg_wm_base_add_listener(wm_base, &wm_listener, NULL);
    } else if (strcmp(interface, wl_seat_interface.name) == 0 && !seat) seat = wl_registry_bind(registry, name, &wl_seat_interface, MIN(version, 5));
    else if (strcmp(interface, zwp_input_timestamps_manager_v1_interface.name) == 0)
        timestamps_manager = wl_registry_bind(registry, name, &zwp_input_timestamps_manager_v1_interface, 1);
    else if ((report_receipts || present_mode) && strcmp(interface, touch_router_input_manager_v1_interface.name) == 0 && version >= 2) {
        /* Receipts need version 2, answers version 3. */
        uint32_t wanted = present_mode && version >= 3 ? 3 : 2;
        struct touch_router_input_manager_v1 *manager = wl_registry_bind(registry, name, &touch_router_input_manager_v1_interface, wanted);
        if (report_receipts) receipt_manager = manager;
        if (wanted >= 3) answer_manager = manager;
    } else if (present_mode && strcmp(interface, wp_presentation_interface.name) == 0) {
        presentation = wl_registry_bind(registry, name, &wp_presentation_interface, 1);
        answers_watch_clock(presentation);
    }
}
static void global_remove(void *d, struct wl_registry *r, uint32_t name) { (void)d; (void)r; (void)name; }
static const struct wl_registry_listener registry_listener = { global, global_remove };

struct wl_buffer *shm_buffer(struct wl_shm *on, int w, int h, uint32_t colour, uint32_t **keep) {
    size_t size = (size_t)w * (size_t)h * 4;
    int fd = memfd_create("touch-router-bench-client", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)size) != 0) {
        perror("touch-router-bench-client: memfd");
        exit(1);
    }
    uint32_t *pixels = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (pixels == MAP_FAILED) {
        perror("touch-router-bench-client: mmap");
        exit(1);
    }
    for (size_t i = 0; i < size / 4; i++) pixels[i] = colour;
    if (keep) *keep = pixels;
    else munmap(pixels, size);
    struct wl_shm_pool *pool = wl_shm_create_pool(on, fd, (int32_t)size);
    struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, w, h, w * 4, WL_SHM_FORMAT_XRGB8888);
    wl_shm_pool_destroy(pool);
    close(fd);
    return buffer;
}

static void usage(void) {
    fprintf(stderr, "usage: touch-router-bench-client --out FILE [--size WxH] [--capacity N] [--title T] [--report-receipts] [--present]\n");
    exit(2);
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) out_path = argv[++i];
        else if (strcmp(argv[i], "--title") == 0 && i + 1 < argc) title = argv[++i];
        else if (strcmp(argv[i], "--report-receipts") == 0) report_receipts = 1;
        else if (strcmp(argv[i], "--present") == 0) present_mode = 1;
        else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
            if (sscanf(argv[++i], "%dx%d", &width, &height) != 2 || width < 1 || height < 1 || width > 8192 || height > 8192) {
                fprintf(stderr, "touch-router-bench-client: --size: expected WxH, each 1 to 8192, found '%s'\n", argv[i]);
                return 2;
            }
        } else if (strcmp(argv[i], "--capacity") == 0 && i + 1 < argc) {
            char *end;
            unsigned long long value = strtoull(argv[++i], &end, 10);
            if (*end || value < 1 || value > (1ull << 26)) {
                fprintf(stderr, "touch-router-bench-client: --capacity: expected 1 to %llu records, found '%s'\n", 1ull << 26, argv[i]);
                return 2;
            }
            capacity = (size_t)value;
        } else usage();
    }
    if (!out_path) usage();
    records = calloc(capacity, sizeof *records);
    if (!records) {
        fprintf(stderr, "touch-router-bench-client: cannot allocate %zu records\n", capacity);
        return 1;
    }
    /* Touch every page now, so that receiving never faults one in. */
    memset(records, 0, capacity * sizeof *records);
    if (present_mode) answers_allocate(capacity < (1u << 20) ? capacity : (1u << 20));

    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGINT);
    sigprocmask(SIG_BLOCK, &signals, NULL);
    int sfd = signalfd(-1, &signals, SFD_CLOEXEC);

    struct wl_display *display = wl_display_connect(NULL);
    if (!display) {
        fprintf(stderr, "touch-router-bench-client: cannot connect to the Wayland display\n");
        return 1;
    }
    struct wl_registry *registry = wl_display_get_registry(display);
    wl_registry_add_listener(registry, &registry_listener, NULL);
    wl_display_roundtrip(display);
    if (!compositor || !shm || !wm_base || !seat) {
        fprintf(stderr, "touch-router-bench-client: the compositor lacks wl_compositor, wl_shm, xdg_wm_base or wl_seat\n");
        return 1;
    }
    if (report_receipts && (!receipt_manager || !timestamps_manager)) {
        fprintf(stderr, "touch-router-bench-client: --report-receipts: the compositor lacks touch_router_input_manager_v1 version 2 or zwp_input_timestamps_manager_v1\n");
        return 1;
    }
    wl_seat_add_listener(seat, &seat_listener, NULL);
    surface = wl_compositor_create_surface(compositor);
    if (answer_manager) answer_input = touch_router_input_manager_v1_get_surface_input(answer_manager, surface);
    if (present_mode) answers_start(shm, surface, width, height, compositor_version, presentation, answer_input);
    xdg_surface = xdg_wm_base_get_xdg_surface(wm_base, surface);
    xdg_surface_add_listener(xdg_surface, &xdg_surface_listener, NULL);
    toplevel = xdg_surface_get_toplevel(xdg_surface);
    xdg_toplevel_add_listener(toplevel, &toplevel_listener, NULL);
    xdg_toplevel_set_title(toplevel, title);
    xdg_toplevel_set_app_id(toplevel, "touch-router-bench-client");
    wl_surface_commit(surface);
    while (!configured) {
        if (wl_display_dispatch(display) < 0) {
            fprintf(stderr, "touch-router-bench-client: the connection ended before the first configure\n");
            return 1;
        }
    }
    if (present_mode) {
        wl_surface_attach(surface, answers_first_buffer(), 0, 0);
    } else {
        wl_surface_attach(surface, shm_buffer(shm, width, height, 0xff3070b0, NULL), 0, 0);
    }
    wl_surface_damage(surface, 0, 0, width, height);
    wl_surface_commit(surface);
    wl_display_roundtrip(display);
    if (present_mode) answers_check_clock();
    printf("mapped %dx%d\n", width, height);
    fflush(stdout);

    int fd = wl_display_get_fd(display);
    for (;;) {
        while (wl_display_prepare_read(display) != 0) {
            if (wl_display_dispatch_pending(display) < 0) goto done;
        }
        wl_display_flush(display);
        struct pollfd fds[2] = { { fd, POLLIN, 0 }, { sfd, POLLIN, 0 } };
        if (poll(fds, 2, -1) < 0) {
            wl_display_cancel_read(display);
            if (errno == EINTR) continue;
            break;
        }
        if (fds[1].revents) {
            wl_display_cancel_read(display);
            break;
        }
        if (fds[0].revents & POLLIN) {
            if (wl_display_read_events(display) < 0) break;
        } else {
            wl_display_cancel_read(display);
            if (fds[0].revents & (POLLHUP | POLLERR)) break;
        }
        if (wl_display_dispatch_pending(display) < 0) break;
    }
done:
    write_records();
    return 0;
}
