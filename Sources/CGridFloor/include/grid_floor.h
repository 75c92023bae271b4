#ifndef GRID_FLOOR_H
#define GRID_FLOOR_H

#include <stddef.h>
#include <stdint.h>

/* The C grid floor of `touch-router bench hit-test`: what this machine does at best for the
 * hit-test workload. A uniform grid of 128-px cells, each listing windows front to back, one
 * rectangle a window: no subsurfaces, no stacking changes, no exactness concerns. */
typedef struct grid_floor grid_floor;

/* `rects` holds x0, y0, x1, y1 for each of `count` windows, front to back, in a width × height
 * area (both 1 to 65,536). NULL if memory runs out or an argument is out of range. */
grid_floor *grid_floor_create(const double *rects, size_t count, int width, int height);

/* The window at (x, y), counted from 1 in the order given; 0 for none or outside the area. */
uint32_t grid_floor_query(const grid_floor *floor, double x, double y);

/* Queries the `count` points of `points` (x, y, x, y, ...), every one in the area, `runs`
 * times, in one loop the compiler sees whole, as the benchmark's own loop does not test them
 * against the area; returns the sum of the answers so that none is dropped. */
uint64_t grid_floor_run(const grid_floor *floor, const double *points, size_t count, int runs);

void grid_floor_destroy(grid_floor *floor);

#endif
