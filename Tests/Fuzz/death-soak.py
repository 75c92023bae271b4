#!/usr/bin/env python3
"""Client-death soak for `touch-router run` (issue 10: no client can crash the session).

    python3 Tests/Fuzz/death-soak.py BINARY [--seed N] [--clients N] [--nonreaders N] [--flood N] ...

Starts the session with its own private XDG_RUNTIME_DIR and Debian's `wev` (under `stdbuf -oL`)
mapped beside it, then kills --clients clients, one after another, each in one of these states:

    touch    a touch down injected on its surface, not lifted
    button   the pointer moved onto its surface and BTN_LEFT pressed, not released
    grab     holding an xdg_popup.grab on a mapped popup (the popup has the keyboard focus)
    idle     a mapped toplevel, nothing held

Each is killed either with SIGKILL (the socket is held by a forked process that is then killed)
or by closing its socket abruptly, with unread events waiting. After each death: its surfaces
leave the tree, `focus` shows no touch and no keyboard focus on any of them, the held touch
lifts / the held button releases without complaint, and (after a grab, and every --tap-every
clients) a tap at wev reaches wev, a key reaches it, and (after a button) a click reaches it.

Then --nonreaders clients that never read their socket: each maps a toplevel beside wev and
binds wl_pointer; pointer motion over it is injected (--flood events at most) while a tap at wev
every 200 motions must reach wev and `tree` must keep answering; it reports when the session
disconnects the client and how many bytes were waiting for it.

At the end wev must have received every event injected at it, and the session's RSS and open
descriptors (measured after --warmup clients) must be flat within --rss-slack-kb / --fd-slack.
The closing line is exactly `death-soak: N passed, M failed`; failures also go to --findings.
"""
import argparse
import collections
import os
import random
import signal
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wayland_wire import (Client, Session, SessionDied, SessionHung, append_finding, map_popup, map_toplevel,  # noqa: E402
                          report_end_failures, resource_growth, run_tool, subtree_ids)

KINDS = ["touch", "button", "grab", "idle"]


class SoakFailure(Exception):
    pass


class Soak:
    def __init__(self, opts):
        self.opts = opts
        self.rng = random.Random(opts.seed)
        self.session = None
        self.passed = 0
        self.failures = []
        self.expected = collections.Counter()
        self.wev_base = collections.Counter()
        self.stats = collections.Counter()
        self.touch_id = 1000
        self.nonread_reports = []
        self.max_latency = 0.0

    def start(self):
        if self.session is not None:
            self.session.stop()
        self.session = Session(self.opts.binary, keep_runtime=self.opts.keep)
        self.wev_base = collections.Counter(self.session.wev_counts())
        self.expected = collections.Counter()
        self.stats["sessions started"] += 1
        self.output = self.session.tree()["outputs"][0]["rect"]

    # -- wev ----------------------------------------------------------------------------------------
    def tap_wev(self, key=None):
        s = self.session
        point = s.wev_point()
        if point is None:
            raise SoakFailure(f"no point of wev's window picks wev's surface: {s.toplevels()}")
        self.touch_id += 1
        for event in (f"touch down {self.touch_id} {point[0]} {point[1]}", "touch frame", f"touch up {self.touch_id}", "touch frame"):
            s.inject(event)
        self.expected["touch down"] += 1
        self.expected["touch up"] += 1
        if key:
            keyboard = s.focus().get("keyboard")
            if keyboard != s.wev_surface:
                raise SoakFailure(f"after a tap on wev the keyboard focus is {keyboard}, not wev's {s.wev_surface}")
            s.inject(f"key press {key}")
            s.inject(f"key release {key}")
            self.expected["key"] += 2
        return point

    def click_wev(self):
        s = self.session
        point = s.wev_point()
        if point is None:
            raise SoakFailure("no point of wev's window picks wev's surface")
        s.inject(f"pointer motion {point[0]} {point[1]}")
        s.inject("pointer button press BTN_LEFT")
        s.inject("pointer button release BTN_LEFT")
        self.expected["button press"] += 1
        self.expected["button release"] += 1

    def wev_check(self):
        deadline = time.time() + 15
        while True:
            got = collections.Counter(self.session.wev_counts())
            got.subtract(self.wev_base)
            if all(got[k] >= self.expected[k] for k in self.expected) or time.time() > deadline:
                break
            time.sleep(0.1)
        return {k: (self.expected[k], got[k]) for k in ("touch down", "touch up", "key", "button press", "button release")}

    def renew_wev(self):
        """A fresh wev: Debian's wev 1.0.0 keeps a descriptor for every buffer it draws, one a
        configure, and each kill costs it one or two, so a long soak would take it to the
        descriptor limit. What the old one got is checked first."""
        for k, (want, got) in self.wev_check().items():
            if want != got and not (k == "button release" and got > want):
                raise SoakFailure(f"before wev was renewed: it got {got} {k} events, {want} were injected at it")
        s = self.session
        old = s.wev_surface
        s.wev.kill()
        s.wev.wait()
        deadline = time.time() + 15
        while any(t["id"] == old for t in s.toplevels()):
            if time.time() > deadline:
                raise SoakFailure(f"wev's surface {old} stayed in the tree after wev was killed")
            time.sleep(0.05)
        s.start_wev()
        self.wev_base = collections.Counter(s.wev_counts())
        self.expected = collections.Counter()
        self.stats["wev renewed"] += 1

    # -- one client's life and death ----------------------------------------------------------------
    def setup(self, index, kind):
        s = self.session
        binds = ["wl_compositor", "wl_shm", "xdg_wm_base", "wl_seat"]
        c = Client(s)
        c.get_registry()
        b = {name: c.bind(name) for name in binds}
        if kind == "touch":
            c.request(b["wl_seat"], "get_touch", None)
        elif kind in ("button", "grab"):
            c.request(b["wl_seat"], "get_pointer", None)
            c.request(b["wl_seat"], "get_keyboard", None)
        title = f"soak-{index}"
        surface, xdg, top = map_toplevel(c, b, 120, 120, title=title)
        popup_surface = None
        if kind == "grab":
            popup_surface, _, _ = map_popup(c, b, xdg, 50, 50, anchor=5, gravity=8, grab=True)
        if not c.roundtrip(timeout=10) or c.dead:
            raise SoakFailure(f"the client could not map its window: error {c.error}")
        node = None
        for t in s.toplevels():
            if title in (t.get("label") or "") and t["client"] != s.wev_client:
                node = t
        if node is None or not node.get("mapped"):
            raise SoakFailure(f"the client's toplevel {title!r} is not mapped in the tree: {s.toplevels()}")
        return c, node

    def point_on(self, node, ids):
        (x, y), (w, h) = node["position"], node["size"]
        out = self.output
        candidates = [(x + w - 20, y + h - 20), (x + w // 2, y + h // 2)] + [(x + w * i // 6, y + h * j // 6) for i in range(1, 6) for j in range(1, 6)]
        candidates = [(px, py) for px, py in candidates if out[0] + 2 <= px < out[0] + out[2] - 2 and out[1] + 2 <= py < out[1] + out[3] - 2]
        for px, py in candidates:
            surface = self.session.pick(px, py).get("surface")
            if surface and surface["id"] in ids:
                return px, py
        raise SoakFailure(f"no point of the client's window picks its surfaces {ids}")

    def kill(self, client, how):
        if how == "sigkill":
            pid = os.fork()
            if pid == 0:
                try:
                    while True:
                        signal.pause()
                finally:
                    os._exit(0)
            client.close()  # The forked process holds the socket now.
            return pid
        return None

    def wait_gone(self, ids):
        s = self.session
        deadline = time.time() + 5
        while True:
            tree = s.tree()
            present = set()
            for output in tree["outputs"]:
                for t in output["toplevels"]:
                    present.update(subtree_ids(t))
            if not present & ids:
                return
            if time.time() > deadline:
                raise SoakFailure(f"surfaces {sorted(present & ids)} of the dead client stay in the tree")
            time.sleep(0.01)

    def check_no_dangling(self, ids, when):
        focus = self.session.focus()
        if focus.get("keyboard") in ids:
            raise SoakFailure(f"{when}: keyboard focus {focus['keyboard']} is a dead client's surface")
        for touch in focus.get("touches", []):
            if touch.get("surface") in ids:
                raise SoakFailure(f"{when}: touch {touch} points at a dead client's surface")
        return focus

    def one(self, index):
        s = self.session
        kind = KINDS[index % len(KINDS)] if self.opts.kind == "all" else self.opts.kind
        how = self.rng.choice(["sigkill", "close"])
        self.stats[f"{kind} / {how}"] += 1
        client, node = self.setup(index, kind)
        ids = set(subtree_ids(node))
        x, y = self.point_on(node, ids)
        held_touch = None
        if kind == "touch":
            self.touch_id += 1
            held_touch = self.touch_id
            s.inject(f"touch down {held_touch} {x} {y}")
            s.inject("touch frame")
            touches = s.focus().get("touches", [])
            if not any(t.get("id") == held_touch and t.get("surface") in ids for t in touches):
                raise SoakFailure(f"the touch down at ({x}, {y}) is not bound to the client's surfaces {ids}: {touches}")
        elif kind == "button":
            s.inject(f"pointer motion {x} {y}")
            s.inject("pointer button press BTN_LEFT")
        elif kind == "grab":
            keyboard = s.focus().get("keyboard")
            if keyboard not in ids or keyboard == node["id"]:
                raise SoakFailure(f"the grabbing popup does not hold the keyboard focus ({keyboard}; the client's surfaces {ids})")
        pid = self.kill(client, how)
        if how == "sigkill":
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        else:
            client.close()
        self.wait_gone(ids)
        self.check_no_dangling(ids, f"after the {kind} client died ({how})")
        if kind == "touch":
            s.inject(f"touch up {held_touch}")
            s.inject("touch frame")
            touches = s.focus().get("touches", [])
            if touches:
                raise SoakFailure(f"touches remain after the dead client's touch was lifted: {touches}")
        elif kind == "button":
            s.inject("pointer button release BTN_LEFT")
            if index % self.opts.click_every == 1:
                self.click_wev()
        if kind == "grab" or index % self.opts.tap_every == 0:
            self.tap_wev(key="KEY_" + "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[index % 26])
        self.check_no_dangling(ids, "at the end of the round")
        if index % 500 == 0:
            reply = s.msg_command("focus")
            if not reply.get("ok") or reply.get("keyboard") in ids:
                raise SoakFailure(f"`touch-router msg focus` answered {reply}")

    def fail(self, index, error):
        s = self.session
        alive = s.alive()
        text = (f"## death-soak: client {index} ({KINDS[index % len(KINDS)] if self.opts.kind == 'all' else self.opts.kind}): "
                f"{type(error).__name__}: {error}\n- seed {self.opts.seed}; session "
                f"{'alive' if alive else f'exited with status {s.proc.returncode}'}\n"
                f"- replay: `python3 Tests/Fuzz/death-soak.py {self.opts.binary} --seed {self.opts.seed} --clients {index + 1}`")
        tail = s.crash_summary(20).strip()
        if tail:
            text += "\n- session stderr (tail):\n```\n" + tail + "\n```"
        print(text, flush=True)
        self.failures.append((index, str(error)))
        if self.opts.findings:
            append_finding(self.opts.findings, f"{time.strftime('%H:%M:%S')} {text}")
        if not alive or isinstance(error, SessionHung):
            self.stats["session restarts after a failure"] += 1
            self.start()

    # -- clients that never read ----------------------------------------------------------------------
    def nonreader(self, n):
        s = self.session
        c = Client(s)
        c.get_registry()
        b = {name: c.bind(name) for name in ["wl_compositor", "wl_shm", "xdg_wm_base", "wl_seat"]}
        c.request(b["wl_seat"], "get_pointer", None)
        title = f"nonreader-{n}"
        # Wider and shorter than wev's 640x480, so that wherever the cascade puts either (a
        # renewed wev maps elsewhere than the first), neither covers the other whole.
        map_toplevel(c, b, 1200, 300, title=title)
        c.roundtrip()
        node = next((t for t in s.toplevels() if title in (t.get("label") or "")), None)
        if node is None:
            raise SoakFailure("the non-reading client's toplevel did not map")
        ids = set(subtree_ids(node))
        self.tap_wev()  # wev on top, so its own point is free
        (x, y), (w, h) = node["position"], node["size"]
        out = s.tree()["outputs"][0]["rect"]
        spot = None
        candidates = [(x + w * i // 8, y + h * j // 8) for i in range(7, 0, -1) for j in range(7, 0, -1)]
        candidates = [(px, py) for px, py in candidates if out[0] + 2 <= px < out[0] + out[2] - 2 and out[1] + 2 <= py < out[1] + out[3] - 2]
        for px, py in candidates:
            surface = s.pick(px, py).get("surface")
            if surface and surface["id"] in ids:
                spot = (px, py)
                break
        if spot is None:
            raise SoakFailure(f"no point picks the non-reading client's surface: {node}")
        # From here on the client never reads its socket.
        sent = 0
        gone_after = None
        latencies = []
        started = time.time()
        while sent < self.opts.flood:
            s.inject(f"pointer motion {spot[0] + (sent % 2)} {spot[1]}")
            latencies.append(s.last_latency)
            sent += 1
            if sent % 200 == 0:
                self.tap_wev()
                t0 = time.time()
                present = {i for t in s.toplevels() for i in subtree_ids(t)}
                latencies.append(time.time() - t0)
                if not present & ids:
                    gone_after = sent
                    break
        elapsed = time.time() - started
        rss_flooded = s.rss_kb()
        kept = bool({i for t in s.toplevels() for i in subtree_ids(t)} & ids)
        # libwayland 1.21 marks a client whose events it cannot flush and drops what follows, but
        # ends it only when its socket next wakes the loop: let it write one request (still unread).
        gone_on_write = None
        if kept:
            callback = c.new_id("wl_callback")
            try:
                c.sock.send(struct.pack("<III", 1, (12 << 16) | 0, callback))
            except OSError:
                pass
            deadline = time.time() + 3
            while time.time() < deadline:
                if not {i for t in s.toplevels() for i in subtree_ids(t)} & ids:
                    gone_on_write = True
                    break
                time.sleep(0.02)
            gone_on_write = bool(gone_on_write)
        # What was waiting for it: read it all now.
        waiting = 0
        c.sock.setblocking(True)
        c.sock.settimeout(2)
        try:
            while True:
                data = c.sock.recv(1 << 20)
                if not data:
                    break
                waiting += len(data)
        except OSError:
            pass
        c.close()
        report = {"motions injected": sent, "disconnected during the flood after": gone_after,
                  "still in the tree after the flood": kept, "disconnected once it wrote a request": gone_on_write,
                  "bytes waiting in its socket": waiting, "RSS after the flood (kB)": rss_flooded,
                  "seconds": round(elapsed, 1), "slowest control request (s)": round(max(latencies), 3),
                  "median control request (ms)": round(sorted(latencies)[len(latencies) // 2] * 1000, 2)}
        self.nonread_reports.append(report)
        print(f"death-soak: non-reading client {n}: {report}", flush=True)
        if gone_after is None:
            self.wait_gone(ids)

    # -- the whole soak ---------------------------------------------------------------------------------
    def main(self):
        opts = self.opts
        self.start()
        started = time.time()
        base = None
        start_rss, start_fds = self.session.rss_kb(), self.session.fd_count()
        for index in range(opts.clients):
            if index == min(opts.warmup, max(opts.clients - 1, 0)):
                base = {"rss": self.session.rss_kb(), "fds": self.session.fd_count()}
            try:
                if opts.renew_wev and index and index % opts.renew_wev == 0:
                    self.renew_wev()
                self.one(index)
                self.passed += 1
            except (SoakFailure, SessionDied, SessionHung, RuntimeError, OSError) as error:
                self.fail(index, error)
                if opts.stop_on_failure:
                    break
            if opts.progress and (index + 1) % opts.progress == 0:
                print(f"death-soak: {index + 1} clients, {len(self.failures)} failed, RSS {self.session.rss_kb()} kB, "
                      f"fds {self.session.fd_count()}, {time.time() - started:.0f} s", flush=True)
        mid_rss, mid_fds = self.session.rss_kb(), self.session.fd_count()
        for n in range(opts.nonreaders):
            try:
                self.nonreader(n)
                self.passed += 1
            except (SoakFailure, SessionDied, SessionHung, RuntimeError, OSError) as error:
                self.fail(opts.clients + n, error)
        end_failures = []
        counts = {}
        rss_after = fds_after = hwm = -1
        if self.session.alive():
            counts = self.wev_check()
            for k, (want, got) in counts.items():
                if k == "button release" and got > want:
                    # A button pressed on a client that then died, released over wev: the router
                    # drops such a release (the surface it was pressed on is gone), so wev must not get it.
                    self.stats["orphan button releases at wev"] = got - want
                if want != got:
                    end_failures.append(f"wev got {got} {k} events, {want} were injected at it")
            time.sleep(0.3)
            base = base or {"rss": start_rss, "fds": start_fds}
            rss_after, fds_after, hwm, grew = resource_growth(self.session, base, opts)
            end_failures += grew
        else:
            end_failures.append("the session is not alive at the end")
        base = base or {"rss": start_rss, "fds": start_fds}
        report_end_failures("death-soak", end_failures, opts, f"seed {opts.seed}")
        print(f"seed {opts.seed}; {opts.clients} clients killed and {opts.nonreaders} non-reading clients flooded in "
              f"{time.time() - started:.0f} s; sessions started: {self.stats['sessions started']}")
        print("    " + ", ".join(f"{k}: {v}" for k, v in sorted(self.stats.items()) if "/" in k))
        print("wev: " + ", ".join(f"{k} {got}/{want}" for k, (want, got) in counts.items())
              + f"; releases of presses wev never saw (a button held on a client that died, released over wev): "
              f"{self.stats['orphan button releases at wev']}")
        print(f"RSS before {base['rss']} kB (at start {start_rss} kB), after the kills {mid_rss} kB, at the end {rss_after} kB, "
              f"peak {hwm} kB; fds before {base['fds']} (at start {start_fds}), after the kills {mid_fds}, at the end {fds_after}")
        for report in self.nonread_reports:
            print(f"non-reading client: {report}")
        failed = len(self.failures) + len(end_failures)
        self.session.stop()
        print(f"death-soak: {self.passed} passed, {failed} failed", flush=True)
        return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary", nargs="?", default=".build/debug/touch-router")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--clients", type=int, default=2000)
    parser.add_argument("--kind", default="all", choices=["all"] + KINDS, help="kill only clients of this kind")
    parser.add_argument("--nonreaders", type=int, default=2, help="clients that never read, flooded with motion (default 2)")
    parser.add_argument("--flood", type=int, default=20000, help="most motion events injected at one non-reading client")
    parser.add_argument("--tap-every", type=int, default=10, help="tap and key at wev after every Nth client (and after every grab)")
    parser.add_argument("--click-every", type=int, default=10, help="click wev after every Nth killed-mid-button client")
    parser.add_argument("--renew-wev", type=int, default=5000, help="a fresh wev after every N kills, checked first (0: never)")
    parser.add_argument("--warmup", type=int, default=50, help="clients before RSS and descriptors are measured")
    parser.add_argument("--rss-slack-kb", type=int, default=16384, help="allowed RSS growth after the warm-up (default 16 MiB)")
    parser.add_argument("--fd-slack", type=int, default=0)
    parser.add_argument("--findings", default="/tmp/wire-findings.md")
    parser.add_argument("--stop-on-failure", action="store_true")
    parser.add_argument("--progress", type=int, default=250)
    parser.add_argument("--keep", action="store_true", help="keep the private XDG_RUNTIME_DIR")
    opts = parser.parse_args()
    return run_tool("death-soak", opts.binary, lambda: Soak(opts).main())


if __name__ == "__main__":
    sys.exit(main())
