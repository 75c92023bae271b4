#!/usr/bin/env python3
"""Clients that push the session to the edge of what one client may do (docs/hardening.md, "What one
client may do"), written against the wire protocol with raw-client.py's connection.

    hostile-client.py MODE

A client that stops reading (TOUCH_ROUTER_SOCKET must name the control socket):
    stops-reading      maps a toplevel with app id "stops-reading", takes a wl_pointer, then
                       reads nothing while it moves the pointer over its window 3,000 times
                       through the control socket; prints "dropped after N s" once its window
                       has left the tree, then "disconnected" once its socket ends

It exits 0 when the session did what docs/hardening.md says, 1 otherwise. The other hostile
clients (values at int32's ends, every per-client limit, the enum errors) are in process:
Tests/TouchRouterWaylandTests/ClientLimitProtocolTests.swift.
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


MODES = {"stops-reading": stops_reading}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in MODES:
        sys.exit("usage: hostile-client.py " + "|".join(MODES))
    sys.exit(MODES[sys.argv[1]]())
