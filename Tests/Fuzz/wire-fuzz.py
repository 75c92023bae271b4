#!/usr/bin/env python3
"""Wire-protocol fuzzer for `touch-router run` (issue 10: no client can crash the session).

    python3 Tests/Fuzz/wire-fuzz.py BINARY [--seed N] [--clients N] [--messages N]
                                           [--only-client K] [--heavy-every N] [--findings FILE] ...

It starts the session with its own private XDG_RUNTIME_DIR, keeps Debian's `wev` (under
`stdbuf -oL`) connected with its toplevel mapped, and runs many short-lived clients on the raw
wire. Each client binds a random choice of the offered globals at random versions and sends a
random, valid-looking sequence of requests: surfaces, regions (many rects), subsurface chains
(deep ones on heavy clients), toplevels, popups from positioners with extreme anchor rects,
offsets and sizes, shm pools and buffers (memfd passed with SCM_RIGHTS; huge ones on heavy
clients), attach, damage, commit, frame, seat devices, data devices, outputs, destroys in
random orders (parents before children), all with numbers at and around 0, +-1, +-2^31, +-2^32.
Some clients (--malformed-rate) end with a malformed message: a wrong size, an unknown opcode,
an unknown, reused or out-of-order id, a missing fd, a truncated header, a bad enum, a bad bind.
While a client lives, input is injected at its surfaces; between clients a tap and a key are
injected at wev, whose log must show every one of them at the end.

Control requests (tree, pick, focus, inject) go straight to the control socket, one request a
connection, exactly as `touch-router msg` sends them (thousands of them would otherwise cost a
process each); every 50th client the `touch-router msg tree` command itself is run too.

After every client the session must be alive, answer `tree` within --stall seconds, and hold no
touch; at the end its RSS and open descriptors, measured after --warmup clients, must be flat
(RSS within --rss-slack-kb; descriptors within --fd-slack). Everything is drawn from
random.Random(f"{seed}/{client}"), so `--seed N --only-client K` replays client K alone on a fresh
session. A failure prints the seed, the client, the last requests it sent and the session's
stderr, and is appended to --findings (default /tmp/wire-findings.md); after a crash the session
is restarted and the run goes on. The closing line is exactly `wire-fuzz: N passed, M failed`.
"""
import argparse
import collections
import os
import random
import struct
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wayland_wire import (PROTOCOLS, Client, Session, SessionDied, SessionHung, append_finding, enum_values, i32,  # noqa: E402
                          memfd, report_end_failures, resource_growth, run_tool, u32, wl_string)

I32_EDGES = [0, 1, -1, 2, -2, 2**31 - 1, 2**31 - 2, -2**31, -2**31 + 1, 2**32, 2**32 - 1, 2**32 + 1, -2**32, -2**32 + 1,
             2**30, -2**30, 32767, 32768, -32768, 65535, 65536, 8192, 16384, 32769]
U32_EDGES = [0, 1, 2, 2**31 - 1, 2**31, 2**31 + 1, 2**32 - 1, 2**32 - 2, 2**32, 2**32 + 1, 65535, 65536, 255, 256]
GLOBALS = ["wl_compositor", "wl_subcompositor", "wl_shm", "xdg_wm_base", "wl_seat", "wl_data_device_manager", "wl_output",
           "touch_router_input_manager_v1", "zxdg_decoration_manager_v1", "org_kde_kwin_server_decoration_manager", "wp_viewporter",
           "wp_presentation", "wp_fractional_scale_manager_v1", "xdg_activation_v1", "wp_single_pixel_buffer_manager_v1",
           "zwp_idle_inhibit_manager_v1", "org_kde_kwin_idle", "ext_idle_notifier_v1"]
MALFORMED = ["short-size", "long-size", "size-below-header", "size-over-buffer", "unknown-opcode", "unknown-object",
             "skipped-new-id", "reused-new-id", "zero-new-id", "server-range-id", "wrong-interface-object", "missing-fd",
             "truncated-header", "bad-enum", "bad-bind", "use-after-destroy", "string-without-nul", "array-overrun",
             "null-non-nullable"]


class Fuzzer:
    def __init__(self, run, index):
        self.run = run
        self.opts = run.opts
        self.index = index
        self.rng = random.Random(f"{self.opts.seed}/{index}")
        self.heavy = self.opts.heavy_every > 0 and index % self.opts.heavy_every == self.opts.heavy_every - 1
        self.budget = self.opts.heavy_messages if self.heavy else self.rng.randint(max(1, self.opts.messages // 8), self.opts.messages)
        self.client = None
        self.b = {}
        self.malformed = None
        self.mapped = []  # xdg_surface ids that had a configure acked
        self.toplevel_xdg = []
        self.roles = set()  # xdg_surfaces with a role (toplevel or popup)

    # -- numbers -------------------------------------------------------------------------------
    def i32(self, small=500):
        r = self.rng.random()
        if r < 0.55:
            return self.rng.randint(-8, small)
        if r < 0.9:
            return self.rng.choice(I32_EDGES)
        return self.rng.choice(I32_EDGES) + self.rng.choice([-1, 1])

    def u32(self, small=500):
        r = self.rng.random()
        if r < 0.6:
            return self.rng.randint(0, small)
        return self.rng.choice(U32_EDGES)

    def size(self):
        r = self.rng.random()
        if r < 0.75:
            return self.rng.randint(1, 300)
        return self.i32()

    def psize(self):
        """A positive size, now and then an extreme one."""
        if self.rng.random() < 0.85:
            return self.rng.randint(1, 300)
        return self.rng.choice([1, 2, 2**31 - 1, 2**31 - 2, 2**30, 65535, 65536, 32768])

    def fixed(self):
        r = self.rng.random()
        if r < 0.5:
            return int(self.rng.uniform(-100, 2000) * 256)
        return self.i32()

    # -- objects ---------------------------------------------------------------------------------
    def live(self, interface):
        return [o for o, (i, _) in self.client.objects.items() if i == interface]

    def pick(self, interface):
        objs = self.live(interface)
        return self.rng.choice(objs) if objs else None

    def version(self, obj):
        return self.client.objects[obj][1]

    def room(self):
        return self.budget - self.client.sent_messages

    # -- the client's life --------------------------------------------------------------------------
    def play(self):
        c = self.client = Client(self.run.session)
        c.stall_limit = self.opts.stall
        c.get_registry()
        if self.opts.malformed_rate > 0 and self.rng.random() < self.opts.malformed_rate:
            self.malformed = (self.rng.choice(MALFORMED), self.rng.randint(0, self.budget))
        for name in GLOBALS:
            if name in c.globals and (name in ("wl_compositor", "xdg_wm_base", "wl_shm") or self.rng.random() < 0.75):
                top = c.globals[name][1]
                version = top if self.rng.random() < 0.6 else self.rng.randint(1, top)
                self.b[name] = c.bind(name, version)
        actions = [(self.surface_action, 6), (self.region_action, 4), (self.shm_action, 5), (self.toplevel_action, 5),
                   (self.popup_action, 5), (self.subsurface_action, 5), (self.attach_action, 10), (self.seat_action, 2),
                   (self.data_action, 2), (self.random_request, 4), (self.destroy_action, 5), (self.roundtrip_action, 3),
                   (self.input_action, 2), (self.output_action, 1), (self.input_policy_action, 3)]
        if self.heavy:
            actions += [(self.heavy_action, 12)]
        funcs, weights = zip(*actions)
        while not c.dead and c.sent_messages < self.budget:
            if self.malformed and c.sent_messages >= self.malformed[1]:
                break
            action = self.rng.choices(funcs, weights)[0]
            try:
                action()
            except KeyError:
                pass  # An object it chose went away meanwhile (delete_id): draw again.
            c.pump(0)
        if self.malformed and not c.dead:
            self.send_malformed(self.malformed[0])
        if self.malformed:
            # Either the server ends us for it, or (if it took the message) answers a sync.
            if not c.dead:
                c.roundtrip(timeout=self.opts.error_wait)
            c.wait_end(0.05)
        else:
            c.roundtrip(timeout=self.opts.stall)
        if not c.dead and self.rng.random() < 0.3:
            # Die with requests in flight: no roundtrip, just hang up.
            self.attach_action()
        return c

    # -- valid-looking actions ----------------------------------------------------------------------
    def surface_action(self):
        if "wl_compositor" in self.b:
            self.client.request(self.b["wl_compositor"], "create_surface", None)

    def region_action(self):
        if "wl_compositor" not in self.b:
            return
        c = self.client
        region = c.request(self.b["wl_compositor"], "create_region", None)
        n = self.rng.choice([1, 1, 2, 3, 5, 10, 40, 200])
        n = max(1, min(n, self.room() - 2))
        disjoint = self.rng.random() < 0.5
        for k in range(n):
            if disjoint:
                rect = ((k % 100) * 3, (k // 100) * 3, 1, 1)
            else:
                rect = (self.i32(), self.i32(), self.size(), self.size())
            c.request(region, self.rng.choice(["add", "add", "subtract"]), *rect)
        surface = self.pick("wl_surface")
        if surface is not None and self.rng.random() < 0.7:
            c.request(surface, self.rng.choice(["set_input_region", "set_opaque_region"]), region if self.rng.random() < 0.9 else 0)
            if self.rng.random() < 0.5:
                c.request(surface, "commit")
        if self.rng.random() < 0.6:
            c.request(region, "destroy")

    def buffer_dims(self):
        if self.heavy and self.rng.random() < 0.3:
            return self.rng.choice([(8192, 32768), (32768, 8192), (16384, 16384), (65535, 4), (4, 65535)])
        r = self.rng.random()
        if r < 0.92:
            return self.rng.randint(1, 200), self.rng.randint(1, 200)
        return self.rng.choice([0, 1, 2, -1, 2**31 - 1, -2**31, 4096, 8192]), self.rng.choice([0, 1, -1, 2**31 - 1, 4096])

    def shm_action(self):
        if "wl_shm" not in self.b:
            return None
        c = self.client
        width, height = self.buffer_dims()
        fmt = self.rng.choice([0, 1]) if self.rng.random() < 0.97 else self.rng.choice([0x34325241, 0x34325258, 0x20203852])  # argb/xrgb, and their fourcc spellings
        stride = width * 4
        r = self.rng.random()
        if r < 0.04:
            stride = self.i32()
        elif r < 0.08:
            stride = width * 4 + self.rng.choice([-4, -1, 1, 4, 64])
        offset = 0 if self.rng.random() < 0.95 else self.rng.choice([4, 64, -4, 2**31 - 1, -2**31])
        size = stride * height + max(offset, 0)
        if not (0 < size < 2**31) or self.rng.random() < 0.03:
            size = self.rng.choice([1, 4096, 65536, 2**31 - 1, 0, -1])
        fd = memfd(max(min(size, 2**31 - 1), 1) if size > 0 else 4096)
        pool = c.request(self.b["wl_shm"], "create_pool", None, size, fds=[fd])
        os.close(fd)
        buffers = []
        for _ in range(self.rng.choice([1, 1, 1, 2, 3])):
            buffers.append(c.request(pool, "create_buffer", None, offset, width, height, stride, fmt))
        if self.rng.random() < 0.2:
            c.request(pool, "resize", self.rng.choice([size, size + 4096, size * 2 if size < 2**30 else size, self.i32()]))
        if self.rng.random() < 0.7:
            c.request(pool, "destroy")
        return buffers[-1], width, height

    def small_buffer(self, width=None, height=None):
        if "wl_shm" not in self.b:
            return 0
        width = width or self.rng.randint(1, 120)
        height = height or self.rng.randint(1, 120)
        c = self.client
        fd = memfd(width * height * 4)
        pool = c.request(self.b["wl_shm"], "create_pool", None, width * height * 4, fds=[fd])
        os.close(fd)
        buffer = c.request(pool, "create_buffer", None, 0, width, height, width * 4, self.rng.choice([0, 1]))
        c.request(pool, "destroy")
        return buffer

    def ack(self, xdg):
        c = self.client
        if xdg in c.configures and xdg in c.objects:
            serial = c.configures[xdg] if self.rng.random() < 0.98 else self.u32()
            c.request(xdg, "ack_configure", serial)
            self.mapped.append(xdg)

    def toplevel_action(self):
        if "wl_compositor" not in self.b or "xdg_wm_base" not in self.b:
            return
        c = self.client
        surface = c.request(self.b["wl_compositor"], "create_surface", None)
        xdg = c.request(self.b["xdg_wm_base"], "get_xdg_surface", None, surface)
        toplevel = c.request(xdg, "get_toplevel", None)
        self.toplevel_xdg.append(xdg)
        self.roles.add(xdg)
        if self.rng.random() < 0.5:
            c.request(toplevel, "set_title", self.rng.choice(["", "fuzz", "x" * self.rng.choice([1, 100, 3000]), "\u00e9\u00e8"]))
        if self.rng.random() < 0.3:
            c.request(toplevel, "set_app_id", "fuzz.app")
        if self.rng.random() < 0.3:
            c.request(toplevel, self.rng.choice(["set_min_size", "set_max_size"]), self.i32(), self.i32())
        if self.rng.random() < 0.2:
            c.request(xdg, "set_window_geometry", self.i32(), self.i32(), self.psize(), self.psize())
        if self.rng.random() < 0.15:
            parents = [t for t in self.live("xdg_toplevel") if t != toplevel]
            c.request(toplevel, "set_parent", self.rng.choice(parents) if parents else 0)
        if self.rng.random() < 0.15:
            c.request(toplevel, self.rng.choice(["set_maximized", "unset_maximized", "set_minimized", "unset_fullscreen"]))
        c.request(surface, "commit")
        if self.rng.random() < 0.8:
            c.roundtrip()
            self.ack(xdg)
        if self.rng.random() < 0.85:
            buffer = self.small_buffer()
            c.request(surface, "attach", buffer, 0, 0)
            c.request(surface, "damage", 0, 0, self.i32(), self.i32())
            c.request(surface, "commit")

    def positioner(self):
        c = self.client
        p = c.request(self.b["xdg_wm_base"], "create_positioner", None)
        extreme = self.rng.random() < 0.5
        avoid = self.opts.skip_known_positioner_crash

        def coord():
            v = self.i32() if extreme else self.rng.randint(-50, 400)
            return max(-2**30, min(2**30, v)) if avoid else v

        if self.rng.random() < 0.95:
            c.request(p, "set_size", self.psize() if extreme else self.rng.randint(1, 200), self.psize() if extreme else self.rng.randint(1, 200))
        if self.rng.random() < 0.95:
            c.request(p, "set_anchor_rect", coord(), coord(), self.psize() if extreme else self.rng.randint(1, 100),
                      self.psize() if extreme else self.rng.randint(1, 100))
        anchors = list(PROTOCOLS["xdg_positioner"].enums["anchor"].values())
        gravities = list(PROTOCOLS["xdg_positioner"].enums["gravity"].values())
        if self.rng.random() < 0.8:
            c.request(p, "set_anchor", self.rng.choice(anchors))
        if self.rng.random() < 0.8:
            c.request(p, "set_gravity", self.rng.choice(gravities))
        if self.rng.random() < 0.6:
            c.request(p, "set_constraint_adjustment", self.rng.randint(0, 63))
        if self.rng.random() < 0.7:
            c.request(p, "set_offset", coord(), coord())
        if self.version(p) >= 3 and self.rng.random() < 0.3:
            c.request(p, "set_reactive")
            c.request(p, "set_parent_size", self.i32(), self.i32())
            c.request(p, "set_parent_configure", self.u32())
        return p

    def popup_action(self):
        if "wl_compositor" not in self.b or "xdg_wm_base" not in self.b:
            return
        c = self.client
        if not self.live("xdg_toplevel") and self.rng.random() < 0.8:
            self.toplevel_action()
        positioner = self.positioner()
        surface = c.request(self.b["wl_compositor"], "create_surface", None)
        xdg = c.request(self.b["xdg_wm_base"], "get_xdg_surface", None, surface)
        parents = [x for x in self.live("xdg_surface") if x != xdg and x in self.roles]
        parent = self.rng.choice(parents) if parents and self.rng.random() < 0.9 else 0
        popup = c.request(xdg, "get_popup", None, parent, positioner)
        self.roles.add(xdg)
        if "wl_seat" in self.b and self.rng.random() < 0.3:
            c.request(popup, "grab", self.b["wl_seat"], self.u32())
        if self.rng.random() < 0.5:
            c.request(positioner, "destroy")
        c.request(surface, "commit")
        if self.rng.random() < 0.85:
            c.roundtrip()
            self.ack(xdg)
            c.request(surface, "attach", self.small_buffer(), 0, 0)
            c.request(surface, "commit")
        if self.version(popup) >= 3 and self.rng.random() < 0.2 and "xdg_wm_base" in self.b:
            c.request(popup, "reposition", self.positioner(), self.u32())
            c.request(surface, "commit")

    def subsurface_action(self, depth=None):
        if "wl_compositor" not in self.b or "wl_subcompositor" not in self.b:
            return
        c = self.client
        if depth is None:
            depth = self.rng.choice([1, 1, 2, 3, 5, 8, 20, 60, 200])
        depth = max(1, min(depth, (self.room() - 4) // 3))
        surfaces = self.live("wl_surface")
        parent = self.rng.choice(surfaces) if surfaces and self.rng.random() < 0.8 else c.request(self.b["wl_compositor"], "create_surface", None)
        chain = [parent]
        subs = []
        for _ in range(depth):
            s = c.request(self.b["wl_compositor"], "create_surface", None)
            sub = c.request(self.b["wl_subcompositor"], "get_subsurface", None, s, chain[-1] if self.rng.random() < 0.9 else self.rng.choice(chain))
            chain.append(s)
            subs.append(sub)
            if depth < 50 or self.rng.random() < 0.02:
                if self.rng.random() < 0.5:
                    c.request(sub, "set_position", self.i32(), self.i32())
                if self.rng.random() < 0.2:
                    c.request(sub, self.rng.choice(["place_above", "place_below"]), chain[-2])
                if self.rng.random() < 0.2:
                    c.request(sub, self.rng.choice(["set_sync", "set_desync"]))
        if depth < 50 and self.rng.random() < 0.5:
            for s in self.rng.sample(chain, len(chain)):
                if self.rng.random() < 0.5:
                    c.request(s, "attach", self.small_buffer(), 0, 0)
                c.request(s, "commit")
        else:
            leaf = chain[-1]
            c.request(leaf, "attach", self.small_buffer(8, 8), 0, 0)
            c.request(leaf, "commit")
            c.request(chain[0], "commit")
        if self.rng.random() < 0.2:
            # Parents before children.
            for s in chain[:max(1, len(chain) // 3)]:
                if s in c.objects:
                    c.request(s, "destroy")

    def attach_action(self):
        c = self.client
        surface = self.pick("wl_surface")
        if surface is None:
            return
        v = self.version(surface)
        r = self.rng.random()
        if r < 0.5:
            buffer = self.pick("wl_buffer") if self.rng.random() < 0.5 else self.small_buffer()
            off = (0, 0) if v >= 5 or self.rng.random() < 0.6 else (self.i32(), self.i32())
            c.request(surface, "attach", buffer or 0, *off)
        elif r < 0.6:
            c.request(surface, "attach", 0, 0, 0)
        if self.rng.random() < 0.6:
            c.request(surface, "damage", self.i32(), self.i32(), self.i32(), self.i32())
        if v >= 4 and self.rng.random() < 0.4:
            c.request(surface, "damage_buffer", self.i32(), self.i32(), self.i32(), self.i32())
        if self.rng.random() < 0.3:
            c.request(surface, "frame", None)
        if v >= 2 and self.rng.random() < 0.1:
            c.request(surface, "set_buffer_transform", self.rng.randint(0, 7))
        if v >= 3 and self.rng.random() < 0.1:
            c.request(surface, "set_buffer_scale", self.rng.choice([1, 1, 2, 3, 2**31 - 1]))
        if v >= 5 and self.rng.random() < 0.1:
            c.request(surface, "offset", self.i32(), self.i32())
        c.request(surface, "commit")

    def seat_action(self):
        if "wl_seat" not in self.b:
            return
        c = self.client
        seat = self.b["wl_seat"]
        kind = self.rng.choice(["get_pointer", "get_keyboard", "get_touch"])
        device = c.request(seat, kind, None)
        if kind == "get_pointer" and self.rng.random() < 0.5:
            surface = self.pick("wl_surface")
            c.request(device, "set_cursor", self.u32(), surface or 0, self.i32(), self.i32())
        if self.version(device) >= 3 and self.rng.random() < 0.3:
            c.request(device, "release")

    def data_action(self):
        if "wl_data_device_manager" not in self.b:
            return
        c = self.client
        m = self.b["wl_data_device_manager"]
        source = c.request(m, "create_data_source", None)
        c.request(source, "offer", self.rng.choice(["text/plain", "", "x" * 500]))
        if self.version(source) >= 3 and self.rng.random() < 0.5:
            c.request(source, "set_actions", self.rng.choice([0, 1, 2, 4, 7]))
        if "wl_seat" in self.b:
            device = c.request(m, "get_data_device", None, self.b["wl_seat"])
            r = self.rng.random()
            if r < 0.4:
                c.request(device, "set_selection", source if self.rng.random() < 0.8 else 0, self.u32())
            elif r < 0.7:
                surface = self.pick("wl_surface")
                if surface is not None:
                    c.request(device, "start_drag", source if self.rng.random() < 0.7 else 0, surface, 0, self.u32())
            if self.version(device) >= 2 and self.rng.random() < 0.3:
                c.request(device, "release")
        if source in c.objects and self.rng.random() < 0.5:
            c.request(source, "destroy")

    def input_policy_action(self):
        """touch-router-input-v1: a surface's input object (now and then a second one, which
        is already_exists), settings now and then outside the enum, deferral lists of any
        length with rectangles at the ends of int32 (now and then not whole rectangles),
        rejects of any serial and id, and destroys; destroy_action destroys surfaces under them."""
        manager = self.b.get("touch_router_input_manager_v1")
        surface = self.pick("wl_surface")
        if manager is None or manager not in self.client.objects or surface is None:
            return
        c = self.client
        inputs = self.live("touch_router_surface_input_v1")
        obj = self.rng.choice(inputs) if inputs and self.rng.random() < 0.8 else c.request(manager, "get_surface_input", None, surface)
        r = self.rng.random()
        if r < 0.4:
            request = self.rng.choice(["set_exclusive_touch", "set_multiple_touch", "set_interaction_enabled", "set_accepts_keyboard_focus"])
            c.request(obj, request, self.rng.choice([0, 1]) if self.rng.random() < 0.95 else self.u32())
        elif r < 0.7:
            count = self.rng.choice([0, 1, 2, 5, 32]) if self.rng.random() < 0.9 else self.rng.randint(33, 250)
            width = lambda: self.psize() if self.rng.random() < 0.97 else self.i32()
            data = b"".join(i32(self.i32()) + i32(self.i32()) + i32(width()) + i32(width()) for _ in range(count))
            if self.rng.random() < 0.05:
                data += b"\0" * self.rng.choice([1, 4, 8, 12])
            c.request(obj, "set_gesture_deferral", data)
        elif r < 0.85:
            c.request(obj, "reject_touch", self.u32(), self.rng.randint(0, 4) if self.rng.random() < 0.5 else self.i32())
        elif r < 0.95:
            c.request(surface, "commit")
        else:
            c.request(obj, "destroy")

    def output_action(self):
        out = self.b.get("wl_output")
        if out is not None and out in self.client.objects and self.version(out) >= 3 and self.rng.random() < 0.3:
            self.client.request(out, "release")
            del self.b["wl_output"]

    def random_request(self):
        """Any request on any live object, its arguments typed from the protocol (enums valid)."""
        c = self.client
        objs = [o for o, (i, _) in c.objects.items() if i in PROTOCOLS and o != 1 and i not in ("wl_registry",)]
        if not objs:
            return
        obj = self.rng.choice(objs)
        iface, version = c.objects[obj]
        choices = [m for m in PROTOCOLS[iface].requests if m.since <= version]
        if not choices:
            return
        m = self.rng.choice(choices)
        if m.destructor and obj in self.b.values():
            return
        values = []
        fds = []
        for arg in m.args:
            if arg.type == "fd":
                fds.append(memfd(self.rng.choice([0, 4096, 65536])))
                continue
            if arg.enum:
                options = enum_values(iface, arg.enum)
                if options and self.rng.random() < 0.9:
                    value = self.rng.choice(options)
                    if arg.type == "uint" and "bitfield" not in arg.enum and self.rng.random() < 0.3:
                        value = self.rng.choice(options) | self.rng.choice(options)
                    values.append(value)
                    continue
            if arg.type == "int":
                values.append(self.i32())
            elif arg.type == "uint":
                values.append(self.u32())
            elif arg.type == "fixed":
                values.append(self.fixed())
            elif arg.type == "object":
                candidates = self.live(arg.interface) if arg.interface else [o for o in c.objects if o != 1]
                if candidates and (not arg.allow_null or self.rng.random() < 0.85):
                    values.append(self.rng.choice(candidates))
                elif arg.allow_null:
                    values.append(0)
                else:
                    for fd in fds:
                        os.close(fd)
                    return
            elif arg.type == "new_id":
                values.append(None)
            elif arg.type == "string":
                values.append(self.rng.choice(["", "a", "text/plain", "\u2603" * 20, "z" * 1000]))
            elif arg.type == "array":
                values.append(bytes(self.rng.randrange(256) for _ in range(self.rng.choice([0, 4, 16]))))
        c.request(obj, m.name, *values, fds=fds)
        for fd in fds:
            os.close(fd)

    def destroy_action(self):
        c = self.client
        objs = [o for o, (i, _) in c.objects.items() if i in PROTOCOLS and o != 1
                and any(m.destructor and m.since <= c.objects[o][1] for m in PROTOCOLS[i].requests)]
        if not objs:
            return
        obj = self.rng.choice(objs)
        iface, version = c.objects[obj]
        m = [m for m in PROTOCOLS[iface].requests if m.destructor and m.since <= version][0]
        if m.args:
            return
        c.request(obj, m.name)
        for name, o in list(self.b.items()):
            if o == obj:
                del self.b[name]

    def roundtrip_action(self):
        self.client.roundtrip(timeout=self.opts.stall)
        for xdg in list(self.client.configures):
            if xdg in self.client.objects and xdg not in self.mapped and self.rng.random() < 0.7:
                self.ack(xdg)

    def input_action(self):
        if self.client.roundtrip(timeout=self.opts.stall):
            self.run.poke_input(self.rng)

    def heavy_action(self):
        """What only heavy clients do: deep chains, huge buffers, regions of very many rects."""
        kind = self.rng.choice(["deep", "huge", "rects", "deep", "huge"])
        c = self.client
        if kind == "deep":
            self.subsurface_action(depth=self.rng.choice([1000, 5000, 10000, 12000]))
        elif kind == "huge" and "wl_compositor" in self.b:
            self.toplevel_action()
            surfaces = self.live("wl_surface")
            if "wl_shm" in self.b and surfaces:
                width, height = self.rng.choice([(8192, 32768), (32768, 8192), (16384, 16384)])
                fd = memfd(width * height * 4)
                pool = c.request(self.b["wl_shm"], "create_pool", None, width * height * 4, fds=[fd])
                os.close(fd)
                buffer = c.request(pool, "create_buffer", None, 0, width, height, width * 4, 1)
                c.request(pool, "destroy")
                surface = surfaces[-1]
                c.request(surface, "attach", buffer, 0, 0)
                c.request(surface, "damage", 0, 0, 2**31 - 1, 2**31 - 1)
                c.request(surface, "commit")
                c.roundtrip(timeout=self.opts.stall)
                self.run.check_rss(self, "after a huge buffer was committed")
        elif kind == "rects" and "wl_compositor" in self.b:
            region = c.request(self.b["wl_compositor"], "create_region", None)
            n = max(1, min(20000, self.room() - 4))
            for k in range(n):
                c.request(region, "add", (k % 200) * 3, (k // 200) * 3, 1, 1)
            surface = self.pick("wl_surface") or c.request(self.b["wl_compositor"], "create_surface", None)
            c.request(surface, "set_input_region", region)
            c.request(surface, "commit")

    # -- malformed ----------------------------------------------------------------------------------
    def a_request(self):
        """A valid request as bytes, for mangling: (object, opcode, payload, note)."""
        c = self.client
        surface = self.pick("wl_surface")
        if surface is not None:
            return surface, 2, i32(0) + i32(0) + i32(10) + i32(10), f"wl_surface@{surface}.damage"
        if "wl_compositor" in self.b:
            return self.b["wl_compositor"], 0, u32(c.next_id), "wl_compositor.create_surface"
        return 1, 0, u32(c.next_id), "wl_display.sync"

    def send_malformed(self, kind):
        c = self.client
        self.run.stats["malformed " + kind] += 1
        obj, opcode, payload, what = self.a_request()
        note = f"MALFORMED {kind}: "
        if kind == "short-size":
            c.send_raw(struct.pack("<II", obj, ((8 + len(payload) - 4) << 16) | opcode) + payload, note=note + what + " size-4")
        elif kind == "long-size":
            c.send_raw(struct.pack("<II", obj, ((8 + len(payload) + 8) << 16) | opcode) + payload + b"\xff" * 8, note=note + what + " size+8")
        elif kind == "size-below-header":
            c.send_raw(struct.pack("<II", obj, (self.rng.choice([0, 4, 7]) << 16) | opcode) + payload, note=note + what)
        elif kind == "size-over-buffer":
            c.send_raw(struct.pack("<II", obj, (0xFFFC << 16) | opcode) + payload + b"\0" * 64, note=note + what + " size 65532")
        elif kind == "unknown-opcode":
            iface = c.objects.get(obj, ("wl_display",))[0]
            count = len(PROTOCOLS[iface].requests) if iface in PROTOCOLS else 0
            op = self.rng.choice([count, count + 1, 0xFFFF])
            c.send_raw(struct.pack("<II", obj, ((8 + len(payload)) << 16) | op) + payload, note=note + f"{iface}@{obj} opcode {op}")
        elif kind == "unknown-object":
            bad = self.rng.choice([0, c.next_id + 50, 0xFEFFFFFF, 0xFF000005])
            c.send_raw(struct.pack("<II", bad, (8 << 16) | 0), note=note + f"object {bad}")
        elif kind in ("skipped-new-id", "reused-new-id", "zero-new-id", "server-range-id"):
            if "wl_compositor" not in self.b:
                self.b["wl_compositor"] = c.bind("wl_compositor")
            new = {"skipped-new-id": c.next_id + 7, "reused-new-id": self.b["wl_compositor"], "zero-new-id": 0,
                   "server-range-id": 0xFF000010}[kind]
            c.send(self.b["wl_compositor"], 0, u32(new), note=note + f"wl_compositor.create_surface(new id {new})")
        elif kind == "wrong-interface-object":
            if "wl_compositor" not in self.b:
                self.b["wl_compositor"] = c.bind("wl_compositor")
            surface = c.request(self.b["wl_compositor"], "create_surface", None)
            region = c.request(self.b["wl_compositor"], "create_region", None)
            c.send(surface, 1, u32(region) + i32(0) + i32(0), note=note + f"wl_surface@{surface}.attach(buffer=region@{region})")
        elif kind == "missing-fd":
            if "wl_shm" not in self.b:
                self.b["wl_shm"] = c.bind("wl_shm")
            c.send(self.b["wl_shm"], 0, u32(c.new_id("wl_shm_pool")) + i32(4096), note=note + "wl_shm.create_pool without an fd")
        elif kind == "truncated-header":
            c.send_raw(struct.pack("<I", obj), note=note + "4 bytes of a header, then hang up")
            c.close()
            c.eof = True
            self.run.stats["hung up after a truncated header"] += 1
        elif kind == "bad-enum":
            self.bad_enum(note)
        elif kind == "bad-bind":
            which = self.rng.choice(["version 0", "version too high", "wrong interface", "unknown name"])
            name, top = c.globals.get("wl_compositor", (1, 5))
            if which == "version 0":
                c.bind("wl_compositor", 0, note=note + "bind wl_compositor v0")
            elif which == "version too high":
                c.bind("wl_compositor", self.rng.choice([top + 1, 2**32 - 1]), note=note + "bind wl_compositor above its version")
            elif which == "wrong interface":
                c.bind("wl_seat", 1, name=name, note=note + "bind wl_compositor's name as wl_seat")
            else:
                c.bind("wl_compositor", 1, name=self.rng.choice([0, 9999, 2**32 - 1]), note=note + "bind an unknown global name")
        elif kind == "use-after-destroy":
            if "wl_compositor" not in self.b:
                self.b["wl_compositor"] = c.bind("wl_compositor")
            region = c.request(self.b["wl_compositor"], "create_region", None)
            c.request(region, "destroy")
            c.send(region, 1, i32(0) * 4, note=note + f"wl_region@{region}.add after destroy")
        elif kind == "string-without-nul":
            if "xdg_wm_base" in self.b and "wl_compositor" in self.b:
                surface = c.request(self.b["wl_compositor"], "create_surface", None)
                xdg = c.request(self.b["xdg_wm_base"], "get_xdg_surface", None, surface)
                top = c.request(xdg, "get_toplevel", None)
                c.send(top, 2, struct.pack("<I", 4) + b"abcd", note=note + f"xdg_toplevel@{top}.set_title without its NUL")
            else:
                c.bind("wl_compositor", 1, note=note + "(no xdg_wm_base) bind")
                c.send(c.registry, 0, u32(1) + struct.pack("<I", 4) + b"wl_c" + u32(1) + u32(c.new_id()), note=note + "bind with a string without NUL")
        elif kind == "array-overrun":
            if "xdg_wm_base" in self.b and "wl_compositor" in self.b:
                # xdg_toplevel has no array request; use a string whose length overruns the message.
                surface = c.request(self.b["wl_compositor"], "create_surface", None)
                xdg = c.request(self.b["xdg_wm_base"], "get_xdg_surface", None, surface)
                top = c.request(xdg, "get_toplevel", None)
                c.send(top, 2, struct.pack("<I", 0x7FFFFFF0) + b"abc\0", note=note + f"xdg_toplevel@{top}.set_title length 0x7ffffff0")
            else:
                c.send(c.registry, 0, u32(1) + struct.pack("<I", 0xFFFFFFFF), note=note + "bind whose string length overruns")
        elif kind == "null-non-nullable":
            if "wl_compositor" in self.b and "xdg_wm_base" in self.b:
                c.send(self.b["xdg_wm_base"], 2, u32(c.new_id("xdg_surface")) + u32(0), note=note + "get_xdg_surface(surface=null)")
            elif "wl_compositor" in self.b:
                surface = c.request(self.b["wl_compositor"], "create_surface", None)
                c.send(surface, 4, u32(0), note=note + "wl_surface.set_opaque_region(null) (nullable: should pass)")
            else:
                c.send(1, 1, u32(0), note=note + "get_registry(new id 0)")

    def bad_enum(self, note):
        c = self.client
        options = []
        if "xdg_wm_base" in self.b:
            options += ["anchor", "gravity", "constraint", "resize-edge"]
        if "wl_compositor" in self.b and self.version(self.b["wl_compositor"]) >= 2:
            options += ["transform", "scale"]
        if "wl_shm" in self.b:
            options += ["format"]
        if "wl_data_device_manager" in self.b and self.version(self.b["wl_data_device_manager"]) >= 3:
            options += ["dnd-actions"]
        if not options:
            c.bind("wl_compositor", 0, note=note + "bind v0 (no enum-taking global bound)")
            return
        which = self.rng.choice(options)
        bad = self.rng.choice([9, 16, 255, 2**31, 2**32 - 1])
        if which in ("anchor", "gravity", "constraint"):
            p = c.request(self.b["xdg_wm_base"], "create_positioner", None)
            name = {"anchor": "set_anchor", "gravity": "set_gravity", "constraint": "set_constraint_adjustment"}[which]
            bad = bad if which != "constraint" else self.rng.choice([64, 255, 2**32 - 1])
            c.send(p, PROTOCOLS["xdg_positioner"].request(name).opcode, u32(bad), note=note + f"xdg_positioner@{p}.{name}({bad})")
        elif which == "resize-edge":
            surface = c.request(self.b["wl_compositor"], "create_surface", None) if "wl_compositor" in self.b else None
            if surface is None:
                return
            xdg = c.request(self.b["xdg_wm_base"], "get_xdg_surface", None, surface)
            top = c.request(xdg, "get_toplevel", None)
            seat = self.b.get("wl_seat") or c.bind("wl_seat")
            c.send(top, PROTOCOLS["xdg_toplevel"].request("resize").opcode, u32(seat) + u32(0) + u32(bad),
                   note=note + f"xdg_toplevel@{top}.resize(edges={bad})")
        elif which == "transform":
            surface = c.request(self.b["wl_compositor"], "create_surface", None)
            value = self.rng.choice([8, -1 & 0xFFFFFFFF, 2**31])
            c.send(surface, 7, i32(value), note=note + f"wl_surface@{surface}.set_buffer_transform({value})")
        elif which == "scale":
            if self.version(self.b["wl_compositor"]) < 3:
                c.bind("wl_compositor", 0, note=note + "bind v0")
                return
            surface = c.request(self.b["wl_compositor"], "create_surface", None)
            value = self.rng.choice([0, -1, -2**31])
            c.send(surface, 8, i32(value), note=note + f"wl_surface@{surface}.set_buffer_scale({value})")
        elif which == "format":
            fd = memfd(4096)
            pool = c.request(self.b["wl_shm"], "create_pool", None, 4096, fds=[fd])
            os.close(fd)
            value = self.rng.choice([2, 0xDEADBEEF, 0x20203852])
            c.send(pool, 0, u32(c.new_id("wl_buffer")) + i32(0) + i32(4) + i32(4) + i32(16) + u32(value),
                   note=note + f"wl_shm_pool@{pool}.create_buffer(format={value:#x})")
        elif which == "dnd-actions":
            source = c.request(self.b["wl_data_device_manager"], "create_data_source", None)
            c.send(source, 2, u32(bad | 8), note=note + f"wl_data_source@{source}.set_actions({bad | 8})")


class Run:
    def __init__(self, opts):
        self.opts = opts
        self.stats = collections.Counter()
        self.failures = []
        self.passed = 0
        self.session = None
        self.expected = collections.Counter()
        self.wev_base = collections.Counter()
        self.open_touches = []
        self.held_buttons = []
        self.touch_id = 100
        self.errors_by_interface = collections.Counter()
        self.error_samples = {}
        self.baseline = None
        self.start_rss = None
        self.max_stall = 0.0

    # -- the session ----------------------------------------------------------------------------------
    def start_session(self):
        if self.session is not None:
            self.session.stop()
        self.session = Session(self.opts.binary, args=("--kiosk",) if self.opts.kiosk else (), keep_runtime=self.opts.keep)
        self.expected = collections.Counter()
        self.wev_base = collections.Counter(self.session.wev_counts())
        self.open_touches = []
        self.held_buttons = []
        self.stats["sessions started"] += 1
        self.baseline = None

    def poke_input(self, rng):
        """Input at a client's surfaces while it lives (never at wev, whose events are counted)."""
        s = self.session
        for _ in range(3):
            x, y = rng.randint(0, 1919), rng.randint(0, 1079)
            surface = s.pick(x, y).get("surface")
            if surface and surface["id"] == s.wev_surface:
                continue
            kind = rng.choice(["motion", "touch", "button", "axis"])
            if kind == "motion":
                s.inject(f"pointer motion {x} {y}")
            elif kind == "touch":
                self.touch_id += 1
                s.inject(f"touch down {self.touch_id} {x} {y}")
                s.inject("touch frame")
                self.open_touches.append(self.touch_id)
            elif kind == "button" and not self.held_buttons:
                s.inject(f"pointer motion {x} {y}")
                s.inject("pointer button press BTN_LEFT")
                self.held_buttons.append("BTN_LEFT")
            else:
                s.inject(f"pointer motion {x} {y}")
                s.inject("pointer axis vertical 10")
            self.stats["inputs injected at fuzzed clients"] += 1
            return

    def check_rss(self, fuzzer, when):
        if self.baseline is None or self.opts.rss_peak_mb <= 0:
            return
        rss = self.session.rss_kb()
        if rss > self.baseline["rss"] + self.opts.rss_peak_mb * 1024:
            raise FuzzFailure("rss", f"RSS {rss} kB is more than {self.opts.rss_peak_mb} MiB above the warm baseline "
                              f"{self.baseline['rss']} kB {when}")

    def between_clients(self, index):
        """After each client: alive, answering, no dangling touch; then a tap and a key at wev."""
        s = self.session
        started = time.time()
        s.tree(timeout=self.opts.stall)
        elapsed = time.time() - started
        self.max_stall = max(self.max_stall, elapsed)
        if elapsed > self.opts.slow:
            raise FuzzFailure("stall", f"`tree` took {elapsed:.1f} s (more than --slow {self.opts.slow} s)")
        for tid in self.open_touches:
            s.inject(f"touch up {tid}")
        if self.open_touches:
            s.inject("touch frame")
        self.open_touches = []
        for button in self.held_buttons:
            s.inject(f"pointer button release {button}")
        self.held_buttons = []
        if index % 50 == 0:
            reply = s.msg_command("tree", timeout=self.opts.stall)
            if not reply.get("ok"):
                raise FuzzFailure("msg", f"`touch-router msg tree` answered {reply}")
        focus = s.focus()
        if focus.get("touches"):
            raise FuzzFailure("dangling touch", f"touches remain after every touch was lifted: {focus['touches']}")
        ids = set()
        for output in s.tree()["outputs"]:
            for t in output["toplevels"]:
                ids.add(t["id"])
        if ids - {s.wev_surface}:
            # The client is gone, so should its windows be: give the session a moment.
            deadline = time.time() + 5
            while time.time() < deadline and {t["id"] for t in s.toplevels()} - {s.wev_surface}:
                time.sleep(0.05)
            left = {t["id"] for t in s.toplevels()} - {s.wev_surface}
            if left:
                raise FuzzFailure("leftover", f"surfaces of a dead client stay in the tree: {sorted(left)}")
        if index % self.opts.tap_every == 0:
            point = s.wev_point()
            if point is None:
                raise FuzzFailure("wev unreachable", f"no point of wev's window picks wev's surface: {s.tree()}")
            self.touch_id += 1
            for event in (f"touch down {self.touch_id} {point[0]} {point[1]}", "touch frame", f"touch up {self.touch_id}", "touch frame"):
                s.inject(event)
            self.expected["touch down"] += 1
            self.expected["touch up"] += 1
            keyboard = s.focus().get("keyboard")
            if keyboard != s.wev_surface:
                raise FuzzFailure("focus", f"after a tap on wev the keyboard focus is {keyboard}, not wev's {s.wev_surface}")
            key = "KEY_" + "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[index % 26]
            s.inject(f"key press {key}")
            s.inject(f"key release {key}")
            self.expected["key"] += 2

    def wev_check(self):
        s = self.session
        deadline = time.time() + 15
        while True:
            got = collections.Counter(s.wev_counts())
            got.subtract(self.wev_base)
            if all(got[k] >= self.expected[k] for k in self.expected) or time.time() > deadline:
                break
            time.sleep(0.1)
        return {k: (self.expected[k], got[k]) for k in ("touch down", "touch up", "key")}

    # -- one client --------------------------------------------------------------------------------------
    def one(self, index):
        fuzzer = Fuzzer(self, index)
        client = None
        try:
            client = fuzzer.play()
            if client.stalled:
                raise SessionHung(f"the session read nothing from the client for {client.blocked:.0f} s in all")
            self.stats["messages"] += client.sent_messages
            self.stats["bytes"] += client.sent_bytes
            if client.error is not None:
                obj, code, message = client.error
                iface = client.ever.get(obj, "an unknown object")
                self.stats["clients ended by a protocol error"] += 1
                key = f"{iface} code {code}"
                self.errors_by_interface[key] += 1
                self.error_samples.setdefault(key, f"{message} (client {index})")
                if not message:
                    self.stats["protocol errors without a message"] += 1
                elif "@" not in message:
                    self.stats["protocol errors whose message names no interface@id"] += 1
                    self.error_samples.setdefault("(names no object)", f"{message} (client {index})")
            elif client.eof:
                self.stats["clients ended otherwise (hang-up without an error)"] += 1
                if fuzzer.malformed and fuzzer.malformed[0] != "truncated-header":
                    self.stats[f"hang-up without error after {fuzzer.malformed[0]}"] += 1
            else:
                self.stats["clients that closed their own connection"] += 1
                if fuzzer.malformed:
                    self.stats[f"malformed {fuzzer.malformed[0]} accepted"] += 1
            if fuzzer.heavy:
                self.stats["heavy clients"] += 1
            client.close()
            fuzzer.run.check_rss(fuzzer, "after the client")
            self.between_clients(index)
            self.passed += 1
            return True
        except Exception as error:  # noqa: BLE001 - a harness error is reported as a failure too
            if not isinstance(error, (SessionDied, SessionHung, FuzzFailure, ConnectionError, RuntimeError, OSError)):
                traceback.print_exc()
            if client is None:
                client = fuzzer.client
            if client is not None:
                client.close()
            self.fail(index, fuzzer, error)
            return False

    def fail(self, index, fuzzer, error):
        s = self.session
        kind = error.kind if isinstance(error, FuzzFailure) else type(error).__name__
        if isinstance(error, SessionHung):
            # Wait for it to come back, to say how long it stalled.
            started = time.time()
            while time.time() - started < self.opts.hang_wait:
                try:
                    s.tree(timeout=5)
                    break
                except (SessionHung, SessionDied):
                    if not s.alive():
                        break
            error = SessionHung(f"{error}; answered again after {time.time() - started + self.opts.stall:.0f} s" if s.alive() else f"{error}; then died")
        time.sleep(0.2)
        alive = s.alive()
        status = s.proc.returncode
        last = list(fuzzer.client.log) if fuzzer.client else []
        stderr = s.crash_summary(20)
        replay = f"python3 Tests/Fuzz/wire-fuzz.py {self.opts.binary} --seed {self.opts.seed} --only-client {index} --messages {self.opts.messages} --heavy-every {self.opts.heavy_every}"
        heading = f"client {index} ({'heavy, ' if fuzzer.heavy else ''}{fuzzer.budget} messages{', malformed ' + fuzzer.malformed[0] if fuzzer.malformed else ''})"
        report = [f"## wire-fuzz: {kind}: {error}", f"- seed {self.opts.seed}, {heading}; session {'alive' if alive else f'exited with status {status}'}",
                  f"- replay: `{replay}`", "- last requests sent:", "```"] + last[-self.opts.show_last:] + ["```"]
        if stderr.strip():
            report += ["- session stderr (tail):", "```", stderr.strip()[-2500:], "```"]
        text = "\n".join(report)
        print(text, flush=True)
        self.failures.append((index, kind, str(error)))
        if self.opts.findings:
            append_finding(self.opts.findings, f"{time.strftime('%H:%M:%S')} {text}")
        if not alive or isinstance(error, SessionHung) or kind in ("leftover", "wev unreachable", "rss"):
            self.stats["session restarts after a failure"] += 1
            if not self.opts.stop_on_failure:
                self.start_session()

    # -- the whole run ----------------------------------------------------------------------------------
    def main(self):
        opts = self.opts
        self.start_session()
        started = time.time()
        s = self.session
        self.start_rss, self.start_fds = s.rss_kb(), s.fd_count()
        indices = [opts.only_client] if opts.only_client is not None else range(opts.clients)
        warmup = 0 if opts.only_client is not None else min(opts.warmup, max(0, opts.clients - 1))
        for n, index in enumerate(indices):
            if n == warmup:
                time.sleep(0.2)
                self.baseline = {"rss": self.session.rss_kb(), "fds": self.session.fd_count(), "hwm": self.session.hwm_kb()}
            ok = self.one(index)
            if not ok and opts.stop_on_failure:
                break
            if opts.progress and (n + 1) % opts.progress == 0:
                print(f"wire-fuzz: {n + 1} clients, {self.stats['messages']} messages, {len(self.failures)} failed, "
                      f"RSS {self.session.rss_kb()} kB, fds {self.session.fd_count()}, {time.time() - started:.0f} s", flush=True)
        s = self.session
        end_failures = []
        counts = {}
        rss_after = fds_after = hwm = -1
        if s.alive():
            counts = self.wev_check()
            for k, (want, got) in counts.items():
                if want != got:
                    end_failures.append(f"wev got {got} {k} events, {want} were injected at it")
            time.sleep(0.3)
            base = self.baseline or {"rss": self.start_rss, "fds": self.start_fds, "hwm": -1}
            rss_after, fds_after, hwm, grew = resource_growth(s, base, opts)
            # One replayed client says nothing about growth.
            if opts.only_client is None:
                end_failures += grew
        else:
            end_failures.append("the session is not alive at the end")
        report_end_failures("wire-fuzz", end_failures, opts, f"seed {opts.seed}, {opts.clients} clients")
        base = self.baseline or {"rss": self.start_rss, "fds": self.start_fds, "hwm": -1}
        print(f"seed {opts.seed}; {len(indices)} clients ({self.stats['heavy clients']} heavy), {self.stats['messages']} messages "
              f"({self.stats['bytes']} bytes) in {time.time() - started:.0f} s; sessions started: {self.stats['sessions started']}")
        print(f"clients ended by a protocol error: {self.stats['clients ended by a protocol error']}; ended otherwise: "
              f"{self.stats['clients ended otherwise (hang-up without an error)']}; closed their own connection: "
              f"{self.stats['clients that closed their own connection']}")
        for key, n in sorted(self.errors_by_interface.items(), key=lambda kv: -kv[1]):
            print(f"    {n:5d} x {key}: e.g. {self.error_samples[key]}")
        for key, n in sorted(self.stats.items()):
            if key.startswith(("malformed", "hang-up", "inputs", "protocol errors")):
                print(f"    {key}: {n}")
        print(f"wev: " + ", ".join(f"{k} {got}/{want}" for k, (want, got) in counts.items()))
        print(f"RSS before {base['rss']} kB (at start {self.start_rss} kB), after {rss_after} kB, peak {hwm} kB; "
              f"fds before {base['fds']} (at start {self.start_fds}), after {fds_after}; slowest `tree` after a client {self.max_stall:.2f} s")
        if self.failures:
            print("failed clients: " + ", ".join(f"{i} ({k})" for i, k, _ in self.failures[:40]))
            print(f"replay one with: python3 Tests/Fuzz/wire-fuzz.py {opts.binary} --seed {opts.seed} --only-client K "
                  f"--messages {opts.messages} --heavy-every {opts.heavy_every}")
        failed = len(self.failures) + len(end_failures)
        self.session.stop()
        print(f"wire-fuzz: {self.passed} passed, {failed} failed", flush=True)
        return 1 if failed else 0


class FuzzFailure(Exception):
    def __init__(self, kind, text):
        super().__init__(text)
        self.kind = kind


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary", nargs="?", default=".build/debug/touch-router")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--kiosk", action="store_true", help="fuzz a --kiosk session, which alone offers the decoration globals")
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--messages", type=int, default=300, help="most messages one ordinary client sends (default 300)")
    parser.add_argument("--only-client", type=int, help="replay this one client (its index) on a fresh session")
    parser.add_argument("--heavy-every", type=int, default=40, help="every Nth client is heavy: deep subsurface chains, huge "
                        "buffers, regions of 20,000 rects (0: none; default 40)")
    parser.add_argument("--heavy-messages", type=int, default=25000, help="message budget of a heavy client (default 25000)")
    parser.add_argument("--malformed-rate", type=float, default=0.35, help="share of clients that end with a malformed message")
    parser.add_argument("--tap-every", type=int, default=1, help="inject a tap and a key at wev after every Nth client")
    parser.add_argument("--warmup", type=int, default=20, help="clients before RSS and descriptors are measured (default 20)")
    parser.add_argument("--rss-slack-kb", type=int, default=16384, help="allowed RSS growth after the warm-up (default 16 MiB)")
    parser.add_argument("--rss-peak-mb", type=int, default=512, help="RSS above the warm baseline that fails a client at once (default 512)")
    parser.add_argument("--fd-slack", type=int, default=0, help="allowed growth of open descriptors (default 0)")
    parser.add_argument("--stall", type=float, default=30, help="seconds `tree` may take before the session counts as hung")
    parser.add_argument("--slow", type=float, default=5, help="seconds `tree` may take after a client before that is a failure")
    parser.add_argument("--hang-wait", type=float, default=120, help="seconds to wait for a hung session to answer again")
    parser.add_argument("--error-wait", type=float, default=1, help="seconds a malformed client waits for the server to end it")
    parser.add_argument("--skip-known-positioner-crash", action="store_true", help="keep positioner coordinates within +-2^30 "
                        "(a temporary work-around for the known Int32 trap; off by default)")
    parser.add_argument("--findings", default="/tmp/wire-findings.md", help="append each failure here ('' for none)")
    parser.add_argument("--show-last", type=int, default=25, help="requests shown for a failed client")
    parser.add_argument("--stop-on-failure", action="store_true")
    parser.add_argument("--progress", type=int, default=50, help="print a progress line every N clients (0: never)")
    parser.add_argument("--keep", action="store_true", help="keep the private XDG_RUNTIME_DIR (session stderr, wev log)")
    opts = parser.parse_args()
    return run_tool("wire-fuzz", opts.binary, lambda: Run(opts).main())


if __name__ == "__main__":
    sys.exit(main())
