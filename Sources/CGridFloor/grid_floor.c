#include "grid_floor.h"

#include <stdlib.h>

enum { cell_shift = 7 };

typedef struct { double x0, y0, x1, y1; } window_rect;

struct grid_floor {
    int width, height, columns, rows;
    window_rect *windows;
    /* Per cell, its windows' indices front to back. */
    int **cells;
    int *counts;
};

void grid_floor_destroy(grid_floor *floor) {
    if (!floor) return;
    if (floor->cells)
        for (int c = 0; c < floor->columns * floor->rows; c++) free(floor->cells[c]);
    free(floor->cells);
    free(floor->counts);
    free(floor->windows);
    free(floor);
}

/* The cells a window covers, clipped to the grid; false when it covers none. */
static int covered(const grid_floor *floor, const window_rect *w, int *x0, int *y0, int *x1, int *y1) {
    if (!(w->x1 > 0 && w->y1 > 0 && w->x0 < floor->width && w->y0 < floor->height && w->x0 < w->x1 && w->y0 < w->y1)) return 0;
    *x0 = w->x0 <= 0 ? 0 : (int)w->x0 >> cell_shift;
    *y0 = w->y0 <= 0 ? 0 : (int)w->y0 >> cell_shift;
    *x1 = w->x1 >= floor->width ? floor->columns - 1 : ((int)w->x1 - 1) >> cell_shift;
    *y1 = w->y1 >= floor->height ? floor->rows - 1 : ((int)w->y1 - 1) >> cell_shift;
    return 1;
}

grid_floor *grid_floor_create(const double *rects, size_t count, int width, int height) {
    if (width < 1 || width > 65536 || height < 1 || height > 65536 || count > (size_t)1 << 24) return NULL;
    grid_floor *floor = calloc(1, sizeof *floor);
    if (!floor) return NULL;
    floor->width = width;
    floor->height = height;
    floor->columns = (width + (1 << cell_shift) - 1) >> cell_shift;
    floor->rows = (height + (1 << cell_shift) - 1) >> cell_shift;
    int cells = floor->columns * floor->rows;
    floor->windows = malloc(sizeof *floor->windows * (count ? count : 1));
    floor->cells = calloc((size_t)cells, sizeof *floor->cells);
    floor->counts = calloc((size_t)cells, sizeof *floor->counts);
    if (!floor->windows || !floor->cells || !floor->counts) goto fail;
    for (size_t i = 0; i < count; i++)
        floor->windows[i] = (window_rect){rects[4 * i], rects[4 * i + 1], rects[4 * i + 2], rects[4 * i + 3]};
    int x0, y0, x1, y1;
    for (size_t i = 0; i < count; i++)
        if (covered(floor, &floor->windows[i], &x0, &y0, &x1, &y1))
            for (int y = y0; y <= y1; y++)
                for (int x = x0; x <= x1; x++) floor->counts[y * floor->columns + x]++;
    for (int c = 0; c < cells; c++) {
        floor->cells[c] = malloc(sizeof(int) * (floor->counts[c] ? (size_t)floor->counts[c] : 1));
        if (!floor->cells[c]) goto fail;
        floor->counts[c] = 0;
    }
    for (size_t i = 0; i < count; i++)
        if (covered(floor, &floor->windows[i], &x0, &y0, &x1, &y1))
            for (int y = y0; y <= y1; y++)
                for (int x = x0; x <= x1; x++) {
                    int c = y * floor->columns + x;
                    floor->cells[c][floor->counts[c]++] = (int)i;
                }
    return floor;
fail:
    grid_floor_destroy(floor);
    return NULL;
}

/* For a point in the area. */
static inline uint32_t query(const grid_floor *floor, double x, double y) {
    int c = ((int)y >> cell_shift) * floor->columns + ((int)x >> cell_shift);
    const int *list = floor->cells[c];
    for (int k = 0; k < floor->counts[c]; k++) {
        const window_rect *r = &floor->windows[list[k]];
        if (x >= r->x0 && x < r->x1 && y >= r->y0 && y < r->y1) return (uint32_t)list[k] + 1;
    }
    return 0;
}

uint32_t grid_floor_query(const grid_floor *floor, double x, double y) {
    if (!(x >= 0 && y >= 0 && x < floor->width && y < floor->height)) return 0;
    return query(floor, x, y);
}

uint64_t grid_floor_run(const grid_floor *floor, const double *points, size_t count, int runs) {
    uint64_t sink = 0;
    for (int run = 0; run < runs; run++)
        for (size_t i = 0; i < count; i++) sink += query(floor, points[2 * i], points[2 * i + 1]);
    return sink;
}
