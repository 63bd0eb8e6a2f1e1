#!/usr/bin/env bash
# PNGs that describe their colour and text in chunks (issue #55), into generated/png-chunks/.
# Hand-built with python3 (zlib and struct only, the chunk layouts of the PNG 3rd edition), each a
# few hundred bytes:
#   gamma16.png, gamma10.png, gamma25.png — a 256x2 grey ramp (colour type 2, R=G=B=x) with gAMA
#     62500 (1/1.6), 100000 (linear) and 250000 (2.5, as PngSuite's g25n2c08): no cHRM.
#   chrm-swap.png — 16x16 colours with gAMA 45455 and a cHRM whose red and green primaries are
#     swapped (D65 white), as the chrm-red-green-swap test image.
#   cicp-p3.png — 16x16 colours with cICP 12/13/0/1 (Display P3 primaries, sRGB transfer).
#   cicp-over-gamma.png — cicp-p3.png's pixels with gAMA 62500 before the cICP: cICP wins.
#   srgb-over-gamma.png — the ramp with sRGB and gAMA 62500: sRGB wins, the pixels are sRGB.
#   texts.png — 16x16 with tEXt Title, zTXt Description, iTXt Author (UTF-8, "de"), tEXt Comment
#     and Software before the image data, and tEXt Copyright (Latin-1 "©") after it.
#   cicp-pq.png — a 64x8 16-bit grey ramp (0 to 65535) with cICP 9/16/0/1 (BT.2020, PQ).
#   grey1.png, pal2.png, grey4.png — 1-bit grey, 2-bit palette and 4-bit grey pictures.
#   idat-crc.png — grey4.png with its IDAT's CRC wrong; idat-zlib.png — with a byte of its
#     deflate stream changed and the CRC made right again (libpng: "invalid ... distance" or similar).
set -euo pipefail
mkdir -p "$OUT/png-chunks"
cd "$OUT/png-chunks"
python3 - <<'PY'
import struct, zlib


def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def png(width, height, depth, colour, rows, before=(), after=(), palette=None):
    """rows: the packed bytes of each row (filter byte 0 is added)."""
    head = chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, 0))
    body = b"".join(chunk(k, v) for k, v in before)
    if palette:
        body += chunk(b"PLTE", palette)
    data = zlib.compress(b"".join(b"\0" + r for r in rows), 9)
    tail = b"".join(chunk(k, v) for k, v in after)
    return b"\x89PNG\r\n\x1a\n" + head + body + chunk(b"IDAT", data) + tail + chunk(b"IEND", b"")


def gama(value):
    return (b"gAMA", struct.pack(">I", value))


ramp = [bytes(v for x in range(256) for v in (x, x, x))] * 2
for name, value in (("gamma16", 62500), ("gamma10", 100000), ("gamma25", 250000)):
    open(f"{name}.png", "wb").write(png(256, 2, 8, 2, ramp, before=[gama(value)]))
open("srgb-over-gamma.png", "wb").write(png(256, 2, 8, 2, ramp, before=[(b"sRGB", b"\0"), gama(62500)]))

# 16x16 colours: every pairing of 4 levels of red, green and blue, and some greys.
levels = (0, 60, 160, 255)
colours = [(r, g, b) for r in levels for g in levels for b in levels] * 4
square = [bytes(v for c in colours[y * 16:(y + 1) * 16] for v in c) for y in range(16)]
chrm = struct.pack(">8I", 31270, 32900, 30000, 60000, 64000, 33000, 15000, 6000)
open("chrm-swap.png", "wb").write(png(16, 16, 8, 2, square, before=[gama(45455), (b"cHRM", chrm)]))
cicp = (b"cICP", bytes([12, 13, 0, 1]))
open("cicp-p3.png", "wb").write(png(16, 16, 8, 2, square, before=[cicp]))
open("cicp-over-gamma.png", "wb").write(png(16, 16, 8, 2, square, before=[gama(62500), cicp]))

deep = [b"".join(struct.pack(">HHH", v, v, v) for v in (65535 * x // 63 for x in range(64)))] * 8
open("cicp-pq.png", "wb").write(png(64, 8, 16, 2, deep, before=[(b"cICP", bytes([9, 16, 0, 1]))]))

texts_before = [
    (b"tEXt", b"Title\0Harbour at dusk"),
    (b"zTXt", b"Description\0\0" + zlib.compress(b"Boats in the harbour, the lights coming on. " * 4)),
    (b"iTXt", b"Author\0\0\0de\0Autor\0" + "Zoë Müller".encode()),
    (b"tEXt", b"Comment\0printed from the office scanner"),
    (b"tEXt", b"Software\0Paint 1.0"),
]
texts_after = [(b"tEXt", "Copyright\0© 2026 Zoë Müller".encode("latin-1"))]
open("texts.png", "wb").write(png(16, 16, 8, 2, square, before=texts_before, after=texts_after))

# Low bit depths: rows packed most significant bits first (PNG 3rd edition, 7.2).
def packed(values, depth):
    bits = "".join(format(v, f"0{depth}b") for v in values)
    bits += "0" * (-len(bits) % 8)
    return bytes(int(bits[i:i + 8], 2) for i in range(0, len(bits), 8))


open("grey1.png", "wb").write(png(13, 5, 1, 0, [packed([(x + y) % 2 for x in range(13)], 1) for y in range(5)]))
palette = bytes([0, 0, 0, 255, 0, 0, 0, 255, 0, 255, 255, 255])
open("pal2.png", "wb").write(
    png(13, 5, 2, 3, [packed([(x + y) % 4 for x in range(13)], 2) for y in range(5)], palette=palette))
grey4 = png(13, 5, 4, 0, [packed([(x * 3 + y) % 16 for x in range(13)], 4) for y in range(5)])
open("grey4.png", "wb").write(grey4)

# The IDAT is the third chunk: signature 8 + IHDR 25.
idat = 33
length = struct.unpack(">I", grey4[idat:idat + 4])[0]
crc_at = idat + 8 + length
broken = bytearray(grey4)
broken[crc_at] ^= 0xFF
open("idat-crc.png", "wb").write(bytes(broken))
damaged = bytearray(grey4)
# The first deflate block's header bits (after the 2-byte zlib header): 0b111 is a reserved
# block type, which zlib refuses ("invalid block type").
damaged[idat + 8 + 2] |= 0x07
damaged[crc_at:crc_at + 4] = struct.pack(">I", zlib.crc32(bytes(damaged[idat + 4:crc_at])) & 0xFFFFFFFF)
open("idat-zlib.png", "wb").write(bytes(damaged))
PY
