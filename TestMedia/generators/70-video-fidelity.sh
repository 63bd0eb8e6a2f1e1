#!/usr/bin/env bash
# Fixtures for "the picture plays as it was filmed", raw streams and trimming (issue 18).
#
#   fidelity-180.mp4       H.264 160x90, 0.4 s, tkhd matrix turning it 180°: a phone held upside down.
#   fidelity-editlist.mp4  H.264 (GOP 25, B-frames) + AAC cut with `-ss 0.42 -t 2.55 -c copy`:
#                          its edit list hides the frames before the cut (77 packets, 66 shown).
#   fidelity-raw.hevc      a raw HEVC elementary stream (Annex B, no container), 10 frames at 25 fps.
#   fidelity-raw.h264      the same as raw H.264.
#   fidelity-14s.mp4       14 s of 64x36 H.264 at 5 fps, for trimming past the end.
#   fidelity-dv10.mp4      AV1 10-bit PQ whose sample entry is renamed dav1 and carries a dvvC box:
#                          Dolby Vision profile 10.1 (HDR10-compatible base), as no real file is at hand.
#   fidelity-spatial.mov   HEVC whose sample entry carries an (empty) vexu box, Apple's mark of a
#                          spatial video; no real MV-HEVC clip is at hand, and FFmpeg 5.1 reads
#                          only the base (left) view of one anyway.
set -euo pipefail
cd "$OUT"
exact=(-fflags +bitexact -map_metadata -1 -flags:v +bitexact -flags:a +bitexact)
h264=(-c:v libx264 -threads 1 -preset ultrafast -pix_fmt yuv420p)

ffmpeg -v error -y -f lavfi -i "testsrc2=size=160x90:rate=25" -t 0.4 "${h264[@]}" "${exact[@]}" fidelity-upright.mp4
python3 - fidelity-upright.mp4 fidelity-180.mp4 <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
at = data.find(b"tkhd")
assert at > 0 and data[at + 4] == 0, "a version 0 tkhd is expected"
matrix_at = at + 4 + 4 + 20 + 16
data[matrix_at:matrix_at + 36] = struct.pack(">9i", -65536, 0, 0, 0, -65536, 0, 160 << 16, 90 << 16, 1 << 30)
open(sys.argv[2], "wb").write(data)
PY
rm fidelity-upright.mp4

ffmpeg -v error -y -f lavfi -i "testsrc2=size=160x90:rate=25" -f lavfi -i "sine=frequency=440:sample_rate=48000" -t 3.5 \
  "${h264[@]}" -g 25 -bf 2 -c:a aac "${exact[@]}" fidelity-full.mp4
ffmpeg -v error -y -ss 0.42 -i fidelity-full.mp4 -t 2.55 -c copy "${exact[@]}" fidelity-editlist.mp4
rm fidelity-full.mp4

ffmpeg -v error -y -f lavfi -i "testsrc2=size=160x90:rate=25" -t 0.4 -c:v libx265 -preset ultrafast \
  -x265-params "pools=none:frame-threads=1:log-level=error" -pix_fmt yuv420p -f hevc fidelity-raw.hevc
ffmpeg -v error -y -f lavfi -i "testsrc2=size=160x90:rate=25" -t 0.4 "${h264[@]}" -f h264 fidelity-raw.h264

ffmpeg -v error -y -f lavfi -i "testsrc2=size=64x36:rate=5" -t 14 "${h264[@]}" "${exact[@]}" fidelity-14s.mp4

ffmpeg -v error -y -f lavfi -i "testsrc2=size=160x90:rate=25" -t 0.4 -pix_fmt yuv420p10le -c:v libsvtav1 -preset 12 \
  -color_trc smpte2084 -color_primaries bt2020 -colorspace bt2020nc "${exact[@]}" fidelity-av1.mp4 2>/dev/null
python3 - fidelity-av1.mp4 fidelity-dv10.mp4 <<'PY'
import struct, sys
def find(data, start, end, kind):
    pos = start
    while pos + 8 <= end:
        size, name = struct.unpack(">I4s", data[pos:pos + 8])
        if name == kind:
            return pos, size
        pos += size
    raise SystemExit("box %r not found" % kind)
data = bytearray(open(sys.argv[1], "rb").read())
moov, moov_size = find(data, 0, len(data), b"moov")
assert find(data, 0, len(data), b"mdat")[0] < moov, "moov must follow mdat so chunk offsets stay valid"
chain = [moov]
pos, size = find(data, moov + 8, moov + moov_size, b"trak")
chain.append(pos)
for name in (b"mdia", b"minf", b"stbl", b"stsd"):
    pos, size = find(data, pos + 8, pos + size, name)
    chain.append(pos)
entry = pos + 16
entry_size = struct.unpack(">I", data[entry:entry + 4])[0]
chain.append(entry)
assert data[entry + 4:entry + 8] == b"av01"
profile, level, rpu, el, bl, compat = 10, 1, 1, 0, 1, 1
payload = struct.pack(">BBHB", 1, 0, (profile << 9) | (level << 3) | (rpu << 2) | (el << 1) | bl, compat << 4) + bytes(19)
box = struct.pack(">I4s", 8 + len(payload), b"dvvC") + payload
data[entry + entry_size:entry + entry_size] = box
for at in chain:
    data[at:at + 4] = struct.pack(">I", struct.unpack(">I", data[at:at + 4])[0] + len(box))
data[entry + 4:entry + 8] = b"dav1"
open(sys.argv[2], "wb").write(data)
PY
rm fidelity-av1.mp4

ffmpeg -v error -y -f lavfi -i "testsrc2=size=160x90:rate=25" -t 0.4 -c:v libx265 -preset ultrafast -tag:v hvc1 \
  -x265-params "pools=none:frame-threads=1:log-level=error" -pix_fmt yuv420p "${exact[@]}" fidelity-flat.mov
python3 - fidelity-flat.mov fidelity-spatial.mov <<'PY'
import struct, sys
def find(data, start, end, kind):
    pos = start
    while pos + 8 <= end:
        size, name = struct.unpack(">I4s", data[pos:pos + 8])
        if name == kind:
            return pos, size
        pos += size
    raise SystemExit("box %r not found" % kind)
data = bytearray(open(sys.argv[1], "rb").read())
moov, moov_size = find(data, 0, len(data), b"moov")
assert find(data, 0, len(data), b"mdat")[0] < moov, "moov must follow mdat so chunk offsets stay valid"
chain = [moov]
pos, size = find(data, moov + 8, moov + moov_size, b"trak")
chain.append(pos)
for name in (b"mdia", b"minf", b"stbl", b"stsd"):
    pos, size = find(data, pos + 8, pos + size, name)
    chain.append(pos)
entry = pos + 16
entry_size = struct.unpack(">I", data[entry:entry + 4])[0]
chain.append(entry)
assert data[entry + 4:entry + 8] == b"hvc1"
box = struct.pack(">I4s", 8, b"vexu")
data[entry + entry_size:entry + entry_size] = box
for at in chain:
    data[at:at + 4] = struct.pack(">I", struct.unpack(">I", data[at:at + 4])[0] + len(box))
open(sys.argv[2], "wb").write(data)
PY
rm fidelity-flat.mov
