#!/usr/bin/env bash
# Clips whose headers do not give their length.
#   fragmented.mp4      3 s, 90 frames of H.264 + AAC in moof/mdat fragments (empty moov), its
#                       mvhd/tkhd/mdhd durations set to 0xFFFFFFFF as some screen recorders and
#                       browsers leave them ("143166 s" at 30000 ticks per second).
#   fragmented-cut.mp4  the same cut short inside its fragments (a download that stopped).
#   onefps-bframes.mp4  12 frames at 1 fps with B-frames: its last packet is decoded at 9 s but
#                       shown until 12 s.
set -euo pipefail
ff() { ffmpeg -nostdin -v error -y "$@"; }
common=(-fflags +bitexact -flags:v +bitexact -flags:a +bitexact -map_metadata -1)

ff -f lavfi -i "testsrc2=size=320x240:rate=30:duration=3" -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=3" \
   -c:v libx264 -preset ultrafast -g 30 -c:a aac -b:a 64k -video_track_timescale 30000 \
   -movflags frag_keyframe+empty_moov+default_base_moof "${common[@]}" "$OUT/fragmented-raw.mp4"
python3 - "$OUT/fragmented-raw.mp4" "$OUT/fragmented.mp4" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
# Offsets of the duration field in version-0 boxes, from the start of the box.
fields = {b"mvhd": 24, b"mdhd": 24, b"tkhd": 28}
def walk(start, end):
    at = start
    while at + 8 <= end:
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        if size < 8:
            break
        if kind in (b"moov", b"trak", b"mdia"):
            walk(at + 8, at + size)
        if kind in fields and data[at + 8] == 0:
            offset = at + fields[kind]
            data[offset:offset + 4] = b"\xff\xff\xff\xff"
        at += size
walk(0, len(data))
open(sys.argv[2], "wb").write(data)
PY
rm "$OUT/fragmented-raw.mp4"
head -c 250000 "$OUT/fragmented.mp4" > "$OUT/fragmented-cut.mp4"

ff -f lavfi -i "testsrc2=size=320x240:rate=1:duration=12" -c:v libx264 -preset ultrafast -bf 2 -g 12 \
   "${common[@]}" "$OUT/onefps-bframes.mp4"
