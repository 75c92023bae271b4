/*
 * touch-router-bench-floor: the raw libwayland floor of `touch-router bench e2e`
 * (docs/benchmarks.md). A minimal libwayland-server compositor with just enough wl_compositor,
 * wl_shm, xdg_wm_base, wl_seat and zwp_input_timestamps_manager_v1 for the benchmark
 * client to map; once the expected number of clients have mapped it sends a workload of
 * touch frames straight to them, with no routing: every event of a frame stamped with the
 * CLOCK_MONOTONIC time the frame is taken up (an input timestamp, then the wl_touch event),
 * as a touchscreen's frame gives all its events one time and as the session's player makes
 * a frame's events at once, and the clients flushed after each frame, as a compositor's
 * loop does. Then it disconnects them and exits.
 *
 *   touch-router-bench-floor --clients N
 *
 * It prints "WAYLAND_DISPLAY=NAME" once listening (in XDG_RUNTIME_DIR) and "ready" when
 * every client has mapped. Then it takes commands on standard input, one a line:
 *   play FILE    plays the workload in FILE from 20 ms later, then prints "done frames=F events=E"
 * and at the end of standard input it disconnects the clients and exits. `bench e2e` plays
 * the floor's rounds between the session's, so that both sides of a run meet the same load.
 *
 * The workload (written by `bench e2e`) is text:
 *   # touch-router-bench-workload 1
 *   F OFFSET_NS           a frame, OFFSET_NS after the start (non-decreasing)
 *   D CLIENT ID X Y       touch down of touch ID on client CLIENT (0-based, in mapping order), surface-local
 *   M CLIENT ID X Y       touch motion
 *   U CLIENT ID           touch up
 * Every client that got an event in a frame gets wl_touch.frame after it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include <wayland-server.h>
#include "xdg-shell-server-protocol.h"
#include "input-timestamps-unstable-v1-server-protocol.h"

#define MAX_CLIENTS 128

struct floor_client {
    struct wl_client *client;
    struct wl_resource *surface, *touch, *touch_timestamps;
    int toplevel, acked, mapped, index;
};

struct event {
    char kind; /* 'F', 'D', 'M', 'U' */
    int32_t client, id;
    double x, y;
    int64_t offset_ns;
};

static struct floor_client clients[MAX_CLIENTS];
static int client_count, mapped_count, expected_clients;
static struct event *events;
static size_t event_count, next_event, frames_sent, events_sent;
static struct wl_display *display;
static struct wl_event_source *timer;
static int timer_fd = -1;
static uint64_t start_ns;
static int ready, playing, quitting;
static uint32_t serial;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct floor_client *client_of(struct wl_client *client) {
    for (int i = 0; i < client_count; i++)
        if (clients[i].client == client) return &clients[i];
    if (client_count == MAX_CLIENTS) return NULL;
    clients[client_count] = (struct floor_client){ .client = client, .index = -1 };
    return &clients[client_count++];
}

static void destroy_resource(struct wl_client *c, struct wl_resource *r) { (void)c; wl_resource_destroy(r); }

/* wl_region: kept by nobody. */
static void region_add(struct wl_client *c, struct wl_resource *r, int32_t x, int32_t y, int32_t w, int32_t h) { (void)c; (void)r; (void)x; (void)y; (void)w; (void)h; }
static const struct wl_region_interface region_impl = { destroy_resource, region_add, region_add };

/* wl_surface: a buffer is released at once; the first commit with a buffer after an acked configure maps it. */
static void surface_attach(struct wl_client *c, struct wl_resource *r, struct wl_resource *buffer, int32_t x, int32_t y) {
    (void)c; (void)x; (void)y;
    wl_resource_set_user_data(r, buffer);
}
static void surface_damage(struct wl_client *c, struct wl_resource *r, int32_t x, int32_t y, int32_t w, int32_t h) { (void)c; (void)r; (void)x; (void)y; (void)w; (void)h; }
static void surface_frame(struct wl_client *c, struct wl_resource *r, uint32_t id) {
    struct wl_resource *callback = wl_resource_create(c, &wl_callback_interface, 1, id);
    (void)r;
    if (!callback) { wl_client_post_no_memory(c); return; }
    wl_callback_send_done(callback, (uint32_t)(now_ns() / 1000000u));
    wl_resource_destroy(callback);
}
static void surface_region(struct wl_client *c, struct wl_resource *r, struct wl_resource *region) { (void)c; (void)r; (void)region; }
static void surface_commit(struct wl_client *c, struct wl_resource *r) {
    struct wl_resource *buffer = wl_resource_get_user_data(r);
    if (!buffer) return;
    wl_buffer_send_release(buffer);
    wl_resource_set_user_data(r, NULL);
    struct floor_client *fc = client_of(c);
    if (fc && fc->toplevel && fc->acked && !fc->mapped) {
        fc->mapped = 1;
        fc->index = mapped_count++;
    }
}
static void surface_int(struct wl_client *c, struct wl_resource *r, int32_t v) { (void)c; (void)r; (void)v; }
static const struct wl_surface_interface surface_impl = {
    destroy_resource, surface_attach, surface_damage, surface_frame, surface_region, surface_region,
    surface_commit, surface_int, surface_int, surface_damage,
    NULL, /* offset: wl_compositor is offered at version 4, before it */
};

static void compositor_create_surface(struct wl_client *c, struct wl_resource *r, uint32_t id) {
    struct wl_resource *s = wl_resource_create(c, &wl_surface_interface, wl_resource_get_version(r), id);
    if (!s) { wl_client_post_no_memory(c); return; }
    wl_resource_set_implementation(s, &surface_impl, NULL, NULL);
}
static void compositor_create_region(struct wl_client *c, struct wl_resource *r, uint32_t id) {
    struct wl_resource *region = wl_resource_create(c, &wl_region_interface, wl_resource_get_version(r), id);
    if (!region) { wl_client_post_no_memory(c); return; }
    wl_resource_set_implementation(region, &region_impl, NULL, NULL);
}
static const struct wl_compositor_interface compositor_impl = { compositor_create_surface, compositor_create_region };
static void bind_compositor(struct wl_client *c, void *data, uint32_t version, uint32_t id) {
    (void)data;
    struct wl_resource *r = wl_resource_create(c, &wl_compositor_interface, (int)version, id);
    if (!r) { wl_client_post_no_memory(c); return; }
    wl_resource_set_implementation(r, &compositor_impl, NULL, NULL);
}

/* xdg-shell: a toplevel gets one configure; positioners and popups are not offered. */
static void toplevel_parent(struct wl_client *c, struct wl_resource *r, struct wl_resource *p) { (void)c; (void)r; (void)p; }
static void toplevel_string(struct wl_client *c, struct wl_resource *r, const char *s) { (void)c; (void)r; (void)s; }
static void toplevel_menu(struct wl_client *c, struct wl_resource *r, struct wl_resource *seat, uint32_t serial_, int32_t x, int32_t y) { (void)c; (void)r; (void)seat; (void)serial_; (void)x; (void)y; }
static void toplevel_move(struct wl_client *c, struct wl_resource *r, struct wl_resource *seat, uint32_t serial_) { (void)c; (void)r; (void)seat; (void)serial_; }
static void toplevel_resize(struct wl_client *c, struct wl_resource *r, struct wl_resource *seat, uint32_t serial_, uint32_t edges) { (void)c; (void)r; (void)seat; (void)serial_; (void)edges; }
static void toplevel_size(struct wl_client *c, struct wl_resource *r, int32_t w, int32_t h) { (void)c; (void)r; (void)w; (void)h; }
static void toplevel_plain(struct wl_client *c, struct wl_resource *r) { (void)c; (void)r; }
static void toplevel_output(struct wl_client *c, struct wl_resource *r, struct wl_resource *o) { (void)c; (void)r; (void)o; }
static const struct xdg_toplevel_interface toplevel_impl = {
    destroy_resource, toplevel_parent, toplevel_string, toplevel_string, toplevel_menu, toplevel_move, toplevel_resize,
    toplevel_size, toplevel_size, toplevel_plain, toplevel_plain, toplevel_output, toplevel_plain, toplevel_plain,
};

static void xdg_surface_get_toplevel(struct wl_client *c, struct wl_resource *r, uint32_t id) {
    struct wl_resource *t = wl_resource_create(c, &xdg_toplevel_interface, wl_resource_get_version(r), id);
    if (!t) { wl_client_post_no_memory(c); return; }
    wl_resource_set_implementation(t, &toplevel_impl, NULL, NULL);
    struct floor_client *fc = client_of(c);
    if (fc) fc->toplevel = 1;
    struct wl_array states;
    wl_array_init(&states);
    xdg_toplevel_send_configure(t, 0, 0, &states);
    wl_array_release(&states);
    xdg_surface_send_configure(r, ++serial);
}
static void xdg_surface_get_popup(struct wl_client *c, struct wl_resource *r, uint32_t id, struct wl_resource *parent, struct wl_resource *positioner) {
    (void)c; (void)id; (void)parent; (void)positioner;
    wl_resource_post_error(r, XDG_WM_BASE_ERROR_ROLE, "the floor offers no popups");
}
static void xdg_surface_geometry(struct wl_client *c, struct wl_resource *r, int32_t x, int32_t y, int32_t w, int32_t h) { (void)c; (void)r; (void)x; (void)y; (void)w; (void)h; }
static void xdg_surface_ack(struct wl_client *c, struct wl_resource *r, uint32_t s) {
    (void)r; (void)s;
    struct floor_client *fc = client_of(c);
    if (fc) fc->acked = 1;
}
static const struct xdg_surface_interface xdg_surface_impl = { destroy_resource, xdg_surface_get_toplevel, xdg_surface_get_popup, xdg_surface_geometry, xdg_surface_ack };

static void wm_create_positioner(struct wl_client *c, struct wl_resource *r, uint32_t id) {
    (void)c; (void)id;
    wl_resource_post_error(r, XDG_WM_BASE_ERROR_ROLE, "the floor offers no positioners");
}
static void wm_get_xdg_surface(struct wl_client *c, struct wl_resource *r, uint32_t id, struct wl_resource *surface) {
    struct floor_client *fc = client_of(c);
    if (fc) fc->surface = surface;
    struct wl_resource *s = wl_resource_create(c, &xdg_surface_interface, wl_resource_get_version(r), id);
    if (!s) { wl_client_post_no_memory(c); return; }
    wl_resource_set_implementation(s, &xdg_surface_impl, NULL, NULL);
}
static void wm_pong(struct wl_client *c, struct wl_resource *r, uint32_t s) { (void)c; (void)r; (void)s; }
static const struct xdg_wm_base_interface wm_impl = { destroy_resource, wm_create_positioner, wm_get_xdg_surface, wm_pong };
static void bind_wm(struct wl_client *c, void *data, uint32_t version, uint32_t id) {
    (void)data;
    struct wl_resource *r = wl_resource_create(c, &xdg_wm_base_interface, (int)version, id);
    if (!r) { wl_client_post_no_memory(c); return; }
    wl_resource_set_implementation(r, &wm_impl, NULL, NULL);
}

/* wl_seat: touch, pointer and keyboard; only touch is ever sent anything. */
static void touch_gone(struct wl_resource *r) {
    for (int i = 0; i < client_count; i++) {
        if (clients[i].touch == r) clients[i].touch = NULL;
        if (clients[i].touch_timestamps == r) clients[i].touch_timestamps = NULL;
    }
}
static const struct wl_touch_interface touch_impl = { destroy_resource };
static const struct wl_keyboard_interface keyboard_impl = { destroy_resource };
static void pointer_set_cursor(struct wl_client *c, struct wl_resource *r, uint32_t s, struct wl_resource *surface, int32_t x, int32_t y) { (void)c; (void)r; (void)s; (void)surface; (void)x; (void)y; }
static const struct wl_pointer_interface pointer_impl = { pointer_set_cursor, destroy_resource };

static void seat_get_pointer(struct wl_client *c, struct wl_resource *r, uint32_t id) {
    struct wl_resource *p = wl_resource_create(c, &wl_pointer_interface, wl_resource_get_version(r), id);
    if (!p) { wl_client_post_no_memory(c); return; }
    wl_resource_set_implementation(p, &pointer_impl, NULL, NULL);
}
static void seat_get_keyboard(struct wl_client *c, struct wl_resource *r, uint32_t id) {
    struct wl_resource *k = wl_resource_create(c, &wl_keyboard_interface, wl_resource_get_version(r), id);
    if (!k) { wl_client_post_no_memory(c); return; }
    wl_resource_set_implementation(k, &keyboard_impl, NULL, NULL);
    int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        wl_keyboard_send_keymap(k, WL_KEYBOARD_KEYMAP_FORMAT_NO_KEYMAP, fd, 0);
        close(fd);
    }
}
static void seat_get_touch(struct wl_client *c, struct wl_resource *r, uint32_t id) {
    struct wl_resource *t = wl_resource_create(c, &wl_touch_interface, wl_resource_get_version(r), id);
    if (!t) { wl_client_post_no_memory(c); return; }
    wl_resource_set_implementation(t, &touch_impl, NULL, touch_gone);
    struct floor_client *fc = client_of(c);
    if (fc) fc->touch = t;
}
static const struct wl_seat_interface seat_impl = { seat_get_pointer, seat_get_keyboard, seat_get_touch, destroy_resource };
static void bind_seat(struct wl_client *c, void *data, uint32_t version, uint32_t id) {
    (void)data;
    struct wl_resource *r = wl_resource_create(c, &wl_seat_interface, (int)version, id);
    if (!r) { wl_client_post_no_memory(c); return; }
    wl_resource_set_implementation(r, &seat_impl, NULL, NULL);
    wl_seat_send_capabilities(r, WL_SEAT_CAPABILITY_TOUCH | WL_SEAT_CAPABILITY_POINTER | WL_SEAT_CAPABILITY_KEYBOARD);
    if (version >= WL_SEAT_NAME_SINCE_VERSION) wl_seat_send_name(r, "seat0");
}

/* Input timestamps: the touch ones are kept per client, the others are inert. */
static const struct zwp_input_timestamps_v1_interface timestamps_impl = { destroy_resource };
static struct wl_resource *make_timestamps(struct wl_client *c, struct wl_resource *r, uint32_t id) {
    struct wl_resource *t = wl_resource_create(c, &zwp_input_timestamps_v1_interface, wl_resource_get_version(r), id);
    if (!t) { wl_client_post_no_memory(c); return NULL; }
    wl_resource_set_implementation(t, &timestamps_impl, NULL, touch_gone);
    return t;
}
static void timestamps_other(struct wl_client *c, struct wl_resource *r, uint32_t id, struct wl_resource *device) { (void)device; make_timestamps(c, r, id); }
static void timestamps_touch(struct wl_client *c, struct wl_resource *r, uint32_t id, struct wl_resource *device) {
    struct wl_resource *t = make_timestamps(c, r, id);
    struct floor_client *fc = client_of(c);
    if (t && fc && fc->touch == device) fc->touch_timestamps = t;
}
static const struct zwp_input_timestamps_manager_v1_interface timestamps_manager_impl = { destroy_resource, timestamps_other, timestamps_other, timestamps_touch };
static void bind_timestamps(struct wl_client *c, void *data, uint32_t version, uint32_t id) {
    (void)data;
    struct wl_resource *r = wl_resource_create(c, &zwp_input_timestamps_manager_v1_interface, (int)version, id);
    if (!r) { wl_client_post_no_memory(c); return; }
    wl_resource_set_implementation(r, &timestamps_manager_impl, NULL, NULL);
}

/* The workload. */
static struct floor_client *mapped_client(int32_t index) {
    for (int i = 0; i < client_count; i++)
        if (clients[i].mapped && clients[i].index == index) return &clients[i];
    return NULL;
}

static void stamp(struct floor_client *fc, uint64_t t, uint32_t *ms) {
    *ms = (uint32_t)(t / 1000000u);
    if (fc->touch_timestamps) {
        uint64_t sec = t / 1000000000u;
        zwp_input_timestamps_v1_send_timestamp(fc->touch_timestamps, (uint32_t)(sec >> 32), (uint32_t)sec, (uint32_t)(t % 1000000000u));
    }
}

static void arm(void) {
    struct itimerspec spec = { 0 };
    uint64_t at = start_ns + (uint64_t)events[next_event].offset_ns;
    spec.it_value.tv_sec = (time_t)(at / 1000000000u);
    spec.it_value.tv_nsec = (long)(at % 1000000000u);
    timerfd_settime(timer_fd, TFD_TIMER_ABSTIME, &spec, NULL);
}

/* Sends every frame that is due, each followed by its wl_touch.frame and a flush. */
static int on_timer(int fd, uint32_t mask, void *data) {
    (void)mask; (void)data;
    uint64_t expirations;
    if (read(fd, &expirations, sizeof expirations) < 0 && errno != EAGAIN) return 0;
    uint64_t now = now_ns();
    while (next_event < event_count && start_ns + (uint64_t)events[next_event].offset_ns <= now) {
        /* events[next_event] is an 'F' line; its events follow it. */
        char touched[MAX_CLIENTS] = { 0 };
        uint64_t frame_time = now_ns();
        next_event++;
        for (; next_event < event_count && events[next_event].kind != 'F'; next_event++) {
            const struct event *e = &events[next_event];
            struct floor_client *fc = mapped_client(e->client);
            if (!fc || !fc->touch || !fc->surface) continue;
            uint32_t ms;
            stamp(fc, frame_time, &ms);
            if (e->kind == 'D') {
                wl_touch_send_down(fc->touch, ++serial, ms, fc->surface, e->id, wl_fixed_from_double(e->x), wl_fixed_from_double(e->y));
            } else if (e->kind == 'M') {
                wl_touch_send_motion(fc->touch, ms, e->id, wl_fixed_from_double(e->x), wl_fixed_from_double(e->y));
            } else {
                wl_touch_send_up(fc->touch, ++serial, ms, e->id);
            }
            touched[fc - clients] = 1;
            events_sent++;
        }
        for (int i = 0; i < client_count; i++)
            if (touched[i] && clients[i].touch) wl_touch_send_frame(clients[i].touch);
        frames_sent++;
        wl_display_flush_clients(display);
        now = now_ns();
    }
    if (next_event < event_count) {
        arm();
    } else {
        wl_display_flush_clients(display);
        playing = 0;
        printf("done frames=%zu events=%zu\n", frames_sent, events_sent);
        fflush(stdout);
    }
    return 0;
}

static void fail(const char *file, size_t line, const char *what) {
    fprintf(stderr, "touch-router-bench-floor: %s:%zu: %s\n", file, line, what);
    exit(2);
}

static void load(const char *path) {
    FILE *file = fopen(path, "r");
    if (!file) {
        fprintf(stderr, "touch-router-bench-floor: cannot read %s: %s\n", path, strerror(errno));
        exit(2);
    }
    size_t cap = 1024, line_number = 0;
    free(events);
    event_count = next_event = frames_sent = events_sent = 0;
    events = malloc(cap * sizeof *events);
    if (!events) fail(path, 0, "out of memory");
    char line[256];
    int64_t last = 0;
    while (fgets(line, sizeof line, file)) {
        line_number++;
        if (line[0] == '#' || line[0] == '\n') continue;
        if (event_count == cap) {
            if (cap >= (1u << 26)) fail(path, line_number, "more than 2^26 events");
            cap *= 2;
            events = realloc(events, cap * sizeof *events);
            if (!events) fail(path, line_number, "out of memory");
        }
        struct event e = { 0 };
        int n = 0;
        e.kind = line[0];
        switch (e.kind) {
        case 'F':
            if (sscanf(line, "F %" SCNd64 " %n", &e.offset_ns, &n) != 1 || line[n] || e.offset_ns < last || e.offset_ns > 3600000000000LL)
                fail(path, line_number, "expected 'F OFFSET_NS', offsets non-decreasing and at most an hour");
            last = e.offset_ns;
            break;
        case 'D': case 'M':
            if (sscanf(line + 1, " %d %d %lf %lf %n", &e.client, &e.id, &e.x, &e.y, &n) != 4 || line[1 + n] || e.client < 0 || e.client >= MAX_CLIENTS
                || e.x < -1e6 || e.x > 1e6 || e.y < -1e6 || e.y > 1e6)
                fail(path, line_number, "expected 'D|M CLIENT ID X Y', CLIENT 0 to 127, X and Y within ±10^6");
            break;
        case 'U':
            if (sscanf(line + 1, " %d %d %n", &e.client, &e.id, &n) != 2 || line[1 + n] || e.client < 0 || e.client >= MAX_CLIENTS)
                fail(path, line_number, "expected 'U CLIENT ID', CLIENT 0 to 127");
            break;
        default:
            fail(path, line_number, "expected a line starting with F, D, M, U or #");
        }
        if (e.kind != 'F' && event_count == 0) fail(path, line_number, "an event before the first frame line");
        events[event_count++] = e;
    }
    fclose(file);
    if (event_count == 0) fail(path, line_number, "no frames");
}

/* Standard input: "play FILE" lines; its end ends the run. */
static char command[4096];
static size_t command_length;
static struct wl_event_source *commands;

static void run_command(const char *line) {
    if (strncmp(line, "play ", 5) == 0 && line[5]) {
        if (playing) {
            fprintf(stderr, "touch-router-bench-floor: play while a workload is playing\n");
            exit(2);
        }
        load(line + 5);
        if (!ready) {
            fprintf(stderr, "touch-router-bench-floor: play before every client mapped\n");
            exit(2);
        }
        playing = 1;
        start_ns = now_ns() + 20000000u;
        arm();
        return;
    }
    fprintf(stderr, "touch-router-bench-floor: unknown command '%.100s' (expected 'play FILE')\n", line);
    exit(2);
}

static int on_command(int fd, uint32_t mask, void *data) {
    (void)mask; (void)data;
    ssize_t n = read(fd, command + command_length, sizeof command - command_length);
    if (n <= 0) {
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) return 0;
        /* At its end standard input stays readable: stop watching it. */
        quitting = 1;
        wl_event_source_remove(commands);
        commands = NULL;
        return 0;
    }
    command_length += (size_t)n;
    char *newline;
    while ((newline = memchr(command, '\n', command_length))) {
        *newline = 0;
        run_command(command);
        size_t used = (size_t)(newline - command) + 1;
        memmove(command, newline + 1, command_length - used);
        command_length -= used;
    }
    if (command_length == sizeof command) {
        fprintf(stderr, "touch-router-bench-floor: a command longer than %zu bytes\n", sizeof command);
        exit(2);
    }
    return 0;
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--clients") == 0 && i + 1 < argc) {
            char *end;
            long value = strtol(argv[++i], &end, 10);
            if (*end || value < 1 || value > 100) {
                fprintf(stderr, "touch-router-bench-floor: --clients: expected 1 to 100, found '%s'\n", argv[i]);
                return 2;
            }
            expected_clients = (int)value;
        } else {
            fprintf(stderr, "usage: touch-router-bench-floor --clients N (then 'play FILE' lines on standard input)\n");
            return 2;
        }
    }
    if (!expected_clients) {
        fprintf(stderr, "usage: touch-router-bench-floor --clients N (then 'play FILE' lines on standard input)\n");
        return 2;
    }
    display = wl_display_create();
    if (!display) return 1;
    const char *socket = wl_display_add_socket_auto(display);
    if (!socket) {
        fprintf(stderr, "touch-router-bench-floor: no Wayland socket in XDG_RUNTIME_DIR: %s\n", strerror(errno));
        return 1;
    }
    wl_display_init_shm(display);
    wl_global_create(display, &wl_compositor_interface, 4, NULL, bind_compositor);
    wl_global_create(display, &xdg_wm_base_interface, 1, NULL, bind_wm);
    wl_global_create(display, &wl_seat_interface, 5, NULL, bind_seat);
    wl_global_create(display, &zwp_input_timestamps_manager_v1_interface, 1, NULL, bind_timestamps);
    struct wl_event_loop *loop = wl_display_get_event_loop(display);
    timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    timer = wl_event_loop_add_fd(loop, timer_fd, WL_EVENT_READABLE, on_timer, NULL);
    commands = wl_event_loop_add_fd(loop, 0, WL_EVENT_READABLE, on_command, NULL);
    printf("WAYLAND_DISPLAY=%s\n", socket);
    fflush(stdout);

    while (!quitting || playing) {
        wl_display_flush_clients(display);
        if (wl_event_loop_dispatch(loop, -1) < 0 && errno != EINTR) break;
        if (!ready && mapped_count >= expected_clients) {
            /* A roundtrip's worth of settling: the clients have printed "mapped" by now. */
            ready = 1;
            printf("ready\n");
            fflush(stdout);
        }
    }
    wl_display_flush_clients(display);
    wl_display_destroy_clients(display);
    if (commands) wl_event_source_remove(commands);
    wl_event_source_remove(timer);
    wl_display_destroy(display);
    return 0;
}
