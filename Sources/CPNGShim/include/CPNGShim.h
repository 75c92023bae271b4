#ifndef TOUCH_ROUTER_CPNGSHIM_H
#define TOUCH_ROUTER_CPNGSHIM_H
#include <stddef.h>
#include <stdint.h>

// Writes `width` x `height` pixels of XRGB8888 (native 32-bit words, alpha byte ignored),
// rows `stride` bytes apart, as an 8-bit RGB PNG at `path`, created or truncated.
// 0 on success; otherwise -1 with a message in `error` (NUL-terminated, at most
// `error_size` bytes); a regular file left half-written is removed. Only a regular file or
// a character device is written (never a FIFO, which could block the caller).
// libpng reports errors by longjmp, so every png_* call is here, in C.
int tr_png_write_xrgb(const char *path, const uint32_t *pixels, uint32_t width, uint32_t height,
                      size_t stride, int compression_level, char *error, size_t error_size);

#endif
