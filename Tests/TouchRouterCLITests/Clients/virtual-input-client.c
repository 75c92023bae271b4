// A client of input-timestamps-unstable-v1, wlr-virtual-pointer-unstable-v1 and
// virtual-keyboard-unstable-v1 on libwayland-client, for the session tests
// (VirtualInputTests.swift) and for trying the protocols by hand. Three modes:
//
//   virtual-input-client receive [--timestamps] [--needle TEXT]
//       maps a 200x200 shm toplevel and prints every input event it gets as one line:
//         mapped | timestamp SEC NSEC | touch down|motion ID X Y TIME | touch up ID TIME
//         pointer enter X Y | pointer motion X Y TIME | button CODE STATE TIME | axis AXIS VALUE TIME
//         key CODE STATE TIME | keyboard enter | modifiers DEPRESSED LATCHED LOCKED GROUP
//         keymap SIZE needle|plain    (whether the keymap's text holds TEXT)
//       --timestamps asks for a zwp_input_timestamps_v1 for each of its wl_touch, wl_pointer
//       and wl_keyboard, whose timestamp lines come before the event they stamp.
//   virtual-input-client pointer [--output] STEP...
//       makes a zwlr_virtual_pointer_v1 (with the first wl_output, at version 2, for --output)
//       and sends each step: motion DX DY | absolute X Y XEXTENT YEXTENT | button CODE 0|1 |
//       axis v|h VALUE | discrete v|h VALUE STEPS | source N | stop v|h | frame
//   virtual-input-client keyboard STEP...
//       makes a zwp_virtual_keyboard_v1 and sends each step: keymap (the seat's own keymap,
//       its keycodes section renamed "touch-router-virtual-test", so that a receiver can tell
//       it apart) | garbage-keymap | key CODE 0|1 | modifiers D L K G
//   Steps of both: sync (a roundtrip), hold (prints "holding" and waits to be killed),
//   await (a roundtrip, prints "waiting", and goes on with the next step at SIGUSR1).
//   A sender prints "no manager" and exits 3 when the global is not offered to it, and
//   "done" when its steps are sent and a roundtrip came back.
//   error INTERFACE@ID code N     a protocol error ended it (libwayland printed the message)
//
// Build it with build-virtual-input-client.sh beside it.
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-client.h>
#include "input-timestamps-unstable-v1-client-protocol.h"
#include "virtual-keyboard-unstable-v1-client-protocol.h"
#include "wlr-virtual-pointer-unstable-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

struct client {
    struct wl_display *display;
    struct wl_compositor *compositor;
    struct wl_shm *shm;
    struct wl_seat *seat;
    struct wl_output *output;
    struct xdg_wm_base *wm_base;
    struct zwp_input_timestamps_manager_v1 *timestamps;
    struct zwlr_virtual_pointer_manager_v1 *pointer_manager;
    uint32_t pointer_manager_version;
    struct zwp_virtual_keyboard_manager_v1 *keyboard_manager;
    struct wl_touch *touch;
    struct wl_pointer *pointer;
    struct wl_keyboard *keyboard;
    bool want_timestamps, want_devices, configured;
    const char *needle;
    // The seat's keymap, as a sender's wl_keyboard got it.
    char *keymap;
    size_t keymap_size;
};

static void fail(const char *what) {
    fprintf(stderr, "virtual-input-client: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void say(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    vprintf(format, arguments);
    va_end(arguments);
    putchar('\n');
    fflush(stdout);
}

static int report_display_error(struct client *client) {
    const struct wl_interface *interface = NULL;
    uint32_t id = 0;
    int code = wl_display_get_protocol_error(client->display, &interface, &id);
    if (interface) {
        say("error %s@%u code %d", interface->name, id, code);
        return 0;
    }
    say("error %s", strerror(wl_display_get_error(client->display)));
    return 1;
}

// --- a receiver's events, one line each

static void timestamp(void *data, struct zwp_input_timestamps_v1 *timestamps, uint32_t sec_hi, uint32_t sec_lo, uint32_t nsec) {
    (void)data; (void)timestamps;
    say("timestamp %llu %u", (unsigned long long)sec_hi << 32 | sec_lo, nsec);
}
static const struct zwp_input_timestamps_v1_listener timestamps_listener = { timestamp };

static void touch_down(void *data, struct wl_touch *touch, uint32_t serial, uint32_t time, struct wl_surface *surface,
                       int32_t id, wl_fixed_t x, wl_fixed_t y) {
    (void)data; (void)touch; (void)serial; (void)surface;
    say("touch down %d %.1f %.1f %u", id, wl_fixed_to_double(x), wl_fixed_to_double(y), time);
}
static void touch_up(void *data, struct wl_touch *touch, uint32_t serial, uint32_t time, int32_t id) {
    (void)data; (void)touch; (void)serial;
    say("touch up %d %u", id, time);
}
static void touch_motion(void *data, struct wl_touch *touch, uint32_t time, int32_t id, wl_fixed_t x, wl_fixed_t y) {
    (void)data; (void)touch;
    say("touch motion %d %.1f %.1f %u", id, wl_fixed_to_double(x), wl_fixed_to_double(y), time);
}
static void touch_frame(void *data, struct wl_touch *touch) { (void)data; (void)touch; }
static void touch_cancel(void *data, struct wl_touch *touch) { (void)data; (void)touch; say("touch cancel"); }
static void touch_shape(void *data, struct wl_touch *touch, int32_t id, wl_fixed_t major, wl_fixed_t minor) {
    (void)data; (void)touch; (void)id; (void)major; (void)minor;
}
static void touch_orientation(void *data, struct wl_touch *touch, int32_t id, wl_fixed_t orientation) {
    (void)data; (void)touch; (void)id; (void)orientation;
}
static const struct wl_touch_listener touch_listener = {
    touch_down, touch_up, touch_motion, touch_frame, touch_cancel, touch_shape, touch_orientation,
};

static void pointer_enter(void *data, struct wl_pointer *pointer, uint32_t serial, struct wl_surface *surface, wl_fixed_t x, wl_fixed_t y) {
    (void)data; (void)pointer; (void)serial; (void)surface;
    say("pointer enter %.1f %.1f", wl_fixed_to_double(x), wl_fixed_to_double(y));
}
static void pointer_leave(void *data, struct wl_pointer *pointer, uint32_t serial, struct wl_surface *surface) {
    (void)data; (void)pointer; (void)serial; (void)surface;
    say("pointer leave");
}
static void pointer_motion(void *data, struct wl_pointer *pointer, uint32_t time, wl_fixed_t x, wl_fixed_t y) {
    (void)data; (void)pointer;
    say("pointer motion %.1f %.1f %u", wl_fixed_to_double(x), wl_fixed_to_double(y), time);
}
static void pointer_button(void *data, struct wl_pointer *pointer, uint32_t serial, uint32_t time, uint32_t button, uint32_t state) {
    (void)data; (void)pointer; (void)serial;
    say("button %u %u %u", button, state, time);
}
static void pointer_axis(void *data, struct wl_pointer *pointer, uint32_t time, uint32_t axis, wl_fixed_t value) {
    (void)data; (void)pointer;
    say("axis %u %.1f %u", axis, wl_fixed_to_double(value), time);
}
static void pointer_frame(void *data, struct wl_pointer *pointer) { (void)data; (void)pointer; }
static void pointer_axis_source(void *data, struct wl_pointer *pointer, uint32_t source) { (void)data; (void)pointer; (void)source; }
static void pointer_axis_stop(void *data, struct wl_pointer *pointer, uint32_t time, uint32_t axis) {
    (void)data; (void)pointer;
    say("axis stop %u %u", axis, time);
}
static void pointer_axis_discrete(void *data, struct wl_pointer *pointer, uint32_t axis, int32_t discrete) {
    (void)data; (void)pointer; (void)axis; (void)discrete;
}
// Bound at version 5: value120 and relative direction never come.
static const struct wl_pointer_listener pointer_listener = {
    .enter = pointer_enter, .leave = pointer_leave, .motion = pointer_motion, .button = pointer_button, .axis = pointer_axis,
    .frame = pointer_frame, .axis_source = pointer_axis_source, .axis_stop = pointer_axis_stop, .axis_discrete = pointer_axis_discrete,
};

static void keyboard_keymap(void *data, struct wl_keyboard *keyboard, uint32_t format, int32_t fd, uint32_t size) {
    (void)keyboard; (void)format;
    struct client *client = data;
    char *text = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (text == MAP_FAILED) fail("mmap of the keymap");
    if (client->want_devices) {
        bool has = client->needle && memmem(text, size, client->needle, strlen(client->needle));
        say("keymap %u %s", size, has ? "needle" : "plain");
    } else {
        // A sender keeps the seat's keymap, to send as its own.
        free(client->keymap);
        client->keymap = malloc(size);
        if (!client->keymap) fail("malloc");
        memcpy(client->keymap, text, size);
        client->keymap_size = size;
    }
    munmap(text, size);
}
static void keyboard_enter(void *data, struct wl_keyboard *keyboard, uint32_t serial, struct wl_surface *surface, struct wl_array *keys) {
    struct client *client = data;
    (void)keyboard; (void)serial; (void)surface; (void)keys;
    if (client->want_devices) say("keyboard enter");
}
static void keyboard_leave(void *data, struct wl_keyboard *keyboard, uint32_t serial, struct wl_surface *surface) {
    (void)data; (void)keyboard; (void)serial; (void)surface;
}
static void keyboard_key(void *data, struct wl_keyboard *keyboard, uint32_t serial, uint32_t time, uint32_t key, uint32_t state) {
    (void)data; (void)keyboard; (void)serial;
    say("key %u %u %u", key, state, time);
}
static void keyboard_modifiers(void *data, struct wl_keyboard *keyboard, uint32_t serial, uint32_t depressed, uint32_t latched,
                               uint32_t locked, uint32_t group) {
    struct client *client = data;
    (void)keyboard; (void)serial;
    if (client->want_devices) say("modifiers %u %u %u %u", depressed, latched, locked, group);
}
static void keyboard_repeat_info(void *data, struct wl_keyboard *keyboard, int32_t rate, int32_t delay) {
    (void)data; (void)keyboard; (void)rate; (void)delay;
}
static const struct wl_keyboard_listener keyboard_listener = {
    keyboard_keymap, keyboard_enter, keyboard_leave, keyboard_key, keyboard_modifiers, keyboard_repeat_info,
};

static void seat_capabilities(void *data, struct wl_seat *seat, uint32_t capabilities) {
    struct client *client = data;
    if ((capabilities & WL_SEAT_CAPABILITY_KEYBOARD) && !client->keyboard) {
        client->keyboard = wl_seat_get_keyboard(seat);
        wl_keyboard_add_listener(client->keyboard, &keyboard_listener, client);
    }
    if (!client->want_devices) return;
    if ((capabilities & WL_SEAT_CAPABILITY_TOUCH) && !client->touch) {
        client->touch = wl_seat_get_touch(seat);
        wl_touch_add_listener(client->touch, &touch_listener, client);
    }
    if ((capabilities & WL_SEAT_CAPABILITY_POINTER) && !client->pointer) {
        client->pointer = wl_seat_get_pointer(seat);
        wl_pointer_add_listener(client->pointer, &pointer_listener, client);
    }
}
static void seat_name(void *data, struct wl_seat *seat, const char *name) { (void)data; (void)seat; (void)name; }
static const struct wl_seat_listener seat_listener = { seat_capabilities, seat_name };

static void registry_global(void *data, struct wl_registry *registry, uint32_t name, const char *interface, uint32_t version) {
    struct client *client = data;
    if (strcmp(interface, wl_compositor_interface.name) == 0) {
        client->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
    } else if (strcmp(interface, wl_shm_interface.name) == 0) {
        client->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
    } else if (strcmp(interface, wl_seat_interface.name) == 0) {
        // Version 5: pointer frames and axis sources, without value120.
        client->seat = wl_registry_bind(registry, name, &wl_seat_interface, version < 5 ? version : 5);
        wl_seat_add_listener(client->seat, &seat_listener, client);
    } else if (strcmp(interface, wl_output_interface.name) == 0 && !client->output) {
        client->output = wl_registry_bind(registry, name, &wl_output_interface, 1);
    } else if (strcmp(interface, xdg_wm_base_interface.name) == 0) {
        client->wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
    } else if (strcmp(interface, zwp_input_timestamps_manager_v1_interface.name) == 0) {
        client->timestamps = wl_registry_bind(registry, name, &zwp_input_timestamps_manager_v1_interface, 1);
    } else if (strcmp(interface, zwlr_virtual_pointer_manager_v1_interface.name) == 0) {
        client->pointer_manager_version = version < 2 ? version : 2;
        client->pointer_manager = wl_registry_bind(registry, name, &zwlr_virtual_pointer_manager_v1_interface, client->pointer_manager_version);
    } else if (strcmp(interface, zwp_virtual_keyboard_manager_v1_interface.name) == 0) {
        client->keyboard_manager = wl_registry_bind(registry, name, &zwp_virtual_keyboard_manager_v1_interface, 1);
    }
}
static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name) { (void)data; (void)registry; (void)name; }
static const struct wl_registry_listener registry_listener = { registry_global, registry_global_remove };

static void wm_base_ping(void *data, struct xdg_wm_base *wm_base, uint32_t serial) { (void)data; xdg_wm_base_pong(wm_base, serial); }
static const struct xdg_wm_base_listener wm_base_listener = { wm_base_ping };
static void xdg_surface_configure(void *data, struct xdg_surface *xdg_surface, uint32_t serial) {
    struct client *client = data;
    xdg_surface_ack_configure(xdg_surface, serial);
    client->configured = true;
}
static const struct xdg_surface_listener xdg_surface_listener = { xdg_surface_configure };
static void toplevel_configure(void *data, struct xdg_toplevel *toplevel, int32_t width, int32_t height, struct wl_array *states) {
    (void)data; (void)toplevel; (void)width; (void)height; (void)states;
}
static void toplevel_close(void *data, struct xdg_toplevel *toplevel) { (void)data; (void)toplevel; exit(0); }
static const struct xdg_toplevel_listener toplevel_listener = { .configure = toplevel_configure, .close = toplevel_close };

static struct wl_buffer *make_buffer(struct client *client, int width, int height) {
    int stride = width * 4, size = stride * height;
    int fd = memfd_create("virtual-input-client", MFD_CLOEXEC);
    if (fd < 0) fail("memfd_create");
    if (ftruncate(fd, size) < 0) fail("ftruncate");
    uint32_t *pixels = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (pixels == MAP_FAILED) fail("mmap");
    for (int i = 0; i < width * height; i++) pixels[i] = 0xff339966;
    munmap(pixels, size);
    struct wl_shm_pool *pool = wl_shm_create_pool(client->shm, fd, size);
    struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, width, height, stride, WL_SHM_FORMAT_ARGB8888);
    wl_shm_pool_destroy(pool);
    close(fd);
    return buffer;
}

static int receive(struct client *client) {
    if (!client->compositor || !client->shm || !client->seat || !client->wm_base) {
        fprintf(stderr, "virtual-input-client: the compositor lacks wl_compositor, wl_shm, wl_seat or xdg_wm_base\n");
        return 1;
    }
    if (client->want_timestamps && !client->timestamps) {
        fprintf(stderr, "virtual-input-client: the compositor lacks zwp_input_timestamps_manager_v1\n");
        return 1;
    }
    // The seat's capabilities bind the devices.
    if (wl_display_roundtrip(client->display) < 0) return report_display_error(client);
    if (client->want_timestamps) {
        struct zwp_input_timestamps_v1 *made[3] = {
            client->touch ? zwp_input_timestamps_manager_v1_get_touch_timestamps(client->timestamps, client->touch) : NULL,
            client->pointer ? zwp_input_timestamps_manager_v1_get_pointer_timestamps(client->timestamps, client->pointer) : NULL,
            client->keyboard ? zwp_input_timestamps_manager_v1_get_keyboard_timestamps(client->timestamps, client->keyboard) : NULL,
        };
        for (int i = 0; i < 3; i++) if (made[i]) zwp_input_timestamps_v1_add_listener(made[i], &timestamps_listener, client);
    }
    xdg_wm_base_add_listener(client->wm_base, &wm_base_listener, client);
    struct wl_surface *surface = wl_compositor_create_surface(client->compositor);
    struct xdg_surface *xdg_surface = xdg_wm_base_get_xdg_surface(client->wm_base, surface);
    xdg_surface_add_listener(xdg_surface, &xdg_surface_listener, client);
    struct xdg_toplevel *toplevel = xdg_surface_get_toplevel(xdg_surface);
    xdg_toplevel_add_listener(toplevel, &toplevel_listener, client);
    xdg_toplevel_set_title(toplevel, "virtual-input-client");
    wl_surface_commit(surface);
    while (!client->configured) {
        if (wl_display_dispatch(client->display) < 0) return report_display_error(client);
    }
    wl_surface_attach(surface, make_buffer(client, 200, 200), 0, 0);
    wl_surface_damage_buffer(surface, 0, 0, 200, 200);
    wl_surface_commit(surface);
    if (wl_display_roundtrip(client->display) < 0) return report_display_error(client);
    say("mapped");
    while (wl_display_dispatch(client->display) >= 0) {}
    return report_display_error(client);
}

static uint32_t axis_of(const char *name) {
    return strcmp(name, "h") == 0 ? WL_POINTER_AXIS_HORIZONTAL_SCROLL : strcmp(name, "v") == 0 ? WL_POINTER_AXIS_VERTICAL_SCROLL : (uint32_t)atoll(name);
}

// The seat's keymap with its keycodes section renamed, in a memfd.
static int own_keymap(struct client *client, uint32_t *size) {
    if (!client->keymap) { fprintf(stderr, "virtual-input-client: the seat sent no keymap\n"); exit(1); }
    const char *marker = "xkb_keycodes \"";
    char *at = memmem(client->keymap, client->keymap_size, marker, strlen(marker));
    if (!at) { fprintf(stderr, "virtual-input-client: the seat's keymap has no xkb_keycodes section\n"); exit(1); }
    size_t head = (size_t)(at - client->keymap) + strlen(marker);
    const char *name = "touch-router-virtual-test+";
    int fd = memfd_create("virtual-keymap", MFD_CLOEXEC);
    if (fd < 0) fail("memfd_create");
    if (write(fd, client->keymap, head) != (ssize_t)head || write(fd, name, strlen(name)) != (ssize_t)strlen(name) ||
        write(fd, client->keymap + head, client->keymap_size - head) != (ssize_t)(client->keymap_size - head)) fail("write");
    *size = (uint32_t)(client->keymap_size + strlen(name));
    return fd;
}

static int send_steps(struct client *client, bool pointer_mode, bool with_output, char **steps, int count) {
    struct zwlr_virtual_pointer_v1 *pointer = NULL;
    struct zwp_virtual_keyboard_v1 *keyboard = NULL;
    if (pointer_mode) {
        if (!client->pointer_manager) { say("no manager"); return 3; }
        if (with_output && client->pointer_manager_version >= 2)
            pointer = zwlr_virtual_pointer_manager_v1_create_virtual_pointer_with_output(client->pointer_manager, client->seat, client->output);
        else
            pointer = zwlr_virtual_pointer_manager_v1_create_virtual_pointer(client->pointer_manager, client->seat);
    } else {
        if (!client->keyboard_manager || !client->seat) { say("no manager"); return 3; }
        // The seat's keymap arrives with the wl_keyboard.
        if (wl_display_roundtrip(client->display) < 0 || wl_display_roundtrip(client->display) < 0) return report_display_error(client);
        keyboard = zwp_virtual_keyboard_manager_v1_create_virtual_keyboard(client->keyboard_manager, client->seat);
    }
    for (int i = 0; i < count; i++) {
        const char *step = steps[i];
        #define ARG(n) (i + (n) < count ? steps[i + (n)] : "0")
        if (strcmp(step, "sync") == 0) {
            if (wl_display_roundtrip(client->display) < 0) return report_display_error(client);
        } else if (strcmp(step, "hold") == 0) {
            if (wl_display_roundtrip(client->display) < 0) return report_display_error(client);
            say("holding");
            pause();
        } else if (strcmp(step, "await") == 0) {
            sigset_t usr1;
            sigemptyset(&usr1);
            sigaddset(&usr1, SIGUSR1);
            sigprocmask(SIG_BLOCK, &usr1, NULL);
            if (wl_display_roundtrip(client->display) < 0) return report_display_error(client);
            say("waiting");
            int caught = 0;
            sigwait(&usr1, &caught);
        } else if (pointer && strcmp(step, "motion") == 0) {
            zwlr_virtual_pointer_v1_motion(pointer, 0, wl_fixed_from_double(atof(ARG(1))), wl_fixed_from_double(atof(ARG(2))));
            i += 2;
        } else if (pointer && strcmp(step, "absolute") == 0) {
            zwlr_virtual_pointer_v1_motion_absolute(pointer, 0, (uint32_t)atoll(ARG(1)), (uint32_t)atoll(ARG(2)), (uint32_t)atoll(ARG(3)), (uint32_t)atoll(ARG(4)));
            i += 4;
        } else if (pointer && strcmp(step, "button") == 0) {
            zwlr_virtual_pointer_v1_button(pointer, 0, (uint32_t)atoll(ARG(1)), (uint32_t)atoll(ARG(2)));
            i += 2;
        } else if (pointer && strcmp(step, "axis") == 0) {
            zwlr_virtual_pointer_v1_axis(pointer, 0, axis_of(ARG(1)), wl_fixed_from_double(atof(ARG(2))));
            i += 2;
        } else if (pointer && strcmp(step, "discrete") == 0) {
            zwlr_virtual_pointer_v1_axis_discrete(pointer, 0, axis_of(ARG(1)), wl_fixed_from_double(atof(ARG(2))), (int32_t)atoll(ARG(3)));
            i += 3;
        } else if (pointer && strcmp(step, "source") == 0) {
            zwlr_virtual_pointer_v1_axis_source(pointer, (uint32_t)atoll(ARG(1)));
            i += 1;
        } else if (pointer && strcmp(step, "stop") == 0) {
            zwlr_virtual_pointer_v1_axis_stop(pointer, 0, axis_of(ARG(1)));
            i += 1;
        } else if (pointer && strcmp(step, "frame") == 0) {
            zwlr_virtual_pointer_v1_frame(pointer);
        } else if (keyboard && strcmp(step, "keymap") == 0) {
            uint32_t size = 0;
            int fd = own_keymap(client, &size);
            zwp_virtual_keyboard_v1_keymap(keyboard, WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1, fd, size);
            close(fd);
        } else if (keyboard && strcmp(step, "garbage-keymap") == 0) {
            int fd = memfd_create("garbage-keymap", MFD_CLOEXEC);
            const char garbage[] = "xkb_keymap { this is not a keymap";
            if (fd < 0 || write(fd, garbage, sizeof garbage) != (ssize_t)sizeof garbage) fail("garbage keymap");
            zwp_virtual_keyboard_v1_keymap(keyboard, WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1, fd, sizeof garbage);
            close(fd);
        } else if (keyboard && strcmp(step, "key") == 0) {
            zwp_virtual_keyboard_v1_key(keyboard, 0, (uint32_t)atoll(ARG(1)), (uint32_t)atoll(ARG(2)));
            i += 2;
        } else if (keyboard && strcmp(step, "modifiers") == 0) {
            zwp_virtual_keyboard_v1_modifiers(keyboard, (uint32_t)atoll(ARG(1)), (uint32_t)atoll(ARG(2)), (uint32_t)atoll(ARG(3)), (uint32_t)atoll(ARG(4)));
            i += 4;
        } else {
            fprintf(stderr, "virtual-input-client: unknown step %s\n", step);
            return 2;
        }
        #undef ARG
    }
    if (wl_display_roundtrip(client->display) < 0) return report_display_error(client);
    say("done");
    return 0;
}

int main(int argc, char **argv) {
    struct client client = { 0 };
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2) { fprintf(stderr, "usage: virtual-input-client receive|pointer|keyboard ...\n"); return 2; }
    const char *mode = argv[1];
    int first = 2;
    bool with_output = false;
    client.want_devices = strcmp(mode, "receive") == 0;
    for (; first < argc && strncmp(argv[first], "--", 2) == 0; first++) {
        if (strcmp(argv[first], "--timestamps") == 0) client.want_timestamps = true;
        else if (strcmp(argv[first], "--output") == 0) with_output = true;
        else if (strcmp(argv[first], "--needle") == 0 && first + 1 < argc) client.needle = argv[++first];
        else { fprintf(stderr, "virtual-input-client: unknown flag %s\n", argv[first]); return 2; }
    }
    client.display = wl_display_connect(NULL);
    if (!client.display) fail("wl_display_connect");
    struct wl_registry *registry = wl_display_get_registry(client.display);
    wl_registry_add_listener(registry, &registry_listener, &client);
    if (wl_display_roundtrip(client.display) < 0) return report_display_error(&client);
    if (client.want_devices) return receive(&client);
    if (strcmp(mode, "pointer") == 0 || strcmp(mode, "keyboard") == 0)
        return send_steps(&client, strcmp(mode, "pointer") == 0, with_output, argv + first, argc - first);
    fprintf(stderr, "virtual-input-client: unknown mode %s\n", mode);
    return 2;
}
