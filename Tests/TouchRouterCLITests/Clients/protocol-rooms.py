#!/usr/bin/env python3
"""Wire-level clients for the protocols with rooms of their own (decoration, fractional scale,
activation, idle inhibit), on raw-client.py's connection; run by ProtocolRoomTests.swift.
Each mode prints what the session answered, one line each, and exits 0 when it could run."""
import importlib.util
import os
import struct
import sys
import time

spec = importlib.util.spec_from_file_location("raw_client", os.path.join(os.path.dirname(os.path.abspath(__file__)), "raw-client.py"))
raw = importlib.util.module_from_spec(spec)
spec.loader.exec_module(raw)


def bare_toplevel(xdg):
    """A toplevel with no commit yet, as decoration objects are asked for."""
    conn = xdg.conn
    surface, role, toplevel = conn.new_id(), conn.new_id(), conn.new_id()
    conn.send(xdg.compositor, 0, struct.pack("<I", surface))
    conn.send(xdg.wm_base, 2, struct.pack("<II", role, surface))  # get_xdg_surface
    conn.send(role, 1, struct.pack("<I", toplevel))  # get_toplevel
    xdg.toplevel_of[role] = toplevel
    return surface, role, toplevel


def decoration():
    xdg = raw.Xdg()
    conn = xdg.conn
    offered = [name for name in ("zxdg_decoration_manager_v1", "org_kde_kwin_server_decoration_manager") if name in conn.globals]
    if len(offered) < 2:
        print(f"decoration globals offered: {' '.join(offered) or 'none'}", flush=True)
        return 0
    manager = raw.bind(conn, "zxdg_decoration_manager_v1", 1)
    kde = raw.bind(conn, "org_kde_kwin_server_decoration_manager", 1)
    surface, role, toplevel = bare_toplevel(xdg)
    decoration = conn.new_id()
    conn.send(manager, 1, struct.pack("<II", decoration, toplevel))  # get_toplevel_decoration
    conn.send(decoration, 1, struct.pack("<I", 1))  # set_mode(client_side): answered server-side all the same
    kde_decoration = conn.new_id()
    conn.send(kde, 0, struct.pack("<II", kde_decoration, surface))  # create
    conn.send(kde_decoration, 1, struct.pack("<I", 1))  # request_mode(Client)
    said = []

    def on_event(obj, opcode, payload):
        xdg.handle(obj, opcode, payload)
        if obj == decoration and opcode == 0:
            said.append("xdg-decoration configure %d" % struct.unpack_from("<I", payload))
        elif obj == role and opcode == 0:
            said.append("xdg_surface configure")
        elif obj == kde and opcode == 0:
            said.append("kde default_mode %d" % struct.unpack_from("<I", payload))
        elif obj == kde_decoration and opcode == 0:
            said.append("kde mode %d" % struct.unpack_from("<I", payload))
    conn.roundtrip(on_event)
    for line in said:
        print(line, flush=True)
    # A second decoration object for the same toplevel is the protocol's already_constructed.
    conn.send(manager, 1, struct.pack("<II", conn.new_id(), toplevel))
    return raw.expect_error(conn, manager, 1)


def fractional_scale():
    conn = raw.connect()
    compositor = raw.bind(conn, "wl_compositor", 4)
    manager = raw.bind(conn, "wp_fractional_scale_manager_v1", 1)
    surface = conn.new_id()
    conn.send(compositor, 0, struct.pack("<I", surface))
    scale = conn.new_id()
    conn.send(manager, 1, struct.pack("<II", scale, surface))  # get_fractional_scale
    scales = [scale]

    def on_event(obj, opcode, payload):
        if obj in scales and opcode == 0:
            print("preferred_scale %d" % struct.unpack_from("<I", payload), flush=True)
    conn.roundtrip(on_event)
    conn.send(scale, 0)  # destroy: a new one is allowed then
    scales.append(conn.new_id())
    conn.send(manager, 1, struct.pack("<II", scales[-1], surface))
    conn.roundtrip(on_event)
    conn.send(manager, 1, struct.pack("<II", conn.new_id(), surface))
    return raw.expect_error(conn, manager, 0)  # fractional_scale_exists


def activation():
    """Two windows, A then B (B, mapped last, holds the focus). A token this client commits
    while focused activates A; used again, or unknown, it does nothing; one committed while
    another client holds the focus does nothing."""
    xdg = raw.Xdg()
    conn = xdg.conn
    activation = raw.bind(conn, "xdg_activation_v1", 1)
    windows = {}
    for name in "AB":
        surface, role, _ = xdg.toplevel()
        xdg.ack_and_draw(surface, role, 100, 100)
        windows[name] = (surface, role)

    def token():
        obj = conn.new_id()
        conn.send(activation, 1, struct.pack("<I", obj))  # get_activation_token
        conn.send(obj, 3)  # commit
        got = []

        def on_event(o, opcode, payload):
            xdg.handle(o, opcode, payload)
            if o == obj and opcode == 0:
                length = struct.unpack_from("<I", payload)[0]
                got.append(payload[4:4 + length - 1].decode())
        conn.roundtrip(on_event)
        conn.send(obj, 4)  # destroy
        return got[0]

    def settle():
        """Roundtrips, acking every configure, until none is left to ack: the session holds
        back a change of the activated state while a configure is unacked."""
        acked = {}
        while True:
            xdg.roundtrip()
            fresh = [(role, c["serial"]) for role, c in xdg.configured.items() if c["serial"] is not None and acked.get(role) != c["serial"]]
            if not fresh:
                return
            for role, serial in fresh:
                conn.send(role, 4, struct.pack("<I", serial))  # ack_configure
                acked[role] = serial

    def activate(text, name):
        conn.send(activation, 2, raw.string(text) + struct.pack("<I", windows[name][0]))
        settle()

    def active():
        return "".join(name for name, (_, role) in windows.items() if 4 in xdg.configured[role]["states"])

    settle()
    print(f"active {active()}", flush=True)
    good = token()
    print(f"token length {len(good)}", flush=True)
    activate(good, "A")
    print(f"after a focused client's token: active {active()}", flush=True)
    activate(good, "B")
    print(f"after the same token again: active {active()}", flush=True)
    activate("not-a-token", "B")
    print(f"after an unknown token: active {active()}", flush=True)
    # The test maps another client's window, which takes the focus: a token this client
    # commits now, unfocused, activates nothing.
    wait_for_go()
    settle()
    activate(token(), "B")
    print(f"after an unfocused client's token: active {active()}", flush=True)
    return 0


def wait_for_go():
    """Waits until the test creates the file named by GO_FILE."""
    print("waiting", flush=True)
    while not os.path.exists(os.environ["GO_FILE"]):
        time.sleep(0.05)


def viewported_pixel(xdg, surface, viewport, rgba):
    """Attaches a single-pixel buffer of `rgba` (each 0 to 0xffffffff) and commits."""
    conn = xdg.conn
    manager = raw.bind(conn, "wp_single_pixel_buffer_manager_v1", 1)
    buffer = conn.new_id()
    conn.send(manager, 1, struct.pack("<IIIII", buffer, *rgba))  # create_u32_rgba_buffer
    conn.send(surface, 1, struct.pack("<Iii", buffer, 0, 0))  # attach
    conn.send(surface, 9, struct.pack("<iiii", 0, 0, 0x7fffffff, 0x7fffffff))  # damage_buffer
    conn.send(surface, 6)  # commit


def viewport():
    """A window of one red single-pixel buffer, shown at 300x200 by its viewport; then the
    errors: a second viewport for the surface, a destination of 0x5, a source outside the buffer."""
    xdg = raw.Xdg()
    conn = xdg.conn
    viewporter = raw.bind(conn, "wp_viewporter", 1)
    surface, role, _ = xdg.toplevel()
    port = conn.new_id()
    conn.send(viewporter, 1, struct.pack("<II", port, surface))  # get_viewport
    conn.send(port, 2, struct.pack("<ii", 300, 200))  # set_destination
    conn.send(role, 4, struct.pack("<I", xdg.configured[role]["serial"]))  # ack_configure
    viewported_pixel(xdg, surface, port, (0xffffffff, 0, 0, 0xffffffff))
    xdg.roundtrip()
    print("mapped", flush=True)
    wait_for_go()
    case = os.environ["VIEWPORT_ERROR"]
    if case == "exists":
        conn.send(viewporter, 1, struct.pack("<II", conn.new_id(), surface))
        return raw.expect_error(conn, viewporter, 0)
    if case == "bad-value":
        conn.send(port, 2, struct.pack("<ii", 0, 5))
        return raw.expect_error(conn, port, 0)
    conn.send(port, 1, struct.pack("<iiii", 0, 0, 2 * 256, 2 * 256))  # set_source 0,0 2x2 of a 1x1 buffer
    conn.send(surface, 6)
    return raw.expect_error(conn, port, 2)  # out_of_buffer


def presentation():
    """A window's commits with presentation feedback: one presented between its commit and its
    receipt, two in one frame (the first discarded), and one on a surface not shown (discarded)."""
    xdg = raw.Xdg()
    conn = xdg.conn
    presentation = raw.bind(conn, "wp_presentation", 1)
    said = {}

    def on_event(obj, opcode, payload):
        xdg.handle(obj, opcode, payload)
        if obj == presentation and opcode == 0:
            print("clock %d" % struct.unpack_from("<I", payload), flush=True)
        elif obj in said and opcode == 1:
            high, low, nanoseconds, refresh, _, _, flags = struct.unpack_from("<IIIIIII", payload)
            said[obj] = ("presented", ((high << 32 | low) * 1_000_000_000 + nanoseconds), refresh, flags)
        elif obj in said and opcode == 2:
            said[obj] = ("discarded",)

    def feedback(on):
        obj = conn.new_id()
        conn.send(presentation, 1, struct.pack("<II", on, obj))  # feedback
        said[obj] = None
        return obj

    def settle(objects):
        while any(said[obj] is None for obj in objects):
            obj, opcode, payload = conn.event()
            if obj == 1 and opcode == 0:
                print("error %d %d %s" % raw.decode_error(payload), flush=True)
                return False
            on_event(obj, opcode, payload)
        return True

    conn.roundtrip(on_event)
    surface, role, _ = xdg.toplevel()
    xdg.ack_and_draw(surface, role, 100, 100)
    first = feedback(surface)
    before = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    conn.send(surface, 6)  # commit
    if not settle([first]):
        return 1
    after = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    kind, when, refresh, flags = said[first]
    print(f"{kind} within {before <= when <= after} refresh {refresh} flags {flags}", flush=True)
    # Both commits in one write, so that no frame tick can fall between them.
    sent = []
    real_send = conn.send
    conn.send = lambda obj, opcode, payload=b"", fds=(): sent.append(struct.pack("<II", obj, ((8 + len(payload)) << 16) | opcode) + payload)
    superseded = feedback(surface)
    conn.send(surface, 6)
    latest = feedback(surface)
    conn.send(surface, 6)
    conn.send = real_send
    conn.sock.sendmsg([b"".join(sent)])
    if not settle([superseded, latest]):
        return 1
    print(f"superseded {said[superseded][0]}, latest {said[latest][0]}", flush=True)
    hidden = conn.new_id()
    conn.send(xdg.compositor, 0, struct.pack("<I", hidden))
    unshown = feedback(hidden)
    conn.send(hidden, 6)
    if not settle([unshown]):
        return 1
    print(f"unshown {said[unshown][0]}", flush=True)
    return 0


def kde_idle():
    """org_kde_kwin_idle: a 300 ms timeout goes idle with no input; the test's touch resumes
    it; idle again; simulate_user_activity resumes it."""
    conn = raw.connect()
    idle = raw.bind(conn, "org_kde_kwin_idle", 1)
    seat = raw.bind(conn, "wl_seat", 1)
    timeout = conn.new_id()
    started = time.monotonic()
    conn.send(idle, 0, struct.pack("<III", timeout, seat, 300))  # get_idle_timeout

    def next_event():
        while True:
            obj, opcode, payload = conn.event()
            if obj == 1 and opcode == 0:
                print("error %d %d %s" % raw.decode_error(payload), flush=True)
                sys.exit(1)
            if obj == timeout:
                return ("idle", "resumed")[opcode]
    got = next_event()
    print(f"{got} after at least 300 ms: {time.monotonic() - started >= 0.29}", flush=True)
    wait_for_go()
    print(next_event(), flush=True)
    print(next_event(), flush=True)
    conn.send(timeout, 1)  # simulate_user_activity
    print(next_event(), flush=True)
    return 0


def idle_inhibit():
    xdg = raw.Xdg()
    manager = raw.bind(xdg.conn, "zwp_idle_inhibit_manager_v1", 1)
    surface, role, _ = xdg.toplevel()
    xdg.ack_and_draw(surface, role, 100, 100)
    inhibitor = xdg.conn.new_id()
    xdg.conn.send(manager, 1, struct.pack("<II", inhibitor, surface))  # create_inhibitor
    xdg.roundtrip()
    print(f"inhibiting surface {surface}", flush=True)
    wait_for_go()
    xdg.conn.send(inhibitor, 0)  # destroy
    xdg.roundtrip()
    print("released", flush=True)
    while True:
        if xdg.event() is None:
            return 1


if __name__ == "__main__":
    sys.exit({"decoration": decoration, "fractional-scale": fractional_scale, "activation": activation, "viewport": viewport, "presentation": presentation, "kde-idle": kde_idle, "idle-inhibit": idle_inhibit}[sys.argv[1]]())
