#!/usr/bin/env python3
"""A Wayland client written against the wire protocol itself, for the session tests: it
does what no well-behaved toolkit client does on purpose.

    raw-client.py protocol-error   attaches a buffer at an offset on wl_surface v5, which the
                                   protocol forbids, and prints the error the server sends
    raw-client.py truncated-pool   commits a buffer from a pool whose file it then cut short,
                                   and prints the error the server sends
    raw-client.py stride           creates a buffer whose rows cannot hold its pixels
    raw-client.py parent-cycle     makes a toplevel its own grandparent's parent (invalid_parent)
    raw-client.py min-over-max     commits a maximum size below the minimum (invalid_size)
    raw-client.py unconfigured-buffer  attaches a buffer to an xdg_surface before any configure
    raw-client.py maximize         maps two toplevels, maximizes the second, acks, commits a
                                   buffer of the configured size, prints "maximized WxH", and
                                   waits to be killed
    raw-client.py configure        maps a toplevel at the size its first configure asks (200x200
                                   for 0x0), and prints each configure as "configure WxH STATES"
    raw-client.py move             maps a 200x200 toplevel; on its first touch down or button
                                   press it asks xdg_toplevel.move with that serial and
                                   prints "moving"; it prints every wl_touch event it gets
                                   as "touch NAME", every wl_pointer event as "pointer NAME"
    raw-client.py resize EDGES     as move, but asks xdg_toplevel.resize with those edges
                                   (xdg_toplevel.resize_edge) and prints "resizing"; then
                                   prints each configure as "configure WxH STATES", acks it
                                   and draws at that size (0x0: keeps its size)
    raw-client.py parent           maps "parent" (200x200), "child" (100x100, set_parent
                                   parent) and "later" (100x100), prints "mapped"; at its
                                   first touch up it makes "later" a child of "parent" too
                                   and prints "adopted"
    raw-client.py input-method-grab  takes the seat's input method and grabs the keyboard;
                                   prints "grab keymap" (which its virtual keyboard takes
                                   as its own), "grab repeat R D", "grab modifiers D L K G"
                                   and "grab key KEY STATE" for what the grab gets; types
                                   KEY_A as KEY_B through its virtual keyboard; at KEY_Q's
                                   release lets the keyboard go and prints "released"
    raw-client.py grab             maps a 200x200 toplevel and a grabbing 50x50 popup at its
                                   top left, prints "grabbed", and waits to be killed
    raw-client.py input-method     binds the input method manager and takes the seat's input method;
                                   prints "activate", "surrounding TEXT" and "done" as they come;
                                   at the first done after activate commits the string "hi" and
                                   prints "committed"; exits 0 at "deactivate", and 1 at
                                   "unavailable"  (needs [privileges] input-method)
    raw-client.py touch-devices    maps a 200x200 toplevel with one wl_touch A, prints "stage 1";
                                   after each tap adds or removes touch and timestamps objects
                                   (see touch_devices) and prints the next stage; prints
                                   "NAME down", "NAME up" and "NAME timestamp" as they come
    raw-client.py hang SECONDS     maps a 200x200 toplevel with a wl_touch, prints "mapped pid PID",
                                   then reads nothing for SECONDS (0: ever), so that pings go
                                   unanswered; then prints "reading", answers pings and prints
                                   "touch NAME" for each wl_touch event
    raw-client.py crash STATUS     maps a 200x200 toplevel, prints "mapped pid PID" and exits STATUS

Each line it prints is "event OBJECT OPCODE" or a word of its own; it exits 0 when the
session behaved as the protocol says, 1 otherwise.
"""
import array
import os
import socket
import struct
import sys


class Connection:
    # New ids must be used in the order they are taken: take each one where it is sent.
    def __init__(self):
        path = os.path.join(os.environ["XDG_RUNTIME_DIR"], os.environ["WAYLAND_DISPLAY"])
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.next_id = 2
        self.buffer = b""
        self.globals = {}
        # Descriptors the server sent (a keymap's, wl_data_source.send's), oldest first.
        self.fds = []

    def new_id(self):
        self.next_id += 1
        return self.next_id - 1

    def send(self, obj, opcode, payload=b"", fds=()):
        header = struct.pack("<II", obj, ((8 + len(payload)) << 16) | opcode)
        ancillary = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))] if fds else []
        try:
            self.sock.sendmsg([header + payload], ancillary)
        except BrokenPipeError:
            pass  # The server ended us; why is waiting to be read.

    def event(self):
        while len(self.buffer) < 8 or len(self.buffer) < (struct.unpack_from("<I", self.buffer, 4)[0] >> 16):
            data, ancillary, _, _ = self.sock.recvmsg(65536, socket.CMSG_SPACE(28 * 4))
            for level, kind, fds in ancillary:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    self.fds.extend(array.array("i", fds[:len(fds) - len(fds) % 4]))
            if not data:
                raise EOFError("the server closed the connection")
            self.buffer += data
        obj, word = struct.unpack_from("<II", self.buffer)
        size = word >> 16
        payload = self.buffer[8:size]
        self.buffer = self.buffer[size:]
        return obj, word & 0xFFFF, payload

    def roundtrip(self, handle=lambda obj, opcode, payload: None):
        callback = self.new_id()
        self.send(1, 0, struct.pack("<I", callback))  # wl_display.sync
        while True:
            obj, opcode, payload = self.event()
            if obj == callback and opcode == 0:
                return
            if obj == 1 and opcode == 0:
                raise ProtocolError(*decode_error(payload))
            handle(obj, opcode, payload)


class ProtocolError(Exception):
    pass


def string(text):
    data = text.encode() + b"\0"
    return struct.pack("<I", len(data)) + data + b"\0" * (-len(data) % 4)


def decode_error(payload):
    obj, code, length = struct.unpack_from("<III", payload)
    return obj, code, payload[12:12 + length - 1].decode()


def connect():
    conn = Connection()
    registry = conn.new_id()
    conn.send(1, 1, struct.pack("<I", registry))  # wl_display.get_registry

    def on_global(obj, opcode, payload):
        if obj == registry and opcode == 0:
            name, length = struct.unpack_from("<II", payload)
            interface = payload[8:8 + length - 1].decode()
            conn.globals[interface] = (name, struct.unpack_from("<I", payload, 8 + length + (-length % 4))[0])
    conn.roundtrip(on_global)
    conn.registry = registry
    return conn


def bind(conn, interface, version):
    name, _ = conn.globals[interface]
    obj = conn.new_id()
    conn.send(conn.registry, 0, struct.pack("<I", name) + string(interface) + struct.pack("<II", version, obj))
    return obj


def expect_error(conn, obj, code):
    """Waits for the server's error; 0 when it names `obj` with `code`."""
    try:
        conn.roundtrip()
    except ProtocolError as error:
        got_obj, got_code, message = error.args
        print(f"error object {got_obj} code {got_code}: {message}", flush=True)
        return 0 if (got_obj, got_code) == (obj, code) else 1
    print("no error", flush=True)
    return 1


def protocol_error():
    conn = connect()
    compositor = bind(conn, "wl_compositor", 5)
    surface = conn.new_id()
    conn.send(compositor, 0, struct.pack("<I", surface))  # create_surface
    conn.send(surface, 1, struct.pack("<Iii", 0, 5, 5))  # attach(null, 5, 5): an offset, on v5
    return expect_error(conn, surface, 3)  # wl_surface.error.invalid_offset


def truncated_pool():
    conn = connect()
    compositor = bind(conn, "wl_compositor", 4)
    shm = bind(conn, "wl_shm", 1)
    surface = conn.new_id()
    conn.send(compositor, 0, struct.pack("<I", surface))
    fd = os.memfd_create("raw-client")
    os.ftruncate(fd, 100 * 100 * 4)
    pool = conn.new_id()
    conn.send(shm, 0, struct.pack("<Ii", pool, 100 * 100 * 4), fds=[fd])
    buffer = conn.new_id()
    conn.send(pool, 0, struct.pack("<IiiiiI", buffer, 0, 100, 100, 400, 0))
    conn.roundtrip()
    os.ftruncate(fd, 4096)  # The pool's memory now ends after ten rows.
    conn.send(surface, 1, struct.pack("<Iii", buffer, 0, 0))  # attach
    conn.send(surface, 2, struct.pack("<iiii", 0, 0, 100, 100))  # damage
    conn.send(surface, 6)  # commit
    return expect_error(conn, buffer, 2)  # wl_shm.error.invalid_fd


def stride():
    conn = connect()
    shm = bind(conn, "wl_shm", 1)
    fd = os.memfd_create("raw-client")
    os.ftruncate(fd, 100 * 100)
    pool = conn.new_id()
    conn.send(shm, 0, struct.pack("<Ii", pool, 100 * 100), fds=[fd])
    conn.send(pool, 0, struct.pack("<IiiiiI", conn.new_id(), 0, 100, 100, 100, 0))  # 100 bytes a row of 100 pixels
    return expect_error(conn, pool, 1)  # wl_shm.error.invalid_stride


def shm_buffer(conn, shm, width, height):
    size = width * height * 4
    fd = os.memfd_create("raw-client")
    os.ftruncate(fd, size)
    pool, buffer = conn.new_id(), conn.new_id()
    conn.send(shm, 0, struct.pack("<Ii", pool, size), fds=[fd])  # create_pool
    conn.send(pool, 0, struct.pack("<IiiiiI", buffer, 0, width, height, width * 4, 0))  # create_buffer
    conn.send(pool, 1)  # destroy
    os.close(fd)
    return buffer


def grab():
    conn = connect()
    compositor = bind(conn, "wl_compositor", 4)
    shm = bind(conn, "wl_shm", 1)
    wm_base = bind(conn, "xdg_wm_base", 2)
    seat = bind(conn, "wl_seat", 5)
    pointer = conn.new_id()
    conn.send(seat, 0, struct.pack("<I", pointer))  # get_pointer

    def window(role):
        surface, xdg = conn.new_id(), conn.new_id()
        conn.send(compositor, 0, struct.pack("<I", surface))
        conn.send(wm_base, 2, struct.pack("<II", xdg, surface))  # get_xdg_surface
        role(xdg)
        conn.send(surface, 6)  # commit
        configures = []
        conn.roundtrip(lambda obj, opcode, payload: configures.append(payload) if obj == xdg and opcode == 0 else None)
        conn.send(xdg, 4, configures[-1][:4])  # ack_configure
        return surface, xdg

    parent, parent_xdg = window(lambda xdg: conn.send(xdg, 1, struct.pack("<I", conn.new_id())))  # get_toplevel
    conn.send(parent, 1, struct.pack("<Iii", shm_buffer(conn, shm, 200, 200), 0, 0))
    conn.send(parent, 6)

    positioner = conn.new_id()
    conn.send(wm_base, 1, struct.pack("<I", positioner))  # create_positioner
    conn.send(positioner, 1, struct.pack("<ii", 50, 50))  # set_size
    conn.send(positioner, 2, struct.pack("<iiii", 0, 0, 1, 1))  # set_anchor_rect
    conn.send(positioner, 3, struct.pack("<I", 5))  # anchor top_left
    conn.send(positioner, 4, struct.pack("<I", 8))  # gravity bottom_right

    def popup_role(xdg):
        popup = conn.new_id()
        conn.send(xdg, 2, struct.pack("<III", popup, parent_xdg, positioner))  # get_popup
        conn.send(popup, 1, struct.pack("<II", seat, 0))  # grab
    child, _ = window(popup_role)
    conn.send(child, 1, struct.pack("<Iii", shm_buffer(conn, shm, 50, 50), 0, 0))
    conn.send(child, 6)
    conn.roundtrip()
    print("grabbed", flush=True)
    while True:
        conn.event()


class Xdg:
    """A connection with the globals an xdg-shell client needs, and its toplevels' configures."""

    def __init__(self):
        self.conn = connect()
        self.compositor = bind(self.conn, "wl_compositor", 4)
        self.shm = bind(self.conn, "wl_shm", 1)
        self.wm_base = bind(self.conn, "xdg_wm_base", 5)
        # By xdg_surface: the latest xdg_toplevel.configure (width, height, states) and serial.
        self.toplevel_of = {}
        self.configured = {}

    def handle(self, obj, opcode, payload):
        if obj == self.wm_base and opcode == 0:
            self.conn.send(self.wm_base, 3, payload[:4])  # pong
        for xdg, toplevel in self.toplevel_of.items():
            if obj == toplevel and opcode == 0:
                width, height, length = struct.unpack_from("<iiI", payload)
                states = list(struct.unpack_from(f"<{length // 4}I", payload, 12))
                self.configured[xdg] = {"size": (width, height), "states": states, "serial": None}
            elif obj == xdg and opcode == 0 and xdg in self.configured:
                self.configured[xdg]["serial"] = struct.unpack_from("<I", payload)[0]

    def roundtrip(self):
        self.conn.roundtrip(self.handle)

    def event(self):
        """The next event, once xdg-shell's own part of it is handled; None after a protocol
        error, which it prints as "error OBJECT CODE MESSAGE"."""
        obj, opcode, payload = self.conn.event()
        if obj == 1 and opcode == 0:
            print("error %d %d %s" % decode_error(payload), flush=True)
            return None
        self.handle(obj, opcode, payload)
        return obj, opcode, payload

    def toplevel(self):
        conn = self.conn
        surface, xdg = conn.new_id(), conn.new_id()
        conn.send(self.compositor, 0, struct.pack("<I", surface))
        conn.send(self.wm_base, 2, struct.pack("<II", xdg, surface))  # get_xdg_surface
        toplevel = conn.new_id()
        conn.send(xdg, 1, struct.pack("<I", toplevel))  # get_toplevel
        self.toplevel_of[xdg] = toplevel
        conn.send(surface, 6)  # commit
        self.roundtrip()
        return surface, xdg, toplevel

    def ack_and_draw(self, surface, xdg, width, height):
        self.conn.send(xdg, 4, struct.pack("<I", self.configured[xdg]["serial"]))  # ack_configure
        self.conn.send(surface, 1, struct.pack("<Iii", shm_buffer(self.conn, self.shm, width, height), 0, 0))
        self.conn.send(surface, 6)
        self.roundtrip()


def parent_cycle():
    xdg = Xdg()
    _, _, a = xdg.toplevel()
    _, _, b = xdg.toplevel()
    xdg.conn.send(b, 1, struct.pack("<I", a))  # b.set_parent(a)
    xdg.roundtrip()
    xdg.conn.send(a, 1, struct.pack("<I", b))  # a.set_parent(b): a would be its own grandparent
    return expect_error(xdg.conn, a, 1)  # xdg_toplevel.error.invalid_parent


def min_over_max():
    xdg = Xdg()
    surface, _, toplevel = xdg.toplevel()
    xdg.conn.send(toplevel, 8, struct.pack("<ii", 200, 200))  # set_min_size
    xdg.conn.send(toplevel, 7, struct.pack("<ii", 100, 300))  # set_max_size: narrower than the minimum
    xdg.conn.send(surface, 6)
    return expect_error(xdg.conn, toplevel, 2)  # xdg_toplevel.error.invalid_size


def unconfigured_buffer():
    xdg = Xdg()
    conn = xdg.conn
    surface, role = conn.new_id(), conn.new_id()
    conn.send(xdg.compositor, 0, struct.pack("<I", surface))
    conn.send(xdg.wm_base, 2, struct.pack("<II", role, surface))  # get_xdg_surface, no role yet
    conn.send(surface, 1, struct.pack("<Iii", shm_buffer(conn, xdg.shm, 10, 10), 0, 0))
    return expect_error(conn, role, 3)  # xdg_surface.error.unconfigured_buffer


def maximize():
    xdg = Xdg()
    first = xdg.toplevel()
    xdg.ack_and_draw(first[0], first[1], 100, 100)
    surface, role, toplevel = xdg.toplevel()
    if xdg.configured[role]["size"] != (0, 0):
        print(f"unmaximized configure asks for {xdg.configured[role]['size']}", flush=True)
        return 1
    xdg.ack_and_draw(surface, role, 200, 200)
    if 4 not in xdg.configured[role]["states"]:
        print(f"the mapped, focused window is not activated: {xdg.configured[role]['states']}", flush=True)
        return 1
    xdg.conn.send(toplevel, 9)  # set_maximized
    xdg.roundtrip()
    width, height = xdg.configured[role]["size"]
    states = xdg.configured[role]["states"]
    if 1 not in states or width <= 0 or height <= 0:
        print(f"set_maximized answered with {width}x{height} {states}", flush=True)
        return 1
    xdg.ack_and_draw(surface, role, width, height)
    print(f"maximized {width}x{height} states {' '.join(map(str, sorted(states)))}", flush=True)
    while True:
        xdg.conn.event()


def configure():
    xdg = Xdg()
    surface, role, _ = xdg.toplevel()

    def show():
        size, states = xdg.configured[role]["size"], xdg.configured[role]["states"]
        print(f"configure {size[0]}x{size[1]} {' '.join(map(str, sorted(states)))}".rstrip(), flush=True)
    show()
    width, height = xdg.configured[role]["size"]
    xdg.ack_and_draw(surface, role, width or 200, height or 200)
    xdg.roundtrip()
    show()
    while True:
        xdg.conn.event()


def move(edges=None):
    xdg = Xdg()
    conn = xdg.conn
    seat = bind(conn, "wl_seat", 5)
    touch, pointer = conn.new_id(), conn.new_id()
    conn.send(seat, 2, struct.pack("<I", touch))  # get_touch
    conn.send(seat, 0, struct.pack("<I", pointer))  # get_pointer
    surface, role, toplevel = xdg.toplevel()
    xdg.ack_and_draw(surface, role, 200, 200)
    print("mapped", flush=True)
    names = {touch: {0: "down", 1: "up", 2: "motion", 3: "frame", 4: "cancel"},
             pointer: {0: "enter", 1: "leave", 2: "motion", 3: "button", 4: "axis", 5: "frame"}}
    moving = False
    while True:
        event = xdg.event()
        if event is None:
            return 1
        obj, opcode, payload = event
        if edges is not None and moving and obj == role and opcode == 0:
            # A resize's configure: taken at once, as a toolkit would, and drawn at its size.
            size, states = xdg.configured[role]["size"], xdg.configured[role]["states"]
            print(f"configure {size[0]}x{size[1]} {' '.join(map(str, sorted(states)))}".rstrip(), flush=True)
            if size[0] > 0 and size[1] > 0:
                xdg.ack_and_draw(surface, role, size[0], size[1])
            continue
        if obj not in names:
            continue
        if obj == pointer and opcode == 5:
            continue  # frames of the pointer say nothing here
        print(("touch " if obj == touch else "pointer ") + names[obj].get(opcode, str(opcode)), flush=True)
        pressed = obj == pointer and opcode == 3 and struct.unpack_from("<I", payload, 12)[0] == 1
        if (obj == touch and opcode == 0 or pressed) and not moving:
            moving = True
            serial = struct.unpack_from("<I", payload)[0]
            if edges is None:
                conn.send(toplevel, 5, struct.pack("<II", seat, serial))  # move(seat, serial)
                print("moving", flush=True)
            else:
                conn.send(toplevel, 6, struct.pack("<III", seat, serial, edges))  # resize(seat, serial, edges)
                print("resizing", flush=True)


def touch_devices():
    """Changes its wl_touch and timestamps objects between taps, each change followed by a
    roundtrip and "stage N": 1, one wl_touch A; 2, A with a timestamps object TA, and a second
    wl_touch B with TB; 3, TA destroyed and A released. It prints "NAME down" and "NAME up"
    for each touch event, and "NAME timestamp" for each timestamp; a stage ends at the up of
    each of its wl_touch objects."""
    xdg = Xdg()
    conn = xdg.conn
    seat = bind(conn, "wl_seat", 5)
    manager = bind(conn, "zwp_input_timestamps_manager_v1", 1)
    names = {}

    def get_touch(name):
        touch = conn.new_id()
        conn.send(seat, 2, struct.pack("<I", touch))  # get_touch
        names[touch] = name
        return touch

    def get_timestamps(touch, name):
        timestamps = conn.new_id()
        conn.send(manager, 3, struct.pack("<II", timestamps, touch))  # get_touch_timestamps(id, touch)
        names[timestamps] = name
        return timestamps

    touches = [get_touch("A")]
    surface, role, _ = xdg.toplevel()
    xdg.ack_and_draw(surface, role, 200, 200)
    print("stage 1", flush=True)
    stage, ups = 1, 0
    while True:
        event = xdg.event()
        if event is None:
            return 1
        obj, opcode, payload = event
        if obj not in names:
            continue
        if names[obj].startswith("T"):
            print(names[obj] + " timestamp", flush=True)
            continue
        if opcode not in (0, 1):
            continue  # frames say nothing here
        print(names[obj] + (" down" if opcode == 0 else " up"), flush=True)
        ups += opcode == 1
        if ups < len(touches):
            continue
        ups = 0
        if stage == 1:
            a = touches[0]
            ta = get_timestamps(a, "TA")
            b = get_touch("B")
            get_timestamps(b, "TB")
            touches = [a, b]
        elif stage == 2:
            conn.send(ta, 0)  # zwp_input_timestamps_v1.destroy
            conn.send(touches[0], 0)  # wl_touch.release
            touches = touches[1:]
        else:
            continue
        stage += 1
        xdg.roundtrip()
        print("stage %d" % stage, flush=True)


def parent():
    xdg = Xdg()
    conn = xdg.conn
    seat = bind(conn, "wl_seat", 5)
    touch = conn.new_id()
    conn.send(seat, 2, struct.pack("<I", touch))  # get_touch
    windows = {}
    for name, size in (("parent", 200), ("child", 100), ("later", 100)):
        surface, role, toplevel = xdg.toplevel()
        conn.send(toplevel, 2, string(name))  # set_title
        if name == "child":
            conn.send(toplevel, 1, struct.pack("<I", windows["parent"]))  # set_parent
        xdg.ack_and_draw(surface, role, size, size)
        windows[name] = toplevel
    print("mapped", flush=True)
    while True:
        event = xdg.event()
        if event is None:
            return 1
        obj, opcode, payload = event
        if obj == touch and opcode == 1:  # up: the later window becomes the parent's child too
            conn.send(windows["later"], 1, struct.pack("<I", windows["parent"]))  # set_parent
            print("adopted", flush=True)


def input_method():
    conn = connect()
    seat = bind(conn, "wl_seat", 1)
    manager = bind(conn, "zwp_input_method_manager_v2", 1)
    method = conn.new_id()
    conn.send(manager, 0, struct.pack("<II", seat, method))  # get_input_method
    state = {"active": False, "dones": 0, "committed": False, "end": None}

    def on_event(obj, opcode, payload):
        if obj != method:
            return
        if opcode == 0:
            state["active"] = True
            print("activate", flush=True)
        elif opcode == 1:
            state["active"] = False
            print("deactivate", flush=True)
            state["end"] = 0
        elif opcode == 2:
            length = struct.unpack_from("<I", payload)[0]
            print(f"surrounding {payload[4:4 + length - 1].decode()!r}", flush=True)
        elif opcode == 5:
            state["dones"] += 1
            print("done", flush=True)
            if state["active"] and not state["committed"]:
                state["committed"] = True
                conn.send(method, 0, string("hi"))  # commit_string
                conn.send(method, 3, struct.pack("<I", state["dones"]))  # commit
                print("committed", flush=True)
        elif opcode == 6:
            print("unavailable", flush=True)
            state["end"] = 1
    while state["end"] is None:
        obj, opcode, payload = conn.event()
        if obj == 1 and opcode == 0:
            print("error object %d code %d: %s" % decode_error(payload), flush=True)
            return 1
        on_event(obj, opcode, payload)
    return state["end"]


def input_method_grab():
    conn = connect()
    seat = bind(conn, "wl_seat", 1)
    manager = bind(conn, "zwp_input_method_manager_v2", 1)
    keyboards = bind(conn, "zwp_virtual_keyboard_manager_v1", 1)
    method = conn.new_id()
    conn.send(manager, 0, struct.pack("<II", seat, method))  # get_input_method
    grab = conn.new_id()
    conn.send(method, 5, struct.pack("<I", grab))  # grab_keyboard
    typist = None
    while True:
        obj, opcode, payload = conn.event()
        if obj == 1 and opcode == 0:
            print("error object %d code %d: %s" % decode_error(payload), flush=True)
            return 1
        if obj != grab:
            continue
        if opcode == 0:
            # The keyboard's keymap becomes the virtual keyboard's, as an input method does.
            _, size = struct.unpack_from("<II", payload)
            fd = conn.fds.pop(0)
            if typist is None:
                typist = conn.new_id()
                conn.send(keyboards, 0, struct.pack("<II", seat, typist))  # create_virtual_keyboard
            conn.send(typist, 0, struct.pack("<II", 1, size), fds=[fd])  # keymap xkb_v1
            os.close(fd)
            print("grab keymap", flush=True)
        elif opcode == 1:
            _, time, key, state = struct.unpack_from("<IIII", payload)
            print(f"grab key {key} {state}", flush=True)
            if key == 30:  # KEY_A is typed as KEY_B
                conn.send(typist, 1, struct.pack("<III", time, 48, state))
            elif key == 16 and state == 0:  # KEY_Q released: let go
                conn.send(grab, 0)  # release
                print("released", flush=True)
        elif opcode == 2:
            print("grab modifiers %d %d %d %d" % struct.unpack_from("<IIIII", payload)[1:], flush=True)
        elif opcode == 3:
            print("grab repeat %d %d" % struct.unpack_from("<ii", payload), flush=True)

def hang(seconds):
    import time
    xdg = Xdg()
    conn = xdg.conn
    seat = bind(conn, "wl_seat", 5)
    touch = conn.new_id()
    conn.send(seat, 2, struct.pack("<I", touch))  # get_touch
    surface, role, _ = xdg.toplevel()
    xdg.ack_and_draw(surface, role, 200, 200)
    print(f"mapped pid {os.getpid()}", flush=True)
    if seconds == 0:
        while True:
            time.sleep(3600)
    time.sleep(seconds)
    print("reading", flush=True)
    names = {0: "down", 1: "up", 2: "motion", 3: "frame", 4: "cancel"}
    while True:
        event = xdg.event()
        if event is None:
            return 1
        obj, opcode, _ = event
        if obj == touch:
            print("touch " + names.get(opcode, str(opcode)), flush=True)


def crash(status):
    xdg = Xdg()
    surface, role, _ = xdg.toplevel()
    xdg.ack_and_draw(surface, role, 200, 200)
    print(f"mapped pid {os.getpid()}", flush=True)
    return status


if __name__ == "__main__":
    sys.exit({"protocol-error": protocol_error, "truncated-pool": truncated_pool, "stride": stride, "grab": grab,
              "parent-cycle": parent_cycle, "min-over-max": min_over_max, "unconfigured-buffer": unconfigured_buffer,
              "maximize": maximize, "move": move, "resize": lambda: move(int(sys.argv[2])), "parent": parent, "configure": configure,
              "input-method": input_method, "input-method-grab": input_method_grab, "touch-devices": touch_devices,
              "hang": lambda: hang(float(sys.argv[2])), "crash": lambda: crash(int(sys.argv[2]))}[sys.argv[1]]())
