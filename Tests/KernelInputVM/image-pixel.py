#!/usr/bin/env python3
"""Pixels of a binary PPM (P6, what QEMU's screendump writes) or an 8-bit RGB(A) PNG:
image-pixel.py FILE X Y [--near R] prints WIDTHxHEIGHT, then rrggbb of (X, Y), or with --near
of every pixel within R of it, one a line."""
import os
import subprocess
import sys

path, x, y = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
near = int(sys.argv[5]) if len(sys.argv) > 5 and sys.argv[4] == "--near" else 0
points = [(x + dx, y + dy) for dy in range(-near, near + 1) for dx in range(-near, near + 1)]
if path.endswith(".png"):
    here = os.path.dirname(os.path.abspath(__file__))
    reader = os.path.join(here, "..", "TouchRouterCLITests", "Clients", "png-pixel.py")
    print(subprocess.run([sys.executable, reader, path] + [str(c) for p in points for c in p], check=True,
                         capture_output=True, text=True).stdout, end="")
    sys.exit(0)
with open(path, "rb") as f:
    data = f.read()
fields, pos = [], 0
while len(fields) < 4:
    while data[pos:pos + 1].isspace():
        pos += 1
    if data[pos:pos + 1] == b"#":
        pos = data.index(b"\n", pos)
        continue
    end = pos
    while not data[end:end + 1].isspace():
        end += 1
    fields.append(data[pos:end])
    pos = end
pos += 1
if fields[0] != b"P6" or fields[3] != b"255":
    sys.exit(f"image-pixel: {path} is not an 8-bit P6 PPM")
width, height = int(fields[1]), int(fields[2])
print(f"{width}x{height}")
for px, py in points:
    if 0 <= px < width and 0 <= py < height:
        offset = pos + (py * width + px) * 3
        print(data[offset:offset + 3].hex())
    else:
        print("outside")
