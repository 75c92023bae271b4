/*
 * libtouch-router-sway-present-fix.so: LD_PRELOADed into Debian 12's sway 1.7 (wlroots 0.15,
 * libwlroots.so.10) by `bench e2e --peer sway --present`, so that sway headless answers
 * wp_presentation_feedback with `presented`.
 *
 * wlroots 0.15's headless output_commit() emits the output's `present` event inside
 * impl->commit, before wlr_output_commit() emits `commit`. A feedback sampled by sway's
 * render (wlr_presentation_surface_sampled_on_output) learns its commit_seq only in its
 * `commit` listener, so it ignores that present event and every later one (their
 * commit_seq is newer): it is never answered, and every feedback is either `discarded`
 * (superseded before a render) or never told. wlroots 0.17 fixed it by deferring the event
 * (output_defer_present). This library does the same from outside: after each headless
 * output commit that carried a buffer it emits `present` again for that commit_seq, from
 * an idle callback, once the `commit` listeners have run.
 *
 * No wlroots headers: the few wlr_output offsets below are wlroots 0.15.1's (x86_64), which
 * libwlroots.so.10 fixes; the library does nothing if another libwlroots is loaded.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <wayland-server-core.h>

struct wlr_output;
struct wlr_presentation;
struct wlr_surface;
bool wlr_output_is_headless(struct wlr_output *output);

/* wlroots 0.15 include/wlr/types/wlr_output.h */
enum { OUTPUT_DISPLAY = 16, OUTPUT_REFRESH = 192, OUTPUT_COMMIT_SEQ = 376, OUTPUT_EVENTS_COMMIT = 448, OUTPUT_EVENTS_DESTROY = 544 };
enum { WLR_OUTPUT_STATE_BUFFER = 1 << 0 };
struct wlr_output_event_commit { struct wlr_output *output; uint32_t committed; struct timespec *when; void *buffer; };
struct wlr_output_event_present { struct wlr_output *output; uint32_t commit_seq; bool presented; struct timespec *when; unsigned seq; int refresh; uint32_t flags; };
_Static_assert(sizeof(struct wlr_output_event_present) == 40, "wlroots 0.15 wlr_output_event_present");

#define FIELD(output, offset, type) ((type *)((char *)(output) + (offset)))

struct fix {
    struct wlr_output *output;
    struct wl_listener commit, destroy;
    struct wl_event_source *idle;
    uint32_t commit_seq;
    struct fix *next;
};
static struct fix *fixes;
static void (*real_sampled_on_output)(struct wlr_presentation *, struct wlr_surface *, struct wlr_output *);
static void (*send_present)(struct wlr_output *, struct wlr_output_event_present *);
static int wlroots_0_15 = -1;

static void present(void *data) {
    struct fix *fix = data;
    fix->idle = NULL;
    int32_t mhz = *FIELD(fix->output, OUTPUT_REFRESH, int32_t);
    struct wlr_output_event_present event = { .commit_seq = fix->commit_seq, .presented = true,
                                              .refresh = mhz > 0 ? (int)(1000000000000LL / mhz) : 0 };
    send_present(fix->output, &event); /* `when` NULL: now, on the backend's presentation clock */
}

static void on_commit(struct wl_listener *listener, void *data) {
    struct fix *fix = wl_container_of(listener, fix, commit);
    if (!(((struct wlr_output_event_commit *)data)->committed & WLR_OUTPUT_STATE_BUFFER)) return;
    fix->commit_seq = *FIELD(fix->output, OUTPUT_COMMIT_SEQ, uint32_t);
    if (!fix->idle)
        fix->idle = wl_event_loop_add_idle(wl_display_get_event_loop(*FIELD(fix->output, OUTPUT_DISPLAY, struct wl_display *)), present, fix);
}

static void on_destroy(struct wl_listener *listener, void *data) {
    (void)data;
    struct fix *fix = wl_container_of(listener, fix, destroy);
    if (fix->idle) wl_event_source_remove(fix->idle);
    wl_list_remove(&fix->commit.link);
    wl_list_remove(&fix->destroy.link);
    for (struct fix **p = &fixes; *p; p = &(*p)->next)
        if (*p == fix) { *p = fix->next; break; }
    free(fix);
}

void wlr_presentation_surface_sampled_on_output(struct wlr_presentation *presentation, struct wlr_surface *surface, struct wlr_output *output) {
    if (wlroots_0_15 < 0) {
        real_sampled_on_output = (void (*)(struct wlr_presentation *, struct wlr_surface *, struct wlr_output *))dlsym(RTLD_NEXT, "wlr_presentation_surface_sampled_on_output");
        send_present = (void (*)(struct wlr_output *, struct wlr_output_event_present *))dlsym(RTLD_DEFAULT, "wlr_output_send_present");
        void *handle = dlopen("libwlroots.so.10", RTLD_LAZY | RTLD_NOLOAD);
        wlroots_0_15 = handle != NULL && send_present != NULL;
        if (handle) dlclose(handle);
    }
    real_sampled_on_output(presentation, surface, output);
    if (!wlroots_0_15 || !wlr_output_is_headless(output)) return;
    for (struct fix *f = fixes; f; f = f->next)
        if (f->output == output) return;
    struct fix *fix = calloc(1, sizeof *fix);
    if (!fix) return;
    fix->output = output;
    fix->commit.notify = on_commit;
    wl_signal_add(FIELD(output, OUTPUT_EVENTS_COMMIT, struct wl_signal), &fix->commit);
    fix->destroy.notify = on_destroy;
    wl_signal_add(FIELD(output, OUTPUT_EVENTS_DESTROY, struct wl_signal), &fix->destroy);
    fix->next = fixes;
    fixes = fix;
}
