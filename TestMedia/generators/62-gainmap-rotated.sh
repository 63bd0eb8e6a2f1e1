#!/usr/bin/env bash
# An iPhone HEIC with an HDR gain map, turned: TestMedia/photos/pug.heic (iPhone 13 Pro, Apple
# gain map) with an essential irot added to the primary image and to its gain-map auxiliary
# image, as an iPhone held upright writes it.
#
#   gainmap/pug-irot1.heic  irot 1 (90° anticlockwise) on both: displayed 3024x4032, the gain map
#                           1512x2016, so a map that is not turned with the picture no longer
#                           has its shape.
#   gainmap/pug-irot3.heic  irot 3 (270°).
#
# The property is appended to ipco and associated (essential) in ipma in place of the irot 0
# pug.heic has, rewritten with 15-bit indices; every iloc file offset
# moves by the bytes meta grew.
set -euo pipefail
mkdir -p "$OUT/gainmap"
for turns in 1 3; do
  python3 - "$MEDIA/photos/pug.heic" "$OUT/gainmap/pug-irot$turns.heic" "$turns" <<'PY'
import struct, sys

source, target, turns = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = bytearray(open(source, "rb").read())

def boxes(start, end):
    while start + 8 <= end:
        size, kind = struct.unpack(">I4s", data[start:start + 8])
        yield kind.decode("latin1"), start, start + size
        start += size

def find(kind, start, end):
    return next(b for b in boxes(start, end) if b[0] == kind)

_, meta_start, meta_end = find("meta", 0, len(data))
_, pitm_start, _ = find("pitm", meta_start + 12, meta_end)
primary = struct.unpack(">H", data[pitm_start + 12:pitm_start + 14])[0]
_, iref_start, iref_end = find("iref", meta_start + 12, meta_end)
auxiliaries = []
for kind, start, end in boxes(iref_start + 12, iref_end):
    if kind == "auxl":
        auxiliaries.append(struct.unpack(">H", data[start + 8:start + 10])[0])
_, iprp_start, iprp_end = find("iprp", meta_start + 12, meta_end)
_, ipco_start, ipco_end = find("ipco", iprp_start + 8, iprp_end)
_, ipma_start, ipma_end = find("ipma", iprp_start + 8, iprp_end)
properties = [(kind, start, end) for kind, start, end in boxes(ipco_start + 8, ipco_end)]
version, flags = data[ipma_start + 8], int.from_bytes(data[ipma_start + 9:ipma_start + 12], "big")
wide = flags & 1
assert version == 0

# Which auxiliary is the gain map: its auxC names Apple's URN.
def associations_of(position):
    item, links = struct.unpack(">HB", data[position:position + 3])
    indices = []
    at = position + 3
    for _ in range(links):
        if wide:
            indices.append(struct.unpack(">H", data[at:at + 2])[0] & 0x7FFF)
            at += 2
        else:
            indices.append(data[at] & 0x7F)
            at += 1
    return item, links, indices, at

urn = b"urn:com:apple:photo:2020:aux:hdrgainmap"
position = ipma_start + 16
gain_map = None
for _ in range(struct.unpack(">I", data[ipma_start + 12:ipma_start + 16])[0]):
    item, links, indices, position = associations_of(position)
    if item in auxiliaries and any(urn in data[properties[i - 1][1]:properties[i - 1][2]] for i in indices if i):
        gain_map = item
assert gain_map is not None, "pug.heic has an Apple gain map"

index = len(properties) + 1
added = struct.pack(">I4sB", 9, b"irot", turns)
# ipma is rebuilt with 15-bit indices (pug.heic has more than 127 properties).
position = ipma_start + 16
entries = []
for _ in range(struct.unpack(">I", data[ipma_start + 12:ipma_start + 16])[0]):
    item, links, _, end = associations_of(position)
    raw = []
    at = position + 3
    for _ in range(links):
        if wide:
            raw.append(struct.unpack(">H", data[at:at + 2])[0])
            at += 2
        else:
            raw.append((data[at] & 0x80) << 8 | (data[at] & 0x7F))
            at += 1
    if item in (primary, gain_map):
        # pug.heic already associates an irot of 0: it is replaced, since an item may carry
        # only one (newer libheif refuses the file otherwise).
        raw = [r for r in raw if not (r & 0x7FFF) or properties[(r & 0x7FFF) - 1][0] != "irot"]
        raw.append(0x8000 | index)
    entries.append((item, raw))
    position = end
payload = struct.pack(">I", len(entries)) + b"".join(
    struct.pack(">HB", item, len(raw)) + b"".join(struct.pack(">H", r) for r in raw) for item, raw in entries)
ipma = struct.pack(">I4sBBH", 12 + len(payload), b"ipma", 0, 0, 1) + payload
assert ipco_end <= ipma_start
old_ipma = ipma_end - ipma_start
data[ipma_start:ipma_end] = ipma
data[ipco_end:ipco_end] = added
grow = len(added) + len(ipma) - old_ipma

def grow_size(at, by):
    data[at:at + 4] = struct.pack(">I", struct.unpack(">I", data[at:at + 4])[0] + by)

grow_size(ipco_start, len(added))
grow_size(iprp_start, grow)
grow_size(meta_start, grow)

_, iloc_start, _ = find("iloc", meta_start + 12, meta_end + grow)
version = data[iloc_start + 8]
sizes = struct.unpack(">H", data[iloc_start + 12:iloc_start + 14])[0]
offset_size, length_size, base_size = sizes >> 12, (sizes >> 8) & 15, (sizes >> 4) & 15
index_size = sizes & 15 if version >= 1 else 0
position = iloc_start + 14
if version < 2:
    items = struct.unpack(">H", data[position:position + 2])[0]
    position += 2
else:
    items = struct.unpack(">I", data[position:position + 4])[0]
    position += 4
def read(width):
    global position
    value = int.from_bytes(data[position:position + width], "big") if width else 0
    position += width
    return value
for _ in range(items):
    read(2 if version < 2 else 4)
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
