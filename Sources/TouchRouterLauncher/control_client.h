#pragma once

// What control_client_msg returns when it leaves the request to the Swift CLI.
enum { CONTROL_CLIENT_NOT_TAKEN = -1 };

// `touch-router msg ARGS...`, as Sources/TouchRouterCLI's Msg does it: one request on the
// control socket, its reply line printed, and for trace and subscribe every line after it
// until the session closes. Returns the exit status (0 when the first reply says ok), or
// CONTROL_CLIENT_NOT_TAKEN for anything but a plain request: help, an unknown option, no
// socket or no request, whose messages are the Swift CLI's.
int control_client_msg(int argc, char **argv);
