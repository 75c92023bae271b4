// libudev (Debian: libudev-dev), for the drm backend's connector hotplug events.
#include <libudev.h>
