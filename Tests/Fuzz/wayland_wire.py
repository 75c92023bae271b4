"""Shared pieces of the wire-protocol fuzzer, the client-death soak and the regression cases
(Python 3, standard library only):

- the protocol descriptions, read from /usr/share/wayland/wayland.xml and the repository's
  protocols/xdg-shell.xml and protocols/touch-router-input-v1.xml, so requests are encoded
  from their real signatures;
- `Session`: a real `touch-router run` with its own private XDG_RUNTIME_DIR, its control
  socket (one request a connection, as `touch-router msg` speaks it), wev beside it, and the
  session's RSS and open descriptors from /proc;
- `Client`: a Wayland client on the raw wire that keeps a log of what it sent and reads the
  server's events (wl_display.error and delete_id included) without ever blocking for long.
"""
import array
import collections
import json
import os
import select
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import sys
import time
import traceback
import xml.etree.ElementTree as ET
import ctypes

try:
    _libc = ctypes.CDLL(None, use_errno=True)
except OSError:
    _libc = None


def _die_with_parent():
    # PR_SET_PDEATHSIG: the session and wev end when the script dies, however it dies.
    if _libc is not None:
        _libc.prctl(1, signal.SIGTERM, 0, 0, 0)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
PROTOCOL_FILES = ["/usr/share/wayland/wayland.xml"] + [os.path.join(REPO, "protocols", name + ".xml") for name in (
    "xdg-shell", "touch-router-input-v1",
    # The protocols with rooms of their own (Sources/TouchRouterProtocols/).
    "xdg-decoration-unstable-v1", "server-decoration", "viewporter", "presentation-time", "fractional-scale-v1",
    "xdg-activation-v1", "single-pixel-buffer-v1", "idle-inhibit-unstable-v1", "idle", "ext-idle-notify-v1", "ext-session-lock-v1",
    # Privileged: only the cases whose session grants it bind it.
    "wlr-layer-shell-unstable-v1")]

# ---------------------------------------------------------------------------------------------
# Protocol descriptions


class Arg:
    __slots__ = ("name", "type", "interface", "enum", "allow_null")

    def __init__(self, element):
        self.name = element.get("name")
        self.type = element.get("type")
        self.interface = element.get("interface")
        self.enum = element.get("enum")
        self.allow_null = element.get("allow-null") == "true"


class Message:
    __slots__ = ("name", "opcode", "since", "args", "destructor")

    def __init__(self, element, opcode):
        self.name = element.get("name")
        self.opcode = opcode
        self.since = int(element.get("since", "1"))
        self.args = [Arg(a) for a in element.findall("arg")]
        self.destructor = element.get("type") == "destructor"


class Interface:
    def __init__(self, element):
        self.name = element.get("name")
        self.version = int(element.get("version"))
        self.requests = [Message(e, i) for i, e in enumerate(element.findall("request"))]
        self.events = [Message(e, i) for i, e in enumerate(element.findall("event"))]
        self.enums = {}
        for e in element.findall("enum"):
            self.enums[e.get("name")] = {entry.get("name"): int(entry.get("value"), 0) for entry in e.findall("entry")}

    def request(self, name):
        for m in self.requests:
            if m.name == name:
                return m
        raise KeyError(f"{self.name}.{name}")


def load_protocols(files=PROTOCOL_FILES):
    interfaces = {}
    for path in files:
        for element in ET.parse(path).getroot().findall("interface"):
            interfaces[element.get("name")] = Interface(element)
    return interfaces


PROTOCOLS = load_protocols()


def enum_values(interface_name, enum_ref):
    """The values of an enum named in an arg ("wl_output.transform" or "anchor")."""
    if "." in enum_ref:
        interface_name, enum_ref = enum_ref.split(".", 1)
    interface = PROTOCOLS.get(interface_name)
    if interface is None or enum_ref not in interface.enums:
        return []
    return list(interface.enums[enum_ref].values())


# ---------------------------------------------------------------------------------------------
# Encoding

def wl_string(text):
    if text is None:
        return struct.pack("<I", 0)
    data = (text.encode() if isinstance(text, str) else text) + b"\0"
    return struct.pack("<I", len(data)) + data + b"\0" * (-len(data) % 4)


def wl_array(data):
    return struct.pack("<I", len(data)) + data + b"\0" * (-len(data) % 4)


def u32(value):
    return struct.pack("<I", value & 0xFFFFFFFF)


def i32(value):
    return struct.pack("<I", value & 0xFFFFFFFF)


def decode_string(payload, offset):
    (length,) = struct.unpack_from("<I", payload, offset)
    text = payload[offset + 4:offset + 4 + max(length - 1, 0)].decode(errors="replace")
    return text, offset + 4 + length + (-length % 4)


# ---------------------------------------------------------------------------------------------
# The session


class SessionDied(Exception):
    pass


class SessionHung(Exception):
    pass


class Session:
    def __init__(self, binary, args=(), wev=True, keep_runtime=False):
        self.binary = os.path.abspath(binary)
        self.runtime = tempfile.mkdtemp(prefix="tr-fuzz-")
        self.keep_runtime = keep_runtime
        self.stderr_path = os.path.join(self.runtime, "session.stderr")
        env = dict(os.environ, XDG_RUNTIME_DIR=self.runtime)
        env.pop("WAYLAND_DISPLAY", None)
        env.pop("TOUCH_ROUTER_SOCKET", None)
        self.env = env
        self._stderr = open(self.stderr_path, "wb")
        self.proc = subprocess.Popen([self.binary, "run", *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=self._stderr, env=env, preexec_fn=_die_with_parent)
        self.pid = self.proc.pid
        self.display = self.control = None
        deadline = time.time() + 60
        while (self.display is None or self.control is None) and time.time() < deadline:
            line = self.proc.stdout.readline().decode()
            if not line:
                break
            if line.startswith("WAYLAND_DISPLAY="):
                self.display = line.strip().split("=", 1)[1]
            elif line.startswith("TOUCH_ROUTER_SOCKET="):
                self.control = line.strip().split("=", 1)[1]
        if self.display is None or self.control is None:
            raise SessionDied("the session did not print WAYLAND_DISPLAY and TOUCH_ROUTER_SOCKET:\n" + self.stderr_tail())
        self.wayland_path = os.path.join(self.runtime, self.display)
        self.wev = None
        self.wev_log = os.path.join(self.runtime, "wev.log")
        if wev:
            self.start_wev()

    # -- control socket ---------------------------------------------------------------------
    def request(self, *words, timeout=30.0):
        """One control request, as `touch-router msg WORDS...` sends it; the parsed JSON reply."""
        if self.proc.poll() is not None:
            raise SessionDied(f"the session exited with status {self.proc.returncode}")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        data = b""
        started = time.time()
        try:
            sock.connect(self.control)
            sock.sendall((" ".join(str(w) for w in words) + "\n").encode())
            while not data.endswith(b"\n"):
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
        except socket.timeout:
            if self.proc.poll() is not None:
                raise SessionDied(f"the session exited with status {self.proc.returncode}")
            raise SessionHung(f"no reply to {' '.join(map(str, words))!r} within {timeout:.0f} s")
        except (ConnectionError, FileNotFoundError) as error:
            if self.proc.poll() is None:
                time.sleep(0.2)
            if self.proc.poll() is not None:
                raise SessionDied(f"the session exited with status {self.proc.returncode}")
            raise SessionDied(f"the control socket failed: {error}")
        finally:
            sock.close()
        self.last_latency = time.time() - started
        if not data:
            if self.proc.poll() is not None or (time.sleep(0.2) or self.proc.poll() is not None):
                raise SessionDied(f"the session exited with status {self.proc.returncode}")
            raise SessionDied(f"empty reply to {' '.join(map(str, words))!r}")
        return json.loads(data)

    def msg_command(self, *words, timeout=30.0):
        """The same request through the `touch-router msg` command itself."""
        run = subprocess.run([self.binary, "msg", "--socket", self.control, *map(str, words)], capture_output=True,
                             timeout=timeout, env=self.env)
        return json.loads(run.stdout or b"{}")

    def inject(self, event):
        reply = self.request("inject", *event.split())
        if not reply.get("ok"):
            raise RuntimeError(f"inject {event!r}: {reply}")
        return reply

    def tree(self, timeout=30.0):
        return self.request("tree", timeout=timeout)

    def toplevels(self):
        return [t for o in self.tree()["outputs"] for t in o["toplevels"]]

    def focus(self):
        return self.request("focus")

    def pick(self, x, y):
        return self.request("pick", x, y)

    # -- process figures ----------------------------------------------------------------------
    def alive(self):
        return self.proc.poll() is None

    def status_kb(self, field):
        try:
            with open(f"/proc/{self.pid}/status") as f:
                for line in f:
                    if line.startswith(field + ":"):
                        return int(line.split()[1])
        except OSError:
            pass
        return -1

    def rss_kb(self):
        return self.status_kb("VmRSS")

    def hwm_kb(self):
        return self.status_kb("VmHWM")

    def fd_count(self):
        try:
            return len(os.listdir(f"/proc/{self.pid}/fd"))
        except OSError:
            return -1

    def stderr_tail(self, limit=4000):
        try:
            with open(self.stderr_path, "rb") as f:
                data = f.read()
            return data[-limit:].decode(errors="replace")
        except OSError:
            return ""

    def crash_summary(self, frames=14):
        """The first lines of a Swift crash report (its message and the top frames), or the stderr tail."""
        try:
            with open(self.stderr_path, "rb") as f:
                text = f.read().decode(errors="replace")
        except OSError:
            return ""
        lines = text.splitlines()
        for i, line in enumerate(lines):
            if "Fatal error" in line or "Crash" in line or "💣" in line or "fatal" in line.lower():
                picked = [l for l in lines[max(0, i - 2):] if l.strip()][:frames + 6]
                return "\n".join(picked)
        return "\n".join(lines[-frames:])

    # -- wev ----------------------------------------------------------------------------------
    def start_wev(self):
        env = dict(self.env, WAYLAND_DISPLAY=self.display)
        self._wev_out = open(self.wev_log, "wb")
        self.wev = subprocess.Popen(["stdbuf", "-oL", "wev"], stdin=subprocess.DEVNULL, stdout=self._wev_out,
                                    stderr=subprocess.STDOUT, env=env, preexec_fn=_die_with_parent)
        deadline = time.time() + 30
        while time.time() < deadline:
            tops = [t for t in self.toplevels() if t.get("mapped") and "wev" in (t.get("label") or "")]
            if tops:
                self.wev_surface = tops[0]["id"]
                self.wev_client = tops[0]["client"]
                return
            time.sleep(0.05)
        raise SessionDied("wev did not map a toplevel within 30 s")

    def wev_text(self):
        with open(self.wev_log, "rb") as f:
            return f.read().decode(errors="replace")

    def wev_counts(self):
        text = self.wev_text()
        buttons = [line for line in text.splitlines() if "wl_pointer] button:" in line]
        return {"touch down": text.count("wl_touch] down:"), "touch up": text.count("wl_touch] up:"),
                "key": text.count("wl_keyboard] key:"), "button press": sum("(pressed)" in line for line in buttons),
                "button release": sum("(released)" in line for line in buttons)}

    def wev_window(self):
        for t in self.toplevels():
            if t["id"] == self.wev_surface:
                return t
        return None

    def wev_point(self, candidates=None):
        """A layout point where `pick` answers wev's own surface, or None."""
        window = self.wev_window()
        if window is None:
            return None
        (x, y), (w, h) = window["position"], window["size"]
        points = candidates or [(x + w // 2, y + h // 2), (x + 10, y + 10), (x + w - 10, y + h - 10),
                                (x + 10, y + h - 10), (x + w - 10, y + 10), (x + 5, y + 5)]
        for px, py in points:
            surface = self.pick(px, py).get("surface")
            if surface and surface["id"] == self.wev_surface:
                return px, py
        return None

    # -- the end --------------------------------------------------------------------------------
    def stop(self):
        for proc in (self.wev, self.proc):
            if proc is not None and proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in (self.wev, self.proc):
            if proc is not None:
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        try:
            self.proc.stdout.close()
        except OSError:
            pass
        self._stderr.close()
        if self.wev is not None:
            self._wev_out.close()
        if not self.keep_runtime:
            shutil.rmtree(self.runtime, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# A client on the raw wire


class Client:
    """Tracks its objects (id -> (interface, version)), the last requests it sent, and how it
    ended: `error` (object, code, message) from wl_display.error, or `eof` without one."""

    def __init__(self, session_or_path, log_size=40):
        path = session_or_path.wayland_path if isinstance(session_or_path, Session) else session_or_path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.sock.setblocking(False)
        self.next_id = 2
        self.objects = {1: ("wl_display", 1)}
        self.ever = {1: "wl_display"}  # every id this client ever made, with its interface
        self.inbuf = b""
        self.globals = {}  # interface -> (name, version)
        self.error = None
        self.eof = False
        self.log = collections.deque(maxlen=log_size)
        self.sent_messages = 0
        self.sent_bytes = 0
        self.events = collections.deque(maxlen=4096)
        self.configures = {}  # xdg_surface id -> last serial
        self.callbacks_done = set()
        self.registry = None
        self.handlers = []
        self.pending = b""
        self.stall_limit = 30.0  # seconds in all that the server may leave us unable to send
        self.blocked = 0.0
        self.stalled = False

    @property
    def dead(self):
        return self.error is not None or self.eof

    def new_id(self, interface=None, version=1):
        obj = self.next_id
        self.next_id += 1
        if interface is not None:
            self.objects[obj] = (interface, version)
            self.ever[obj] = interface
        return obj

    def fileno(self):
        return self.sock.fileno()

    # -- sending ----------------------------------------------------------------------------------
    def send_raw(self, data, fds=(), note=None):
        if self.dead:
            return False
        self.log.append(note or f"raw {data[:64].hex()}{'...' if len(data) > 64 else ''}" + (f" fds={len(fds)}" if fds else ""))
        self.sent_messages += 1
        self.sent_bytes += len(data)
        ancillary = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))] if fds else []
        view = memoryview(data)
        first = True
        while view or first:
            try:
                if first:
                    n = self.sock.sendmsg([view], ancillary)
                else:
                    n = self.sock.send(view)
                first = False
                view = view[n:]
            except BlockingIOError:
                # The server is not reading us: read its events (it may be writing an error).
                t0 = time.time()
                self.pump(0.05)
                self.blocked += time.time() - t0
                if self.dead:
                    return False
                if self.blocked > self.stall_limit:
                    self.eof = self.stalled = True
                    self.log.append(f"(gave up: the server left this client unable to send for {self.blocked:.0f} s)")
                    return False
            except (BrokenPipeError, ConnectionResetError):
                self.pump(0.5)
                self.eof = self.eof or self.error is None
                return False
        return True

    def send(self, obj, opcode, payload=b"", fds=(), note=None):
        header = struct.pack("<II", obj, ((8 + len(payload)) << 16) | opcode)
        if note is None:
            iface = self.objects.get(obj, ("?", 0))[0]
            note = f"{iface}@{obj} opcode {opcode} {payload.hex()}"
        return self.send_raw(header + payload, fds, note)

    # -- receiving --------------------------------------------------------------------------------
    def pump(self, timeout=0.0):
        """Reads what the server sent within `timeout` seconds and handles each event."""
        if self.eof:
            return
        end = time.time() + timeout
        while True:
            remaining = max(0.0, end - time.time())
            ready, _, _ = select.select([self.sock], [], [], remaining)
            if not ready:
                return
            try:
                data, ancdata, _, _ = self.sock.recvmsg(262144, socket.CMSG_SPACE(28 * 4))
            except BlockingIOError:
                continue
            except (ConnectionResetError, OSError):
                self.eof = True
                return
            for level, kind, fddata in ancdata:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    fds = array.array("i")
                    fds.frombytes(fddata[:len(fddata) - len(fddata) % 4])
                    for fd in fds:
                        os.close(fd)
            if not data:
                self.eof = True
                return
            self.inbuf += data
            self._parse()
            if self.error is not None:
                return
            end = 0  # Something came: drain what else is there without waiting.

    def _parse(self):
        while len(self.inbuf) >= 8:
            obj, word = struct.unpack_from("<II", self.inbuf)
            size = word >> 16
            if size < 8 or len(self.inbuf) < size:
                return
            payload = self.inbuf[8:size]
            self.inbuf = self.inbuf[size:]
            self.handle(obj, word & 0xFFFF, payload)

    def handle(self, obj, opcode, payload):
        self.events.append((obj, opcode, len(payload)))
        iface = self.objects.get(obj, (None,))[0]
        if obj == 1 and opcode == 0:
            eobj, code = struct.unpack_from("<II", payload)
            message, _ = decode_string(payload, 8)
            self.error = (eobj, code, message)
        elif obj == 1 and opcode == 1:
            (gone,) = struct.unpack_from("<I", payload)
            self.objects.pop(gone, None)
        elif obj == self.registry and opcode == 0:
            name, = struct.unpack_from("<I", payload)
            interface, offset = decode_string(payload, 4)
            (version,) = struct.unpack_from("<I", payload, offset)
            self.globals[interface] = (name, version)
        elif iface == "wl_callback" and opcode == 0:
            self.callbacks_done.add(obj)
            self.objects.pop(obj, None)
        elif iface == "xdg_surface" and opcode == 0:
            self.configures[obj] = struct.unpack_from("<I", payload)[0]
        elif iface == "xdg_wm_base" and opcode == 0:
            # ping: answer at once, as every client must.
            self.send(obj, 3, payload[:4], note=f"xdg_wm_base@{obj}.pong")
        for handler in self.handlers:
            handler(obj, opcode, payload)

    def roundtrip(self, timeout=10.0):
        """wl_display.sync and wait for its done; False when the client ended or the time ran out."""
        callback = self.new_id("wl_callback")
        if not self.send(1, 0, u32(callback), note=f"wl_display@1.sync(new wl_callback@{callback})"):
            return False
        end = time.time() + timeout
        while callback not in self.callbacks_done and not self.dead and time.time() < end:
            self.pump(min(0.1, max(0.0, end - time.time())))
        return callback in self.callbacks_done

    def wait_end(self, timeout=5.0):
        """Reads until the server ends the client (error or EOF) or the time runs out."""
        end = time.time() + timeout
        while not self.dead and time.time() < end:
            self.pump(min(0.1, max(0.0, end - time.time())))
        return self.dead

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    # -- conveniences -------------------------------------------------------------------------------
    def get_registry(self):
        self.registry = self.new_id("wl_registry")
        self.send(1, 1, u32(self.registry), note=f"wl_display@1.get_registry(new wl_registry@{self.registry})")
        self.roundtrip()
        return self.registry

    def bind(self, interface, version=None, name=None, obj=None, note=None):
        gname, gversion = self.globals.get(interface, (0, 1))
        version = gversion if version is None else version
        obj = self.new_id(interface, version) if obj is None else obj
        payload = u32(gname if name is None else name) + wl_string(interface) + u32(version) + u32(obj)
        self.send(self.registry, 0, payload, note=note or f"wl_registry@{self.registry}.bind({gname if name is None else name}, {interface!r}, v{version}, new {obj})")
        return obj

    def request(self, obj, name, *values, fds=()):
        """Encodes a request by its signature. new_id values may be None (a fresh id is taken)."""
        iface_name, version = self.objects[obj]
        message = PROTOCOLS[iface_name].request(name)
        payload = b""
        shown = []
        created = None
        values = list(values)
        for arg in message.args:
            if arg.type == "fd":
                shown.append("fd")
                continue
            value = values.pop(0)
            if arg.type in ("int", "fixed"):
                payload += i32(value)
            elif arg.type == "uint":
                payload += u32(value)
            elif arg.type == "object":
                payload += u32(value or 0)
            elif arg.type == "new_id":
                if value is None:
                    value = self.new_id(arg.interface, version if arg.interface and _versioned_with_parent(arg.interface) else 1)
                created = value
                payload += u32(value)
            elif arg.type == "string":
                payload += wl_string(value)
            elif arg.type == "array":
                payload += wl_array(value)
            shown.append(f"{arg.name}={value!r}" if arg.type != "array" else f"{arg.name}=<{len(value)} bytes>")
        self.send(obj, message.opcode, payload, fds, note=f"{iface_name}@{obj}.{name}({', '.join(shown)})")
        if message.destructor:
            self.objects.pop(obj, None)
        return created


def _versioned_with_parent(interface):
    # Objects made by a request take the version of the object that made them.
    return True


def memfd(size, name="wire-fuzz"):
    fd = os.memfd_create(name, os.MFD_CLOEXEC)
    os.ftruncate(fd, size)
    return fd


def shm_buffer(client, shm, width, height, stride=None, fmt=0, pool_size=None):
    """A buffer in a fresh pool (pool destroyed, fd closed at once)."""
    stride = width * 4 if stride is None else stride
    size = pool_size if pool_size is not None else max(stride * height, 1)
    fd = memfd(size)
    pool = client.request(shm, "create_pool", None, size, fds=[fd])
    buffer = client.request(pool, "create_buffer", None, 0, width, height, stride, fmt)
    client.request(pool, "destroy")
    os.close(fd)
    return buffer


def connect(session, binds=("wl_compositor", "wl_subcompositor", "wl_shm", "xdg_wm_base", "wl_seat")):
    client = Client(session)
    client.get_registry()
    bound = {}
    for interface in binds:
        bound[interface] = client.bind(interface)
    return client, bound


def map_toplevel(client, b, width=100, height=100, title="fuzz"):
    """A toplevel with a buffer, mapped (commit, configure, ack, attach, commit)."""
    surface = client.request(b["wl_compositor"], "create_surface", None)
    xdg = client.request(b["xdg_wm_base"], "get_xdg_surface", None, surface)
    toplevel = client.request(xdg, "get_toplevel", None)
    client.request(toplevel, "set_title", title)
    client.request(surface, "commit")
    client.roundtrip()
    if xdg in client.configures:
        client.request(xdg, "ack_configure", client.configures[xdg])
    client.request(surface, "attach", shm_buffer(client, b["wl_shm"], width, height), 0, 0)
    client.request(surface, "damage", 0, 0, width, height)
    client.request(surface, "commit")
    return surface, xdg, toplevel


def map_popup(client, b, parent_xdg, width, height, anchor_rect=(0, 0, 1, 1), anchor=None, gravity=None, grab=False):
    """A popup of the toplevel or popup `parent_xdg`, with a buffer, mapped (positioner,
    commit, configure, ack, attach, commit); with `grab` it asks for a popup grab first."""
    positioner = client.request(b["xdg_wm_base"], "create_positioner", None)
    client.request(positioner, "set_size", width, height)
    client.request(positioner, "set_anchor_rect", *anchor_rect)
    if anchor is not None:
        client.request(positioner, "set_anchor", anchor)
    if gravity is not None:
        client.request(positioner, "set_gravity", gravity)
    surface = client.request(b["wl_compositor"], "create_surface", None)
    xdg = client.request(b["xdg_wm_base"], "get_xdg_surface", None, surface)
    popup = client.request(xdg, "get_popup", None, parent_xdg, positioner)
    if grab:
        client.request(popup, "grab", b["wl_seat"], 0)
    client.request(surface, "commit")
    client.roundtrip()
    if xdg in client.configures:
        client.request(xdg, "ack_configure", client.configures[xdg])
    client.request(surface, "attach", shm_buffer(client, b["wl_shm"], width, height), 0, 0)
    client.request(surface, "commit")
    return surface, xdg, popup


def find_client_toplevel(session, exclude_clients, label=None):
    for t in session.toplevels():
        if t["client"] not in exclude_clients and (label is None or t.get("label") == label or label in (t.get("label") or "")):
            return t
    return None


def subtree_ids(node):
    ids = [node["id"]]
    for child in node.get("children", []):
        ids.extend(subtree_ids(child))
    return ids


def all_surface_ids(tree):
    ids = set()
    for output in tree["outputs"]:
        for t in output["toplevels"]:
            ids.update(subtree_ids(t))
    return ids


def append_finding(path, text):
    with open(path, "a") as f:
        f.write(text.rstrip() + "\n\n")


def resource_growth(session, base, opts):
    """The session's RSS, open descriptors and peak RSS now, and what grew past `base` (a
    dict with "rss" and "fds") by more than the run's slack."""
    rss, fds, hwm = session.rss_kb(), session.fd_count(), session.hwm_kb()
    grew = []
    if rss > base["rss"] + opts.rss_slack_kb:
        grew.append(f"RSS grew from {base['rss']} kB to {rss} kB (slack {opts.rss_slack_kb} kB)")
    if fds > base["fds"] + opts.fd_slack:
        grew.append(f"open descriptors grew from {base['fds']} to {fds} (slack {opts.fd_slack})")
    return rss, fds, hwm, grew


def report_end_failures(tool, failures, opts, context):
    """Prints each failure of a run's end check, and keeps it in the findings file."""
    for text in failures:
        print(f"{tool}: FAILED at the end: {text} (seed {opts.seed})", flush=True)
        if opts.findings:
            append_finding(opts.findings, f"{time.strftime('%H:%M:%S')} ## {tool} end check ({context}): {text}")


def run_tool(tool, binary, run):
    """A run's main: its closing line ("TOOL: N passed, M failed") is printed even when
    the binary is missing or the run itself breaks."""
    if not os.access(binary, os.X_OK):
        print(f"{tool}: {binary} is not an executable", file=sys.stderr)
        print(f"{tool}: 0 passed, 1 failed")
        return 2
    try:
        return run()
    except Exception:
        traceback.print_exc()
        print(f"{tool}: 0 passed, 1 failed")
        return 2
