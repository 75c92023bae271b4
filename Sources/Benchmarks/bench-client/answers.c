/*
 * touch-router-bench-client --present (answers.h): each answer is a 16×16 dot at the latest
 * point, drawn into one of four buffers of the client's size, damaging only the old and the
 * new dot, committed with wp_presentation feedback (or, without it, a frame callback) and,
 * where the compositor offers touch_router_input_manager_v1 version 3, the answer's event
 * time. Each commit is recorded with its outcome.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "answers.h"

static struct wl_shm *shm;
static struct wl_surface *surface;
static int width, height;
static uint32_t compositor_version;
static struct wp_presentation *presentation;
static clockid_t presentation_clock = CLOCK_MONOTONIC;
static struct touch_router_surface_input_v1 *answer_input;

/* Where the next answer's dot goes, whether input since the last commit asks for one, and
 * the last input timestamp among that input. */
static double answer_x, answer_y;
static int answer_due;
static int64_t answer_stamp = -1;

/* The buffers answers are drawn into, each knowing where its dot is. */
enum { DOT = 16, MOST_BUFFERS = 4 };
static const uint32_t background = 0xff3070b0, dot_colour = 0xfff0f0f0;
struct dot_buffer { struct wl_buffer *buffer; uint32_t *pixels; int busy, dot_x, dot_y; };
static struct dot_buffer dot_buffers[MOST_BUFFERS];
static int dot_buffer_count;
/* The dot the last commit showed, -1 before the first. */
static int shown_x = -1, shown_y = -1;

struct commit_record { uint64_t commit_ns; int64_t presented_ns; uint32_t refresh, flags; size_t first, last; };
static struct commit_record *commit_records;
static size_t commit_count, commit_capacity, answered_up_to, unanswered_frames;

static void buffer_release(void *data, struct wl_buffer *buffer) { (void)buffer; ((struct dot_buffer *)data)->busy = 0; }
static const struct wl_buffer_listener buffer_listener = { buffer_release };

static void fill(uint32_t *pixels, int x0, int y0, uint32_t colour) {
    for (int y = y0; y < y0 + DOT && y < height; y++)
        for (int x = x0; x < x0 + DOT && x < width; x++) pixels[(size_t)y * (size_t)width + (size_t)x] = colour;
}

static struct dot_buffer *free_buffer(void) {
    for (int i = 0; i < dot_buffer_count; i++) if (!dot_buffers[i].busy) return &dot_buffers[i];
    if (dot_buffer_count == MOST_BUFFERS) return NULL;
    struct dot_buffer *slot = &dot_buffers[dot_buffer_count++];
    *slot = (struct dot_buffer){ NULL, NULL, 0, -1, -1 };
    slot->buffer = shm_buffer(shm, width, height, background, &slot->pixels);
    wl_buffer_add_listener(slot->buffer, &buffer_listener, slot);
    return slot;
}

static void feedback_sync_output(void *data, struct wp_presentation_feedback *f, struct wl_output *o) { (void)data; (void)f; (void)o; }
static void feedback_presented(void *data, struct wp_presentation_feedback *f, uint32_t sec_hi, uint32_t sec_lo, uint32_t nsec,
                               uint32_t refresh, uint32_t seq_hi, uint32_t seq_lo, uint32_t flags) {
    (void)seq_hi; (void)seq_lo;
    struct commit_record *record = &commit_records[(uintptr_t)data];
    record->presented_ns = (int64_t)((((uint64_t)sec_hi << 32) | sec_lo) * 1000000000u + nsec);
    record->refresh = refresh;
    record->flags = flags;
    wp_presentation_feedback_destroy(f);
}
static void feedback_discarded(void *data, struct wp_presentation_feedback *f) {
    commit_records[(uintptr_t)data].presented_ns = -1;
    wp_presentation_feedback_destroy(f);
}
static const struct wp_presentation_feedback_listener feedback_listener = { feedback_sync_output, feedback_presented, feedback_discarded };

/* Without wp_presentation: the frame callback's done, read now. */
static void frame_done(void *data, struct wl_callback *callback, uint32_t time) {
    (void)time;
    commit_records[(uintptr_t)data].presented_ns = (int64_t)now_ns();
    wl_callback_destroy(callback);
}
static const struct wl_callback_listener frame_listener = { frame_done };

static void on_clock_id(void *data, struct wp_presentation *p, uint32_t clock) { (void)data; (void)p; presentation_clock = (clockid_t)clock; }
static const struct wp_presentation_listener presentation_listener = { on_clock_id };

/* The answer to the input read since the last one: a dot at its latest point, committed with
 * feedback. Without a free buffer (all held by the compositor) the input waits for the next
 * frame's answer. */
void answers_draw(size_t count) {
    if (!answer_due || count == answered_up_to) return;
    struct dot_buffer *target = free_buffer();
    if (!target || commit_count == commit_capacity) {
        unanswered_frames++;
        return;
    }
    int x = (int)answer_x - DOT / 2, y = (int)answer_y - DOT / 2;
    /* Kept inside the buffer; one smaller than the dot gets it at its corner, clipped by fill. */
    x = x > width - DOT ? width - DOT : x;
    y = y > height - DOT ? height - DOT : y;
    x = x < 0 ? 0 : x;
    y = y < 0 ? 0 : y;
    if (target->dot_x >= 0) fill(target->pixels, target->dot_x, target->dot_y, background);
    fill(target->pixels, x, y, dot_colour);
    target->dot_x = x;
    target->dot_y = y;
    wl_surface_attach(surface, target->buffer, 0, 0);
    if (compositor_version >= 4) {
        if (shown_x >= 0) wl_surface_damage_buffer(surface, shown_x, shown_y, DOT, DOT);
        wl_surface_damage_buffer(surface, x, y, DOT, DOT);
    } else {
        if (shown_x >= 0) wl_surface_damage(surface, shown_x, shown_y, DOT, DOT);
        wl_surface_damage(surface, x, y, DOT, DOT);
    }
    /* The buffer also lacks what other buffers showed since it was last drawn: their dots. */
    for (int i = 0; i < dot_buffer_count; i++) {
        struct dot_buffer *other = &dot_buffers[i];
        if (other != target && other->dot_x >= 0 && (other->dot_x != x || other->dot_y != y)) {
            if (compositor_version >= 4) wl_surface_damage_buffer(surface, other->dot_x, other->dot_y, DOT, DOT);
            else wl_surface_damage(surface, other->dot_x, other->dot_y, DOT, DOT);
        }
    }
    size_t index = commit_count++;
    commit_records[index] = (struct commit_record){ 0, -2, 0, 0, answered_up_to, count - 1 };
    if (presentation) {
        struct wp_presentation_feedback *feedback = wp_presentation_feedback(presentation, surface);
        wp_presentation_feedback_add_listener(feedback, &feedback_listener, (void *)(uintptr_t)index);
    } else {
        wl_callback_add_listener(wl_surface_frame(surface), &frame_listener, (void *)(uintptr_t)index);
    }
    if (answer_input && answer_stamp >= 0) {
        uint64_t seconds = (uint64_t)answer_stamp / 1000000000u;
        touch_router_surface_input_v1_answer(answer_input, (uint32_t)(seconds >> 32), (uint32_t)seconds, (uint32_t)((uint64_t)answer_stamp % 1000000000u));
    }
    commit_records[index].commit_ns = now_ns();
    wl_surface_commit(surface);
    target->busy = 1;
    shown_x = x;
    shown_y = y;
    answered_up_to = count;
    answer_due = 0;
    answer_stamp = -1;
}

void answers_allocate(size_t most) {
    commit_capacity = most;
    commit_records = calloc(commit_capacity, sizeof *commit_records);
    if (!commit_records) {
        fprintf(stderr, "touch-router-bench-client: cannot allocate %zu commit records\n", commit_capacity);
        exit(1);
    }
    memset(commit_records, 0, commit_capacity * sizeof *commit_records);
}

void answers_watch_clock(struct wp_presentation *p) { wp_presentation_add_listener(p, &presentation_listener, NULL); }

void answers_start(struct wl_shm *s, struct wl_surface *on, int w, int h, uint32_t version, struct wp_presentation *p,
                   struct touch_router_surface_input_v1 *input) {
    shm = s;
    surface = on;
    width = w;
    height = h;
    compositor_version = version;
    presentation = p;
    answer_input = input;
    if (!presentation)
        fprintf(stderr, "touch-router-bench-client: --present: the compositor lacks wp_presentation: each commit's frame callback stands for it\n");
}

struct wl_buffer *answers_first_buffer(void) {
    for (int i = 0; i < MOST_BUFFERS; i++) free_buffer()->busy = 1;
    for (int i = 1; i < MOST_BUFFERS; i++) dot_buffers[i].busy = 0;
    return dot_buffers[0].buffer;
}

void answers_check_clock(void) {
    if (presentation && presentation_clock != CLOCK_MONOTONIC)
        fprintf(stderr, "touch-router-bench-client: --present: the compositor's presentation clock is %d, not CLOCK_MONOTONIC: present times are not comparable\n", (int)presentation_clock);
}

void answers_note(int moves, double x, double y, int64_t stamp) {
    if (moves) {
        answer_x = x;
        answer_y = y;
    }
    answer_due = 1;
    if (stamp >= 0) answer_stamp = stamp;
}

void answers_write_header(FILE *file) {
    fprintf(file, " commits=%zu unanswered-frames=%zu answers=%d presented-by=%s", commit_count, unanswered_frames, answer_input != NULL,
            presentation ? "feedback" : "frame-callback");
}

void answers_write(FILE *file) {
    for (size_t i = 0; i < commit_count; i++) {
        const struct commit_record *c = &commit_records[i];
        fprintf(file, "commit %zu %llu %lld %u %u %zu %zu\n", i, (unsigned long long)c->commit_ns, (long long)c->presented_ns, c->refresh, c->flags, c->first, c->last);
    }
}
