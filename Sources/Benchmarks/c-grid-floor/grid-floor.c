/*
 * The C grid floor (Sources/CGridFloor) alone, on a scene of its own like the hit-test
 * benchmark's: `touch-router bench hit-test` runs the same floor on its own scene and points,
 * in turn with the index. Not part of the product.
 *
 *   gcc -O2 -ISources/CGridFloor/include -o /tmp/grid-floor Sources/Benchmarks/c-grid-floor/grid-floor.c Sources/CGridFloor/grid_floor.c && /tmp/grid-floor 3334
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "grid_floor.h"

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv) {
    int windows = argc > 1 ? atoi(argv[1]) : 3334;
    if (windows < 1 || windows > 1000000) {
        fprintf(stderr, "grid-floor: windows: expected 1 to 1000000, found '%s'\n", argv[1]);
        return 2;
    }
    enum { points = 1 << 16 };
    srand(1);
    /* 400×300 windows on 3840×2160, the last made in front. */
    double *rects = malloc(sizeof *rects * 4 * (size_t)windows);
    double *xy = malloc(sizeof *xy * 2 * points);
    if (!rects || !xy) return 1;
    for (int i = windows - 1; i >= 0; i--) {
        double x = rand() % 3440, y = rand() % 1860;
        rects[4 * i] = x, rects[4 * i + 1] = y, rects[4 * i + 2] = x + 400, rects[4 * i + 3] = y + 300;
    }
    for (int i = 0; i < points; i++) { xy[2 * i] = (rand() % 15360) / 4.0; xy[2 * i + 1] = (rand() % 8640) / 4.0; }
    grid_floor *floor = grid_floor_create(rects, (size_t)windows, 3840, 2160);
    if (!floor) return 1;
    double start = now_ns();
    unsigned long long sink = grid_floor_run(floor, xy, points, 10);
    printf("%d windows: grid %.1f ns/query", windows, (now_ns() - start) / (10.0 * points));
    start = now_ns();
    for (int i = 0; i < points / 16; i++)
        for (int k = 0; k < windows; k++)
            if (xy[2 * i] >= rects[4 * k] && xy[2 * i] < rects[4 * k + 2] && xy[2 * i + 1] >= rects[4 * k + 1] && xy[2 * i + 1] < rects[4 * k + 3]) { sink += k; break; }
    printf(", front-to-back scan %.1f ns/query (%llu)\n", (now_ns() - start) / (points / 16.0), sink & 1);
    grid_floor_destroy(floor);
    return 0;
}
