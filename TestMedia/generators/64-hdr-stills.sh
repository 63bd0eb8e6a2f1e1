#!/usr/bin/env bash
# HDR stills without a gain map, as Sony and Canon cameras write them: one 10-bit HEVC image,
# BT.2020 primaries and matrix, full range, with a PQ or an HLG transfer in its nclx box. The
# picture (384x256, 16-bit PNG written here with zlib, so no image library decides a sample) is a
# neutral ramp over the top half, from black to the format's peak, and colour patches over the
# bottom half, some above SDR white (203 nits), each with a gentle texture so a JPEG of it is not
# flat by construction.
#
#   hdr-stills/pq.heic   ST 2084: the ramp to 1000 nits in display light; patches from 20 to
#                        1000 nits (diffuse white at 203).
#   hdr-stills/hlg.heic  ARIB STD-B67: the same layout in HLG signal values (75% is BT.2408's
#                        reference white; the ramp ends at 100%).
#   hdr-stills/pq.jxl    pq.heic's picture as a 16-bit JPEG XL, lossless, its colour encoding
#                        BT.2100 PQ (cjxl's colour-space hint: D65, Rec.2100 primaries, relative
#                        intent, PQ); one thread, though cjxl 0.7 gave the same bytes with two.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$OUT/hdr-stills"
cd "$OUT/hdr-stills"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp" <<'PY'
import math, struct, sys, zlib

W, H = 384, 256
M1, M2 = 2610 / 16384, 2523 / 4096 * 128
C1, C2, C3 = 3424 / 4096, 2413 / 4096 * 32, 2392 / 4096 * 32

def pq(nits):
    y = (max(0.0, nits) / 10000) ** M1
    return ((C1 + C2 * y) / (1 + C3 * y)) ** M2

# Patches: (R, G, B) relative colour and a level: nits for PQ, signal for HLG.
PATCHES = [
    ((1.0, 0.75, 0.6), 60, 0.45), ((0.35, 0.55, 1.0), 120, 0.55), ((0.4, 1.0, 0.4), 90, 0.5),
    ((1.0, 1.0, 1.0), 203, 0.75), ((1.0, 0.3, 0.2), 500, 0.85), ((1.0, 1.0, 1.0), 1000, 1.0),
    ((0.9, 0.9, 0.2), 300, 0.8), ((1.0, 1.0, 1.0), 20, 0.3),
]

def write_png(path, rows):
    raw = b"".join(b"\0" + struct.pack(">%dH" % (W * 3), *row) for row in rows)
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 16, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    open(path, "wb").write(png)

def picture(signal_of):
    rows = []
    for y in range(H):
        row = []
        for x in range(W):
            texture = 1 + 0.08 * math.sin(x / 5.0) * math.sin(y / 7.0)
            if y < H // 2:
                rgb = signal_of(None, x / (W - 1), texture)
            else:
                patch = PATCHES[(x * 4 // W) + 4 * ((y - H // 2) * 2 // H)]
                rgb = signal_of(patch, None, texture)
            row += [max(0, min(65535, round(v * 65535))) for v in rgb]
        rows.append(row)
    return rows

def pq_signal(patch, t, texture):
    if patch is None:
        v = t * pq(1000)
        return (v, v, v)
    colour, nits, _ = patch
    return tuple(pq(nits * c * texture) for c in colour)

def hlg_signal(patch, t, texture):
    if patch is None:
        return (t, t, t)
    colour, _, level = patch
    return tuple(min(1.0, level * (c ** 0.5) * (1 + (texture - 1) / 2)) for c in colour)

write_png(sys.argv[1] + "/pq.png", picture(pq_signal))
write_png(sys.argv[1] + "/hlg.png", picture(hlg_signal))
PY
# heif-enc codes the pictures (its nclx options go into the stream's VUI); heif_layout.py writes
# the item's nclx box, which heif-enc 1.15 leaves out.
for kind in pq:16 hlg:18; do
  name=${kind%%:*} transfer=${kind##*:}
  heif-enc -p x265:pools=none -q 90 -b 10 --colour_primaries 9 --transfer_characteristic "$transfer" \
    --matrix_coefficients 9 --full_range_flag 1 -o "$tmp/$name-coded.heic" "$tmp/$name.png" >/dev/null
  python3 "$here/heif_layout.py" "$name.heic" --picture 384x256 --nclx "9,$transfer,9,1" "$tmp/$name-coded.heic"
done
cjxl "$tmp/pq.png" pq.jxl -d 0 -e 7 -x color_space=RGB_D65_202_Rel_PeQ --num_threads=1 >/dev/null 2>&1
