#!/usr/bin/env python3
"""Cuts a gain-map JPEG (MPF primary + gain-map image) down to a region, losslessly.

How the small real gain-map JPEGs in photos/hdr/ were made from the shared collection's
originals (run once by hand; tests never run it, they use the committed result):

    crop-gainmap-jpeg.py SOURCE OUT X Y W H

Both images are cut with `jpegtran -crop ... -copy all`, so their coded blocks, their APP
segments (EXIF, XMP with hdrgm:, ISO 21496-1 APP2, ICC) and the phone's own encoder settings stay
as the phone wrote them; the gain map is cut at the same place scaled to its resolution. The
only bytes changed are the MPF entries' lengths and offsets, patched in place.
"""
import struct
import subprocess
import sys


def segments(data):
    """(marker, payload start, payload end) of each segment before the scan."""
    at = 2
    while at + 4 <= len(data) and data[at] == 0xFF:
        marker = data[at + 1]
        if marker == 0xDA:
            break
        length = struct.unpack(">H", data[at + 2:at + 4])[0]
        yield marker, at + 4, at + 2 + length
        at += 2 + length


def mpf(data):
    """(TIFF header offset, byte order, offset of the MP entry array) of the MPF APP2."""
    for marker, start, end in segments(data):
        if marker == 0xE2 and data[start:start + 4] == b"MPF\0":
            tiff = start + 4
            order = "<" if data[tiff:tiff + 2] == b"II" else ">"
            ifd = struct.unpack(order + "I", data[tiff + 4:tiff + 8])[0]
            count = struct.unpack(order + "H", data[tiff + ifd:tiff + ifd + 2])[0]
            for index in range(count):
                entry = tiff + ifd + 2 + index * 12
                tag, _, size, offset = struct.unpack(order + "HHII", data[entry:entry + 12])
                if tag == 0xB002:
                    return tiff, order, tiff + offset, size // 16
    raise SystemExit("no MPF index")


def size(jpeg):
    for marker, start, _ in segments(jpeg):
        if marker in (0xC0, 0xC1, 0xC2):
            height, width = struct.unpack(">HH", jpeg[start + 1:start + 5])
            return width, height
    raise SystemExit("no SOF")


def crop(jpeg, x, y, width, height):
    geometry = f"{width}x{height}+{x}+{y}"
    return subprocess.run(["jpegtran", "-crop", geometry, "-copy", "all"], input=jpeg, capture_output=True, check=True).stdout


def main():
    source, out = sys.argv[1], sys.argv[2]
    x, y, width, height = map(int, sys.argv[3:7])
    data = open(source, "rb").read()
    tiff, order, entries, count = mpf(data)
    _, map_length, map_offset = struct.unpack(order + "III", data[entries + 16:entries + 28])
    # The primary runs up to the gain map: some phones' MPF length for it stops short of its EOI.
    primary, gain_map = data[:tiff + map_offset], data[tiff + map_offset:tiff + map_offset + map_length]
    (pw, ph), (gw, gh) = size(primary), size(gain_map)
    sx, sy = gw / pw, gh / ph
    new_primary = bytearray(crop(primary, x, y, width, height))
    new_map = crop(gain_map, round(x * sx), round(y * sy), max(1, round(width * sx)), max(1, round(height * sy)))
    new_tiff, _, new_entries, _ = mpf(new_primary)
    struct.pack_into(order + "I", new_primary, new_entries + 4, len(new_primary))
    struct.pack_into(order + "II", new_primary, new_entries + 20, len(new_map), len(new_primary) - new_tiff)
    open(out, "wb").write(bytes(new_primary) + new_map)


if __name__ == "__main__":
    main()
