// libinput, and libudev for its udev backend (Debian: libinput-dev, libudev-dev).
#ifndef TOUCH_ROUTER_CLIBINPUT_H
#define TOUCH_ROUTER_CLIBINPUT_H
#include <libinput.h>
#include <libudev.h>
#endif
