#include "CWLCSIntegration.h"

#include <stdlib.h>
#include <wayland-client-core.h>
#include <wlcs/display_server.h>
#include <wlcs/pointer.h>
#include <wlcs/touch.h>

/* WLCS hands back the pointer it was given: the table is the first member, so the
 * wrapper is found without container_of arithmetic. */
struct tr_server {
    WlcsDisplayServer table;
    void *session;
};

struct tr_pointer {
    WlcsPointer table;
    void *session;
    uint32_t device;
};

struct tr_touch {
    WlcsTouch table;
    void *session;
    uint32_t device;
    int down;
};

/* Only what the session implements, at the versions it advertises: WLCS skips the
 * tests of everything else (wl_shell, ...). */
static WlcsExtensionDescriptor const extensions[] = {
    {"wl_compositor", 5},
    {"wl_subcompositor", 1},
    {"wl_shm", 1},
    {"wl_seat", 8},
    {"wl_output", 4},
    {"xdg_wm_base", 5},
    {"zxdg_shell_v6", 1},
    {"wl_data_device_manager", 3},
    {"zwp_primary_selection_device_manager_v1", 1},
    {"gtk_primary_selection_device_manager", 1},
    {"zwp_input_timestamps_manager_v1", 1},
    {"zwlr_virtual_pointer_manager_v1", 2},
    {"zwp_virtual_keyboard_manager_v1", 1},
    {"zxdg_output_manager_v1", 3},
    {"zwlr_layer_shell_v1", 4},
    {"zwlr_foreign_toplevel_manager_v1", 3},
    {"zwp_relative_pointer_manager_v1", 1},
    {"zwp_pointer_constraints_v1", 1},
    {"zwp_text_input_manager_v3", 1},
    {"zwp_input_method_manager_v2", 1},
};

static WlcsIntegrationDescriptor const descriptor = {
    1, sizeof extensions / sizeof extensions[0], extensions,
};

static struct tr_server *server_of(WlcsDisplayServer *table) { return (struct tr_server *)table; }

static void pointer_move_absolute(WlcsPointer *table, wl_fixed_t x, wl_fixed_t y) {
    struct tr_pointer *pointer = (struct tr_pointer *)table;
    tr_wlcs_pointer_move(pointer->session, pointer->device, wl_fixed_to_double(x), wl_fixed_to_double(y), 0);
}

static void pointer_move_relative(WlcsPointer *table, wl_fixed_t dx, wl_fixed_t dy) {
    struct tr_pointer *pointer = (struct tr_pointer *)table;
    tr_wlcs_pointer_move(pointer->session, pointer->device, wl_fixed_to_double(dx), wl_fixed_to_double(dy), 1);
}

static void pointer_button_down(WlcsPointer *table, int button) {
    struct tr_pointer *pointer = (struct tr_pointer *)table;
    tr_wlcs_pointer_button(pointer->session, pointer->device, button, 1);
}

static void pointer_button_up(WlcsPointer *table, int button) {
    struct tr_pointer *pointer = (struct tr_pointer *)table;
    tr_wlcs_pointer_button(pointer->session, pointer->device, button, 0);
}

static void pointer_destroy(WlcsPointer *table) {
    struct tr_pointer *pointer = (struct tr_pointer *)table;
    tr_wlcs_remove_device(pointer->session, pointer->device);
    free(pointer);
}

/* touch.h declares wl_fixed_t, but WLCS's Touch::down_at and move_to pass whole
 * pixels in it (and Mir's integration reads them so); the pointer's are true wl_fixed_t. */
static void touch_down(WlcsTouch *table, wl_fixed_t x, wl_fixed_t y) {
    struct tr_touch *touch = (struct tr_touch *)table;
    touch->down = 1;
    tr_wlcs_touch(touch->session, touch->device, 0, (double)x, (double)y);
}

static void touch_move(WlcsTouch *table, wl_fixed_t x, wl_fixed_t y) {
    struct tr_touch *touch = (struct tr_touch *)table;
    tr_wlcs_touch(touch->session, touch->device, 1, (double)x, (double)y);
}

static void touch_up(WlcsTouch *table) {
    struct tr_touch *touch = (struct tr_touch *)table;
    touch->down = 0;
    tr_wlcs_touch(touch->session, touch->device, 2, 0, 0);
}

static void touch_destroy(WlcsTouch *table) {
    struct tr_touch *touch = (struct tr_touch *)table;
    /* A test that ends with its finger down: the finger lifts before the device goes.
     * Removing a device with a touch down cancels the touch, and WLCS 1.5's client has no
     * wl_touch.cancel listener: libwayland would abort the whole run. */
    if (touch->down) tr_wlcs_touch(touch->session, touch->device, 2, 0, 0);
    tr_wlcs_remove_device(touch->session, touch->device);
    free(touch);
}

static void server_stop(WlcsDisplayServer *table) { tr_wlcs_stop(server_of(table)->session); }

static void server_start_on_this_thread(WlcsDisplayServer *table, struct wl_event_loop *wlcs_loop) {
    tr_wlcs_run(server_of(table)->session, wlcs_loop);
}

static int server_create_client_socket(WlcsDisplayServer *table) {
    return tr_wlcs_create_client_socket(server_of(table)->session);
}

static void server_position_window_absolute(WlcsDisplayServer *table, struct wl_display *client, struct wl_surface *surface, int x, int y) {
    tr_wlcs_position_window(server_of(table)->session, wl_display_get_fd(client), wl_proxy_get_id((struct wl_proxy *)surface), x, y);
}

static WlcsPointer *server_create_pointer(WlcsDisplayServer *table) {
    struct tr_pointer *pointer = malloc(sizeof *pointer);
    if (!pointer) return NULL;
    void *session = server_of(table)->session;
    *pointer = (struct tr_pointer){
        .table = {.version = WLCS_POINTER_VERSION, .move_absolute = pointer_move_absolute,
                  .move_relative = pointer_move_relative, .button_up = pointer_button_up,
                  .button_down = pointer_button_down, .destroy = pointer_destroy},
        .session = session,
        .device = tr_wlcs_add_device(session, 0),
    };
    return &pointer->table;
}

static WlcsTouch *server_create_touch(WlcsDisplayServer *table) {
    struct tr_touch *touch = malloc(sizeof *touch);
    if (!touch) return NULL;
    void *session = server_of(table)->session;
    *touch = (struct tr_touch){
        .table = {.version = WLCS_TOUCH_VERSION, .touch_down = touch_down, .touch_move = touch_move,
                  .touch_up = touch_up, .destroy = touch_destroy},
        .session = session,
        .device = tr_wlcs_add_device(session, 1),
    };
    return &touch->table;
}

static WlcsIntegrationDescriptor const *server_get_descriptor(WlcsDisplayServer const *table) {
    (void)table;
    return &descriptor;
}

static WlcsDisplayServer *create_server(int argc, char const **argv) {
    struct tr_server *server = calloc(1, sizeof *server);
    if (!server) return NULL;
    server->session = tr_wlcs_create(argc, argv);
    if (!server->session) {
        free(server);
        return NULL;
    }
    /* Version 3, with start left NULL: WLCS then runs start_on_this_thread on a thread
     * of its own and sends every other call through its loop, so the whole compositor
     * lives on one thread, as it does in `touch-router run`. */
    server->table.version = 3;
    server->table.start = NULL;
    server->table.start_on_this_thread = server_start_on_this_thread;
    server->table.stop = server_stop;
    server->table.create_client_socket = server_create_client_socket;
    server->table.position_window_absolute = server_position_window_absolute;
    server->table.create_pointer = server_create_pointer;
    server->table.create_touch = server_create_touch;
    server->table.get_descriptor = server_get_descriptor;
    return &server->table;
}

static void destroy_server(WlcsDisplayServer *table) {
    struct tr_server *server = server_of(table);
    tr_wlcs_destroy(server->session);
    free(server);
}

WlcsServerIntegration const wlcs_server_integration = {
    1, create_server, destroy_server,
};
