#define _GNU_SOURCE
#include "control_client.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

// The request line: the words joined by spaces, a screenshot's relative file made absolute
// (the session has its own working directory), and the newline that ends it.
static char *request_line(int count, char **words) {
    char cwd[PATH_MAX] = "";
    bool relative_screenshot = count >= 2 && strcmp(words[0], "screenshot") == 0 && words[1][0] != '/';
    if (relative_screenshot && getcwd(cwd, sizeof cwd) == NULL) return NULL;
    size_t length = 2 + strlen(cwd) + 1;
    for (int i = 0; i < count; i++) length += strlen(words[i]) + 1;
    char *line = malloc(length);
    if (line == NULL) return NULL;
    char *end = line;
    for (int i = 0; i < count; i++) {
        if (i > 0) *end++ = ' ';
        if (i == 1 && relative_screenshot) end = stpcpy(stpcpy(end, cwd), "/");
        end = stpcpy(end, words[i]);
    }
    strcpy(end, "\n");
    return line;
}

static int fail(const char *what, const char *path) {
    fprintf(stderr, "Error: %s %s: %s\n", what, path, strerror(errno));
    return 1;
}

static int connect_to(const char *path) {
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof address.sun_path) {
        fprintf(stderr, "Error: control socket path %s is too long\n", path);
        return -1;
    }
    strcpy(address.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        fail("cannot make a socket for", path);
        return -1;
    }
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        fail("cannot connect to the control socket", path);
        close(fd);
        return -1;
    }
    return fd;
}

static bool send_all(int fd, const char *bytes, size_t length) {
    while (length > 0) {
        ssize_t sent = send(fd, bytes, length, MSG_NOSIGNAL);
        if (sent < 0 && errno == EINTR) continue;
        if (sent <= 0) return false;
        bytes += sent;
        length -= (size_t)sent;
    }
    return true;
}

// Prints the reply's lines as they come; the status is the first line's.
static int print_replies(int fd, bool streams) {
    char buffer[65536];
    size_t filled = 0;
    int first = -1;
    for (;;) {
        ssize_t count = read(fd, buffer + filled, sizeof buffer - filled);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) break;
        filled += (size_t)count;
        char *start = buffer, *newline;
        while ((newline = memchr(start, '\n', filled - (size_t)(start - buffer))) != NULL) {
            *newline = '\0';
            if (first < 0) first = strncmp(start, "{\"ok\":true", 10) == 0 ? 0 : 1;
            puts(start);
            fflush(stdout);
            start = newline + 1;
            // A refused stream is answered once, like any other request.
            if (!streams || first != 0) return first;
        }
        filled -= (size_t)(start - buffer);
        memmove(buffer, start, filled);
        // A line longer than the buffer is printed in pieces rather than lost.
        if (filled == sizeof buffer) {
            fwrite(buffer, 1, filled, stdout);
            filled = 0;
        }
    }
    return first < 0 ? 1 : first;
}

int control_client_msg(int argc, char **argv) {
    const char *path = getenv("TOUCH_ROUTER_SOCKET");
    int i = 0;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "--socket") == 0 && i + 1 < argc) {
            path = argv[++i];
        } else if (strncmp(argv[i], "--socket=", 9) == 0) {
            path = argv[i] + 9;
        } else {
            return CONTROL_CLIENT_NOT_TAKEN;
        }
    }
    if (path == NULL || i == argc) return CONTROL_CLIENT_NOT_TAKEN;
    char *line = request_line(argc - i, argv + i);
    if (line == NULL) {
        perror("touch-router msg: cannot make the request");
        return 1;
    }
    int fd = connect_to(path);
    if (fd < 0) {
        free(line);
        return 1;
    }
    bool sent = send_all(fd, line, strlen(line));
    free(line);
    if (!sent) {
        fail("cannot send to the control socket", path);
        close(fd);
        return 1;
    }
    bool streams = strcmp(argv[i], "trace") == 0 || strcmp(argv[i], "subscribe") == 0;
    int status = print_replies(fd, streams);
    close(fd);
    return status;
}
