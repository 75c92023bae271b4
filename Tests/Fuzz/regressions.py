#!/usr/bin/env python3
"""Named regression cases for what the wire fuzzer and the death soak found (issue 10).

    python3 Tests/Fuzz/regressions.py BINARY [CASE...] [--list]

Each case starts its own `touch-router run` (private XDG_RUNTIME_DIR), plays one client on the
raw wire, and passes when the session is still alive afterwards, answers `tree` within
LIMIT_S seconds, and (where the case says) the client was ended with a protocol error or its
window mapped. A case prints "PASS name" or "FAIL name: why" (with the session's stderr);
the closing line is exactly `regressions: N passed, M failed`.
"""
import os
import struct
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wayland_wire import Client, Session, SessionDied, SessionHung, connect, map_popup, map_toplevel, memfd, shm_buffer  # noqa: E402

LIMIT_S = 10.0  # how long `tree` may take after the client
HUGE_PEAK_MB = 512  # a committed 8192x32768 buffer (1 GiB) may raise the session's RSS by at most this
CASES = []


def case(function):
    CASES.append(function)
    return function


class CaseFailure(Exception):
    pass


def healthy(session, what):
    started = time.time()
    try:
        session.tree(timeout=max(LIMIT_S, 1))
    except SessionHung:
        raise CaseFailure(f"{what}: the session did not answer `tree` within {LIMIT_S:.0f} s")
    except SessionDied as error:
        raise CaseFailure(f"{what}: the session died ({error})")
    elapsed = time.time() - started
    if elapsed > LIMIT_S:
        raise CaseFailure(f"{what}: `tree` took {elapsed:.1f} s")


def finish(client, timeout=LIMIT_S):
    """Lets the server take everything: a roundtrip, or the error that ends the client."""
    client.stall_limit = timeout
    client.roundtrip(timeout=timeout)
    if client.stalled:
        raise CaseFailure(f"the session stopped reading the client for {client.blocked:.0f} s")


def popup_with_positioner(session, setup):
    """A mapped toplevel, and a popup from a positioner that `setup` configures, committed."""
    client, b = connect(session)
    surface, xdg, _ = map_toplevel(client, b, 200, 200)
    client.roundtrip()
    positioner = client.request(b["xdg_wm_base"], "create_positioner", None)
    setup(client, positioner)
    popup_surface = client.request(b["wl_compositor"], "create_surface", None)
    pxdg = client.request(b["xdg_wm_base"], "get_xdg_surface", None, popup_surface)
    client.request(pxdg, "get_popup", None, xdg, positioner)
    client.request(popup_surface, "commit")
    finish(client)
    return client


@case
def positioner_anchor_rect_max_x_offset_1(session):
    """set_anchor_rect x=2147483647, set_offset 1: the popup's x overflows Int32 in sendConfigure."""
    def setup(c, p):
        c.request(p, "set_size", 10, 10)
        c.request(p, "set_anchor_rect", 2**31 - 1, 0, 1, 1)
        c.request(p, "set_offset", 1, 0)
    popup_with_positioner(session, setup)


@case
def positioner_anchor_rect_min_x_gravity_left(session):
    """set_anchor_rect x=-2147483648 with gravity left: the popup's x underflows Int32."""
    def setup(c, p):
        c.request(p, "set_size", 10, 10)
        c.request(p, "set_anchor_rect", -2**31, 0, 1, 1)
        c.request(p, "set_gravity", 3)  # left
    popup_with_positioner(session, setup)


@case
def positioner_anchor_rect_max_y_offset_1(session):
    """The same overflow on y: set_anchor_rect y=2147483647, set_offset 0 1."""
    def setup(c, p):
        c.request(p, "set_size", 10, 10)
        c.request(p, "set_anchor_rect", 0, 2**31 - 1, 1, 1)
        c.request(p, "set_offset", 0, 1)
    popup_with_positioner(session, setup)


@case
def positioner_wide_anchor_rect_null_parent(session):
    """Found by wire-fuzz (seed 7, client 2): a parentless popup whose anchor rect is 2147483646 wide at x=3,
    anchored and gravitating right, offset 65536: "Not enough bits to represent the passed value" in sendConfigure."""
    client, b = connect(session)
    p = client.request(b["xdg_wm_base"], "create_positioner", None)
    client.request(p, "set_size", 277, 147)
    client.request(p, "set_anchor_rect", 3, 27, 2**31 - 2, 1)
    client.request(p, "set_anchor", 4)  # right
    client.request(p, "set_gravity", 4)  # right
    client.request(p, "set_constraint_adjustment", 53)
    client.request(p, "set_offset", 65536, 151)
    surface = client.request(b["wl_compositor"], "create_surface", None)
    xdg = client.request(b["xdg_wm_base"], "get_xdg_surface", None, surface)
    client.request(xdg, "get_popup", None, 0, p)
    client.request(surface, "commit")
    finish(client)


@case
def positioner_wide_anchor_rect_toplevel_parent(session):
    """The same wide anchor rect (x=3, width 2147483646, anchor and gravity right, offset 65536) under a toplevel."""
    def setup(c, p):
        c.request(p, "set_size", 277, 147)
        c.request(p, "set_anchor_rect", 3, 27, 2**31 - 2, 1)
        c.request(p, "set_anchor", 4)
        c.request(p, "set_gravity", 4)
        c.request(p, "set_constraint_adjustment", 53)
        c.request(p, "set_offset", 65536, 151)
    popup_with_positioner(session, setup)


@case
def popup_reposition_extreme(session):
    """A mapped popup repositioned (xdg_popup.reposition, v3) with an anchor rect at x=2147483647 and offset 1."""
    client, b = connect(session)
    surface, xdg, _ = map_toplevel(client, b, 200, 200)
    ps, _, popup = map_popup(client, b, xdg, 20, 20, anchor_rect=(0, 0, 10, 10))
    q = client.request(b["xdg_wm_base"], "create_positioner", None)
    client.request(q, "set_size", 2**31 - 1, 2**31 - 1)
    client.request(q, "set_anchor_rect", 2**31 - 1, 2**31 - 1, 2**31 - 1, 2**31 - 1)
    client.request(q, "set_anchor", 8)
    client.request(q, "set_gravity", 8)
    client.request(q, "set_offset", 1, 1)
    client.request(popup, "reposition", q, 7)
    client.request(ps, "commit")
    finish(client)


@case
def positioner_extreme_size_and_rect(session):
    """Largest size, anchor rect and offset together, anchored bottom right, gravity bottom right."""
    def setup(c, p):
        c.request(p, "set_size", 2**31 - 1, 2**31 - 1)
        c.request(p, "set_anchor_rect", 2**31 - 1, 2**31 - 1, 2**31 - 1, 2**31 - 1)
        c.request(p, "set_anchor", 8)
        c.request(p, "set_gravity", 8)
        c.request(p, "set_offset", 2**31 - 1, 2**31 - 1)
        c.request(p, "set_constraint_adjustment", 63)
    popup_with_positioner(session, setup)


@case
def subsurface_chain_10000(session):
    """A chain of 10,000 nested subsurfaces, each committed, under a mapped toplevel."""
    client, b = connect(session)
    surface, _, _ = map_toplevel(client, b, 100, 100)
    parent = surface
    chain = []
    for _ in range(10000):
        s = client.request(b["wl_compositor"], "create_surface", None)
        client.request(b["wl_subcompositor"], "get_subsurface", None, s, parent)
        chain.append(s)
        parent = s
    client.request(chain[-1], "attach", shm_buffer(client, b["wl_shm"], 8, 8), 0, 0)
    for s in reversed(chain):
        client.request(s, "commit")
    client.request(surface, "commit")
    finish(client, timeout=30)
    healthy(session, "with the chain mapped")
    session.inject("pointer motion 50 50")
    session.pick(50, 50)
    client.close()


@case
def region_20000_disjoint_rects(session):
    """wl_region.add of 20,000 disjoint 1x1 rects, set as a mapped surface's input region."""
    client, b = connect(session)
    surface, _, _ = map_toplevel(client, b, 600, 300)
    region = client.request(b["wl_compositor"], "create_region", None)
    for k in range(20000):
        client.request(region, "add", (k % 200) * 3, (k // 200) * 3, 1, 1)
    client.request(surface, "set_input_region", region)
    client.request(surface, "commit")
    finish(client, timeout=30)
    healthy(session, "with the region set")
    client.close()


@case
def shm_buffer_8192x32768(session):
    """A committed 8192x32768 ARGB buffer (a 1 GiB pool): RSS must not follow it."""
    before = session.rss_kb()
    client, b = connect(session)
    surface, _, _ = map_toplevel(client, b, 100, 100)
    width, height = 8192, 32768
    fd = memfd(width * height * 4)
    pool = client.request(b["wl_shm"], "create_pool", None, width * height * 4, fds=[fd])
    os.close(fd)
    buffer = client.request(pool, "create_buffer", None, 0, width, height, width * 4, 0)
    client.request(surface, "attach", buffer, 0, 0)
    client.request(surface, "damage", 0, 0, width, height)
    client.request(surface, "commit")
    finish(client, timeout=60)
    healthy(session, "with the buffer committed")
    peak = session.hwm_kb()
    client.close()
    time.sleep(0.5)
    healthy(session, "after the client left")
    if peak - before > HUGE_PEAK_MB * 1024:
        raise CaseFailure(f"RSS peaked at {peak} kB, {(peak - before) // 1024} MiB above the {before} kB before "
                          f"(limit {HUGE_PEAK_MB} MiB)")


@case
def killed_holding_popup_grab_then_tap(session):
    """A client dies holding a popup grab: the next press elsewhere is not eaten by a dead grab."""
    client, b = connect(session)
    surface, xdg, _ = map_toplevel(client, b, 200, 200, title="grabber")
    client.request(b["wl_seat"], "get_pointer", None)
    map_popup(client, b, xdg, 50, 50, grab=True)
    finish(client)
    client.close()
    deadline = time.time() + 5
    while session.toplevels() and time.time() < deadline:
        time.sleep(0.02)
    healthy(session, "after the grabbing client died")
    if session.focus().get("keyboard") is not None:
        raise CaseFailure(f"keyboard focus stays on {session.focus().get('keyboard')} after its client died")


@case
def presentation_feedback_client_gone(session):
    """Commits with presentation feedback, and the client ends before the frame tick settles them:
    the tick must not write to, or destroy, the feedbacks libwayland already destroyed (SIGSEGV
    found by wire-fuzz, seed 7, once wp_presentation was offered)."""
    for _ in range(20):
        client, b = connect(session, binds=("wl_compositor", "wl_subcompositor", "wl_shm", "xdg_wm_base", "wl_seat", "wp_presentation"))
        surface, _, _ = map_toplevel(client, b, 50, 50)
        for _ in range(5):
            client.request(b["wp_presentation"], "feedback", surface, None)
            client.request(surface, "commit")
        client.close()
    time.sleep(0.1)
    healthy(session, "after the clients left with feedbacks waiting")


@case
def data_devices_60000_then_gone(session):
    """A client makes 60,000 wl_data_devices and ends: each used to be removed by a scan of one
    session-wide list, which stopped the session 68 s (issue 24)."""
    client, b = connect(session, binds=("wl_seat", "wl_data_device_manager"))
    for _ in range(60000):
        client.request(b["wl_data_device_manager"], "get_data_device", None, b["wl_seat"])
    finish(client, timeout=60)
    healthy(session, "with the devices made")
    client.close()
    time.sleep(0.2)
    healthy(session, "after the client with 60,000 devices ended")


@case
def screenshot_16384_squared(session):
    """`msg screenshot` of a 16384x16384 output (which `msg output create` allows): composing its
    1 GiB and writing the PNG inside the loop stopped the session's answers 9 to 14 s, and the
    framebuffer stayed (issue 24). The screenshot now runs off the loop: the session answers
    throughout, a second screenshot meanwhile is refused at once, the first is answered with
    its size, and no framebuffer stays behind."""
    reply = session.request("output", "create", "16384x16384")
    if not reply.get("ok"):
        raise CaseFailure(f"output create: {reply}")
    name = reply["output"]
    path = os.path.join(session.runtime, "big.png")
    watch = AnswerWatch(session)
    answers = {}

    def take():
        answers["first"] = session.request("screenshot", path, name, timeout=120)
    taker = threading.Thread(target=take)
    taker.start()
    time.sleep(0.3)
    second = session.request("screenshot", os.path.join(session.runtime, "second.png"), name)
    taker.join(130)
    longest = watch.stop()
    first = answers.get("first", {})
    print(f"    the longest wait for `focus` while it was taken: {longest * 1000:.0f} ms ({watch.asked} asked)", flush=True)
    if not (first.get("ok") and first.get("width") == 16384 and first.get("height") == 16384):
        raise CaseFailure(f"the screenshot's reply: {first}")
    if second.get("ok") or "being taken" not in second.get("error", ""):
        raise CaseFailure(f"a second screenshot meanwhile was not refused: {second}")
    with open(path, "rb") as f:
        if f.read(8) != b"\x89PNG\r\n\x1a\n":
            raise CaseFailure("the file written is not a PNG")
    os.unlink(path)
    with open(f"/proc/{session.pid}/status") as f:
        rss_mb = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:")) // 1024
    print(f"    the session's resident memory after it: {rss_mb} MB", flush=True)
    if rss_mb > HUGE_PEAK_MB:
        raise CaseFailure(f"the session holds {rss_mb} MB after the screenshot: its framebuffer stayed")
    if longest > STALL_LIMIT_S:
        raise CaseFailure(f"the session took {longest:.2f} s to answer `focus` while the screenshot was taken")


def layer_shell_session_args():
    """A configuration that grants this Python the layer shell, as `session_args`."""
    path = os.path.join(tempfile.mkdtemp(prefix="tr-regressions-"), "layer-shell.toml")
    with open(path, "w") as f:
        f.write('[privileges]\nlayer-shell = ["%s"]\n' % os.path.realpath(sys.executable))
    return ("--config", path)


class AnswerWatch:
    """Asks the session for `focus` (a short answer) over and over in a thread, and keeps the
    longest wait: how long the loop went without serving the control socket."""
    def __init__(self, session):
        self.session, self.longest, self.asked = session, 0.0, 0
        self.running = True
        self.thread = threading.Thread(target=self.watch, daemon=True)
        self.thread.start()

    def watch(self):
        while self.running:
            started = time.monotonic()
            try:
                self.session.request("focus", timeout=LIMIT_S)
            except Exception:
                self.longest = max(self.longest, LIMIT_S)
                return
            self.longest = max(self.longest, time.monotonic() - started)
            self.asked += 1
            time.sleep(0.005)

    def stop(self):
        self.running = False
        self.thread.join()
        return self.longest


STALL_LIMIT_S = 1.0  # the longest wait for `focus` allowed; the figure is printed


@case
def layer_surfaces_2x2500_with_zones(session):
    """Two clients map 2,500 layer surfaces each, every one with an exclusive zone, and end: each
    commit and each destruction used to arrange every layer surface of the output again, which
    stopped the session 76 s while mapping and 79 s at the disconnect (issue 24). The session
    must answer throughout, each time within STALL_LIMIT_S."""
    watch = AnswerWatch(session)
    clients = []
    for _ in range(2):
        client, b = connect(session, binds=("wl_compositor", "wl_shm", "zwlr_layer_shell_v1"))
        configured = {}

        def heard(obj, opcode, payload, client=client, configured=configured):
            if client.objects.get(obj, (None,))[0] == "zwlr_layer_surface_v1" and opcode == 0:
                configured[obj] = struct.unpack_from("<I", payload)[0]
        client.handlers.append(heard)
        layers = []
        for i in range(2500):
            surface = client.request(b["wl_compositor"], "create_surface", None)
            layer = client.request(b["zwlr_layer_shell_v1"], "get_layer_surface", None, surface, 0, 2, "zone")
            # Strips along the top and the left edge, in turn, each taking one pixel.
            client.request(layer, "set_size", *((0, 1) if i % 2 == 0 else (1, 0)))
            client.request(layer, "set_anchor", 1 | 4 | 8 if i % 2 == 0 else 4 | 1 | 2)
            client.request(layer, "set_exclusive_zone", 1)
            client.request(surface, "commit")
            layers.append((surface, layer))
        finish(client, timeout=60)
        if len(configured) != len(layers):
            raise CaseFailure(f"{len(configured)} of {len(layers)} layer surfaces were configured after a roundtrip")
        for surface, layer in layers:
            client.request(layer, "ack_configure", configured[layer])
            client.request(surface, "attach", shm_buffer(client, b["wl_shm"], 1, 1), 0, 0)
            client.request(surface, "commit")
        finish(client, timeout=60)
        clients.append(client)
    mapping = watch.longest
    healthy(session, "with 5,000 layer surfaces mapped")
    for client in clients:
        client.close()
    time.sleep(0.5)
    healthy(session, "after both clients ended")
    longest = watch.stop()
    print(f"    the longest wait for `focus`: {mapping * 1000:.0f} ms while mapping, {longest * 1000:.0f} ms in all ({watch.asked} asked)", flush=True)
    if longest > STALL_LIMIT_S:
        raise CaseFailure(f"the session took {longest:.2f} s to answer `focus`")


layer_surfaces_2x2500_with_zones.session_args = layer_shell_session_args


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if "--list" in sys.argv:
        for c in CASES:
            print(f"{c.__name__}: {c.__doc__}")
        return 0
    if not args:
        print(__doc__)
        return 2
    binary, names = args[0], args[1:]
    chosen = [c for c in CASES if not names or c.__name__ in names]
    passed = failed = 0
    for function in chosen:
        session = None
        try:
            arguments = getattr(function, "session_args", lambda: ())()
            session = Session(binary, args=arguments, wev=False)
            started = time.time()
            function(session)
            healthy(session, "at the end")
            print(f"PASS {function.__name__} ({time.time() - started:.1f} s)", flush=True)
            passed += 1
        except (CaseFailure, SessionDied, SessionHung, OSError, RuntimeError) as error:
            failed += 1
            alive = session is not None and session.alive()
            print(f"FAIL {function.__name__}: {error} (session {'alive' if alive else 'dead'})", flush=True)
            if session is not None:
                tail = session.crash_summary().strip()
                if tail:
                    print("    session stderr: " + tail.replace("\n", "\n    "), flush=True)
        finally:
            if session is not None:
                session.stop()
    print(f"regressions: {passed} passed, {failed} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
