#!/usr/bin/env bash
# HEICs whose primary image carries HEIF's transformative properties, for the YCbCr tile decoder
# (which applies them to the planes itself) to be checked against libheif on the same file.
#
#   heif-transforms/base.heic         testsrc2 at 332x200 (not square, so a wrong turn changes the
#                                     size) through heif-enc, no transform. (heif-enc 1.15 drops
#                                     an odd last row or column, so odd sizes come from the real
#                                     empty_icc.heic, a 1025-wide crop of its one grid tile.)
#   heif-transforms/irot1.heic, irot2.heic, irot3.heic
#                                     the same coded image with an essential irot of 90°, 180°,
#                                     270° anticlockwise added to the primary item.
#   heif-transforms/imir0.heic, imir1.heic
#                                     with imir 0 / 1: top-to-bottom / left-to-right in HEIF
#                                     Amendment 2's `mode` reading, which iPhones and libheif use.
#   heif-transforms/irot1-imir0.heic  irot 90° then imir 0, in that order in ipma.
#   heif-transforms/clap.heic         with a clap (clean aperture) box: the tile decoder must leave
#                                     it to libheif.
#
# The properties are added by rewriting meta/iprp (ipco gains the boxes, the primary's ipma entry
# gains the associations) and shifting every iloc file offset by the bytes meta grew.
set -euo pipefail
mkdir -p "$OUT/heif-transforms"
cd "$OUT/heif-transforms"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=size=332x200:rate=1" -frames:v 1 -fflags +bitexact -flags:v +bitexact "$tmp/base.png"
heif-enc -p x265:pools=none -q 90 -o base.heic "$tmp/base.png" >/dev/null
for spec in irot1 irot2 irot3 imir0 imir1 irot1,imir0 clap; do
  python3 - base.heic "$(echo "$spec" | tr , -).heic" "$spec" <<'PY'
import struct, sys

source, target, spec = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
data = bytearray(open(source, "rb").read())

def boxes(start, end):
    while start + 8 <= end:
        size, kind = struct.unpack(">I4s", data[start:start + 8])
        yield kind.decode("latin1"), start, start + size
        start += size

def find(kind, start, end):
    return next(b for b in boxes(start, end) if b[0] == kind)

def properties():
    out = b""
    for item in spec:
        if item.startswith("irot"):
            out += struct.pack(">I4sB", 9, b"irot", int(item[4]))
        elif item.startswith("imir"):
            out += struct.pack(">I4sB", 9, b"imir", int(item[4]))
        elif item == "clap":
            # 321x191 centred: width N/D, height N/D, horizontal and vertical offsets N/D.
            out += struct.pack(">I4s8I", 40, b"clap", 321, 1, 191, 1, 0, 1, 0, 1)
    return out

_, meta_start, meta_end = find("meta", 0, len(data))
_, pitm_start, _ = find("pitm", meta_start + 12, meta_end)
primary = struct.unpack(">H", data[pitm_start + 12:pitm_start + 14])[0]
_, iprp_start, iprp_end = find("iprp", meta_start + 12, meta_end)
_, ipco_start, ipco_end = find("ipco", iprp_start + 8, iprp_end)
_, ipma_start, ipma_end = find("ipma", iprp_start + 8, iprp_end)
count = sum(1 for _ in boxes(ipco_start + 8, ipco_end))
added = properties()

# The primary's ipma entry gains one (essential, 7-bit index) association per new property.
version, flags = data[ipma_start + 8], int.from_bytes(data[ipma_start + 9:ipma_start + 12], "big")
assert version == 0 and flags & 1 == 0, "heif-enc writes small ipma entries"
position = ipma_start + 16
insert_at = None
for _ in range(struct.unpack(">I", data[ipma_start + 12:ipma_start + 16])[0]):
    item, links = struct.unpack(">HB", data[position:position + 3])
    if item == primary:
        data[position + 2] = links + len(spec)
        insert_at = position + 3 + links
    position += 3 + links
assert insert_at is not None
associations = bytes(0x80 | (count + 1 + i) for i in range(len(spec)))
grow = len(added) + len(associations)
assert ipco_end <= ipma_start
data[insert_at:insert_at] = associations
data[ipco_end:ipco_end] = added

def grow_size(at, by):
    data[at:at + 4] = struct.pack(">I", struct.unpack(">I", data[at:at + 4])[0] + by)

grow_size(ipma_start + len(added), len(associations))
grow_size(ipco_start, len(added))
grow_size(iprp_start, grow)
grow_size(meta_start, grow)

# Every file offset (construction method 0) behind meta moves by `grow`.
_, iloc_start, _ = find("iloc", meta_start + 12, meta_end + grow)
assert iloc_start < ipco_start
version = data[iloc_start + 8]
sizes = struct.unpack(">H", data[iloc_start + 12:iloc_start + 14])[0]
offset_size, length_size, base_size = sizes >> 12, (sizes >> 8) & 15, (sizes >> 4) & 15
index_size = sizes & 15 if version >= 1 else 0
position = iloc_start + 14
items = struct.unpack(">H", data[position:position + 2])[0]
position += 2
def read(width):
    global position
    value = int.from_bytes(data[position:position + width], "big") if width else 0
    position += width
    return value
for _ in range(items):
    read(2)
    method = read(2) & 15 if version >= 1 else 0
    read(2)
    base_at = position
    base = read(base_size)
    extents = read(2)
    if method == 0 and base_size:
        data[base_at:base_at + base_size] = (base + grow).to_bytes(base_size, "big")
    for _ in range(extents):
        read(index_size)
        offset_at = position
        offset = read(offset_size)
        read(length_size)
        if method == 0 and not base_size:
            data[offset_at:offset_at + offset_size] = (offset + grow).to_bytes(offset_size, "big")
open(target, "wb").write(data)
PY
done
