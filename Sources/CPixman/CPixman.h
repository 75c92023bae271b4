// pixman, through pkg-config (Debian: libpixman-1-dev): the software compositor's blitter.
#ifndef TOUCH_ROUTER_CPIXMAN_H
#define TOUCH_ROUTER_CPIXMAN_H
#include <pixman.h>
#endif
