#!/usr/bin/env bash
# Camcorder footage as AVCHD stores it (issue #56): interlaced H.264 in MPEG-TS with AC-3 sound.
#   interlaced/camcorder.mts   13 frames of 640x360 at 25 frames (50 fields) a second, top field
#                              first: testsrc2 at 50p woven two frames into one (interlace filter),
#                              x264 coding interlaced (+ildct+ilme, tff), so ffprobe reads
#                              field_order=tt as it does on a Sony AVCHD clip; 0.52 s of AC-3.
set -euo pipefail
mkdir -p "$OUT/interlaced"
ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=size=640x360:rate=50,trim=end_frame=26" \
  -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=0.52" \
  -vf "interlace=scan=tff" -c:v libx264 -preset veryfast -flags +ildct+ilme -x264opts tff=1 -pix_fmt yuv420p \
  -c:a ac3 -b:a 128k -fflags +bitexact -map_metadata -1 -flags:v +bitexact -f mpegts \
  "$OUT/interlaced/camcorder.mts"
