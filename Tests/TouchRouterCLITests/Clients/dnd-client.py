#!/usr/bin/env python3
"""Drag and drop (wl_data_device version 3) written against the wire protocol, for
DragAndDropTests. It uses raw-client.py's connection.

    dnd-client.py source [WIDTH [HOW]]  maps a WIDTHxWIDTH toplevel (100 unless given) with
                        wl_pointer and wl_touch; on its first button press or touch down it
                        makes a source offering text/plain with copy and move, and asks
                        start_drag with that serial (HOW: "bad-serial" adds 1000 to it,
                        "null" drags with no source, "icon" gives start_drag a 20x20 opaque red
                        icon, attached after it at offset (-5, -5)). When the source is asked to send, it
                        writes 200,000 bytes and prints "source wrote N SHA256"
    dnd-client.py target [WIDTH [HOW]]  maps a WIDTHxWIDTH toplevel (300 unless given) with a
                        data device; at enter it accepts text/plain and sets copy and move,
                        copy preferred (HOW: "refuse" accepts nothing; "finish-early" calls
                        finish at enter, before any drop); at drop it receives text/plain
                        through a pipe, prints "received N SHA256", and finishes
    dnd-client.py errors   start_drag with a toplevel's surface as icon (the data device's role
                        error), then, on a second connection, set_actions on a source that
                        start_drag took (invalid_action_mask); exits 0 if both are the errors

Both print what they hear: "device enter X Y offer|nooffer", "device motion X Y", "device
leave", "device drop", "offer action N", "offer source_actions N", "source target MIME",
"source action N", "source dnd_drop_performed", "source dnd_finished", "source cancelled",
"touch NAME", "pointer NAME", and "error OBJECT CODE: MESSAGE" for a protocol error.
"""
import hashlib
import importlib.util
import os
import struct
import sys

_spec = importlib.util.spec_from_file_location("raw_client", os.path.join(os.path.dirname(os.path.abspath(__file__)), "raw-client.py"))
raw = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(raw)

COPY, MOVE, ASK = 1, 2, 4
PAYLOAD = bytes((i * 7 + i // 251) % 256 for i in range(200_000))


def read_string(payload, offset=0):
    """A wire string at `offset`: the text (None for a null string) and the offset after it."""
    length = struct.unpack_from("<I", payload, offset)[0]
    if length == 0:
        return None, offset + 4
    text = payload[offset + 4:offset + 4 + length - 1].decode()
    return text, offset + 4 + length + (-length % 4)


def nullable_string(text):
    return struct.pack("<I", 0) if text is None else raw.string(text)


def fixed(payload, offset):
    return struct.unpack_from("<i", payload, offset)[0] / 256


def say(text):
    print(text, flush=True)


class Client:
    """A mapped toplevel with a seat, its pointer and touch, and a data device."""

    def __init__(self, size):
        self.xdg = raw.Xdg()
        conn = self.conn = self.xdg.conn
        self.seat = raw.bind(conn, "wl_seat", 5)
        self.manager = raw.bind(conn, "wl_data_device_manager", 3)
        self.pointer, self.touch, self.device = conn.new_id(), conn.new_id(), conn.new_id()
        conn.send(self.seat, 0, struct.pack("<I", self.pointer))  # get_pointer
        conn.send(self.seat, 2, struct.pack("<I", self.touch))  # get_touch
        conn.send(self.manager, 1, struct.pack("<II", self.device, self.seat))  # get_data_device
        self.surface, role, self.toplevel = self.xdg.toplevel()
        self.xdg.ack_and_draw(self.surface, role, size, size)
        self.source = None
        self.offers = {}  # offer id: its MIME types
        self.offer = None  # the offer of the current enter
        self.enter_serial = 0

    def events(self, handle):
        """Reads events for ever, passing each to `handle`; a protocol error is printed and ends the client with 1."""
        while True:
            obj, opcode, payload = self.conn.event()
            if obj == 1 and opcode == 0:
                say("error %d %d: %s" % raw.decode_error(payload))
                return 1
            self.xdg.handle(obj, opcode, payload)
            result = handle(obj, opcode, payload)
            if result is not None:
                return result

    def device_event(self, obj, opcode, payload):
        """The data device's and its offers' events, printed; True if it was one."""
        if obj == self.device:
            if opcode == 0:
                self.offers[struct.unpack_from("<I", payload)[0]] = []
            elif opcode == 1:
                self.enter_serial, _ = struct.unpack_from("<II", payload)
                self.offer = struct.unpack_from("<I", payload, 16)[0] or None
                say(f"device enter {fixed(payload, 8):g} {fixed(payload, 12):g} {'offer' if self.offer else 'nooffer'}")
            elif opcode == 2:
                say("device leave")
            elif opcode == 3:
                say(f"device motion {fixed(payload, 4):g} {fixed(payload, 8):g}")
            elif opcode == 4:
                say("device drop")
            return True
        if obj in self.offers:
            if opcode == 0:
                self.offers[obj].append(read_string(payload)[0])
            elif opcode == 1:
                say(f"offer source_actions {struct.unpack_from('<I', payload)[0]}")
            elif opcode == 2:
                say(f"offer action {struct.unpack_from('<I', payload)[0]}")
            return True
        return False


def red_buffer(client, width, height):
    """An ARGB8888 buffer of opaque red."""
    conn, size = client.conn, width * height * 4
    fd = os.memfd_create("dnd-icon")
    os.write(fd, struct.pack("<I", 0xFFFF0000) * (width * height))
    pool, buffer = conn.new_id(), conn.new_id()
    conn.send(client.xdg.shm, 0, struct.pack("<Ii", pool, size), fds=[fd])  # create_pool
    conn.send(pool, 0, struct.pack("<IiiiiI", buffer, 0, width, height, width * 4, 0))  # create_buffer
    conn.send(pool, 1)  # destroy
    os.close(fd)
    return buffer


def source(size=100, how=""):
    client = Client(size)
    conn = client.conn
    say("mapped")
    touch_names = {0: "down", 1: "up", 2: "motion", 3: "frame", 4: "cancel"}
    pointer_names = {0: "enter", 1: "leave", 2: "motion", 3: "button", 4: "axis"}
    started = False

    def handle(obj, opcode, payload):
        nonlocal started
        if client.device_event(obj, opcode, payload):
            return None
        if obj == client.touch:
            say("touch " + touch_names.get(opcode, str(opcode)))
        elif obj == client.pointer and opcode != 5:
            say("pointer " + pointer_names.get(opcode, str(opcode)))
        elif obj == client.source:
            if opcode == 0:
                say(f"source target {read_string(payload)[0]}")
            elif opcode == 1:
                mime, _ = read_string(payload)
                fd = conn.fds.pop(0)
                written = 0
                while written < len(PAYLOAD):
                    written += os.write(fd, PAYLOAD[written:])
                os.close(fd)
                say(f"source wrote {len(PAYLOAD)} {hashlib.sha256(PAYLOAD).hexdigest()} as {mime}")
            else:
                names = {2: "cancelled", 3: "dnd_drop_performed", 4: "dnd_finished"}
                say("source " + names.get(opcode, f"action {struct.unpack_from('<I', payload)[0]}" if opcode == 5 else str(opcode)))
        pressed = obj == client.pointer and opcode == 3 and struct.unpack_from("<I", payload, 12)[0] == 1
        if (obj == client.touch and opcode == 0 or pressed) and not started:
            started = True
            serial = struct.unpack_from("<I", payload)[0] + (1000 if how == "bad-serial" else 0)
            dragged = 0
            if how != "null":
                client.source = dragged = conn.new_id()
                conn.send(client.manager, 0, struct.pack("<I", client.source))  # create_data_source
                conn.send(client.source, 0, raw.string("text/plain"))  # offer
                conn.send(client.source, 2, struct.pack("<I", COPY | MOVE))  # set_actions
            icon = 0
            if how == "icon":
                icon = conn.new_id()
                conn.send(client.xdg.compositor, 0, struct.pack("<I", icon))  # create_surface
            conn.send(client.device, 0, struct.pack("<IIII", dragged, client.surface, icon, serial))  # start_drag
            if icon:
                conn.send(icon, 1, struct.pack("<Iii", red_buffer(client, 20, 20), -5, -5))  # attach, its top left 5 px up and left of the pointer
                conn.send(icon, 2, struct.pack("<iiii", 0, 0, 20, 20))  # damage
                conn.send(icon, 6)  # commit
            say("dragging")
        return None
    return client.events(handle)


def target(size=300, how=""):
    client = Client(size)
    conn = client.conn
    say("mapped")

    def handle(obj, opcode, payload):
        if not client.device_event(obj, opcode, payload):
            return None
        if obj == client.device and opcode == 1 and client.offer:
            say(f"offered {' '.join(client.offers[client.offer])}")
            if how == "finish-early":
                conn.send(client.offer, 3)  # finish, before any drop
            elif how == "refuse":
                conn.send(client.offer, 0, struct.pack("<I", client.enter_serial) + nullable_string(None))  # accept nothing
            else:
                conn.send(client.offer, 0, struct.pack("<I", client.enter_serial) + raw.string("text/plain"))  # accept
                conn.send(client.offer, 4, struct.pack("<II", COPY | MOVE, COPY))  # set_actions
        elif obj == client.device and opcode == 4 and client.offer:
            read_end, write_end = os.pipe()
            conn.send(client.offer, 1, raw.string("text/plain"), fds=[write_end])  # receive
            os.close(write_end)
            conn.roundtrip(lambda *event: client.device_event(*event))
            data = b""
            while chunk := os.read(read_end, 65536):
                data += chunk
            os.close(read_end)
            say(f"received {len(data)} {hashlib.sha256(data).hexdigest()}")
            conn.send(client.offer, 3)  # finish
            conn.send(client.offer, 2)  # destroy
            conn.roundtrip(lambda *event: client.device_event(*event))
            say("finished")
        return None
    return client.events(handle)


def errors():
    # The icon has a role already: the data device's role error.
    client = Client(50)
    conn = client.conn
    conn.send(client.device, 0, struct.pack("<IIII", 0, client.surface, client.surface, 0))  # start_drag, the toplevel as icon
    first = raw.expect_error(conn, client.device, 0)  # wl_data_device.error.role
    # A second connection: actions set after start_drag took the source.
    client = Client(50)
    conn = client.conn
    dragged = conn.new_id()
    conn.send(client.manager, 0, struct.pack("<I", dragged))
    conn.send(client.device, 0, struct.pack("<IIII", dragged, client.surface, 0, 12345))  # a made-up serial: cancelled
    conn.send(dragged, 2, struct.pack("<I", MOVE))  # set_actions after start_drag took the source
    second = raw.expect_error(conn, dragged, 0)  # wl_data_source.error.invalid_action_mask
    return first or second


if __name__ == "__main__":
    mode, rest = sys.argv[1], sys.argv[2:]
    if mode == "errors":
        sys.exit(errors())
    size = int(rest[0]) if rest else None
    how = rest[1] if len(rest) > 1 else ""
    run = {"source": source, "target": target}[mode]
    sys.exit(run(size, how) if size else run())
