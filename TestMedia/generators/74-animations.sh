#!/usr/bin/env bash
# Animations as the web and phones share them, 24 frames at 10 fps (2.4 s), 160x120:
#   anim/spinner.gif    ffmpeg's GIF encoder with a generated palette: after the first frame it
#                       stores only the changed rectangle over a transparent index, so a reader
#                       must composite each frame on the ones before it
#   anim/spinner.webp   the same frames as a lossless animated WebP (gif2webp, Debian's webp)
#   anim/spinner.apng   the same frames as an APNG (ffmpeg's apng muxer), looping forever
#   anim/cut.gif        spinner.gif cut after two thirds (an interrupted download)
#   anim/bomb.webp      an animation bomb (issue #55): a VP8X canvas of 16383x16383, the pixel
#                       limit, and 10,000 ANMF frames of one lossless 1x1 pixel each (libwebp's
#                       VP8L bitstream for one red pixel), 480 kB
#   anim/bomb.gif       the same as a GIF: a 16383x16383 logical screen and 3,000 1x1 image
#                       blocks with 10 ms delays, 69 kB
set -euo pipefail
mkdir -p "$OUT/anim"
cd "$OUT/anim"
exact=(-fflags +bitexact -map_metadata -1 -flags:v +bitexact)
source=(-f lavfi -i "testsrc2=size=160x120:rate=10,trim=end_frame=24")
ffmpeg -nostdin -v error -y "${source[@]}" -vf "split[a][b];[a]palettegen=stats_mode=full[p];[b][p]paletteuse=dither=none" \
  "${exact[@]}" -loop 0 spinner.gif
gif2webp -quiet spinner.gif -o spinner.webp
ffmpeg -nostdin -v error -y "${source[@]}" -pix_fmt rgb24 "${exact[@]}" -plays 0 -f apng spinner.apng
size=$(stat -c %s spinner.gif)
head -c $((size * 2 / 3)) spinner.gif > cut.gif
python3 - <<'PY'
import struct
def chunk(kind, data):
    return kind + struct.pack("<I", len(data)) + data + (b"\0" if len(data) & 1 else b"")
side = 16383
pixel = chunk(b"VP8L", bytes.fromhex("2f000000000710fd8ffe0722a2ff01"))
frames = b""
for k in range(10000):
    x, y = (k * 37) % 8000 // 2, (k * 91) % 8000 // 2
    header = b"".join(v.to_bytes(3, "little") for v in (x, y, 0, 0, 10)) + b"\0"
    frames += chunk(b"ANMF", header + pixel)
canvas = bytes([0x12, 0, 0, 0]) + (side - 1).to_bytes(3, "little") * 2
body = b"WEBP" + chunk(b"VP8X", canvas) + chunk(b"ANIM", bytes(4) + bytes(2)) + frames
open("bomb.webp", "wb").write(b"RIFF" + struct.pack("<I", len(body)) + body)
gif = bytearray(b"GIF89a" + struct.pack("<HH", side, side) + bytes([0xF0, 0, 0]) + bytes([0, 0, 0, 255, 0, 0]))
gif += b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00"
for k in range(3000):
    gif += b"\x21\xf9\x04\x04\x0a\x00\x00\x00"
    gif += b"\x2c" + struct.pack("<HHHH", (k * 37) % 8000, (k * 91) % 8000, 1, 1) + b"\x00"
    gif += b"\x02\x02\x44\x01\x00"
open("bomb.gif", "wb").write(gif + b"\x3b")
PY
