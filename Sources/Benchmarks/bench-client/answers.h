/*
 * touch-router-bench-client --present: answering input with a dot, committed with
 * presentation feedback (answers.c). bench-client.c reads input and calls these.
 */
#pragma once
#include <stdint.h>
#include <stdio.h>
#include <wayland-client.h>
#include "presentation-time-client-protocol.h"
#include "touch-router-input-v1-client-protocol.h"

uint64_t now_ns(void);
/* An XRGB8888 buffer of w×h filled with `colour`, on a memfd of its own; its pixels stay
 * mapped into *keep, or are unmapped when keep is NULL (bench-client.c). */
struct wl_buffer *shm_buffer(struct wl_shm *shm, int w, int h, uint32_t colour, uint32_t **keep);

/* Room for `most` commits' records, allocated and touched now. */
void answers_allocate(size_t most);
/* Listens for the compositor's presentation clock. */
void answers_watch_clock(struct wp_presentation *presentation);
/* Once the surface exists: what answers are drawn on and told through (presentation and
 * input may be NULL: frame callbacks then stand for feedback, and no answer is told). */
void answers_start(struct wl_shm *shm, struct wl_surface *surface, int width, int height, uint32_t compositor_version,
                   struct wp_presentation *presentation, struct touch_router_surface_input_v1 *input);
/* Makes every buffer now, so that filling one never stalls an answer, and returns the first,
 * marked busy, for the mapping commit. */
struct wl_buffer *answers_first_buffer(void);
/* Warns when the compositor's presentation clock is not CLOCK_MONOTONIC. */
void answers_check_clock(void);
/* Input to answer: a touch or pointer event, at (x, y) when `moves`, with its input
 * timestamp (-1 without). */
void answers_note(int moves, double x, double y, int64_t stamp);
/* Answers the input noted since the last answer, which covers the client's events up to
 * `events` (their count so far). */
void answers_draw(size_t events);
/* " commits=N unanswered-frames=N answers=0|1 presented-by=feedback|frame-callback" */
void answers_write_header(FILE *file);
/* One "commit INDEX COMMIT_NS PRESENTED_NS REFRESH_NS FLAGS FIRST LAST" line a commit. */
void answers_write(FILE *file);
