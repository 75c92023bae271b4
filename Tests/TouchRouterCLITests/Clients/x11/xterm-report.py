#!/usr/bin/python3
"""Runs inside xterm (xterm -e): turns on xterm's mouse reporting (SGR mode) and prints to
the log given as argv[1] "ready", then "press COL ROW" for each button press xterm reports
(a touch, emulated as a pointer press by Xwayland) and "typed TEXT" for each line typed."""
import os
import sys
import termios
import tty

log = open(sys.argv[1], "a", buffering=1)
fd = sys.stdin.fileno()
tty.setraw(fd)
# 1000: report presses and releases; 1006: in SGR form, ESC [ < b ; col ; row M.
sys.stdout.write("\x1b[?1000h\x1b[?1006h")
sys.stdout.flush()
log.write("ready\n")
pending = b""
line = b""
while True:
    chunk = os.read(fd, 256)
    if not chunk:
        break
    pending += chunk
    while pending:
        if pending.startswith(b"\x1b[<"):
            end = min([i for i in (pending.find(b"M"), pending.find(b"m")) if i >= 0], default=-1)
            if end < 0:
                break
            button, col, row = pending[3:end].split(b";")
            if pending[end:end + 1] == b"M":
                log.write("press %d %d button %d\n" % (int(col), int(row), int(button)))
            pending = pending[end + 1:]
        elif pending[:1] in (b"\r", b"\n"):
            log.write("typed %s\n" % line.decode("utf-8", "replace"))
            line = b""
            pending = pending[1:]
        elif pending[:1] == b"\x1b" and len(pending) < 3:
            break
        else:
            line += pending[:1]
            pending = pending[1:]
