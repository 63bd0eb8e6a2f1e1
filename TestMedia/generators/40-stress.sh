#!/usr/bin/env bash
# Inputs for the stress simulation, which runs 150 conversions at once in a debug build: each
# must cost milliseconds.
#   stress-tiny.mp4   H.264 96x54, 6 frames at 15 fps + AAC mono 0.4 s, faststart MP4 (~10 KB).
#   stress-tiny.png   64x48 RGBA PNG (transparency kept by WebP, flattened for JPEG).
set -euo pipefail
ff() { ffmpeg -nostdin -v error -y "$@"; }
ff -f lavfi -i "testsrc2=size=96x54:rate=15" -f lavfi -i "sine=frequency=440:sample_rate=44100:duration=0.4" \
  -t 0.4 -map 0:v -map 1:a -c:v libx264 -preset ultrafast -x264-params "threads=1" -pix_fmt yuv420p \
  -c:a aac -b:a 32k -ac 1 -movflags +faststart -fflags +bitexact -map_metadata -1 \
  -flags:v +bitexact -flags:a +bitexact "$OUT/stress-tiny.mp4"
ff -f lavfi -i "testsrc=size=64x48:rate=1" -frames:v 1 -vf "format=rgba,geq=r='r(X,Y)':g='g(X,Y)':b='b(X,Y)':a='if(lt(X,16),0,255)'" \
  -fflags +bitexact -map_metadata -1 "$OUT/stress-tiny.png"
