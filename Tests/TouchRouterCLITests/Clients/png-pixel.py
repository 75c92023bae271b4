#!/usr/bin/env python3
"""Reads pixels of an 8-bit RGB or RGBA PNG, for the screenshot tests (Foundation on Linux
has no PNG decoder): png-pixel.py FILE X Y [X Y ...] prints WIDTHxHEIGHT, then one line per
point, rrggbb in hex, or 'outside'. Exits 1 with a message for anything else."""
import struct
import sys
import zlib


def fail(message):
    print(f"png-pixel: {message}", file=sys.stderr)
    sys.exit(1)


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(f"{path} is not a PNG")
    pos, header, idat = 8, None, []
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        crc = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])[0]
        if zlib.crc32(kind + body) != crc:
            fail(f"bad CRC in {kind!r}")
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + length
    if header is None:
        fail("no IHDR")
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace != 0:
        fail(f"depth {depth}, colour type {colour}, interlace {interlace}: only 8-bit RGB or RGBA without interlace")
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    if len(raw) != height * (stride + 1):
        fail(f"{len(raw)} bytes of image data for {width}x{height}")
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = previous[i]
            c = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xff
            elif kind == 2:
                line[i] = (line[i] + b) & 0xff
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xff
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xff
            elif kind != 0:
                fail(f"filter {kind} on row {y}")
        rows.append(line)
        previous = line
    return width, height, channels, rows


def main():
    if len(sys.argv) < 2 or len(sys.argv) % 2 != 0:
        fail("usage: png-pixel.py FILE [X Y ...]")
    width, height, channels, rows = read(sys.argv[1])
    print(f"{width}x{height}")
    numbers = [int(n) for n in sys.argv[2:]]
    for x, y in zip(numbers[0::2], numbers[1::2]):
        if 0 <= x < width and 0 <= y < height:
            r, g, b = rows[y][x * channels:x * channels + 3]
            print(f"{r:02x}{g:02x}{b:02x}")
        else:
            print("outside")


main()
