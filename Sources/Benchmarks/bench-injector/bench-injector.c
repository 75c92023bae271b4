/*
 * touch-router-bench-injector: the input of `touch-router bench e2e --peer sway`
 * (docs/benchmarks.md). Through zwlr_virtual_pointer_v1 and zwp_virtual_keyboard_v1 it moves the
 * pointer (motion_absolute and frame) and presses and releases a key, each at --rate a
 * second for --seconds, and records the CLOCK_MONOTONIC time just before each request
 * was written, so that a client's receipt can be matched to it by order.
 *
 *   touch-router-bench-injector --out FILE --extent WxH --at X,Y [--rate N] [--seconds S]
 *
 * Once its devices are made it sends one warm-up motion and key press/release, so that
 * enter, keymap and focus are settled, waits 300 ms and prints "ready". Then each "play"
 * line on its standard input plays a round from 20 ms later: --seconds of reports at --rate
 * a second, each report moving the pointer to a new point of a 64×64-px square whose top
 * left is (X, Y) in an output of WxH (the k-th report of the run to X + k mod 64,
 * Y + k / 64 mod 64) and pressing KEY_A on the run's even reports, releasing it on odd
 * ones (an odd count in all ends with an unmeasured release, after the last round). It
 * prints "done" after each round. `bench e2e --peer sway` plays sway's and TouchRouter's rounds in turn, one
 * injector on each for the whole run (sway stops delivering to a client whose virtual
 * devices were replaced). At the end of its standard input it writes FILE and exits. FILE
 * is text: a first line "# touch-router-bench-injector 1 pointer=N keys=M start=NS" (NS:
 * the first round's start), then one line per measured event: "pointer SEND_NS X Y" or
 * "key SEND_NS CODE STATE".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>
#include <xkbcommon/xkbcommon.h>
#include "wlr-virtual-pointer-unstable-v1-client-protocol.h"
#include "virtual-keyboard-unstable-v1-client-protocol.h"

static struct wl_seat *seat;
static struct zwlr_virtual_pointer_manager_v1 *pointer_manager;
static struct zwp_virtual_keyboard_manager_v1 *keyboard_manager;

static void global(void *data, struct wl_registry *registry, uint32_t name, const char *interface, uint32_t version) {
    (void)data; (void)version;
    if (strcmp(interface, wl_seat_interface.name) == 0 && !seat) seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
    else if (strcmp(interface, zwlr_virtual_pointer_manager_v1_interface.name) == 0)
        pointer_manager = wl_registry_bind(registry, name, &zwlr_virtual_pointer_manager_v1_interface, 1);
    else if (strcmp(interface, zwp_virtual_keyboard_manager_v1_interface.name) == 0)
        keyboard_manager = wl_registry_bind(registry, name, &zwp_virtual_keyboard_manager_v1_interface, 1);
}
static void global_remove(void *d, struct wl_registry *r, uint32_t name) { (void)d; (void)r; (void)name; }
static const struct wl_registry_listener registry_listener = { global, global_remove };

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t at) {
    struct timespec ts = { (time_t)(at / 1000000000u), (long)(at % 1000000000u) };
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {}
}

static int keymap_fd(uint32_t *size) {
    struct xkb_context *context = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
    struct xkb_rule_names names = { "evdev", "pc105", "us", "", "" };
    struct xkb_keymap *keymap = context ? xkb_keymap_new_from_names(context, &names, XKB_KEYMAP_COMPILE_NO_FLAGS) : NULL;
    char *text = keymap ? xkb_keymap_get_as_string(keymap, XKB_KEYMAP_FORMAT_TEXT_V1) : NULL;
    if (!text) {
        fprintf(stderr, "touch-router-bench-injector: cannot compile a us keymap (Debian: xkb-data)\n");
        exit(1);
    }
    *size = (uint32_t)strlen(text) + 1;
    int fd = memfd_create("touch-router-bench-injector-keymap", MFD_CLOEXEC);
    if (fd < 0 || write(fd, text, *size) != (ssize_t)*size) {
        perror("touch-router-bench-injector: keymap");
        exit(1);
    }
    free(text);
    xkb_keymap_unref(keymap);
    xkb_context_unref(context);
    return fd;
}

static int number(const char *text, const char *what, long low, long high) {
    char *end;
    long value = strtol(text, &end, 10);
    if (*end || value < low || value > high) {
        fprintf(stderr, "touch-router-bench-injector: %s: expected %ld to %ld, found '%s'\n", what, low, high, text);
        exit(2);
    }
    return (int)value;
}

int main(int argc, char **argv) {
    const char *out = NULL;
    int width = 0, height = 0, x0 = 0, y0 = 0, rate = 1000;
    double seconds = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) out = argv[++i];
        else if (strcmp(argv[i], "--extent") == 0 && i + 1 < argc) {
            if (sscanf(argv[++i], "%dx%d", &width, &height) != 2 || width < 64 || height < 64 || width > 16384 || height > 16384) {
                fprintf(stderr, "touch-router-bench-injector: --extent: expected WxH, each 64 to 16384\n");
                return 2;
            }
        } else if (strcmp(argv[i], "--at") == 0 && i + 1 < argc) {
            if (sscanf(argv[++i], "%d,%d", &x0, &y0) != 2 || x0 < 0 || y0 < 0 || x0 > 16384 || y0 > 16384) {
                fprintf(stderr, "touch-router-bench-injector: --at: expected X,Y, each 0 to 16384\n");
                return 2;
            }
        } else if (strcmp(argv[i], "--rate") == 0 && i + 1 < argc) rate = number(argv[++i], "--rate", 1, 1000);
        else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
            char *end;
            seconds = strtod(argv[++i], &end);
            if (*end || !(seconds >= 0.01 && seconds <= 600)) {
                fprintf(stderr, "touch-router-bench-injector: --seconds: expected 0.01 to 600\n");
                return 2;
            }
        } else {
            fprintf(stderr, "usage: touch-router-bench-injector --out FILE --extent WxH --at X,Y [--rate N] [--seconds S]\n");
            return 2;
        }
    }
    if (!out || !width || x0 + 64 > width || y0 + 64 > height) {
        fprintf(stderr, "usage: touch-router-bench-injector --out FILE --extent WxH --at X,Y [--rate N] [--seconds S] (the 64-px square inside the extent)\n");
        return 2;
    }
    struct wl_display *display = wl_display_connect(NULL);
    if (!display) {
        fprintf(stderr, "touch-router-bench-injector: cannot connect to the Wayland display\n");
        return 1;
    }
    struct wl_registry *registry = wl_display_get_registry(display);
    wl_registry_add_listener(registry, &registry_listener, NULL);
    wl_display_roundtrip(display);
    if (!seat || !pointer_manager || !keyboard_manager) {
        fprintf(stderr, "touch-router-bench-injector: the compositor offers%s%s%s: it lacks them, or does not allow this program them\n",
                seat ? "" : " no wl_seat", pointer_manager ? "" : " no zwlr_virtual_pointer_manager_v1", keyboard_manager ? "" : " no zwp_virtual_keyboard_manager_v1");
        return 1;
    }
    struct zwlr_virtual_pointer_v1 *pointer = zwlr_virtual_pointer_manager_v1_create_virtual_pointer(pointer_manager, seat);
    struct zwp_virtual_keyboard_v1 *keyboard = zwp_virtual_keyboard_manager_v1_create_virtual_keyboard(keyboard_manager, seat);
    uint32_t size;
    int fd = keymap_fd(&size);
    zwp_virtual_keyboard_v1_keymap(keyboard, WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1, fd, size);
    close(fd);
    if (wl_display_roundtrip(display) < 0) {
        fprintf(stderr, "touch-router-bench-injector: the compositor refused the virtual devices\n");
        return 1;
    }

    size_t reports = (size_t)(seconds * rate + 0.5);
    if (reports < 1) reports = 1;
    struct line { uint64_t at; int key, x, y, state; } *lines = NULL;
    size_t n = 0, capacity = 0, played = 0;
    const uint32_t key_a = 30;

    /* Warm-up: the pointer enters the surface, the keyboard's keymap reaches the client. */
    uint32_t ms = (uint32_t)(now_ns() / 1000000u);
    zwlr_virtual_pointer_v1_motion_absolute(pointer, ms, (uint32_t)x0 + 63, (uint32_t)y0 + 63, (uint32_t)width, (uint32_t)height);
    zwlr_virtual_pointer_v1_frame(pointer);
    zwp_virtual_keyboard_v1_key(keyboard, ms, key_a, WL_KEYBOARD_KEY_STATE_PRESSED);
    zwp_virtual_keyboard_v1_key(keyboard, ms, key_a, WL_KEYBOARD_KEY_STATE_RELEASED);
    wl_display_roundtrip(display);
    sleep_until(now_ns() + 300000000u);
    printf("ready\n");
    fflush(stdout);

    uint64_t first_start = 0;
    uint64_t period = 1000000000u / (uint64_t)rate;
    char command[64];
    while (fgets(command, sizeof command, stdin)) {
        if (strcmp(command, "play\n") != 0) {
            fprintf(stderr, "touch-router-bench-injector: unknown command '%.40s' (expected 'play')\n", command);
            return 2;
        }
        if (n + reports * 2 > capacity) {
            capacity = (n + reports * 2) * 2;
            lines = realloc(lines, capacity * sizeof *lines);
            if (!lines) return 1;
        }
        uint64_t start = now_ns() + 20000000u;
        if (!first_start) first_start = start;
        for (size_t k = 0; k < reports; k++, played++) {
            sleep_until(start + k * period);
            int x = x0 + (int)(played % 64), y = y0 + (int)((played / 64) % 64);
            uint64_t t = now_ns();
            zwlr_virtual_pointer_v1_motion_absolute(pointer, (uint32_t)(t / 1000000u), (uint32_t)x, (uint32_t)y, (uint32_t)width, (uint32_t)height);
            zwlr_virtual_pointer_v1_frame(pointer);
            wl_display_flush(display);
            lines[n++] = (struct line){ t, 0, x, y, 0 };
            int state = (played % 2 == 0) ? WL_KEYBOARD_KEY_STATE_PRESSED : WL_KEYBOARD_KEY_STATE_RELEASED;
            t = now_ns();
            zwp_virtual_keyboard_v1_key(keyboard, (uint32_t)(t / 1000000u), key_a, (uint32_t)state);
            wl_display_flush(display);
            lines[n++] = (struct line){ t, 1, (int)key_a, 0, state };
        }
        wl_display_roundtrip(display);
        printf("done\n");
        fflush(stdout);
    }
    if (played % 2 == 1) {
        /* Leave the key up; this release is not measured. */
        zwp_virtual_keyboard_v1_key(keyboard, (uint32_t)(now_ns() / 1000000u), key_a, WL_KEYBOARD_KEY_STATE_RELEASED);
        wl_display_roundtrip(display);
    }

    FILE *file = fopen(out, "w");
    if (!file) {
        fprintf(stderr, "touch-router-bench-injector: cannot write %s: %s\n", out, strerror(errno));
        return 1;
    }
    fprintf(file, "# touch-router-bench-injector 1 pointer=%zu keys=%zu start=%llu\n", n / 2, n / 2, (unsigned long long)first_start);
    for (size_t i = 0; i < n; i++) {
        if (lines[i].key) fprintf(file, "key %llu %d %d\n", (unsigned long long)lines[i].at, lines[i].x, lines[i].state);
        else fprintf(file, "pointer %llu %d %d\n", (unsigned long long)lines[i].at, lines[i].x, lines[i].y);
    }
    if (fclose(file) != 0) return 1;
    free(lines);
    zwlr_virtual_pointer_v1_destroy(pointer);
    zwp_virtual_keyboard_v1_destroy(keyboard);
    wl_display_roundtrip(display);
    wl_display_disconnect(display);
    return 0;
}
