#!/usr/bin/env python3
"""Clients that push the session to the edge of what one client may do (docs/hardening.md, "What one
client may do"), written against the wire protocol with raw-client.py's connection.

    hostile-client.py MODE

Modes that must leave the client running, with the values the session answered:
    positioner-max     a popup anchored at x = 2^31 - 1 with an offset of 1
    positioner-min     a popup anchored at x = -2^31 with left gravity
    damage-flood       100,000 damage requests before one commit
    offset-flood       wl_surface.offset(2^31 - 1, 2^31 - 1) 10,000 times, then a commit
Modes the session must end with an error naming the limit (printed as raw-client.py does):
    deep-subsurfaces   subsurfaces nested 40 deep, top down
    deep-bottom-up     two chains of 20 subsurfaces, the second's root made a child of the first's leaf
    region-flood       5,000 disjoint 1x1 rectangles added to one region
    huge-buffer        a 20000x1 buffer
    shown-pixels       nine surfaces showing 4096x2048 buffers each (256 MiB are allowed)
    mapped-bytes       three pools of 512 MiB (1 GiB is allowed)
    surface-flood      4,097 surfaces
    frame-flood        4,097 frame callbacks on one surface
    region-copies      one region of 4,000 rectangles set as the input region of five surfaces
    seat-devices       257 wl_pointers
    global-binds       1,025 binds of wl_output
    object-flood       65,537 xdg_positioners
Modes the session must end with the protocol's own error:
    bad-resize-edge    xdg_toplevel.resize with edges 3 (invalid_resize_edge)
    negative-min-size  xdg_toplevel.set_min_size(-1, 10) (invalid_size)
    bad-action-mask    wl_data_source.set_actions(8) (invalid_action_mask)
A client that stops reading (TOUCH_ROUTER_SOCKET must name the control socket):
    stops-reading      maps a toplevel with app id "stops-reading", takes a wl_pointer, then
                       reads nothing while it moves the pointer over its window 3,000 times
                       through the control socket; prints "dropped after N s" once its window
                       has left the tree, then "disconnected" once its socket ends

It prints "configure X Y W H" for popups, "alive" after a round trip that answered, or the
error; it exits 0 when the session did what docs/hardening.md says, 1 otherwise.
"""
import importlib.util
import json
import os
import socket
import struct
import sys
import time

spec = importlib.util.spec_from_file_location("raw_client", os.path.join(os.path.dirname(os.path.abspath(__file__)), "raw-client.py"))
raw = importlib.util.module_from_spec(spec)
spec.loader.exec_module(raw)
_send = raw.Connection.send


def send_until_ended(self, *args, **kwargs):
    """A flood goes on past the error that ended it; the error is read afterwards."""
    try:
        _send(self, *args, **kwargs)
    except ConnectionResetError:
        pass


raw.Connection.send = send_until_ended

ARGB8888 = 0
IMPLEMENTATION_ERROR = 3  # wl_display.error.implementation


def setup():
    conn = raw.connect()
    conn.compositor = raw.bind(conn, "wl_compositor", 5)
    conn.subcompositor = raw.bind(conn, "wl_subcompositor", 1)
    conn.shm = raw.bind(conn, "wl_shm", 1)
    conn.wm_base = raw.bind(conn, "xdg_wm_base", 5)
    return conn


def surface(conn):
    created = conn.new_id()
    conn.send(conn.compositor, 0, struct.pack("<I", created))
    return created


def pool(conn, size):
    fd = os.memfd_create("hostile-client")
    os.ftruncate(fd, size)  # Sparse: it costs the client nothing.
    created = conn.new_id()
    conn.send(conn.shm, 0, struct.pack("<Ii", created, size), fds=[fd])
    os.close(fd)
    return created


def buffer(conn, from_pool, width, height):
    created = conn.new_id()
    conn.send(from_pool, 0, struct.pack("<IiiiiI", created, 0, width, height, width * 4, ARGB8888))
    return created


def show(conn, on_surface, width, height):
    shown = buffer(conn, pool(conn, width * height * 4), width, height)
    conn.send(on_surface, 1, struct.pack("<Iii", shown, 0, 0))  # attach
    conn.send(on_surface, 6)  # commit


def toplevel(conn, width=200, height=200):
    mapped = surface(conn)
    xdg = conn.new_id()
    conn.send(conn.wm_base, 2, struct.pack("<II", xdg, mapped))  # get_xdg_surface
    role = conn.new_id()
    conn.send(xdg, 1, struct.pack("<I", role))  # get_toplevel
    conn.send(mapped, 6)
    show(conn, mapped, width, height)
    return mapped, xdg


def popup(conn, parent_xdg, anchor_rect, offset, anchor, gravity):
    positioner = conn.new_id()
    conn.send(conn.wm_base, 1, struct.pack("<I", positioner))  # create_positioner
    conn.send(positioner, 1, struct.pack("<ii", 50, 50))  # set_size
    conn.send(positioner, 2, struct.pack("<iiii", *anchor_rect))  # set_anchor_rect
    conn.send(positioner, 3, struct.pack("<I", anchor))  # set_anchor
    conn.send(positioner, 4, struct.pack("<I", gravity))  # set_gravity
    conn.send(positioner, 6, struct.pack("<ii", *offset))  # set_offset
    popup_surface = surface(conn)
    xdg = conn.new_id()
    conn.send(conn.wm_base, 2, struct.pack("<II", xdg, popup_surface))
    role = conn.new_id()
    conn.send(xdg, 2, struct.pack("<III", role, parent_xdg, positioner))  # get_popup
    conn.send(popup_surface, 6)  # commit: the session configures the popup
    box = []

    def on_event(obj, opcode, payload):
        if obj == role and opcode == 0:
            box[:] = struct.unpack_from("<iiii", payload)
    conn.roundtrip(on_event)
    print("configure %d %d %d %d" % tuple(box), flush=True)
    show(conn, popup_surface, 50, 50)  # and maps it where it said
    return box


def alive(conn):
    try:
        conn.roundtrip()
    except raw.ProtocolError as error:
        print("error object %d code %d: %s" % error.args, flush=True)
        return 1
    print("alive", flush=True)
    return 0


def positioner_max():
    conn = setup()
    _, parent = toplevel(conn)
    box = popup(conn, parent, (2**31 - 1, 0, 1, 1), (1, 0), 4, 4)  # anchor right, gravity right: x = 2^31 + 1
    return alive(conn) or (0 if box[0] == 2**31 - 1 else 1)


def positioner_min():
    conn = setup()
    _, parent = toplevel(conn)
    box = popup(conn, parent, (-2**31, 0, 1, 1), (0, 0), 3, 3)  # anchor left, gravity left
    return alive(conn) or (0 if box[0] == -2**31 else 1)


def damage_flood():
    conn = setup()
    mapped, _ = toplevel(conn)
    for i in range(100_000):
        conn.send(mapped, 2, struct.pack("<iiii", i % 200, i % 199, 1, 1))
    conn.send(mapped, 6)
    return alive(conn)


def offset_flood():
    conn = setup()
    mapped, _ = toplevel(conn)
    for _ in range(10_000):
        conn.send(mapped, 10, struct.pack("<ii", 2**31 - 1, 2**31 - 1))
    conn.send(mapped, 6)
    return alive(conn)


def chain(conn, depth, root=None):
    root = root or surface(conn)
    leaf = root
    for _ in range(depth):
        child = surface(conn)
        conn.send(conn.subcompositor, 1, struct.pack("<III", conn.new_id(), child, leaf))  # get_subsurface
        leaf = child
    return root, leaf


def deep_subsurfaces():
    conn = setup()
    mapped, _ = toplevel(conn)
    chain(conn, 40, root=mapped)
    return raw.expect_error(conn, 1, IMPLEMENTATION_ERROR)


def deep_bottom_up():
    conn = setup()
    _, first_leaf = chain(conn, 20)
    second_root, _ = chain(conn, 20)
    conn.send(conn.subcompositor, 1, struct.pack("<III", conn.new_id(), second_root, first_leaf))
    return raw.expect_error(conn, 1, IMPLEMENTATION_ERROR)


def region_flood():
    conn = setup()
    region = conn.new_id()
    conn.send(conn.compositor, 1, struct.pack("<I", region))  # create_region
    for i in range(5000):
        conn.send(region, 1, struct.pack("<iiii", 2 * (i % 100), 2 * (i // 100), 1, 1))
    return raw.expect_error(conn, 1, IMPLEMENTATION_ERROR)


def huge_buffer():
    conn = setup()
    buffer(conn, pool(conn, 20000 * 4), 20000, 1)
    return raw.expect_error(conn, 1, IMPLEMENTATION_ERROR)


def shown_pixels():
    conn = setup()
    for _ in range(9):
        show(conn, surface(conn), 4096, 2048)
    return raw.expect_error(conn, 1, IMPLEMENTATION_ERROR)


def mapped_bytes():
    conn = setup()
    for _ in range(3):
        pool(conn, 512 << 20)
    return raw.expect_error(conn, 1, IMPLEMENTATION_ERROR)


def surface_flood():
    conn = setup()
    for _ in range(4097):
        surface(conn)
    return raw.expect_error(conn, 1, IMPLEMENTATION_ERROR)


def frame_flood():
    conn = setup()
    flooded = surface(conn)
    for _ in range(4097):
        conn.send(flooded, 3, struct.pack("<I", conn.new_id()))  # frame
    return raw.expect_error(conn, 1, IMPLEMENTATION_ERROR)


def region_copies():
    conn = setup()
    region = conn.new_id()
    conn.send(conn.compositor, 1, struct.pack("<I", region))
    for i in range(4000):
        conn.send(region, 1, struct.pack("<iiii", 2 * (i % 100), 2 * (i // 100), 1, 1))
    for _ in range(5):
        holder = surface(conn)
        conn.send(holder, 5, struct.pack("<I", region))  # set_input_region
        conn.send(holder, 6)
    return raw.expect_error(conn, 1, IMPLEMENTATION_ERROR)


def seat_devices():
    conn = setup()
    seat = raw.bind(conn, "wl_seat", 7)
    for _ in range(257):
        conn.send(seat, 0, struct.pack("<I", conn.new_id()))  # get_pointer
    return raw.expect_error(conn, 1, IMPLEMENTATION_ERROR)


def global_binds():
    conn = setup()
    for i in range(1025):
        raw.bind(conn, "wl_output", 4)
        if i % 64 == 63:
            # Each bind is answered with the output's state: read it, or this client would
            # be one that stops reading, and lose its error with the rest.
            try:
                conn.roundtrip()
            except raw.ProtocolError as error:
                print("error object %d code %d: %s" % error.args, flush=True)
                return 0 if error.args[:2] == (1, IMPLEMENTATION_ERROR) else 1
    return raw.expect_error(conn, 1, IMPLEMENTATION_ERROR)


def object_flood():
    conn = setup()
    for _ in range(65537):
        conn.send(conn.wm_base, 1, struct.pack("<I", conn.new_id()))  # create_positioner
    return raw.expect_error(conn, 1, IMPLEMENTATION_ERROR)


def set_app_id(conn, xdg, app_id):
    role = xdg + 1  # toplevel() takes the xdg_toplevel's id right after the xdg_surface's
    conn.send(role, 3, raw.string(app_id))  # xdg_toplevel.set_app_id


def control(lines):
    peer = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    peer.connect(os.environ["TOUCH_ROUTER_SOCKET"])
    peer.sendall("".join(line + "\n" for line in lines).encode())
    replies = b""
    while replies.count(b"\n") < len(lines):
        replies += peer.recv(1 << 20)
    peer.close()
    return [json.loads(line) for line in replies.decode().splitlines()]


def own_window():
    outputs = control(["tree"])[0]["outputs"]
    return next((top for output in outputs for top in output["toplevels"] if top["label"] == "stops-reading"), None)


def stops_reading():
    conn = setup()
    seat = raw.bind(conn, "wl_seat", 7)
    conn.send(seat, 0, struct.pack("<I", conn.new_id()))  # get_pointer
    mapped, xdg = toplevel(conn)
    set_app_id(conn, xdg, "stops-reading")
    conn.roundtrip()
    while own_window() is None:
        time.sleep(0.05)
    x, y = own_window()["position"]
    control(["inject pointer motion %d %d" % (x + 10 + i % 100, y + 10 + i % 150) for i in range(3000)])
    start = time.monotonic()
    while own_window() is not None:
        if time.monotonic() - start > 30:
            print("still in the tree after 30 s", flush=True)
            return 1
        time.sleep(0.2)
    print("dropped after %d s" % round(time.monotonic() - start), flush=True)
    conn.sock.settimeout(5)
    try:
        while conn.sock.recv(1 << 20):
            pass
    except ConnectionResetError:
        pass
    except socket.timeout:
        print("the socket is still open", flush=True)
        return 1
    print("disconnected", flush=True)
    return 0


def bad_resize_edge():
    conn = setup()
    seat = raw.bind(conn, "wl_seat", 7)
    _, xdg = toplevel(conn)
    conn.send(xdg + 1, 6, struct.pack("<III", seat, 0, 3))  # resize(seat, serial, edges 3)
    return raw.expect_error(conn, xdg + 1, 0)


def negative_min_size():
    conn = setup()
    _, xdg = toplevel(conn)
    conn.send(xdg + 1, 8, struct.pack("<ii", -1, 10))  # set_min_size
    return raw.expect_error(conn, xdg + 1, 2)


def bad_action_mask():
    conn = setup()
    manager = raw.bind(conn, "wl_data_device_manager", 3)
    source = conn.new_id()
    conn.send(manager, 0, struct.pack("<I", source))  # create_data_source
    conn.send(source, 2, struct.pack("<I", 8))  # set_actions
    return raw.expect_error(conn, source, 0)


MODES = {
    "bad-resize-edge": bad_resize_edge, "negative-min-size": negative_min_size, "bad-action-mask": bad_action_mask,
    "stops-reading": stops_reading,
    "region-copies": region_copies, "seat-devices": seat_devices, "global-binds": global_binds, "object-flood": object_flood,
    "positioner-max": positioner_max, "positioner-min": positioner_min, "damage-flood": damage_flood,
    "offset-flood": offset_flood, "deep-subsurfaces": deep_subsurfaces, "deep-bottom-up": deep_bottom_up,
    "region-flood": region_flood, "huge-buffer": huge_buffer, "shown-pixels": shown_pixels,
    "mapped-bytes": mapped_bytes, "surface-flood": surface_flood, "frame-flood": frame_flood,
}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in MODES:
        sys.exit("usage: hostile-client.py " + "|".join(MODES))
    sys.exit(MODES[sys.argv[1]]())
