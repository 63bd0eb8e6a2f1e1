#!/usr/bin/env bash
# Decompression bombs: tiny files whose headers claim enormous pictures. Each must be refused from
# its header, before any pixel memory is allocated. They live in generated/bombs/, out of the way
# of tests that enumerate every fixture.
#   bomb-100000x100000.png   a valid PNG signature, IHDR 100000x100000 RGB, one small IDAT.
#   bomb-65500x65500.jpg     a 16x16 baseline JPEG whose SOF0 claims 65500x65500.
#   bomb-20000x20000.heic    a 64x64 HEIC whose ispe claims 20000x20000 (400 MP: under libheif's
#                            own limit, over offconvert's default).
#   bomb-h264-16000.mp4      a 64x64 H.264 clip whose SPS claims 16000x16000 (256 MP per frame).
#   bomb-h264-17600.264      a raw H.264 stream whose SPS claims 17600x17600 (310 MP per frame).
set -euo pipefail
ff() { ffmpeg -nostdin -v error -y "$@"; }
tmp="$(mktemp -d)"
mkdir -p "$OUT/bombs"
trap 'rm -rf "$tmp"' EXIT

python3 - "$OUT/bombs/bomb-100000x100000.png" <<'PY'
import struct, sys, zlib
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
ihdr = struct.pack(">IIBBBBB", 100000, 100000, 8, 2, 0, 0, 0)
idat = zlib.compress(b"\0" * 301, 9)
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b""))
PY

ff -f lavfi -i "testsrc=size=16x16:rate=1" -frames:v 1 -fflags +bitexact -map_metadata -1 "$tmp/small.jpg"
python3 - "$tmp/small.jpg" "$OUT/bombs/bomb-65500x65500.jpg" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
i = 2
while i + 4 <= len(data):
    marker, length = data[i + 1], struct.unpack(">H", data[i + 2:i + 4])[0]
    if marker in (0xC0, 0xC1, 0xC2):
        data[i + 5:i + 9] = struct.pack(">HH", 65500, 65500)
        break
    i += 2 + length
else:
    sys.exit("no SOF marker")
open(sys.argv[2], "wb").write(data)
PY

ff -f lavfi -i "testsrc=size=64x64:rate=1" -frames:v 1 "$tmp/small.png"
heif-enc -p x265:pools=none -q 50 -o "$tmp/small.heic" "$tmp/small.png" >/dev/null
python3 - "$tmp/small.heic" "$OUT/bombs/bomb-20000x20000.heic" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
at = data.find(b"ispe")
if at < 0:
    sys.exit("no ispe box")
# ispe: size, 'ispe', version/flags (4 bytes), width, height.
while at >= 0:
    data[at + 8:at + 16] = struct.pack(">II", 20000, 20000)
    at = data.find(b"ispe", at + 4)
open(sys.argv[2], "wb").write(data)
PY

# H.264 baseline with pic_order_cnt_type 2 (no B-frames), so the SPS is short and easy to rewrite.
ff -f lavfi -i "testsrc=size=64x64:rate=10" -frames:v 5 -pix_fmt yuv420p -c:v libx264 -profile:v baseline -x264-params "threads=1" \
   -bsf:v h264_mp4toannexb -fflags +bitexact -map_metadata -1 -f h264 "$tmp/small.264"
python3 - "$tmp/small.264" "$OUT/bombs/bomb-h264-17600.264" 1100 "$tmp/bomb-16000.264" 1000 <<'PY'
import sys
class Bits:
    def __init__(self, data): self.data, self.pos = data, 0
    def u(self, n):
        v = 0
        for _ in range(n):
            v = (v << 1) | ((self.data[self.pos >> 3] >> (7 - (self.pos & 7))) & 1); self.pos += 1
        return v
    def ue(self):
        zeros = 0
        while self.u(1) == 0: zeros += 1
        return (1 << zeros) - 1 + self.u(zeros)
def ue_bits(v):
    v += 1; n = v.bit_length()
    return "0" * (n - 1) + format(v, "b")
def unescape(b):
    out, zeros = bytearray(), 0
    for x in b:
        if zeros >= 2 and x == 3: zeros = 0; continue
        out.append(x); zeros = zeros + 1 if x == 0 else 0
    return out
def escape(b):
    out, zeros = bytearray(), 0
    for x in b:
        if zeros >= 2 and x <= 3: out.append(3); zeros = 0
        out.append(x); zeros = zeros + 1 if x == 0 else 0
    return out
def rewrite(sps, mbs):
    r = Bits(unescape(sps[1:]))
    head = format(r.u(24), "024b")
    fields = [r.ue(), r.ue()]
    poc = r.ue(); fields.append(poc)
    if poc == 0: fields.append(r.ue())
    elif poc == 1: sys.exit("unexpected pic_order_cnt_type 1")
    fields.append(r.ue()); gaps = r.u(1)
    r.ue(); r.ue()
    bits = head + "".join(ue_bits(f) for f in fields) + str(gaps) + ue_bits(mbs - 1) + ue_bits(mbs - 1)
    total = len(r.data) * 8
    while r.pos < total: bits += str(r.u(1))
    bits = bits.rstrip("0")  # keeps the old rbsp stop bit, drops its padding
    bits += "0" * (-len(bits) % 8)
    body = bytes(int(bits[i:i + 8], 2) for i in range(0, len(bits), 8))
    return bytes(sps[:1]) + escape(body)
data = open(sys.argv[1], "rb").read()
for target, mbs in ((sys.argv[2], int(sys.argv[3])), (sys.argv[4], int(sys.argv[5]))):
    parts = data.split(b"\x00\x00\x00\x01")
    out = bytearray()
    for p in parts:
        if not p: continue
        if p[0] & 0x1F == 7: p = rewrite(p, mbs)
        out += b"\x00\x00\x00\x01" + p
    open(target, "wb").write(out)
PY
ffmpeg -nostdin -v quiet -y -f h264 -i "$tmp/bomb-16000.264" -c copy -fflags +bitexact -map_metadata -1 "$OUT/bombs/bomb-h264-16000.mp4"

# A JPEG whose picture is not there at all: tokyo.jpg's header segments up to its SOS, then EOI
# (libjpeg: "JPEG datastream contains no image"). A photo cut short is converted with a note;
# this one has nothing to convert and fails.
python3 - "$MEDIA/photos/tokyo.jpg" "$OUT/broken-no-picture.jpg" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
open(sys.argv[2], "wb").write(data[:data.find(b"\xff\xda")] + b"\xff\xd9")
PY
