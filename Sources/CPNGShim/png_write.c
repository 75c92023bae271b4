#include "CPNGShim.h"

#include <errno.h>
#include <fcntl.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// Where libpng's error callback leaves its message before it longjmps back.
struct tr_png_failure {
    jmp_buf jump;
    char *error;
    size_t error_size;
    // errno when libpng gave up: its own message for a failed fwrite says only "Write Error".
    int saved_errno;
};

static void tr_png_error(png_structp png, png_const_charp message) {
    struct tr_png_failure *failure = png_get_error_ptr(png);
    failure->saved_errno = errno;
    snprintf(failure->error, failure->error_size, "libpng: %s", message);
    longjmp(failure->jump, 1);
}

static void tr_png_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

int tr_png_write_xrgb(const char *path, const uint32_t *pixels, uint32_t width, uint32_t height,
                      size_t stride, int compression_level, char *error, size_t error_size) {
    if (error_size > 0) error[0] = 0;
    if (width == 0 || height == 0 || width > PNG_USER_WIDTH_MAX || height > PNG_USER_HEIGHT_MAX) {
        snprintf(error, error_size, "cannot write a %ux%u image", width, height);
        return -1;
    }
    // Non-blocking, so that a FIFO without a reader fails rather than stopping the session's
    // loop; only a regular file or a character device (/dev/null) is written.
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(error, error_size, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat status;
    if (fstat(fd, &status) != 0 || !(S_ISREG(status.st_mode) || S_ISCHR(status.st_mode))) {
        snprintf(error, error_size, "cannot write %s: it is not a regular file", path);
        close(fd);
        return -1;
    }
    // Only a regular file, which this call truncated, is removed after a failure.
    const int remove_on_failure = S_ISREG(status.st_mode);
    FILE *file = fdopen(fd, "wb");
    if (!file) {
        snprintf(error, error_size, "cannot write %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    // volatile: read after a longjmp.
    struct tr_png_failure failure = {.error = error, .error_size = error_size};
    png_structp volatile png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &failure, tr_png_error, tr_png_warning);
    png_infop volatile info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        snprintf(error, error_size, "libpng: out of memory");
        if (png) png_destroy_write_struct((png_structpp)&png, NULL);
        fclose(file);
        if (remove_on_failure) unlink(path);
        return -1;
    }
    if (setjmp(failure.jump)) {
        if (ferror(file) && failure.saved_errno != 0) {
            snprintf(error, error_size, "cannot write %s: %s", path, strerror(failure.saved_errno));
        }
        png_destroy_write_struct((png_structpp)&png, (png_infopp)&info);
        fclose(file);
        if (remove_on_failure) unlink(path);
        return -1;
    }
    png_init_io(png, file);
    png_set_compression_level(png, compression_level);
    png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    // A native XRGB word is B, G, R, X in memory on a little-endian machine, X, R, G, B on a
    // big-endian one: libpng strips the filler byte and puts R, G, B in order.
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    png_set_bgr(png);
    png_set_filler(png, 0, PNG_FILLER_AFTER);
#else
    png_set_filler(png, 0, PNG_FILLER_BEFORE);
#endif
    for (uint32_t row = 0; row < height; row++) {
        png_write_row(png, (png_const_bytep)((const uint8_t *)pixels + (size_t)row * stride));
    }
    png_write_end(png, NULL);
    png_destroy_write_struct((png_structpp)&png, (png_infopp)&info);
    // A full disk shows at fflush or fclose, not in fwrite's callers inside libpng.
    int flushed = fflush(file);
    int saved = errno;
    int ferr = ferror(file);
    if (fclose(file) != 0 || flushed != 0 || ferr) {
        if (flushed == 0 && !ferr) saved = errno;
        snprintf(error, error_size, "cannot write %s: %s", path, strerror(saved ? saved : EIO));
        if (remove_on_failure) unlink(path);
        return -1;
    }
    return 0;
}
