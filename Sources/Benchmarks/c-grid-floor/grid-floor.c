/*
 * What this machine can do at best for the hit-test benchmark's workload: a uniform
 * grid of 128-px cells, each listing windows front to back, one rectangle per window
 * (no subsurfaces, no stacking changes, no exactness concerns). Compare with
 * `touch-router bench hit-test`; not part of the product.
 *
 *   gcc -O2 -o /tmp/grid-floor Sources/Benchmarks/c-grid-floor/grid-floor.c && /tmp/grid-floor 3334
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct { double x0, y0, x1, y1; int id; } window_rect;

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv) {
    int windows = argc > 1 ? atoi(argv[1]) : 3334;
    enum { columns = 30, rows = 17, points = 1 << 16 };
    srand(1);
    window_rect *w = malloc(sizeof *w * windows);
    for (int i = 0; i < windows; i++) {
        double x = rand() % 3440, y = rand() % 1860;
        w[i] = (window_rect){x, y, x + 400, y + 300, i};
    }
    double *px = malloc(sizeof *px * points), *py = malloc(sizeof *py * points);
    for (int i = 0; i < points; i++) { px[i] = (rand() % 15360) / 4.0; py[i] = (rand() % 8640) / 4.0; }
    int *cells[columns * rows], count[columns * rows] = {0};
    for (int c = 0; c < columns * rows; c++) cells[c] = malloc(sizeof(int) * windows);
    for (int i = windows - 1; i >= 0; i--)
        for (int y = (int)w[i].y0 >> 7; y <= ((int)w[i].y1 - 1) >> 7 && y < rows; y++)
            for (int x = (int)w[i].x0 >> 7; x <= ((int)w[i].x1 - 1) >> 7 && x < columns; x++)
                cells[y * columns + x][count[y * columns + x]++] = i;
    long sink = 0;
    double start = now_ns();
    for (int run = 0; run < 10; run++)
        for (int i = 0; i < points; i++) {
            double x = px[i], y = py[i];
            int c = ((int)y >> 7) * columns + ((int)x >> 7);
            for (int k = 0; k < count[c]; k++) {
                window_rect *r = &w[cells[c][k]];
                if (x >= r->x0 && x < r->x1 && y >= r->y0 && y < r->y1) { sink += r->id; break; }
            }
        }
    printf("%d windows: grid %.1f ns/query", windows, (now_ns() - start) / (10.0 * points));
    start = now_ns();
    for (int i = 0; i < points / 16; i++)
        for (int k = windows - 1; k >= 0; k--)
            if (px[i] >= w[k].x0 && px[i] < w[k].x1 && py[i] >= w[k].y0 && py[i] < w[k].y1) { sink += k; break; }
    printf(", front-to-back scan %.1f ns/query (%ld)\n", (now_ns() - start) / (points / 16.0), sink & 1);
    return 0;
}
