#include "CLibseat.h"
#include <stdarg.h>
#include <stdio.h>

static void log_line(enum libseat_log_level level, const char *format, va_list args) {
    (void)level;
    char message[512];
    vsnprintf(message, sizeof message, format, args);
    fprintf(stderr, "touch-router: libseat: %s\n", message);
}

void touch_router_seat_log_to_stderr(enum libseat_log_level level) {
    libseat_set_log_handler(log_line);
    libseat_set_log_level(level);
}
