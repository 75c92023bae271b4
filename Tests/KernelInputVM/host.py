#!/usr/bin/env python3
"""The host's side of a VM scenario (run.sh): reads the guest's console as QEMU writes it and
answers what the guest asks there.
  HOST screendump NAME   QEMU's monitor (QMP) writes what the display scans out to DIR/NAME.ppm;
                         the answer goes back on the guest's second serial port.
  BEGIN-FILE NAME ... END-FILE NAME   base64 lines, written to DIR/NAME.
host.py SERIAL_LOG QMP_SOCKET BACK_FIFO DIR QEMU_PID; ends when QEMU does."""
import base64
import json
import os
import socket
import sys
import time

serial_path, qmp_path, back_path, directory, qemu_pid = sys.argv[1:6]


def alive():
    try:
        os.kill(int(qemu_pid), 0)
        return True
    except OSError:
        return False


class QMP:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX)
        for _ in range(100):
            try:
                self.sock.connect(path)
                break
            except OSError:
                time.sleep(0.1)
        self.file = self.sock.makefile("rw")
        self.read()  # the greeting
        self.command("qmp_capabilities")

    def read(self):
        while True:
            message = json.loads(self.file.readline())
            if "event" not in message:
                return message

    def command(self, name, **arguments):
        self.file.write(json.dumps({"execute": name, "arguments": arguments}) + "\n")
        self.file.flush()
        return self.read()


def answer(text):
    with open(back_path, "w") as back:
        back.write(text + "\n")


qmp = None
files = {}
current = None
position = 0
pending = ""
while True:
    running = alive()
    try:
        with open(serial_path, "r", errors="replace") as serial:
            serial.seek(position)
            chunk = serial.read()
            position = serial.tell()
    except FileNotFoundError:
        chunk = ""
    pending += chunk
    lines = pending.split("\n")
    pending = lines.pop()
    for line in lines:
        line = line.strip("\r")
        if current is not None:
            if line == f"END-FILE {current}":
                with open(os.path.join(directory, current), "wb") as out:
                    out.write(base64.b64decode("".join(files[current])))
                current = None
            else:
                files[current].append(line.strip())
        elif line.startswith("BEGIN-FILE "):
            current = line.split(" ", 1)[1]
            files[current] = []
        elif line.startswith("HOST screendump "):
            name = line.split(" ", 2)[2]
            qmp = qmp or QMP(qmp_path)
            reply = qmp.command("screendump", filename=os.path.abspath(os.path.join(directory, name + ".ppm")))
            answer("done" if "return" in reply else f"failed {reply}")
    if not running:
        break
    time.sleep(0.1)
