// libseat (Debian: libseat-dev), and the C functions Swift cannot do without: libseat's
// log handler takes a va_list, which Swift can neither receive nor format.
#ifndef TOUCH_ROUTER_CLIBSEAT_H
#define TOUCH_ROUTER_CLIBSEAT_H
#include <libseat.h>

/// Sends libseat's messages at `level` or more severe to standard error, each line starting
/// "touch-router: libseat: ", formatted here.
void touch_router_seat_log_to_stderr(enum libseat_log_level level);
#endif
