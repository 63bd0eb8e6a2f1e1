#!/usr/bin/env bash
# BMP and TIFF photos (issue #38), small (at most 256x256), into generated/bmp/ and generated/tiff/.
# The picture is tokyo.jpg scaled to 121x87 (odd sizes: BMP rows need padding, TIFF tiles of 64
# are cut at the edges), except where noted.
#
# bmp/ — ffmpeg's BMP encoder: bgr24.bmp, bgra.bmp (V4 header, alpha mask, alpha all 255),
#   rgb555.bmp (16-bit BI_RGB), rgb565.bmp (BI_BITFIELDS), pal8.bmp, gray.bmp (8-bit palette),
#   monob.bmp (1-bit); each with NAME.png, ffmpeg's own decode of it, as the reference.
# Hand-built from the Microsoft BITMAPINFOHEADER/V5 layout (python3 below), each with
#   NAME.ref.pam, the picture the writer meant (RGB or RGBA), as the reference:
#   rle8.bmp (37x23: encoded and absolute runs, a delta, an early end of line, an end of bitmap
#   before the last rows: skipped pixels are palette index 0), rle4.bmp (same for 4 bits),
#   pal4.bmp (4-bit uncompressed), topdown.bmp (24-bit, negative height), core8.bmp
#   (BITMAPCOREHEADER, 3-byte palette), v5-icc.bmp (V5, 24-bit, an embedded a98.icc profile),
#   v5-alpha.bmp (V5 BI_BITFIELDS, 32-bit, varying alpha), zero-alpha.bmp (V5 BI_BITFIELDS
#   32-bit whose alpha bytes are all 0: read as opaque), rgb32.bmp (40-byte header, BI_RGB).
#   cut.bmp: bgr24.bmp cut at 60% of its bytes; huge.bmp: 100 bytes whose header claims 65535x65535.
#
# tiff/ — ffmpeg's TIFF encoder: rgb-packbits.tiff, rgb-lzw.tiff, rgb-deflate.tiff, gray.tiff,
#   pal8.tiff, monob.tiff; rgba.tiff (alpha varying, from raw samples python3 writes);
#   rgb48.tiff and gray16.tiff (deflate, 16-bit gradients with every low byte used, from raw).
#   tiffcp: tiled.tiff (64x64 tiles, LZW), tiled48.tiff (16-bit, tiles), jpeg.tiff (JPEG-in-TIFF,
#   YCbCr), bigtiff.tiff (BigTIFF), planar.tiff (separate planes), multi.tiff (3 pages: rgb,
#   gray, a 64x48 rgb).
#   tiffset: orient6.tiff (Orientation 6: shown turned 90° clockwise), orient8-jpeg.tiff
#   (jpeg.tiff with Orientation 8: turned 90° anticlockwise; read through libtiff's RGBA interface).
#   exiftool: gps.tiff (rgb-lzw.tiff with Make, Model and a GPS IFD).
#   Hand-built (python3): cmyk.tiff (8-bit CMYK, no profile: naive conversion, cmyk.ref.pam the
#   expected RGB), cmyk-icc.tiff (the same with ghostscript's ps_cmyk.icc embedded; the reference
#   is lcms2's tificc conversion to sRGB, cmyk-icc.ref.tiff), strips.tiff (uncompressed RGB,
#   8 rows a strip, directory first), icc.tiff (the same with a98.icc embedded) and cut.tiff
#   (strips.tiff cut at 60%).
set -euo pipefail
mkdir -p "$OUT/bmp" "$OUT/tiff"
exact=(-fflags +bitexact -map_metadata -1 -flags:v +bitexact)
ff() { ffmpeg -nostdin -v error -y "$@"; }
cd "$OUT"
ff -i "$MEDIA/photos/tokyo.jpg" -vf scale=121:87:flags=bicubic "${exact[@]}" -pix_fmt rgb24 -f rawvideo source.rgb
raw=(-f rawvideo -pix_fmt rgb24 -s 121x87 -i source.rgb)

# BMP from ffmpeg, and ffmpeg's decode of each as the reference.
for fmt in bgr24 bgra rgb555 rgb565 pal8 gray monob; do
  pix=$fmt; [ "$fmt" = rgb555 ] && pix=rgb555le; [ "$fmt" = rgb565 ] && pix=rgb565le
  ff "${raw[@]}" "${exact[@]}" -pix_fmt "$pix" "bmp/$fmt.bmp"
  ff -i "bmp/$fmt.bmp" "${exact[@]}" -pix_fmt rgba "bmp/$fmt.png"
done

python3 - "$MEDIA" "$OUT" <<'PY'
import struct, sys
media, out = sys.argv[1], sys.argv[2]
W, H = 121, 87
src = open(f"{out}/source.rgb", "rb").read()
def rgb(x, y):
    i = (y * W + x) * 3
    return src[i], src[i + 1], src[i + 2]

def pam(path, width, height, pixels, alpha):
    depth = 4 if alpha else 3
    head = f"P7\nWIDTH {width}\nHEIGHT {height}\nDEPTH {depth}\nMAXVAL 255\nTUPLTYPE {'RGB_ALPHA' if alpha else 'RGB'}\nENDHDR\n"
    body = bytearray()
    for p in pixels:
        body += bytes(p[:depth])
    open(path, "wb").write(head.encode() + body)

def bmp(path, info, palette, pixels, extra=b""):
    offset = 14 + len(info) + len(palette)
    data = info + palette + pixels + extra
    open(path, "wb").write(b"BM" + struct.pack("<IHHI", 14 + len(data), 0, 0, offset) + data)

def info40(width, height, bits, compression, image_size=0, colors=0):
    return struct.pack("<IiiHHIIiiII", 40, width, height, 1, bits, compression, image_size, 2835, 2835, colors, 0)

def pad(row):
    return row + b"\0" * (-len(row) % 4)

# A 16-colour palette and a 256-colour one (BGRX entries), and the pictures drawn with them.
pal16 = [(i * 17, 255 - i * 13, (i * 97) % 256) for i in range(16)]
pal256 = [((i * 7) % 256, (i * 29) % 256, (255 - i) % 256) for i in range(256)]
def palette(entries):
    return b"".join(bytes([b, g, r, 0]) for (r, g, b) in entries)

# rle8 / rle4: 37x23, stored bottom-up. The model starts as index 0 everywhere.
w, h = 37, 23
def rle(bits):
    entries = pal256 if bits == 8 else pal16
    top = 256 if bits == 8 else 16
    model = [[0] * w for _ in range(h)]  # model[stored row][x]
    stream = bytearray()
    row = 0
    while row < h:
        if row == 20:
            stream += b"\x00\x01"  # end of bitmap: rows 20..22 stay index 0
            break
        x = 0
        if row == 5:
            stream += bytes([0, 2, 6, 2])  # delta: 6 right, 2 up (rows 5 and 6 skipped in part)
            row += 2
            x = 6
        # An encoded run of 9 (alternating nibbles for RLE4).
        a, b = (row * 3 + 1) % top, (row * 5 + 2) % top
        value = a if bits == 8 else (a << 4 | b)
        stream += bytes([9, value])
        for i in range(9):
            model[row][x + i] = a if bits == 8 or i % 2 == 0 else b
        x += 9
        # An absolute run of 7 (odd: padding to a 16-bit boundary in both modes).
        indices = [(row + x + i * 11) % top for i in range(7)]
        if bits == 8:
            body = bytes(indices)
        else:
            body = bytes((indices[i] << 4 | (indices[i + 1] if i + 1 < 7 else 0)) for i in range(0, 7, 2))
        stream += bytes([0, 7]) + body + b"\0" * (len(body) % 2)
        for i in range(7):
            model[row][x + i] = indices[i]
        x += 7
        if row % 4 != 3:
            # The rest of the row as one encoded run; every fourth row ends early (end of line).
            rest = w - x
            c = (row * 7 + 3) % top
            stream += bytes([rest, c if bits == 8 else (c << 4 | c)])
            for i in range(rest):
                model[row][x + i] = c
        stream += b"\x00\x00"
        row += 1
    else:
        stream += b"\x00\x01"
    info = info40(w, h, bits, 1 if bits == 8 else 2, len(stream), len(entries))
    bmp(f"{out}/bmp/rle{bits}.bmp", info, palette(entries), bytes(stream))
    pixels = [entries[model[h - 1 - y][x]] for y in range(h) for x in range(w)]
    pam(f"{out}/bmp/rle{bits}.ref.pam", w, h, pixels, False)
rle(8)
rle(4)

# pal4.bmp: 4-bit uncompressed, odd width (a half byte at the end of each row).
w, h = 41, 17
rows = []
for y in range(h):
    idx = [(x * 3 + y) % 16 for x in range(w)] + [0]
    rows.append(pad(bytes(idx[i] << 4 | idx[i + 1] for i in range(0, w, 2))))
bmp(f"{out}/bmp/pal4.bmp", info40(w, h, 4, 0, colors=16), palette(pal16), b"".join(reversed(rows)))
pam(f"{out}/bmp/pal4.ref.pam", w, h, [pal16[(x * 3 + y) % 16] for y in range(h) for x in range(w)], False)

def bgr_rows(width, height):
    return [pad(b"".join(bytes(reversed(rgb(x, y))) for x in range(width))) for y in range(height)]
picture = [rgb(x, y) for y in range(H) for x in range(W)]

# topdown.bmp: 24-bit, negative height, rows top first.
bmp(f"{out}/bmp/topdown.bmp", info40(W, -H, 24, 0), b"", b"".join(bgr_rows(W, H)))
pam(f"{out}/bmp/topdown.ref.pam", W, H, picture, False)

# core8.bmp: BITMAPCOREHEADER (12 bytes), 8-bit, RGBTRIPLE palette.
w, h = 29, 13
core = struct.pack("<IHHHH", 12, w, h, 1, 8)
rows = [pad(bytes((x * 9 + y * 31) % 256 for x in range(w))) for y in range(h)]
bmp(f"{out}/bmp/core8.bmp", core, b"".join(bytes([b, g, r]) for (r, g, b) in pal256), b"".join(reversed(rows)))
pam(f"{out}/bmp/core8.ref.pam", w, h, [pal256[(x * 9 + y * 31) % 256] for y in range(h) for x in range(w)], False)

def v5(width, height, bits, compression, masks, image_size, cs_type=b"BGRs", profile=(0, 0)):
    head = struct.pack("<IiiHHIIiiII", 124, width, height, 1, bits, compression, image_size, 2835, 2835, 0, 0)
    head += struct.pack("<IIII", *masks)
    head += struct.pack(">I", int.from_bytes(cs_type, "big"))[::-1] if cs_type else b"\0" * 4
    head += b"\0" * 36 + b"\0" * 12  # endpoints, gamma
    head += struct.pack("<IIII", 4, profile[0], profile[1], 0)
    assert len(head) == 124
    return head

# v5-icc.bmp: 24-bit bottom-up, PROFILE_EMBEDDED ("MBED") after the pixels.
icc = open("/usr/share/color/icc/ghostscript/a98.icc", "rb").read()
pixels = b"".join(reversed(bgr_rows(W, H)))
head = v5(W, H, 24, 0, (0, 0, 0, 0), len(pixels), b"MBED", (124 + len(pixels), len(icc)))
bmp(f"{out}/bmp/v5-icc.bmp", head, b"", pixels, icc)
pam(f"{out}/bmp/v5-icc.ref.pam", W, H, picture, False)

# v5-alpha.bmp and zero-alpha.bmp: 32-bit BI_BITFIELDS with an alpha mask.
def bgra_rows(alpha):
    return [b"".join(bytes([*reversed(rgb(x, y)), alpha(x, y)]) for x in range(W)) for y in range(H)]
ramp = lambda x, y: (x * 255 // (W - 1) + y) % 256
masks = (0x00FF0000, 0x0000FF00, 0x000000FF, 0xFF000000)
pixels = b"".join(reversed(bgra_rows(ramp)))
bmp(f"{out}/bmp/v5-alpha.bmp", v5(W, H, 32, 3, masks, len(pixels)), b"", pixels)
pam(f"{out}/bmp/v5-alpha.ref.pam", W, H, [(*rgb(x, y), ramp(x, y)) for y in range(H) for x in range(W)], True)
pixels = b"".join(reversed(bgra_rows(lambda x, y: 0)))
bmp(f"{out}/bmp/zero-alpha.bmp", v5(W, H, 32, 3, masks, len(pixels)), b"", pixels)
pam(f"{out}/bmp/zero-alpha.ref.pam", W, H, picture, False)
bmp(f"{out}/bmp/rgb32.bmp", info40(W, H, 32, 0), b"", pixels)
pam(f"{out}/bmp/rgb32.ref.pam", W, H, picture, False)

whole = open(f"{out}/bmp/bgr24.bmp", "rb").read()
open(f"{out}/bmp/cut.bmp", "wb").write(whole[: len(whole) * 6 // 10])
huge = b"BM" + struct.pack("<IHHI", 100, 0, 0, 54) + info40(65535, 65535, 24, 0)
open(f"{out}/bmp/huge.bmp", "wb").write(huge + b"\x7f" * (100 - len(huge)))

# Raw samples for ffmpeg's TIFF encoder: RGBA with alpha varying, 16-bit gradients.
open(f"{out}/rgba.raw", "wb").write(b"".join(bytes([*rgb(x, y), ramp(x, y)]) for y in range(H) for x in range(W)))
def g16(x, y, c):
    return (x * 317 + y * 211 + c * 9973 + (x * y) % 97) % 65536
open(f"{out}/rgb48.raw", "wb").write(b"".join(struct.pack("<HHH", g16(x, y, 0), g16(x, y, 1), g16(x, y, 2)) for y in range(H) for x in range(W)))
open(f"{out}/gray16.raw", "wb").write(b"".join(struct.pack("<H", g16(x, y, 1)) for y in range(H) for x in range(W)))

# Hand-built TIFFs: little-endian, the directory right after the header, then the strips.
def tiff(path, width, height, samples, photometric, data, rows_per_strip, extra_tags=()):
    tags = []  # (tag, type, count, value bytes)
    def add(tag, kind, values):
        fmt = {3: "<H", 4: "<I", 7: "<B"}[kind]
        tags.append((tag, kind, len(values), b"".join(struct.pack(fmt, v) for v in values)))
    row = width * samples
    strips = [data[i:i + row * rows_per_strip] for i in range(0, len(data), row * rows_per_strip)]
    add(256, 4, [width]); add(257, 4, [height]); add(258, 3, [8] * samples); add(259, 3, [1])
    add(262, 3, [photometric]); add(273, 4, [0] * len(strips)); add(277, 3, [samples])
    add(278, 4, [rows_per_strip]); add(279, 4, [len(s) for s in strips]); add(284, 3, [1])
    if photometric == 5:
        add(332, 3, [1])
    for tag, blob in extra_tags:
        add(tag, 7, list(blob))
    tags.sort()
    ifd_size = 2 + 12 * len(tags) + 4
    heap_at = 8 + ifd_size
    heap = bytearray()
    entries = []
    offsets_entry = None
    for tag, kind, count, value in tags:
        if len(value) <= 4:
            entries.append([tag, kind, count, value.ljust(4, b"\0")])
        else:
            entries.append([tag, kind, count, struct.pack("<I", heap_at + len(heap))])
            heap += value + b"\0" * (len(value) % 2)
    data_at = heap_at + len(heap)
    offsets = []
    for s in strips:
        offsets.append(data_at)
        data_at += len(s)
    value = b"".join(struct.pack("<I", o) for o in offsets)
    for e in entries:
        if e[0] == 273:
            if len(value) <= 4:
                e[3] = value
            else:
                at = struct.unpack("<I", e[3])[0] - heap_at
                heap[at:at + len(value)] = value
    ifd = struct.pack("<H", len(entries)) + b"".join(struct.pack("<HHI", t, k, c) + v for t, k, c, v in entries) + b"\0\0\0\0"
    open(path, "wb").write(b"II*\0" + struct.pack("<I", 8) + ifd + heap + b"".join(strips))

cmyk = bytearray()
expected = []
for y in range(H):
    for x in range(W):
        r, g, b = rgb(x, y)
        k = 255 - max(r, g, b)
        c, m, ye = [(255 - v - k) * 255 // (255 - k) if k < 255 else 0 for v in (r, g, b)]
        cmyk += bytes([c, m, ye, k])
        expected.append(tuple(((255 - ink) * (255 - k) + 127) // 255 for ink in (c, m, ye)))
tiff(f"{out}/tiff/cmyk.tiff", W, H, 4, 5, bytes(cmyk), 16)
pam(f"{out}/tiff/cmyk.ref.pam", W, H, expected, False)
profile = open("/usr/share/color/icc/ghostscript/ps_cmyk.icc", "rb").read()
tiff(f"{out}/tiff/cmyk-icc.tiff", W, H, 4, 5, bytes(cmyk), 16, [(34675, profile)])
tiff(f"{out}/tiff/strips.tiff", W, H, 3, 2, src, 8)
tiff(f"{out}/tiff/icc.tiff", W, H, 3, 2, src, 8, [(34675, icc)])
whole = open(f"{out}/tiff/strips.tiff", "rb").read()
open(f"{out}/tiff/cut.tiff", "wb").write(whole[: len(whole) * 6 // 10])
PY

# TIFF from ffmpeg.
for algo in packbits lzw deflate; do ff "${raw[@]}" "${exact[@]}" -compression_algo $algo "tiff/rgb-$algo.tiff"; done
ff "${raw[@]}" "${exact[@]}" -pix_fmt gray tiff/gray.tiff
ff "${raw[@]}" "${exact[@]}" -pix_fmt pal8 tiff/pal8.tiff
ff "${raw[@]}" "${exact[@]}" -pix_fmt monob tiff/monob.tiff
ff -f rawvideo -pix_fmt rgba -s 121x87 -i rgba.raw "${exact[@]}" -compression_algo deflate tiff/rgba.tiff
ff -f rawvideo -pix_fmt rgb48le -s 121x87 -i rgb48.raw "${exact[@]}" -compression_algo deflate tiff/rgb48.tiff
ff -f rawvideo -pix_fmt gray16le -s 121x87 -i gray16.raw "${exact[@]}" -compression_algo deflate tiff/gray16.tiff
# tiffcp and tiffset (libtiff-tools).
tiffcp -c lzw -t -w 64 -l 64 tiff/rgb-packbits.tiff tiff/tiled.tiff
tiffcp -c zip -t -w 64 -l 64 tiff/rgb48.tiff tiff/tiled48.tiff
tiffcp -c jpeg:90 -r 16 tiff/rgb-packbits.tiff tiff/jpeg.tiff
tiffcp -8 -c lzw tiff/rgb-packbits.tiff tiff/bigtiff.tiff
tiffcp -p separate -c lzw tiff/rgb-packbits.tiff tiff/planar.tiff
ff -i "$MEDIA/photos/tokyo.jpg" -vf scale=64:48 "${exact[@]}" -pix_fmt rgb24 small.tiff
tiffcp tiff/rgb-lzw.tiff tiff/gray.tiff small.tiff tiff/multi.tiff
cp tiff/rgb-lzw.tiff tiff/orient6.tiff && tiffset -s 274 6 tiff/orient6.tiff
cp tiff/jpeg.tiff tiff/orient8-jpeg.tiff && tiffset -s 274 8 tiff/orient8-jpeg.tiff
exiftool -q -o tiff/gps.tiff -Make=Scanner -Model=X1 -GPSLatitude=48.85 -GPSLatitudeRef=N -GPSLongitude=2.35 \
  -GPSLongitudeRef=E tiff/rgb-lzw.tiff
tificc -w8 tiff/cmyk-icc.tiff tiff/cmyk-icc.ref.tiff
rm -f source.rgb rgba.raw rgb48.raw gray16.raw small.tiff
