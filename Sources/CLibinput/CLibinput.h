// libinput, through pkg-config (Debian: libinput-dev).
#ifndef TOUCH_ROUTER_CLIBINPUT_H
#define TOUCH_ROUTER_CLIBINPUT_H
#include <libinput.h>
#endif
