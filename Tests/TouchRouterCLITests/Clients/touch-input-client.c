// A client of touch-router-input-v1 on libwayland-client, for the session tests
// (TouchInputProtocolTests.swift) and for trying the protocol by hand. It maps one shm
// toplevel with xdg-shell, sets the policies its flags ask for before the mapping commit,
// and prints every wl_touch and wl_keyboard event it gets as one line on stdout:
//
//   mapped | down ID X Y [sub] | motion ID X Y | up ID | frame | cancel | rejected ID | committed
//   keyboard enter | keyboard leave | key KEY STATE
//   error INTERFACE@ID code N     (a protocol error ended it; libwayland printed the message)
//
// Build it with build-touch-input-client.sh beside it. Flags:
//   --size WxH                         the buffer's size (default 200x200)
//   --exclusive-touch on|off, --multiple-touch on|off, --interaction on|off,
//   --keyboard-focus on|off            the policies (unset ones stay the compositor's default)
//   --defer X,Y,W,H                    a gesture deferral rectangle (repeatable)
//   --subsurface                       a 100x100 synchronized subsurface at (50, 50), with its own
//                                      input object; a down on it prints "sub" after its position
//   --sub                              the next policy flag is for the subsurface
//   --late                             the next policy flag is sent once mapped, without a commit
//   --on-up commit|commit-sub|destroy-input
//                                      repeatable: when its Nth touch ends, the Nth of these is done:
//                                      commit the toplevel, commit the subsurface, or destroy the
//                                      toplevel's input object and commit the toplevel; then it
//                                      prints "committed"
//   --reject-first                     reject the first touch it is given
//   --break MODE                       once mapped, break the protocol on purpose: second-object,
//                                      bad-setting, bad-rectangle, too-many-rectangles,
//                                      ragged-array, after-surface-destroy
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-client.h>
#include "touch-router-input-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

struct client {
    struct wl_display *display;
    struct wl_compositor *compositor;
    struct wl_shm *shm;
    struct wl_seat *seat;
    struct xdg_wm_base *wm_base;
    struct touch_router_input_manager_v1 *input_manager;
    struct wl_surface *surface;
    struct touch_router_surface_input_v1 *input;
    struct wl_subcompositor *subcompositor;
    struct wl_surface *sub_surface;
    struct touch_router_surface_input_v1 *sub_input;
    struct wl_touch *touch;
    struct wl_keyboard *keyboard;
    int width, height;
    bool configured, mapped, reject_first, rejected_one;
    // What --on-up asks for, one action an up, in order.
    enum up_action { UP_COMMIT, UP_COMMIT_SUB, UP_DESTROY_INPUT } on_up[8];
    int on_up_count, ups;
};

static void fail(const char *what) {
    fprintf(stderr, "touch-input-client: %s: %s\n", what, strerror(errno));
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

// --- wl_touch and wl_keyboard: one line an event

static void touch_down(void *data, struct wl_touch *touch, uint32_t serial, uint32_t time, struct wl_surface *surface,
                       int32_t id, wl_fixed_t x, wl_fixed_t y) {
    (void)touch; (void)time;
    struct client *client = data;
    say("down %d %.1f %.1f%s", id, wl_fixed_to_double(x), wl_fixed_to_double(y), surface && surface == client->sub_surface ? " sub" : "");
    if (client->reject_first && !client->rejected_one) {
        client->rejected_one = true;
        touch_router_surface_input_v1_reject_touch(client->input, serial, id);
        // On the wire before it says so, so that a test reading "rejected" knows it was sent.
        wl_display_flush(client->display);
        say("rejected %d", id);
    }
}
static void touch_up(void *data, struct wl_touch *touch, uint32_t serial, uint32_t time, int32_t id) {
    (void)touch; (void)serial; (void)time;
    struct client *client = data;
    say("up %d", id);
    int action = client->ups++;
    if (action >= client->on_up_count) return;
    switch (client->on_up[action]) {
    case UP_DESTROY_INPUT:
        touch_router_surface_input_v1_destroy(client->input);
        client->input = NULL;
        wl_surface_commit(client->surface);
        break;
    case UP_COMMIT_SUB:
        wl_surface_commit(client->sub_surface);
        break;
    case UP_COMMIT:
        wl_surface_commit(client->surface);
        break;
    }
    // On the wire before it says so, as for a reject.
    wl_display_flush(client->display);
    say("committed");
}
static void touch_motion(void *data, struct wl_touch *touch, uint32_t time, int32_t id, wl_fixed_t x, wl_fixed_t y) {
    (void)data; (void)touch; (void)time;
    say("motion %d %.1f %.1f", id, wl_fixed_to_double(x), wl_fixed_to_double(y));
}
static void touch_frame(void *data, struct wl_touch *touch) { (void)data; (void)touch; say("frame"); }
static void touch_cancel(void *data, struct wl_touch *touch) { (void)data; (void)touch; say("cancel"); }
static void touch_shape(void *data, struct wl_touch *touch, int32_t id, wl_fixed_t major, wl_fixed_t minor) {
    (void)data; (void)touch; (void)id; (void)major; (void)minor;
}
static void touch_orientation(void *data, struct wl_touch *touch, int32_t id, wl_fixed_t orientation) {
    (void)data; (void)touch; (void)id; (void)orientation;
}
static const struct wl_touch_listener touch_listener = {
    touch_down, touch_up, touch_motion, touch_frame, touch_cancel, touch_shape, touch_orientation,
};

static void keyboard_keymap(void *data, struct wl_keyboard *keyboard, uint32_t format, int32_t fd, uint32_t size) {
    (void)data; (void)keyboard; (void)format; (void)size;
    close(fd);
}
static void keyboard_enter(void *data, struct wl_keyboard *keyboard, uint32_t serial, struct wl_surface *surface, struct wl_array *keys) {
    (void)data; (void)keyboard; (void)serial; (void)surface; (void)keys;
    say("keyboard enter");
}
static void keyboard_leave(void *data, struct wl_keyboard *keyboard, uint32_t serial, struct wl_surface *surface) {
    (void)data; (void)keyboard; (void)serial; (void)surface;
    say("keyboard leave");
}
static void keyboard_key(void *data, struct wl_keyboard *keyboard, uint32_t serial, uint32_t time, uint32_t key, uint32_t state) {
    (void)data; (void)keyboard; (void)serial; (void)time;
    say("key %u %u", key, state);
}
static void keyboard_modifiers(void *data, struct wl_keyboard *keyboard, uint32_t serial, uint32_t depressed, uint32_t latched,
                               uint32_t locked, uint32_t group) {
    (void)data; (void)keyboard; (void)serial; (void)depressed; (void)latched; (void)locked; (void)group;
}
static void keyboard_repeat_info(void *data, struct wl_keyboard *keyboard, int32_t rate, int32_t delay) {
    (void)data; (void)keyboard; (void)rate; (void)delay;
}
static const struct wl_keyboard_listener keyboard_listener = {
    keyboard_keymap, keyboard_enter, keyboard_leave, keyboard_key, keyboard_modifiers, keyboard_repeat_info,
};

static void seat_capabilities(void *data, struct wl_seat *seat, uint32_t capabilities) {
    struct client *client = data;
    if ((capabilities & WL_SEAT_CAPABILITY_TOUCH) && !client->touch) {
        client->touch = wl_seat_get_touch(seat);
        wl_touch_add_listener(client->touch, &touch_listener, client);
    }
    if ((capabilities & WL_SEAT_CAPABILITY_KEYBOARD) && !client->keyboard) {
        client->keyboard = wl_seat_get_keyboard(seat);
        wl_keyboard_add_listener(client->keyboard, &keyboard_listener, client);
    }
}
static void seat_name(void *data, struct wl_seat *seat, const char *name) { (void)data; (void)seat; (void)name; }
static const struct wl_seat_listener seat_listener = { seat_capabilities, seat_name };

// --- globals, shell and buffer

static void registry_global(void *data, struct wl_registry *registry, uint32_t name, const char *interface, uint32_t version) {
    struct client *client = data;
    if (strcmp(interface, wl_compositor_interface.name) == 0) {
        client->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
    } else if (strcmp(interface, wl_subcompositor_interface.name) == 0) {
        client->subcompositor = wl_registry_bind(registry, name, &wl_subcompositor_interface, 1);
    } else if (strcmp(interface, wl_shm_interface.name) == 0) {
        client->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
    } else if (strcmp(interface, wl_seat_interface.name) == 0) {
        client->seat = wl_registry_bind(registry, name, &wl_seat_interface, version < 7 ? version : 7);
        wl_seat_add_listener(client->seat, &seat_listener, client);
    } else if (strcmp(interface, xdg_wm_base_interface.name) == 0) {
        client->wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
    } else if (strcmp(interface, touch_router_input_manager_v1_interface.name) == 0) {
        client->input_manager = wl_registry_bind(registry, name, &touch_router_input_manager_v1_interface, version < 2 ? version : 2);
    }
}
static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name) { (void)data; (void)registry; (void)name; }
static const struct wl_registry_listener registry_listener = { registry_global, registry_global_remove };

static void wm_base_ping(void *data, struct xdg_wm_base *wm_base, uint32_t serial) { (void)data; xdg_wm_base_pong(wm_base, serial); }
static const struct xdg_wm_base_listener wm_base_listener = { wm_base_ping };

// A buffer of one colour, so that `msg pixel` can tell the surfaces apart.
static struct wl_buffer *make_buffer(struct client *client, int width, int height, uint32_t colour) {
    int stride = width * 4, size = stride * height;
    int fd = memfd_create("touch-input-client", MFD_CLOEXEC);
    if (fd < 0) fail("memfd_create");
    if (ftruncate(fd, size) < 0) fail("ftruncate");
    uint32_t *pixels = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (pixels == MAP_FAILED) fail("mmap");
    for (int i = 0; i < width * height; i++) pixels[i] = colour;
    munmap(pixels, size);
    struct wl_shm_pool *pool = wl_shm_create_pool(client->shm, fd, size);
    struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, width, height, stride, WL_SHM_FORMAT_ARGB8888);
    wl_shm_pool_destroy(pool);
    close(fd);
    return buffer;
}

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
// Bound at version 1: configure_bounds and wm_capabilities never come.
static const struct xdg_toplevel_listener toplevel_listener = { .configure = toplevel_configure, .close = toplevel_close };

// --- the protocol broken on purpose, once mapped

static void send_rectangles(struct touch_router_surface_input_v1 *input, int count, int32_t width, size_t extra_bytes) {
    struct wl_array rectangles;
    wl_array_init(&rectangles);
    for (int i = 0; i < count; i++) {
        int32_t *rect = wl_array_add(&rectangles, 4 * sizeof(int32_t));
        rect[0] = i; rect[1] = 0; rect[2] = width; rect[3] = 10;
    }
    if (extra_bytes) memset(wl_array_add(&rectangles, extra_bytes), 0, extra_bytes);
    touch_router_surface_input_v1_set_gesture_deferral(input, &rectangles);
    wl_array_release(&rectangles);
}

static void break_protocol(struct client *client, const char *mode) {
    if (strcmp(mode, "second-object") == 0) {
        touch_router_input_manager_v1_get_surface_input(client->input_manager, client->surface);
    } else if (strcmp(mode, "bad-setting") == 0) {
        touch_router_surface_input_v1_set_exclusive_touch(client->input, 2);
    } else if (strcmp(mode, "bad-rectangle") == 0) {
        send_rectangles(client->input, 1, -5, 0);
    } else if (strcmp(mode, "too-many-rectangles") == 0) {
        // 200 rectangles: 3,200 bytes, within libwayland's 4,096-byte message.
        send_rectangles(client->input, 200, 10, 0);
    } else if (strcmp(mode, "ragged-array") == 0) {
        send_rectangles(client->input, 1, 10, 6);
    } else if (strcmp(mode, "bad-receipt-nanoseconds") == 0) {
        touch_router_input_manager_v1_received(client->input_manager, 0, 5, 0, 0, 6, 1000000000);
    } else if (strcmp(mode, "bad-receipt-seconds") == 0) {
        // 2^63 s: past what Int64 nanoseconds hold, though every field is in range.
        touch_router_input_manager_v1_received(client->input_manager, 0x80000000u, 0, 0, 0, 6, 0);
    } else if (strcmp(mode, "after-surface-destroy") == 0) {
        struct wl_surface *other = wl_compositor_create_surface(client->compositor);
        struct touch_router_surface_input_v1 *input = touch_router_input_manager_v1_get_surface_input(client->input_manager, other);
        wl_surface_destroy(other);
        touch_router_surface_input_v1_set_multiple_touch(input, TOUCH_ROUTER_SURFACE_INPUT_V1_SETTING_OFF);
    } else {
        fprintf(stderr, "touch-input-client: unknown --break mode %s\n", mode);
        exit(2);
    }
}

// --- flags

static uint32_t setting(const char *flag, const char *value) {
    if (strcmp(value, "on") == 0) return TOUCH_ROUTER_SURFACE_INPUT_V1_SETTING_ON;
    if (strcmp(value, "off") == 0) return TOUCH_ROUTER_SURFACE_INPUT_V1_SETTING_OFF;
    fprintf(stderr, "touch-input-client: %s takes on or off, not %s\n", flag, value);
    exit(2);
}

// Ends the client with its exit status: 0 for a protocol error (what the tests provoke), 1 otherwise.
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

int main(int argc, char **argv) {
    struct client client = { .width = 200, .height = 200 };
    struct wl_array deferral;
    wl_array_init(&deferral);
    const char *break_mode = NULL;
    int policy_count = 0;
    struct { void (*set)(struct touch_router_surface_input_v1 *, uint32_t); uint32_t value; bool late, sub; } policies[8];
    bool late = false, sub = false, with_subsurface = false;
    for (int i = 1; i < argc; i++) {
        const char *flag = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(flag, "--reject-first") == 0) { client.reject_first = true; continue; }
        if (strcmp(flag, "--late") == 0) { late = true; continue; }
        if (strcmp(flag, "--sub") == 0) { sub = true; continue; }
        if (strcmp(flag, "--subsurface") == 0) { with_subsurface = true; continue; }
        if (!value) { fprintf(stderr, "touch-input-client: %s needs a value\n", flag); return 2; }
        if (policy_count == 8) { fprintf(stderr, "touch-input-client: at most 8 policy flags\n"); return 2; }
        i++;
        if (strcmp(flag, "--size") == 0) {
            if (sscanf(value, "%dx%d", &client.width, &client.height) != 2 || client.width < 1 || client.height < 1 ||
                client.width > 4096 || client.height > 4096) { fprintf(stderr, "touch-input-client: bad --size %s\n", value); return 2; }
        } else if (strcmp(flag, "--exclusive-touch") == 0) {
            policies[policy_count++] = (typeof(policies[0])){ touch_router_surface_input_v1_set_exclusive_touch, setting(flag, value), late, sub };
            late = sub = false;
        } else if (strcmp(flag, "--multiple-touch") == 0) {
            policies[policy_count++] = (typeof(policies[0])){ touch_router_surface_input_v1_set_multiple_touch, setting(flag, value), late, sub };
            late = sub = false;
        } else if (strcmp(flag, "--interaction") == 0) {
            policies[policy_count++] = (typeof(policies[0])){ touch_router_surface_input_v1_set_interaction_enabled, setting(flag, value), late, sub };
            late = sub = false;
        } else if (strcmp(flag, "--keyboard-focus") == 0) {
            policies[policy_count++] = (typeof(policies[0])){ touch_router_surface_input_v1_set_accepts_keyboard_focus, setting(flag, value), late, sub };
            late = sub = false;
        } else if (strcmp(flag, "--defer") == 0) {
            int32_t *rect = wl_array_add(&deferral, 4 * sizeof(int32_t));
            if (sscanf(value, "%d,%d,%d,%d", &rect[0], &rect[1], &rect[2], &rect[3]) != 4) {
                fprintf(stderr, "touch-input-client: --defer takes X,Y,W,H, not %s\n", value);
                return 2;
            }
        } else if (strcmp(flag, "--on-up") == 0) {
            if (client.on_up_count == 8) { fprintf(stderr, "touch-input-client: at most 8 --on-up\n"); return 2; }
            if (strcmp(value, "commit") == 0) client.on_up[client.on_up_count++] = UP_COMMIT;
            else if (strcmp(value, "commit-sub") == 0) client.on_up[client.on_up_count++] = UP_COMMIT_SUB;
            else if (strcmp(value, "destroy-input") == 0) client.on_up[client.on_up_count++] = UP_DESTROY_INPUT;
            else { fprintf(stderr, "touch-input-client: --on-up takes commit, commit-sub or destroy-input, not %s\n", value); return 2; }
        } else if (strcmp(flag, "--break") == 0) {
            break_mode = value;
        } else {
            fprintf(stderr, "touch-input-client: unknown flag %s\n", flag);
            return 2;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);

    client.display = wl_display_connect(NULL);
    if (!client.display) fail("wl_display_connect");
    struct wl_registry *registry = wl_display_get_registry(client.display);
    wl_registry_add_listener(registry, &registry_listener, &client);
    if (wl_display_roundtrip(client.display) < 0) return report_display_error(&client);
    if (!client.compositor || !client.subcompositor || !client.shm || !client.seat || !client.wm_base || !client.input_manager) {
        fprintf(stderr, "touch-input-client: the compositor lacks wl_compositor, wl_subcompositor, wl_shm, wl_seat, xdg_wm_base or touch_router_input_manager_v1\n");
        return 1;
    }
    xdg_wm_base_add_listener(client.wm_base, &wm_base_listener, &client);

    client.surface = wl_compositor_create_surface(client.compositor);
    client.input = touch_router_input_manager_v1_get_surface_input(client.input_manager, client.surface);
    if (with_subsurface) {
        // Synchronized (the default): its state waits for the toplevel's commit.
        client.sub_surface = wl_compositor_create_surface(client.compositor);
        client.sub_input = touch_router_input_manager_v1_get_surface_input(client.input_manager, client.sub_surface);
        struct wl_subsurface *subsurface = wl_subcompositor_get_subsurface(client.subcompositor, client.sub_surface, client.surface);
        wl_subsurface_set_position(subsurface, 50, 50);
    }
    for (int i = 0; i < policy_count; i++) {
        if (policies[i].sub && !client.sub_input) { fprintf(stderr, "touch-input-client: --sub needs --subsurface\n"); return 2; }
        if (!policies[i].late) policies[i].set(policies[i].sub ? client.sub_input : client.input, policies[i].value);
    }
    if (client.sub_surface) {
        wl_surface_attach(client.sub_surface, make_buffer(&client, 100, 100, 0xffcc6633), 0, 0);
        wl_surface_commit(client.sub_surface);
    }
    if (deferral.size) touch_router_surface_input_v1_set_gesture_deferral(client.input, &deferral);
    wl_array_release(&deferral);
    struct xdg_surface *xdg_surface = xdg_wm_base_get_xdg_surface(client.wm_base, client.surface);
    xdg_surface_add_listener(xdg_surface, &xdg_surface_listener, &client);
    struct xdg_toplevel *toplevel = xdg_surface_get_toplevel(xdg_surface);
    xdg_toplevel_add_listener(toplevel, &toplevel_listener, &client);
    xdg_toplevel_set_title(toplevel, "touch-input-client");
    // The initial commit makes the policies current before the surface maps.
    wl_surface_commit(client.surface);
    while (!client.configured) {
        if (wl_display_dispatch(client.display) < 0) return report_display_error(&client);
    }
    wl_surface_attach(client.surface, make_buffer(&client, client.width, client.height, 0xff3366cc), 0, 0);
    wl_surface_damage_buffer(client.surface, 0, 0, client.width, client.height);
    wl_surface_commit(client.surface);
    if (wl_display_roundtrip(client.display) < 0) return report_display_error(&client);
    say("mapped");
    // Pending only: they take effect at the next commit (--on-up).
    for (int i = 0; i < policy_count; i++) {
        if (policies[i].late) policies[i].set(policies[i].sub ? client.sub_input : client.input, policies[i].value);
    }
    wl_display_flush(client.display);
    if (break_mode) {
        break_protocol(&client, break_mode);
        wl_display_roundtrip(client.display);
        return report_display_error(&client);
    }
    while (wl_display_dispatch(client.display) >= 0) {}
    return report_display_error(&client);
}
