#ifndef TOUCH_ROUTER_CWLCSINTEGRATION_H
#define TOUCH_ROUTER_CWLCSINTEGRATION_H

#include <stdint.h>

/*
 * WLCS loads the integration module with dlopen and looks up the constant
 * `wlcs_server_integration`; Swift cannot define a C constant of a C struct type
 * under a chosen name, so wlcs_integration.c defines it, along with the tables of
 * function pointers WLCS calls. Each entry calls one of the functions below, which
 * TouchRouterWLCS defines in Swift with @_cdecl. Nothing here names a wlcs or
 * wayland-client type, so that Swift never sees two declarations of wl_display.
 *
 * `server` is the Swift session object, retained by tr_wlcs_create.
 */

void *tr_wlcs_create(int argc, char const **argv);
void tr_wlcs_destroy(void *server);
/* Runs the compositor on this thread until tr_wlcs_stop, dispatching WLCS's own
 * loop (whose calls into the server all arrive through it) whenever its fd is ready. */
void tr_wlcs_run(void *server, void *wlcs_event_loop);
void tr_wlcs_stop(void *server);
int tr_wlcs_create_client_socket(void *server);
/* The client is named by its end of the socket, the surface by its protocol id. */
void tr_wlcs_position_window(void *server, int client_fd, uint32_t surface_id, int x, int y);
uint32_t tr_wlcs_add_device(void *server, int touch);
void tr_wlcs_remove_device(void *server, uint32_t device);
void tr_wlcs_pointer_move(void *server, uint32_t device, double x, double y, int relative);
void tr_wlcs_pointer_button(void *server, uint32_t device, int button, int pressed);
/* kind: 0 down, 1 motion, 2 up. */
void tr_wlcs_touch(void *server, uint32_t device, int kind, double x, double y);

#endif
