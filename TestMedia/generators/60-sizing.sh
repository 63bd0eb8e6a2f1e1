#!/usr/bin/env bash
# Fixtures for size targets (compress, email): small clips that must be re-encoded (HEVC), so the
# target is a ceiling the planner must not fill for its own sake.
#   sizing-120fps.mp4    1 s HEVC at 120 fps, 160x90, no audio: the frame rate must survive.
#   sizing-90fps.mp4     1 s HEVC at 90 fps, 160x90, no audio.
#   sizing-5frames.mp4   5 frames of HEVC at 30 fps, 320x180 (0.17 s): an ample target must not
#                        ask libx264 for an impossible bitrate.
#   sizing-lowrate.mp4   40 s of an almost still picture at 15 fps, 320x240, HEVC + AAC at a low
#                        bitrate: the smallest reachable size must follow the content.
#   sizing-mp3.mp4       2 s H.264 (plays everywhere) + MP3 sound, which MP4 output cannot copy:
#                        the video is copied, only the sound re-encoded.
#   sizing-444-mp3.mp4   12 s of noisy 640x360 at 20 fps, H.264 High 4:4:4 at about 390 kb/s with
#                        MP3 mono (both must be re-encoded): CRF 23 would come out larger than the
#                        file, so a roomy target must still give an output no larger than it.
#   sizing-aac-big.mp4   40 s of 320x240 at 10 fps, H.264 High 4:4:4 (re-encoded) with AAC stereo
#                        at about 115 kb/s, a sound that is most of the file: under a 1 MB target the
#                        small picture leaves room, so the sound must be copied, not cut.
#   sizing-short-noise.ts  2.5 s of noisy 640x360 at 24 fps, MPEG-2 with MP2 sound in MPEG-TS: so
#                        short that x264 can spend a 2 s VBV buffer at once, far over its average
#                        (a real 2.5 s broadcast clip missed its target three times that way).
set -euo pipefail
ff() { ffmpeg -nostdin -v error -y "$@"; }
common=(-fflags +bitexact -flags:v +bitexact -flags:a +bitexact -map_metadata -1)
hevc=(-c:v libx265 -preset ultrafast -tag:v hvc1 -pix_fmt yuv420p)
params="pools=none:frame-threads=1:log-level=error"

for rate in 120 90; do
  ff -f lavfi -i "testsrc2=size=160x90:rate=$rate:duration=1" "${hevc[@]}" -x265-params "$params" "${common[@]}" "$OUT/sizing-${rate}fps.mp4"
done
ff -f lavfi -i "testsrc2=size=320x180:rate=30" -frames:v 5 "${hevc[@]}" -x265-params "$params" "${common[@]}" "$OUT/sizing-5frames.mp4"
# A still test card with a small box moving across it, and a quiet tone.
ff -f lavfi -i "smptebars=size=320x240:rate=15:duration=40" \
   -f lavfi -i "color=white:size=16x16:rate=15" \
   -f lavfi -i "sine=frequency=440:sample_rate=22050:duration=40" \
   -filter_complex "[0:v][1:v]overlay=x='mod(n*2,300)':y=200:shortest=1[v]" -map "[v]" -map 2:a \
   "${hevc[@]}" -x265-params "$params:crf=34" \
   -c:a aac -ac 1 -b:a 12k "${common[@]}" "$OUT/sizing-lowrate.mp4"
ff -f lavfi -i "testsrc2=size=160x90:rate=30:duration=2" -f lavfi -i "sine=frequency=440:sample_rate=44100:duration=2" \
   -c:v libx264 -preset ultrafast -pix_fmt yuv420p -c:a libmp3lame -b:a 128k "${common[@]}" "$OUT/sizing-mp3.mp4"
# Handheld-looking noise on a test card: hard to code, so its 4:4:4 source at a low bitrate is
# already smaller than an H.264 4:2:0 CRF 23 encode of it.
ff -f lavfi -i "testsrc2=size=640x360:rate=20:duration=12" \
   -f lavfi -i "sine=frequency=330:sample_rate=44100:duration=12" \
   -vf "noise=alls=24:allf=t+u" -c:v libx264 -preset ultrafast -pix_fmt yuv444p -b:v 390k -maxrate 390k \
   -bufsize 780k -c:a libmp3lame -ac 1 -b:a 64k "${common[@]}" "$OUT/sizing-444-mp3.mp4"
ff -f lavfi -i "testsrc2=size=320x240:rate=10:duration=40" \
   -f lavfi -i "sine=frequency=440:sample_rate=44100:duration=40" -f lavfi -i "sine=frequency=660:sample_rate=44100:duration=40" \
   -filter_complex "[1:a][2:a]amerge=inputs=2[a]" -map 0:v -map "[a]" \
   -c:v libx264 -preset ultrafast -pix_fmt yuv444p -crf 30 -c:a aac -b:a 116k "${common[@]}" "$OUT/sizing-aac-big.mp4"
ff -f lavfi -i "testsrc2=size=640x360:rate=24:duration=2.5" -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=2.5" \
   -vf "noise=alls=12:allf=t" -c:v mpeg2video -q:v 3 -c:a mp2 -b:a 384k "${common[@]}" "$OUT/sizing-short-noise.ts"
