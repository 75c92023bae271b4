#!/usr/bin/env python3
"""Writes the seed corpus of the FuzzProtocol target (Sources/Fuzz/FuzzProtocol): small
programs in its input language, each a client doing one ordinary thing. Run from the
package root; it rewrites Tests/Fuzz/corpus/FuzzProtocol/seed-*.

Assumes the globals in the order WaylandServer.start() creates them, bound by the
target's prologue as ids 3..9: wl_shm, wl_compositor, wl_subcompositor, xdg_wm_base,
wl_seat, wl_data_device_manager, wl_output (display 1, registry 2)."""
import os
import struct

SHM, COMPOSITOR, SUBCOMPOSITOR, WM_BASE, SEAT, DDM, OUTPUT = 3, 4, 5, 6, 7, 8, 9
LAST_SERIAL = [0xF8]


def val(v):
    if -16 <= v <= 111:
        return [v + 16]
    if v % 32 == 0 and 0 <= v <= 3552:
        return [0x80 + v // 32]
    return [0xF0] + list(struct.pack("<i", v))


class Client:
    def __init__(self):
        self.next = 10
        self.kinds = {1: "display", 2: "registry", SHM: "shm", COMPOSITOR: "compositor",
                      SUBCOMPOSITOR: "subcompositor", WM_BASE: "wm_base", SEAT: "seat", DDM: "ddm", OUTPUT: "output"}
        self.out = []

    def new(self, kind):
        self.kinds[self.next] = kind
        self.next += 1
        return self.next - 1

    def index(self, oid):
        return sorted(self.kinds).index(oid)

    def obj(self, oid):
        """An 'o' argument: its index among the live objects of its kind."""
        same = [i for i in sorted(self.kinds) if self.kinds[i] == self.kinds[oid]]
        return [same.index(oid)]

    def req(self, oid, opcode, *args):
        self.out += [0x00, self.index(oid), opcode]
        for a in args:
            self.out += a

    def act(self, n, *args):
        self.out += [0xD0 + n]
        for a in args:
            self.out += a

    def coord(self, v):
        return val(v) + [0]

    def surface(self):
        return self._new_then("surface", COMPOSITOR, 0)

    def _new_then(self, kind, oid, opcode, *args):
        nid = self.new(kind)
        self.req(oid, opcode, *args)
        return nid

    def toplevel(self, w=100, h=100, pool_choice=5):
        s = self.surface()
        xs = self.new("xdg_surface"); self.req(WM_BASE, 2, self.obj(s))
        top = self.new("toplevel"); self.req(xs, 1)
        self.req(s, 6)  # commit, the initial one
        self.req(xs, 4, LAST_SERIAL)  # ack_configure
        buf = self.buffer(w, h, pool_choice)
        self.req(s, 1, self.obj(buf), val(0), val(0))  # attach
        self.req(s, 2, val(0), val(0), val(w), val(h))  # damage
        self.req(s, 6)
        return s, xs, top, buf

    def buffer(self, w, h, pool_choice=5):
        pool = self.new("pool"); self.req(SHM, 0, [pool_choice], val(w * h * 4))
        buf = self.new("buffer"); self.req(pool, 0, val(0), val(w), val(h), val(w * 4), val(0))
        return buf

    def devices(self):
        self.new("pointer"); self.req(SEAT, 0)
        self.new("keyboard"); self.req(SEAT, 1)
        self.new("touch"); self.req(SEAT, 2)

    def tap(self, x, y, finger=0):
        self.act(0, [finger], self.coord(x), self.coord(y)); self.act(3)
        self.act(2, [finger]); self.act(3)


def seeds():
    c = Client(); c.devices(); s, xs, top, buf = c.toplevel()
    c.tap(50, 50); c.act(4, c.coord(20), c.coord(20)); c.act(5, [0], [0]); c.act(5, [0], [1]); c.act(6, [30], [0]); c.act(6, [30], [1])
    yield "toplevel-touch-pointer-key", c.out

    c = Client(); c.devices(); s, xs, top, buf = c.toplevel()
    child = c.surface()
    sub = c.new("subsurface"); c.req(SUBCOMPOSITOR, 1, c.obj(child), c.obj(s))
    c.req(sub, 1, val(10), val(10))  # set_position
    b2 = c.buffer(20, 20, 4); c.req(child, 1, c.obj(b2), val(0), val(0)); c.req(child, 6)
    c.req(sub, 3, c.obj(s))  # place_below parent
    c.req(s, 6); c.tap(15, 15); c.req(sub, 5); c.req(sub, 0)  # desync, destroy
    yield "subsurface", c.out

    c = Client(); c.devices(); s, xs, top, buf = c.toplevel()
    pos = c.new("positioner"); c.req(WM_BASE, 1)
    c.req(pos, 1, val(40), val(30))  # set_size
    c.req(pos, 2, val(0), val(0), val(10), val(10))  # set_anchor_rect
    c.req(pos, 3, val(8)); c.req(pos, 4, val(8)); c.req(pos, 6, val(3), val(4))  # anchor, gravity, offset
    ps = c.surface(); pxs = c.new("xdg_surface"); c.req(WM_BASE, 2, c.obj(ps))
    popup = c.new("popup"); c.req(pxs, 2, c.obj(xs), c.obj(pos))
    c.act(0, [0], c.coord(5), c.coord(5)); c.act(3)
    c.req(popup, 1, c.obj(SEAT), LAST_SERIAL)  # grab
    c.req(ps, 6); c.req(pxs, 4, LAST_SERIAL)
    b2 = c.buffer(40, 30, 4); c.req(ps, 1, c.obj(b2), val(0), val(0)); c.req(ps, 6)
    c.act(2, [0]); c.act(3); c.tap(500, 500, 1)
    yield "popup-grab", c.out

    c = Client(); s, xs, top, buf = c.toplevel()
    region = c.new("region"); c.req(COMPOSITOR, 1)
    c.req(region, 1, val(0), val(0), val(64), val(64)); c.req(region, 1, val(32), val(32), val(64), val(64))
    c.req(region, 2, val(8), val(8), val(8), val(8))
    c.req(s, 5, c.obj(region)); c.req(s, 4, c.obj(region)); c.req(s, 6); c.req(region, 0)
    c.devices(); c.tap(40, 40); c.tap(90, 90)
    yield "input-region", c.out

    c = Client(); c.devices(); s, xs, top, buf = c.toplevel()
    c.req(top, 2, [5] + list(b"title")); c.req(top, 3, [4] + list(b"fuzz"))
    c.req(top, 7, val(640), val(480)); c.req(top, 8, val(32), val(32)); c.req(top, 9); c.req(top, 11, [0xFF])
    c.req(xs, 3, val(-8), val(-8), val(116), val(116))  # set_window_geometry
    c.act(8, [0], val(300), val(200))  # placeWindow
    c.req(s, 6); c.tap(320, 220)
    c.req(top, 0); c.req(xs, 0); c.req(s, 0)
    yield "toplevel-requests-destroy", c.out

    c = Client(); c.devices(); s, xs, top, buf = c.toplevel()
    cb = c.new("callback"); c.req(s, 3); c.req(s, 6); c.act(11)
    c.req(WM_BASE, 3, LAST_SERIAL)  # pong
    dd = c.new("data_device"); c.req(DDM, 1, c.obj(SEAT))
    src = c.new("data_source"); c.req(DDM, 0); c.req(src, 0, [10] + list(b"text/plain"))
    yield "frame-callback-data-device", c.out

    c = Client(); s, xs, top, buf = c.toplevel()
    pool = c.new("pool"); c.req(SHM, 0, [1], val(4096))  # pool larger than its 4-byte memfd
    b = c.new("buffer"); c.req(pool, 0, val(0), val(16), val(16), val(64), val(0))
    c.req(s, 1, c.obj(b), val(0), val(0)); c.req(s, 6); c.req(pool, 2, val(8192))
    c.out += [0xE8 + 2, c.index(s), 0, 0]  # a broken message: size past what follows
    yield "short-pool-then-broken", c.out


if __name__ == "__main__":
    directory = "Tests/Fuzz/corpus/FuzzProtocol"
    os.makedirs(directory, exist_ok=True)
    for name, data in seeds():
        with open(os.path.join(directory, f"seed-{name}"), "wb") as f:
            f.write(bytes(data))
