#!/usr/bin/env bash
# TGA, Netpbm, ICO, PSD and JPEG 2000 inputs (issue #55), small, into generated/stills/. The
# picture is tokyo.jpg scaled to 61x43 (odd sizes: padded rows, partial RLE packets).
#
# ffmpeg's encoders: rle24.tga (RLE, bottom-left origin), raw24.tga (-rle 0), rgba.tga (32-bit
#   RLE with an alpha ramp), gray.tga (8-bit grey), pal8.tga (colour-mapped, 24-bit map);
#   rgb.ppm (P6), gray16.pgm (P5, maxval 65535), mono.pbm (P4), rgba.pam (P7 RGB_ALPHA).
# opj_compress (libopenjp2-tools): rgb.jp2 (JP2 boxes) and rgb.j2k (a bare codestream, 3
#   resolutions, 64x64 code blocks), both lossless from the same PPM.
# Hand-built (python3, the formats' published layouts): plain.ppm (P3 with comments, maxval 1000),
#   icons.ico (a 16x16 8-bit DIB with an AND mask, a 32x32 32-bit DIB with alpha, and the 61x43
#   PNG whose directory entry says 61x43: the largest), mask.ico (a 24-bit DIB whose transparency
#   is its AND mask), cursor.cur (a 32x32 32-bit DIB); rgba-rle.psd (8-bit RGB and alpha, PackBits),
#   gray-raw.psd (8-bit grey, uncompressed), cmyk-rle.psd (8-bit CMYK, no profile, PackBits).
set -euo pipefail
mkdir -p "$OUT/stills"
exact=(-fflags +bitexact -map_metadata -1 -flags:v +bitexact)
ff() { ffmpeg -nostdin -v error -y "$@"; }
cd "$OUT/stills"
ff -i "$MEDIA/photos/tokyo.jpg" -vf scale=61:43:flags=bicubic "${exact[@]}" -pix_fmt rgb24 -f rawvideo source.rgb
raw=(-f rawvideo -pix_fmt rgb24 -s 61x43 -i source.rgb)
alpha=(-vf "format=rgba,geq=r='r(X,Y)':g='g(X,Y)':b='b(X,Y)':a='mod(X*4+Y*3,256)'")
ff "${raw[@]}" "${exact[@]}" -c:v targa rle24.tga
ff "${raw[@]}" "${exact[@]}" -c:v targa -rle 0 raw24.tga
ff "${raw[@]}" "${alpha[@]}" "${exact[@]}" -c:v targa -pix_fmt bgra rgba.tga
ff "${raw[@]}" "${exact[@]}" -c:v targa -pix_fmt gray gray.tga
ff "${raw[@]}" "${exact[@]}" -c:v targa -pix_fmt pal8 pal8.tga
ff "${raw[@]}" "${exact[@]}" rgb.ppm
ff "${raw[@]}" "${exact[@]}" -pix_fmt gray16be gray16.pgm
ff "${raw[@]}" "${exact[@]}" -pix_fmt monob mono.pbm
ff "${raw[@]}" "${alpha[@]}" "${exact[@]}" -pix_fmt rgba -c:v pam rgba.pam
ff "${raw[@]}" "${exact[@]}" -c:v png png61.png
opj_compress -i rgb.ppm -o rgb.jp2 >/dev/null
opj_compress -i rgb.ppm -o rgb.j2k -n 3 -b 64,64 >/dev/null
python3 - <<'PY'
import struct, zlib

W, H = 61, 43
rgb = open("source.rgb", "rb").read()
pixel = lambda x, y: rgb[(y * W + x) * 3:(y * W + x) * 3 + 3]
alpha = lambda x, y: (x * 4 + y * 3) % 256

# P3, with comments in the header and between rows' numbers, maxval 1000.
lines = ["P3", "# a comment", f"{W} {H}", "# another", "1000"]
for y in range(H):
    lines.append(" ".join(str(v * 1000 // 255) for x in range(W) for v in pixel(x, y)))
open("plain.ppm", "w").write("\n".join(lines) + "\n")

def dib(w, h, bits, pixels, mask):
    """A BITMAPINFOHEADER DIB of height 2h: the colours bottom-up, then the AND mask."""
    header = struct.pack("<IiiHHIIiiII", 40, w, 2 * h, 1, bits, 0, 0, 0, 0, 0, 0)
    body = b""
    palette = b""
    if bits == 8:
        colours = sorted(set(pixels[i] for i in range(w * h)))[:256]
        index = {c: i for i, c in enumerate(colours)}
        palette = b"".join(bytes([c[2], c[1], c[0], 0]) for c in colours) + b"\0" * 4 * (256 - len(colours))
    stride = (bits * w + 31) // 32 * 4
    for y in reversed(range(h)):
        row = b""
        for x in range(w):
            r, g, b, a = pixels[y * w + x]
            if bits == 32: row += bytes([b, g, r, a])
            elif bits == 24: row += bytes([b, g, r])
            else: row += bytes([index[(r, g, b, a)]])
        body += row + b"\0" * (stride - len(row))
    mstride = (w + 31) // 32 * 4
    for y in reversed(range(h)):
        bits_row = bytearray(mstride)
        for x in range(w):
            if mask(x, y): bits_row[x // 8] |= 0x80 >> (x % 8)
        body += bytes(bits_row)
    return header + palette + body

def square(n, with_alpha):
    out = []
    for y in range(n):
        for x in range(n):
            r, g, b = pixel(x * W // n, y * H // n)
            out.append((r, g, b, alpha(x, y) if with_alpha else 0))
    return out

def icon(path, kind, entries):
    head = struct.pack("<HHH", 0, kind, len(entries))
    offset = 6 + 16 * len(entries)
    directory, bodies = b"", b""
    for w, h, bits, body in entries:
        directory += struct.pack("<BBBBHHII", w % 256, h % 256, 0, 0, 1, bits, len(body), offset + len(bodies))
        bodies += body
    open(path, "wb").write(head + directory + bodies)

disc = lambda n: (lambda x, y: (x - n / 2) ** 2 + (y - n / 2) ** 2 > (n / 2) ** 2)
small = [(r & 0xC0, g & 0xC0, b & 0xC0, 0) for (r, g, b, _) in square(16, False)]
icon("icons.ico", 1, [
    (16, 16, 8, dib(16, 16, 8, small, disc(16))),
    (32, 32, 32, dib(32, 32, 32, square(32, True), lambda x, y: False)),
    (W, H, 32, open("png61.png", "rb").read()),
])
icon("mask.ico", 1, [(32, 32, 24, dib(32, 32, 24, square(32, False), disc(32)))])
icon("cursor.cur", 2, [(32, 32, 32, dib(32, 32, 32, square(32, True), lambda x, y: False))])

def packbits(row):
    out, i = b"", 0
    while i < len(row):
        run = 1
        while i + run < len(row) and run < 128 and row[i + run] == row[i]: run += 1
        if run >= 3:
            out += bytes([257 - run, row[i]]); i += run; continue
        j = i
        while j < len(row) and j - i < 128 and not (j + 2 < len(row) and row[j] == row[j + 1] == row[j + 2]): j += 1
        out += bytes([j - i - 1]) + row[i:j]; i = j
    return out

def psd(path, mode, planes, rle):
    head = b"8BPS" + struct.pack(">H6xHIIHH", 1, len(planes), H, W, 8, mode)
    sections = struct.pack(">I", 0) + struct.pack(">I", 0) + struct.pack(">I", 0)
    if rle:
        rows = [packbits(bytes(plane[y * W:(y + 1) * W])) for plane in planes for y in range(H)]
        data = struct.pack(">H", 1) + b"".join(struct.pack(">H", len(r)) for r in rows) + b"".join(rows)
    else:
        data = struct.pack(">H", 0) + b"".join(bytes(p) for p in planes)
    open(path, "wb").write(head + sections + data)

reds = [rgb[i * 3] for i in range(W * H)]
greens = [rgb[i * 3 + 1] for i in range(W * H)]
blues = [rgb[i * 3 + 2] for i in range(W * H)]
alphas = [alpha(i % W, i // W) for i in range(W * H)]
psd("rgba-rle.psd", 3, [reds, greens, blues, alphas], True)
psd("gray-raw.psd", 1, [[(r * 77 + g * 150 + b * 29) >> 8 for r, g, b in zip(reds, greens, blues)]], False)
# Photoshop stores ink inverted: 255 is none.
cyan = [255 - (255 - r) * 3 // 4 for r in reds]
psd("cmyk-rle.psd", 4, [cyan, [255 - (255 - g) * 3 // 4 for g in greens], [255 - (255 - b) * 3 // 4 for b in blues],
    [255 - min(r, g, b) // 4 for r, g, b in zip(reds, greens, blues)]], True)
PY
rm -f source.rgb png61.png
