// Links libwayland-server and libxkbcommon, found through pkg-config; CWaylandShim holds the headers' use.
#define WL_HIDE_DEPRECATED 1
#include <wayland-server-core.h>
#include <xkbcommon/xkbcommon.h>
