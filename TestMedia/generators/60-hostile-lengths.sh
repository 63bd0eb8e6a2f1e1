#!/usr/bin/env bash
# Length mutations, the mutation campaign's most productive kind: small files whose chunk or
# header fields claim far more than the file holds. In generated/bombs/ with the other bombs.
#   png-text-2gb.png          a 400x400 noise PNG (480 kB) whose tEXt chunk length is 0x7FFFFFFF.
#   gif-screen-16000-2000.gif a 16000x16000 logical screen with 2000 frames of 1x1 (46 kB).
#   gif-screen-65535.gif      a 65535x65535 logical screen with one 1x1 frame.
#   mjpeg-claims-16384.mp4    a 64x48 MJPEG clip whose sample entry and every SOF0 claim 16384x16384.
set -euo pipefail
mkdir -p "$OUT/bombs"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

python3 - "$OUT/bombs" <<'PY'
import random, struct, sys, zlib
out = sys.argv[1]
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
rng = random.Random(16)
width = height = 400
raw = b"".join(b"\0" + bytes(rng.getrandbits(8) for _ in range(width * 3)) for _ in range(height))
png = bytearray(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
                + chunk(b"tEXt", b"Comment\0hello") + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))
at = png.index(b"tEXt") - 4
png[at:at + 4] = struct.pack(">I", 0x7FFFFFFF)
open(out + "/png-text-2gb.png", "wb").write(png)

def gif(screen, frames, name):
    data = bytearray(b"GIF89a" + struct.pack("<HH", screen, screen) + bytes([0xF0, 0, 0, 255, 0, 0, 0, 0, 255]))
    data += b"\x21\xFF\x0BNETSCAPE2.0\x03\x01\x00\x00\x00"
    for index in range(frames):
        data += b"\x21\xF9\x04\x00\x01\x00\x00\x00"                       # graphic control, 1/100 s
        data += b"\x2C" + struct.pack("<HHHH", index % screen, 0, 1, 1) + b"\x00"
        data += b"\x02\x02\x44\x01\x00"                                   # LZW: clear, index 0, end
    open(out + "/" + name, "wb").write(data + b"\x3B")
gif(16000, 2000, "gif-screen-16000-2000.gif")
gif(65535, 1, "gif-screen-65535.gif")
PY

ffmpeg -nostdin -v error -y -f lavfi -i "testsrc=size=64x48:rate=5" -t 1 -c:v mjpeg -fflags +bitexact \
  -map_metadata -1 "$tmp/mjpeg.mp4"
python3 - "$tmp/mjpeg.mp4" "$OUT/bombs/mjpeg-claims-16384.mp4" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
entry = data.index(b"mp4v")
# VisualSampleEntry: after the type, 6 reserved, data_reference_index, 16 bytes, width, height.
data[entry + 28:entry + 32] = struct.pack(">HH", 16384, 16384)
at = 0
while (at := data.find(b"\xff\xc0", at)) >= 0:
    if struct.unpack(">HH", data[at + 5:at + 9]) == (48, 64):
        data[at + 5:at + 9] = struct.pack(">HH", 16384, 16384)
    at += 2
open(sys.argv[2], "wb").write(data)
PY
