#!/usr/bin/env bash
# An AVIF whose primary image is a 1x5 grid of AV1 tiles that are not marked hidden, as libavif
# lays out its grids (its test image sofa_grid1x5_420.avif): libheif 1.15 counts each tile as one
# more top-level image, so `info` said "6 images".
#
#   avif-grid/grid-1x5.avif  a 64x320 picture: one column of five 64x64 tiles (testsrc2 turned to
#                            five hues, so each tile differs), each coded by heif-enc -A (libaom).
set -euo pipefail
mkdir -p "$OUT/avif-grid"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tiles=()
for row in 0 1 2 3 4; do
  ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=s=64x64:r=1,hue=h=$((row * 60))" -frames:v 1 \
    -fflags +bitexact -flags:v +bitexact "$tmp/tile-$row.png"
  heif-enc -A -q 80 -o "$tmp/tile-$row.avif" "$tmp/tile-$row.png" >/dev/null
  tiles+=("$tmp/tile-$row.avif")
done
python3 - "$OUT/avif-grid/grid-1x5.avif" "${tiles[@]}" <<'PY'
import struct
import sys


def box(kind, payload):
    return struct.pack(">I", 8 + len(payload)) + kind.encode() + payload


def full(kind, version, flags, payload):
    return box(kind, struct.pack(">I", version << 24 | flags) + payload)


def children(data, start, end):
    while start + 8 <= end:
        size, kind = struct.unpack(">I4s", data[start:start + 8])
        yield kind.decode("latin1"), start, start + size
        start += size


def find(data, kind, start, end):
    return next(b for b in children(data, start, end) if b[0] == kind)


def coded(path):
    """The av1C box and the coded bytes of heif-enc's one AV1 image (one extent, file offsets)."""
    data = open(path, "rb").read()
    _, ms, me = find(data, "meta", 0, len(data))
    _, ps, pe = find(data, "iprp", ms + 12, me)
    _, cs, ce = find(data, "ipco", ps + 8, pe)
    _, a, b = find(data, "av1C", cs + 8, ce)
    _, ls, _ = find(data, "iloc", ms + 12, me)
    version = data[ls + 8]
    sizes = struct.unpack(">H", data[ls + 12:ls + 14])[0]
    base_size = (sizes >> 4) & 15
    assert sizes >> 12 == 4 and (sizes >> 8) & 15 == 4 and base_size in (0, 4), "4-byte offsets and base"
    at = ls + 14 + (2 if version < 2 else 4)
    at += 2 + (2 if version >= 1 else 0) + 2
    base = struct.unpack(">I", data[at:at + 4])[0] if base_size else 0
    at += base_size
    assert struct.unpack(">H", data[at:at + 2])[0] == 1, "one extent"
    at += 2 + ((sizes & 15) if version >= 1 else 0)
    offset, length = struct.unpack(">II", data[at:at + 8])
    return data[a:b], data[base + offset:base + offset + length]


out, paths = sys.argv[1], sys.argv[2:]
tiles = [coded(p) for p in paths]
tile_size, columns, rows = 64, 1, len(tiles)
props = [
    full("ispe", 0, 0, struct.pack(">II", tile_size * columns, tile_size * rows)),
    full("pixi", 0, 0, bytes([3, 8, 8, 8])),
    tiles[0][0],
    full("ispe", 0, 0, struct.pack(">II", tile_size, tile_size)),
]
descriptor = struct.pack(">BBBBHH", 0, 0, rows - 1, columns - 1, tile_size * columns, tile_size * rows)
ids = list(range(2, 2 + len(tiles)))
# Tiles are plain (not hidden) items, as libavif writes them.
infe = full("infe", 2, 0, struct.pack(">HH", 1, 0) + b"grid\0")
infe += b"".join(full("infe", 2, 0, struct.pack(">HH", i, 0) + b"av01\0") for i in ids)
iinf = full("iinf", 0, 0, struct.pack(">H", 1 + len(ids)) + infe)
iref = full("iref", 0, 0, box("dimg", struct.pack(">HH", 1, len(ids)) + b"".join(struct.pack(">H", i) for i in ids)))
ipma = struct.pack(">HB", 1, 2) + bytes([1, 2])
ipma += b"".join(struct.pack(">HB", i, 3) + bytes([0x80 | 3, 4, 2]) for i in ids)
iprp = box("iprp", box("ipco", b"".join(props)) + full("ipma", 0, 0, struct.pack(">I", 1 + len(ids)) + ipma))
hdlr = full("hdlr", 0, 0, b"\0\0\0\0pict" + bytes(12) + b"\0")
pitm = full("pitm", 0, 0, struct.pack(">H", 1))
ftyp = box("ftyp", b"avif\0\0\0\0mif1avifmiaf")


def meta(mdat_start):
    locations = struct.pack(">HHHHII", 1, 1, 0, 1, 0, len(descriptor))
    offset = mdat_start + 8
    for i, (_, data) in zip(ids, tiles):
        locations += struct.pack(">HHHHII", i, 0, 0, 1, offset, len(data))
        offset += len(data)
    iloc = full("iloc", 1, 0, struct.pack(">HH", 0x4400, 1 + len(ids)) + locations)
    return full("meta", 0, 0, hdlr + pitm + iinf + iref + iprp + box("idat", descriptor) + iloc)


body = meta(len(ftyp) + len(meta(0)))
open(out, "wb").write(ftyp + body + box("mdat", b"".join(data for _, data in tiles)))
PY
