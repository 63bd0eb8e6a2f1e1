#!/usr/bin/env bash
# Fixtures for the video pipeline (frame pump, remux, tone mapping).
#   video-iphone-like.mov  HEVC + AAC stereo + second AAC (mono) + PCM + 2 subtitle tracks + a
#                          timecode track, with ©xyz and ISO6709 location tags: a stand-in for an
#                          iPhone clip's many tracks (FFmpeg cannot write mebx or APAC).
#   video-long.mp4         60 s H.264 + AAC at 160x90, for timestamp drift checks.
#   video-vfr.mp4          H.264 with variable frame durations (every other frame dropped in the middle).
#   video-size-change.ts   H.264 in MPEG-TS whose picture size changes from 160x90 to 320x180 after 1 s.
#   video-dv-p5.mp4        regular.mkv's HEVC with its dvvC rewritten to profile 5, compatibility 0.
#   video-dv-p82.mp4       the same rewritten to profile 8, compatibility 2 (SDR base layer).
set -euo pipefail
ff() { ffmpeg -nostdin -v error -y "$@"; }
common=(-fflags +bitexact -flags:v +bitexact -flags:a +bitexact)

ff -f lavfi -i "testsrc2=size=320x240:rate=30:duration=2" \
   -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=2" \
   -f lavfi -i "sine=frequency=660:sample_rate=44100:duration=2" \
   -f lavfi -i "sine=frequency=880:sample_rate=48000:duration=2" \
   -f srt -i <(printf '1\n00:00:00,000 --> 00:00:01,000\nhello\n\n') \
   -f srt -i <(printf '1\n00:00:01,000 --> 00:00:02,000\nbonjour\n\n') \
   -map 0:v -map 1:a -map 2:a -map 3:a -map 4:s -map 5:s \
   -c:v libx265 -preset ultrafast -x265-params log-level=error:seed=1 -tag:v hvc1 -pix_fmt yuv420p \
   -c:a:0 aac -ac:a:0 2 -b:a:0 96k -c:a:1 aac -ac:a:1 1 -b:a:1 64k -c:a:2 pcm_s16le -c:s mov_text \
   -timecode 01:00:00:00 \
   -metadata location="+40.6892-074.0445+010.000/" \
   -metadata com.apple.quicktime.location.ISO6709="+40.6892-074.0445+010.000/" \
   -metadata com.apple.quicktime.make=Apple -movflags use_metadata_tags \
   -map_metadata -1 -map_chapters -1 "${common[@]}" "$OUT/video-iphone-like.mov"

ff -f lavfi -i "testsrc2=size=160x90:rate=30:duration=60" \
   -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=60" \
   -c:v libx264 -preset ultrafast -g 60 -c:a aac -b:a 64k -map_metadata -1 "${common[@]}" "$OUT/video-long.mp4"

ff -f lavfi -i "testsrc2=size=160x90:rate=30:duration=4" \
   -vf "select='not(between(n\,30\,89)*mod(n\,2))'" -fps_mode vfr \
   -c:v libx264 -preset ultrafast -map_metadata -1 "${common[@]}" "$OUT/video-vfr.mp4"

for size in 160x90 320x180; do
  ff -f lavfi -i "testsrc2=size=$size:rate=30:duration=1" -c:v libx264 -preset ultrafast -pix_fmt yuv420p \
     -output_ts_offset "$([ $size = 160x90 ] && echo 0 || echo 1)" -map_metadata -1 "${common[@]}" -f mpegts "$OUT/part-$size.ts"
done
cat "$OUT/part-160x90.ts" "$OUT/part-320x180.ts" > "$OUT/video-size-change.ts"
rm "$OUT"/part-*.ts

ff -i "$MEDIA/video/regular.mkv" -map 0:v -c copy -strict unofficial -map_metadata -1 "${common[@]}" "$OUT/video-dv-base.mp4"
python3 - "$OUT/video-dv-base.mp4" "$OUT/video-dv-p5.mp4" "$OUT/video-dv-p82.mp4" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
at = max(data.find(b"dvcC"), data.find(b"dvvC"))  # profile 8 is stored in dvvC
assert at > 0, "no Dolby Vision configuration box"
def patched(profile, compat):
    out = bytearray(data)
    p = at + 4  # dv_version_major, dv_version_minor, then profile(7) level(6) rpu el bl, compat(4)
    level = ((out[p + 2] & 0x01) << 5) | (out[p + 3] >> 3)
    flags = out[p + 3] & 0x07
    out[p + 2] = (profile << 1) | (level >> 5)
    out[p + 3] = ((level & 0x1F) << 3) | flags
    out[p + 4] = (compat << 4) | (out[p + 4] & 0x0F)
    return bytes(out)
open(sys.argv[2], "wb").write(patched(5, 0))
open(sys.argv[3], "wb").write(patched(8, 2))
PY
rm "$OUT/video-dv-base.mp4"
