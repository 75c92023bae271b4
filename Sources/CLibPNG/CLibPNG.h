// libpng, through pkg-config (Debian: libpng-dev). Only CPNGShim calls it: its errors
// longjmp, which Swift cannot catch.
#ifndef TOUCH_ROUTER_CLIBPNG_H
#define TOUCH_ROUTER_CLIBPNG_H
#include <png.h>
#endif
