// The `touch-router` command. `msg` is answered here, with libc alone: a script calling
// `touch-router msg` in a loop pays for starting a small process, about a millisecond,
// instead of the fifteen it takes to load the session's libraries (the Swift runtime,
// Foundation and ICU, libinput, libwayland, libdrm, pixman). Every other command, and
// every `msg` this file does not take as it is (help, a missing socket or request, an
// unknown option), is the Swift CLI in libTouchRouterCLI.so beside the executable.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "control_client.h"

static const char library_name[] = "libTouchRouterCLI.so";

typedef int (*cli_main_function)(int argc, char **argv);

// The library beside the executable, wherever the executable was started from.
static int run_swift_cli(int argc, char **argv) {
    char path[PATH_MAX];
    ssize_t length = readlink("/proc/self/exe", path, sizeof path - sizeof library_name - 1);
    if (length <= 0) {
        perror("touch-router: cannot find its own executable (/proc/self/exe)");
        return 1;
    }
    path[length] = '\0';
    char *slash = strrchr(path, '/');
    strcpy(slash ? slash + 1 : path, library_name);
    void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        fprintf(stderr, "touch-router: cannot load %s: %s\n"
                "  (it is built beside the executable: swift build --product TouchRouterCLI)\n", path, dlerror());
        return 1;
    }
    cli_main_function cli_main = (cli_main_function)dlsym(library, "touch_router_cli_main");
    if (cli_main == NULL) {
        fprintf(stderr, "touch-router: %s has no touch_router_cli_main: %s\n", path, dlerror());
        return 1;
    }
    return cli_main(argc, argv);
}

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "msg") == 0) {
        int status = control_client_msg(argc - 2, argv + 2);
        if (status != CONTROL_CLIENT_NOT_TAKEN) return status;
    }
    return run_swift_cli(argc, argv);
}
