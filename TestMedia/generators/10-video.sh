#!/usr/bin/env bash
# Video fixtures for probing and the video engine: small deterministic clips (0.4 s, 320x180).
#
#   iphone-like.mov      HEVC (hvc1, rotated 90° in tkhd) + AAC stereo + AAC mono (fra) + tmcd
#                        timecode track + ©xyz location: the shape of an iPhone recording.
#   pq-hevc.mp4          HEVC Main 10, BT.2020/PQ colour tags, mastering display and MaxCLL SEI.
#   hlg-hevc.mov         HEVC Main 10, BT.2020/HLG colour tags.
#   sdr-h264.mkv         H.264 + Opus in Matroska.
#   sdr-vp9.webm         VP9 + Opus in WebM.
#   sdr-mpeg4.avi        MPEG-4 Part 2 + PCM in AVI.
#   sdr-h264.ts          H.264 + AAC in MPEG-TS.
#   pq-hevc.mkv          pq-hevc.mp4's HEVC stream remuxed into Matroska.
#   dvcc-p5.mp4          HEVC 10-bit whose sample entry is renamed dvh1 and carries a dvcC box:
#                        Dolby Vision profile 5 level 3, RPU + BL, compatibility id 0 (no base).
#   dvwc-p8.mp4          pq-hevc.mp4 with a dvwC box added: Dolby Vision 8.1, HDR10-compatible base.
#   truncated-moov.mp4   the first half of a moov-at-end MP4: no movie box at all.
#   truncated-mdat.mp4   a faststart MP4 cut inside its mdat: header complete, media missing.
#   jpeg-named.heic      a JPEG with a .heic name (identified by content).
#   not-media.txt        plain text.
#
# No real file with dvcC/dvwC boxes is available, so box_edit (below) writes the box into the
# generated MP4's first sample entry and grows every enclosing box. ffmpeg writes moov after mdat
# unless told otherwise, so no chunk offset moves.
set -euo pipefail
cd "$OUT"
# Output options go right before each output name (ffmpeg applies options to the next file).
exact=(-fflags +bitexact -map_metadata -1 -flags:v +bitexact -flags:a +bitexact)
x265=(-c:v libx265 -preset ultrafast -x265-params "pools=none:frame-threads=1:log-level=error")
src=(-f lavfi -i "testsrc2=size=320x180:rate=25" -t 0.4)

box_edit() {
python3 - "$@" <<'PY'
import struct, sys

def boxes(data, start, end):
    pos = start
    while pos + 8 <= end:
        size, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if size == 1:
            size = struct.unpack(">Q", data[pos + 8:pos + 16])[0]
        elif size == 0:
            size = end - pos
        yield pos, size, kind
        pos += size

def find(data, start, end, kind):
    for pos, size, k in boxes(data, start, end):
        if k == kind:
            return pos, size
    raise SystemExit("box %r not found" % kind)

def grow(data, pos, delta):
    size = struct.unpack(">I", data[pos:pos + 4])[0]
    assert size > 1, "largesize boxes are not expected in generated fixtures"
    data[pos:pos + 4] = struct.pack(">I", size + delta)

path, out, kind, rename = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
fields = [int(x) for x in sys.argv[5].split(",")] if len(sys.argv) > 5 else []
data = bytearray(open(path, "rb").read())
moov, moov_size = find(data, 0, len(data), b"moov")
mdat, _ = find(data, 0, len(data), b"mdat")
assert mdat < moov, "moov must follow mdat so chunk offsets stay valid"
chain = [moov]
trak, trak_size = find(data, moov + 8, moov + moov_size, b"trak")
chain.append(trak)
parent, parent_size = trak, trak_size
for name in (b"mdia", b"minf", b"stbl", b"stsd"):
    parent, parent_size = find(data, parent + 8, parent + parent_size, name)
    chain.append(parent)
entry = parent + 16  # stsd: header, version/flags, entry_count
entry_size = struct.unpack(">I", data[entry:entry + 4])[0]
chain.append(entry)
if kind == "tkhd":
    tkhd, _ = find(data, trak + 8, trak + trak_size, b"tkhd")
    version = data[tkhd + 8]
    matrix_at = tkhd + 8 + 4 + (32 if version == 1 else 20) + 16
    data[matrix_at:matrix_at + 36] = struct.pack(">9i", *fields)
else:
    major, minor, profile, level, rpu, el, bl, compat = fields
    bits = (profile << 9) | (level << 3) | (rpu << 2) | (el << 1) | bl
    payload = struct.pack(">BBHB", major, minor, bits, compat << 4) + bytes(19)
    box = struct.pack(">I4s", 8 + len(payload), kind.encode()) + payload
    data[entry + entry_size:entry + entry_size] = box
    for pos in chain:
        grow(data, pos, len(box))
if rename != "-":
    data[entry + 4:entry + 8] = rename.encode()
open(out, "wb").write(data)
PY
}

# iPhone-like multi-track MOV.
ffmpeg -v error -y "${src[@]}" \
  -f lavfi -i "sine=frequency=440:sample_rate=48000" -f lavfi -i "sine=frequency=660:sample_rate=44100" \
  -map 0:v -map 1:a -map 2:a -t 0.4 "${x265[@]}" -tag:v hvc1 -pix_fmt yuv420p \
  -c:a aac -ac:a:0 2 -ac:a:1 1 -metadata:s:a:1 language=fra -timecode 01:02:03:04 \
  -metadata location="+48.8583+002.2945/" "${exact[@]}" iphone-like-unrotated.mov
box_edit iphone-like-unrotated.mov iphone-like.mov tkhd - 0,65536,0,-65536,0,0,11796480,0,1073741824
rm iphone-like-unrotated.mov

# 10-bit PQ and HLG HEVC with colour tags in the bitstream and in the container.
ffmpeg -v error -y "${src[@]}" -c:v libx265 -preset ultrafast -pix_fmt yuv420p10le -tag:v hvc1 \
  -x265-params "pools=none:frame-threads=1:log-level=error:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc:range=limited:master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1):max-cll=1000,400:hdr10=1" \
  -color_primaries bt2020 -color_trc smpte2084 -colorspace bt2020nc -color_range tv "${exact[@]}" pq-hevc.mp4
ffmpeg -v error -y "${src[@]}" -c:v libx265 -preset ultrafast -pix_fmt yuv420p10le -tag:v hvc1 \
  -x265-params "pools=none:frame-threads=1:log-level=error:colorprim=bt2020:transfer=arib-std-b67:colormatrix=bt2020nc:range=limited" \
  -color_primaries bt2020 -color_trc arib-std-b67 -colorspace bt2020nc -color_range tv "${exact[@]}" hlg-hevc.mov
ffmpeg -v error -y -i pq-hevc.mp4 -c copy "${exact[@]}" pq-hevc.mkv

# Other containers, SDR.
ffmpeg -v error -y "${src[@]}" -f lavfi -i "sine=frequency=440:sample_rate=48000" -t 0.4 \
  -c:v libx264 -threads 1 -preset ultrafast -pix_fmt yuv420p -c:a libopus "${exact[@]}" sdr-h264.mkv
ffmpeg -v error -y "${src[@]}" -f lavfi -i "sine=frequency=440:sample_rate=48000" -t 0.4 \
  -c:v libvpx-vp9 -threads 1 -deadline realtime -cpu-used 8 -b:v 200k -c:a libopus "${exact[@]}" sdr-vp9.webm
ffmpeg -v error -y "${src[@]}" -f lavfi -i "sine=frequency=440:sample_rate=48000" -t 0.4 \
  -c:v mpeg4 -q:v 5 -c:a pcm_s16le "${exact[@]}" sdr-mpeg4.avi
ffmpeg -v error -y "${src[@]}" -f lavfi -i "sine=frequency=440:sample_rate=48000" -t 0.4 \
  -c:v libx264 -threads 1 -preset ultrafast -pix_fmt yuv420p -c:a aac "${exact[@]}" sdr-h264.ts

# Dolby Vision configuration boxes written into generated HEVC sample entries.
ffmpeg -v error -y "${src[@]}" "${x265[@]}" -pix_fmt yuv420p10le -tag:v hvc1 "${exact[@]}" dv-base.mp4
box_edit dv-base.mp4 dvcc-p5.mp4 dvcC dvh1 1,0,5,3,1,0,1,0
box_edit pq-hevc.mp4 dvwc-p8.mp4 dvwC - 1,0,8,1,1,0,1,1
rm dv-base.mp4

# Truncated and mislabelled files.
ffmpeg -v error -y "${src[@]}" -c:v libx264 -threads 1 -preset ultrafast -pix_fmt yuv420p "${exact[@]}" whole.mp4
head -c $(( $(stat -c %s whole.mp4) / 2 )) whole.mp4 > truncated-moov.mp4
ffmpeg -v error -y -i whole.mp4 -c copy -movflags +faststart "${exact[@]}" whole-faststart.mp4
head -c $(( $(stat -c %s whole-faststart.mp4) * 2 / 3 )) whole-faststart.mp4 > truncated-mdat.mp4
rm whole.mp4 whole-faststart.mp4
cp "$MEDIA/photos/tokyo.jpg" jpeg-named.heic
printf 'This is a text file, not media.\n' > not-media.txt
